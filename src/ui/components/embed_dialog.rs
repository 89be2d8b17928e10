//! "Embed this": the iframe snippet for the current state (with `embed=1`), ready to paste into a
//! blog post, with the parent-side resize script that checks the sender (docs/EMBED.md).

use crate::i18n::t;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EmbedDialogProps {
    /// The current state as a query string (without `?`).
    pub query: AttrValue,
}

/// The snippet for `page_url` (the app's address without query), embedding `query`.
pub fn snippet(page_url: &str, query: &str) -> String {
    let sep = if query.is_empty() { "" } else { "&" };
    let src = format!("{page_url}?{query}{sep}embed=1").replace('"', "%22").replace('<', "%3C").replace('>', "%3E");
    format!(
        r#"<iframe id="gpu-advisor" src="{src}"
  title="gpu-advisor" width="100%" height="900" loading="lazy" referrerpolicy="no-referrer" style="border:0"></iframe>
<script>
  (function () {{
    var frame = document.getElementById('gpu-advisor');
    var appOrigin = new URL(frame.src, location.href).origin;
    window.addEventListener('message', function (event) {{
      if (event.origin !== appOrigin || event.source !== frame.contentWindow) return;
      var data = event.data;
      if (data === null || typeof data !== 'object' || data.type !== 'gpu-advisor:height') return;
      if (typeof data.height !== 'number' || !isFinite(data.height) || data.height < 1 || data.height > 100000) return;
      frame.height = String(Math.ceil(data.height));
    }});
  }})();
</script>"#
    )
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
    let page_url = web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default();
    html! {
        <div class="embed-dialog">
            <button type="button" class="embed-dialog__toggle" aria-expanded={(*open).to_string()} onclick={toggle}>{ t(lang, "Embed this") }</button>
            if *open {
                <div class="embed-dialog__panel" role="dialog" aria-label={t(lang, "Embed this")}>
                    <p class="embed-dialog__hint">{ t(lang, "Paste this into your page. The iframe shows the current settings and resizes to its content.") }</p>
                    <label class="embed-dialog__label" for="embed-snippet">{ t(lang, "Snippet") }</label>
                    <textarea class="embed-dialog__code" id="embed-snippet" readonly=true rows="8" value={snippet(&page_url, &props.query)} />
                </div>
            }
        </div>
    }
}
