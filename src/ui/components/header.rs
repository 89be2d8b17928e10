//! The site header: the brand and the view tabs (advisor, catalog, compare, accuracy).

use crate::state::{Action, View};
use crate::i18n::{t, tf};
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub view: View,
    pub compare_count: usize,
    pub lang: crate::i18n::Lang,
    pub dispatch: Callback<Action>,
}

/// The header with one tab per view.
#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let lang = use_lang();
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
            <a class="header__skip" href="#main">{ t(lang, "Skip to content") }</a>
            <div class="header__brand">
                <img class="header__logo" src="icon.svg" alt="" width="28" height="28" />
                <span class="header__name">{ t(lang, "gpu-advisor") }</span>
            </div>
            <nav class="header__nav" aria-label={t(lang, "Views")}>
                { tab(View::Advisor, t(lang, "Advisor").into()) }
                { tab(View::Catalog, t(lang, "Catalog").into()) }
                { tab(View::Compare, tf(lang, "Compare ({n})", &[("n", &props.compare_count.to_string())])) }
                { tab(View::Accuracy, t(lang, "Accuracy").into()) }
            </nav>
            <label class="header__lang">
                <span class="visually-hidden">{ t(lang, "Language") }</span>
                <select class="header__lang-select" onchange={props.dispatch.reform(|e: Event| Action::SetLang(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()))}>
                    { for crate::i18n::Lang::ALL.iter().map(|l| html! {
                        <option value={l.code()} selected={*l == props.lang}>{ l.native_name() }</option>
                    }) }
                </select>
            </label>
        </header>
    }
}
