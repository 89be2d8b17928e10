//! Sharing: copy a link that reproduces the page, and export the options as CSV or Markdown.

use crate::i18n::t;
use crate::recommend::Recommendation;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct ShareBarProps {
    pub rec: Option<Rc<Recommendation>>,
}

/// The same result is the same allocation: comparing by pointer keeps a keystroke from walking
/// the whole recommendation (the results are recomputed, and re-rendered, after the paint).
impl PartialEq for ShareBarProps {
    fn eq(&self, other: &Self) -> bool {
        match (&self.rec, &other.rec) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

fn download(name: &str, mime: &str, text: &str) -> Option<()> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let document = gloo::utils::document();
    let a: web_sys::HtmlAnchorElement = wasm_bindgen::JsCast::dyn_into(document.create_element("a").ok()?).ok()?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(&url).ok()
}

/// The share and export buttons.
#[function_component(ShareBar)]
pub fn share_bar(props: &ShareBarProps) -> Html {
    let lang = use_lang();
    let copied = use_state(|| false);
    let copy = {
        let copied = copied.clone();
        Callback::from(move |_| {
            // The address follows the inputs once they rest: bring it up to date first.
            crate::ui::dom::flush_query();
            let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
            if let Some(w) = web_sys::window() {
                let _ = w.navigator().clipboard().write_text(&href);
            }
            copied.set(true);
        })
    };
    let csv = props.rec.clone().map(|r| Callback::from(move |_| { let _ = download("gpu-advisor.csv", "text/csv", &crate::state::export::csv(&r)); }));
    let md = props.rec.clone().map(|r| Callback::from(move |_| { let _ = download("gpu-advisor.md", "text/markdown", &crate::state::export::markdown(&r)); }));
    html! {
        <div class="share-bar">
            <button type="button" class="share-bar__button share-bar__copy" onclick={copy}>
                { if *copied { t(lang, "Link copied") } else { t(lang, "Copy link") } }
            </button>
            if let Some(cb) = csv {
                <button type="button" class="share-bar__button" onclick={cb}>{ t(lang, "Export CSV") }</button>
            }
            if let Some(cb) = md {
                <button type="button" class="share-bar__button" onclick={cb}>{ t(lang, "Export Markdown") }</button>
            }
        </div>
    }
}
