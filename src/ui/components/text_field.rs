//! One text input of the advisor form, in its [`FieldRow`]. Its props are plain values and the
//! app's one dispatch callback, so a field whose value, label and error are unchanged compares
//! equal and skips its render: a keystroke renders the field it lands in, not the whole form
//! (issue 13).

use crate::state::advisor::Field;
use crate::state::Action;
use crate::ui::components::field_row::FieldRow;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TextFieldProps {
    pub field: Field,
    pub label: AttrValue,
    pub hint: AttrValue,
    pub value: AttrValue,
    #[prop_or_default]
    pub error: Option<AttrValue>,
    /// The `inputmode` (numeric, decimal, text).
    pub mode: &'static str,
    pub dispatch: Callback<Action>,
}

/// The input's id: `in-` and its URL key with dashes.
pub fn input_id(f: Field) -> String {
    format!("in-{}", f.key().replace('_', "-"))
}

/// The text field.
#[function_component(TextField)]
pub fn text_field(props: &TextFieldProps) -> Html {
    let f = props.field;
    let oninput = props.dispatch.reform(move |e: InputEvent| Action::SetInput(f, e.target_unchecked_into::<HtmlInputElement>().value()));
    let id = input_id(f);
    html! {
        <FieldRow id={id.clone()} label={props.label.clone()} hint={Some(props.hint.clone())} error={props.error.clone()}>
            <input class="advisor-form__input" {id} type="text" inputmode={props.mode} autocomplete="off"
                value={props.value.clone()} {oninput} aria-invalid={props.error.is_some().then_some("true")} />
        </FieldRow>
    }
}
