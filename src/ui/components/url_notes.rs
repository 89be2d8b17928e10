//! Notes about link parameters that were ignored or corrected.

use crate::i18n::t;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct UrlNotesProps {
    pub notes: Vec<String>,
}

/// A dismissible list of what the URL contained that could not be used.
#[function_component(UrlNotes)]
pub fn url_notes(props: &UrlNotesProps) -> Html {
    let lang = use_lang();
    let open = use_state(|| true);
    if props.notes.is_empty() || !*open {
        return html! {};
    }
    let close = {
        let open = open.clone();
        Callback::from(move |_| open.set(false))
    };
    html! {
        <aside class="url-notes" role="status" aria-label={t(lang, "Link notes")}>
            <ul class="url-notes__list">
                { for props.notes.iter().map(|n| html! { <li class="url-notes__item">{ n }</li> }) }
            </ul>
            <button type="button" class="url-notes__close" onclick={close} aria-label={t(lang, "Dismiss")}>{ "×" }</button>
        </aside>
    }
}
