//! One labelled input with a hint and, when the value is bad, a message beside it. Every advisor
//! input uses it, so labels, hints and errors look and behave the same everywhere.
//!
//! A function, not a component: it renders whenever the field holding it does (the input it
//! wraps carries a fresh listener each time, so its props would never compare equal), and a
//! component of its own would only add its code to the wasm.

use yew::prelude::*;

/// A label, the input, and below it the error when there is one, else the hint. `id` is the
/// input's (the label points at it).
pub fn field_row(id: AttrValue, label: AttrValue, hint: AttrValue, error: Option<AttrValue>, input: Html) -> Html {
    let error_id = format!("{id}-error");
    let hint_id = format!("{id}-hint");
    html! {
        <div class={classes!("field-row", error.is_some().then_some("field-row--error"))}>
            <label class="field-row__label" for={id}>{ label }</label>
            { input }
            if let Some(err) = error {
                <p class="field-row__error" id={error_id} role="alert">{ err }</p>
            } else {
                <p class="field-row__hint" id={hint_id}>{ hint }</p>
            }
        </div>
    }
}
