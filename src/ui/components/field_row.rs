//! One labelled input with a hint and, when the value is bad, a message beside it. Every advisor
//! input uses it, so labels, hints and errors look and behave the same everywhere.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FieldRowProps {
    /// The input's id (the label points at it).
    pub id: AttrValue,
    pub label: AttrValue,
    #[prop_or_default]
    pub hint: Option<AttrValue>,
    #[prop_or_default]
    pub error: Option<AttrValue>,
    pub children: Html,
}

/// A label, the input (as children), a hint and an error line.
#[function_component(FieldRow)]
pub fn field_row(props: &FieldRowProps) -> Html {
    let error_id = format!("{}-error", props.id);
    let hint_id = format!("{}-hint", props.id);
    html! {
        <div class={classes!("field-row", props.error.is_some().then_some("field-row--error"))}>
            <label class="field-row__label" for={props.id.clone()}>{ props.label.clone() }</label>
            { props.children.clone() }
            if let Some(err) = &props.error {
                <p class="field-row__error" id={error_id} role="alert">{ err.clone() }</p>
            } else if let Some(h) = &props.hint {
                <p class="field-row__hint" id={hint_id}>{ h.clone() }</p>
            }
        </div>
    }
}
