//! The site header: the brand and the view tabs.

use crate::state::{Action, View};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub view: View,
    pub compare_count: usize,
    pub dispatch: Callback<Action>,
}

/// The header with one tab per view.
#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let tab = |view: View, label: String| {
        let dispatch = props.dispatch.clone();
        let current = props.view == view;
        html! {
            <button type="button" class={classes!("header__tab", current.then_some("header__tab--current"))}
                aria-current={current.then_some("page")}
                onclick={Callback::from(move |_| dispatch.emit(Action::SetView(view)))}>
                { label }
            </button>
        }
    };
    html! {
        <header class="header">
            <a class="header__skip" href="#main">{ "Skip to content" }</a>
            <div class="header__brand">
                <img class="header__logo" src="icon.svg" alt="" width="28" height="28" />
                <span class="header__name">{ "gpu-advisor" }</span>
            </div>
            <nav class="header__nav" aria-label="Views">
                { tab(View::Advisor, "Advisor".into()) }
                { tab(View::Catalog, "Catalog".into()) }
                { tab(View::Compare, format!("Compare ({})", props.compare_count)) }
            </nav>
        </header>
    }
}
