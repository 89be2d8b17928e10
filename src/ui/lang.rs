//! The interface language as a Yew context: chosen from the URL, else the browser, else English.

use crate::i18n::Lang;
use gloo::storage::Storage as _;
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

/// True when the first paint may be in Chinese or Russian: the link, the saved settings or the
/// browser ask for one of them.
pub fn may_need_table() -> bool {
    use crate::state::{stored, url};
    let wants = |l: Option<String>| matches!(l.as_deref().and_then(Lang::parse), Some(Lang::Zh | Lang::Ru));
    // The link's language wins over the saved one (as in `App`); without one, the saved settings
    // or the browser decide. The same parsers as `App`'s.
    let from_link = url::parse(&crate::ui::dom::query_string()).state.lang;
    if from_link.is_some() {
        return wants(from_link);
    }
    let saved = gloo::storage::LocalStorage::raw()
        .get_item(stored::KEY)
        .ok()
        .flatten()
        .and_then(|text| stored::decode_in(&text, Lang::En).ok())
        .and_then(|p| p.state.lang);
    wants(saved) || matches!(browser_lang(), Some(Lang::Zh | Lang::Ru))
}
