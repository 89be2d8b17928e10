//! A disclosure of the advisor form: a title, the non-default values it holds (so a closed one
//! still says what it changes), and its fields. The form keeps whether it is open: it opens by
//! itself when one of its fields is bad and stays as the user leaves it (fixing the value does not
//! snap it shut). A closed disclosure holds no fields at all: the form builds them only when it is
//! open, so a keystroke elsewhere neither renders nor lays out the thirty inputs it hides.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DisclosureProps {
    /// A BEM modifier naming it, e.g. `advisor-form__more--costs`.
    pub class: &'static str,
    pub title: AttrValue,
    /// "key value" of each field that differs from its default.
    pub changed: Vec<String>,
    /// Open: its fields are shown (the form passes them only then).
    pub open: bool,
    /// A click on the title (or Enter / Space on it): the form flips `open`.
    pub on_toggle: Callback<()>,
    #[prop_or_default]
    pub children: Html,
}

/// The disclosure.
#[function_component(Disclosure)]
pub fn disclosure(props: &DisclosureProps) -> Html {
    // The summary's click toggles a <details> by itself; the form's state does instead, so the
    // fields and the open mark arrive in the same render.
    let onclick = props.on_toggle.reform(|e: MouseEvent| e.prevent_default());
    html! {
        <details class={classes!("advisor-form__more", props.class)} open={props.open}>
            <summary class="advisor-form__summary" {onclick}>
                <span class="advisor-form__summary-title">{ props.title.clone() }</span>
                if !props.changed.is_empty() {
                    <span class="advisor-form__summary-values">{ props.changed.join(", ") }</span>
                }
            </summary>
            if props.open {
                <div class="advisor-form__group advisor-form__group--inner">{ props.children.clone() }</div>
            }
        </details>
    }
}
