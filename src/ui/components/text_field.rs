//! One text input of the advisor form, in its [`field_row`]. Its props are plain values and the
//! app's one dispatch callback, so a field whose value, label and error are unchanged compares
//! equal and skips its render: a keystroke renders the field it lands in, not the whole form.

use crate::state::advisor::Field;
use crate::state::Action;
use crate::ui::components::field_row::field_row;
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
    // The app takes a typed value at once (its answer paints in the keystroke's next frame), but
    // an emptied field waits for typing to rest, so retyping a value flashes no error.
    let dispatch = props.dispatch.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        let (value, dispatch) = (
            e.target_unchecked_into::<HtmlInputElement>().value(),
            dispatch.clone(),
        );
        if value.trim().is_empty() {
            crate::ui::dom::once_typing_rests(f, move || {
                crate::ui::dom::mark_typed();
                dispatch.emit(Action::SetInput(f, value))
            });
        } else {
            crate::ui::dom::cancel_typing(f);
            crate::ui::dom::mark_typed();
            dispatch.emit(Action::SetInput(f, value));
        }
    });
    let id = input_id(f);
    let input = html! {
        <input class="advisor-form__input" id={id.clone()} type="text" inputmode={props.mode} autocomplete="off"
            value={props.value.clone()} {oninput} aria-invalid={props.error.is_some().then_some("true")} />
    };
    field_row(id.into(), props.label.clone(), props.hint.clone(), props.error.clone(), input)
}
