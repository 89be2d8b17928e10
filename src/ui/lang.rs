//! The interface language as a Yew context: chosen from the URL, else the browser, else English.

use crate::i18n::Lang;
use yew::prelude::*;

/// The current language (English outside a provider).
#[hook]
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_default()
}

/// The browser's preferred language, if we speak it.
pub fn browser_lang() -> Option<Lang> {
    let nav = web_sys::window()?.navigator();
    let langs = nav.languages();
    for v in langs.iter() {
        if let Some(l) = v.as_string().as_deref().and_then(Lang::parse) {
            return Some(l);
        }
    }
    nav.language().as_deref().and_then(Lang::parse)
}
