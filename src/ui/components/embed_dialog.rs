//! "Embed this": the iframe snippet for the current state (with `embed=1`), ready to paste into a
//! blog post, with the parent-side resize script that checks the sender (docs/EMBED.md). The
//! snippet is the one of `assets/embed-parent.html`, so the script is written once.

use crate::i18n::t;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EmbedDialogProps {
    /// The current state as a query string (without `?`).
    pub query: AttrValue,
}

/// The iframe and parent-side script of `assets/embed-parent.html` (cut out by build.rs), whose
/// iframe points at `./?embed=1`.
const SNIPPET: &str = include_str!(concat!(env!("OUT_DIR"), "/embed_snippet.html"));

/// The snippet for `page_url` (the app's address without query), embedding `query`.
pub fn snippet(page_url: &str, query: &str) -> String {
    let sep = if query.is_empty() { "" } else { "&" };
    let src = format!("{page_url}?{query}{sep}embed=1").replace('"', "%22").replace('<', "%3C").replace('>', "%3E");
    SNIPPET.replace("src=\"./?embed=1\"", &format!("src=\"{src}\""))
}

/// A disclosure in the footer holding the snippet.
#[function_component(EmbedDialog)]
pub fn embed_dialog(props: &EmbedDialogProps) -> Html {
    let lang = use_lang();
    let open = use_state(|| false);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    // The address is read only while the panel is open (each read crosses into JavaScript; the
    // footer renders again on every input).
    let page_url = || {
        web_sys::window()
            .and_then(|w| {
                let l = w.location();
                Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
            })
            .unwrap_or_default()
    };
    html! {
        <div class="embed-dialog">
            <button type="button" class="embed-dialog__toggle" aria-expanded={(*open).to_string()} onclick={toggle}>{ t(lang, "Embed this") }</button>
            if *open {
                <div class="embed-dialog__panel" role="dialog" aria-label={t(lang, "Embed this")}>
                    <p class="embed-dialog__hint">{ t(lang, "Paste this into your page. The iframe shows the current settings and resizes to its content.") }</p>
                    <label class="embed-dialog__label" for="embed-snippet">{ t(lang, "Snippet") }</label>
                    <textarea class="embed-dialog__code" id="embed-snippet" readonly=true rows="8" value={snippet(&page_url(), &props.query)} />
                </div>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_points_the_documented_iframe_at_the_state() {
        let s = snippet("https://example.com/gpu-advisor/", "model=sdxl&q=\"<x>\"");
        assert!(s.starts_with("<iframe id=\"gpu-advisor\" src=\"https://example.com/gpu-advisor/?model=sdxl&q=%22%3Cx%3E%22&embed=1\""), "{s}");
        // The parent-side script of assets/embed-parent.html, with its sender check.
        assert!(s.contains("if (event.origin !== appOrigin || event.source !== frame.contentWindow) return;"));
        assert!(s.trim_end().ends_with("</script>"));
        assert!(snippet("https://h/", "").contains("src=\"https://h/?embed=1\""));
    }
}
