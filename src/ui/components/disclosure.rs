//! A disclosure of the advisor form: a title, the non-default values it holds (so a closed one
//! still says what it changes), and its fields. It opens by itself when one of its fields is bad
//! and stays as the user leaves it: fixing the value does not snap it shut.

use web_sys::HtmlDetailsElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DisclosureProps {
    /// A BEM modifier naming it, e.g. `advisor-form__more--costs`.
    pub class: &'static str,
    pub title: AttrValue,
    /// "key value" of each field that differs from its default.
    pub changed: Vec<String>,
    /// True when one of its fields holds a bad value.
    pub has_error: bool,
    pub children: Html,
}

/// The disclosure.
#[function_component(Disclosure)]
pub fn disclosure(props: &DisclosureProps) -> Html {
    let opened = use_state(|| false);
    let ontoggle = {
        let opened = opened.clone();
        Callback::from(move |e: Event| opened.set(e.target_unchecked_into::<HtmlDetailsElement>().open()))
    };
    html! {
        <details class={classes!("advisor-form__more", props.class)} open={*opened || props.has_error} {ontoggle}>
            <summary class="advisor-form__summary">
                <span class="advisor-form__summary-title">{ props.title.clone() }</span>
                if !props.changed.is_empty() {
                    <span class="advisor-form__summary-values">{ props.changed.join(", ") }</span>
                }
            </summary>
            <div class="advisor-form__group advisor-form__group--inner">{ props.children.clone() }</div>
        </details>
    }
}
