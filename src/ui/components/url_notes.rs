//! Notes about link parameters that were ignored or corrected.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct UrlNotesProps {
    pub notes: Vec<String>,
}

/// A dismissible list of what the URL contained that could not be used.
#[function_component(UrlNotes)]
pub fn url_notes(props: &UrlNotesProps) -> Html {
    let open = use_state(|| true);
    if props.notes.is_empty() || !*open {
        return html! {};
    }
    let close = {
        let open = open.clone();
        Callback::from(move |_| open.set(false))
    };
    html! {
        <aside class="url-notes" role="status" aria-label="Link notes">
            <ul class="url-notes__list">
                { for props.notes.iter().map(|n| html! { <li class="url-notes__item">{ n }</li> }) }
            </ul>
            <button type="button" class="url-notes__close" onclick={close} aria-label="Dismiss">{ "×" }</button>
        </aside>
    }
}
