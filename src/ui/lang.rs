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
    let wants = |l: Option<Lang>| matches!(l, Some(Lang::Zh | Lang::Ru));
    let query = crate::ui::dom::query_string();
    let from_link = query.trim_start_matches('?').split('&').find_map(|kv| kv.strip_prefix("lang=")).and_then(Lang::parse);
    let saved = gloo::storage::LocalStorage::raw().get_item(crate::state::stored::KEY).ok().flatten().is_some_and(|t| {
        ["lang=zh", "lang=ru", "lang%3Dzh", "lang%3Dru"].iter().any(|k| t.contains(k))
    });
    // The link's language wins over the saved one (as in `App`); without one, the saved settings
    // or the browser decide.
    match from_link {
        Some(l) => wants(Some(l)),
        None => saved || wants(browser_lang()),
    }
}
