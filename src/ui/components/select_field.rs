//! One select of the advisor form, in its [`field_row`]. Like [`super::text_field`], its props are
//! plain values and the app's one dispatch callback, so an unchanged select skips its render.

use crate::state::advisor::Field;
use crate::state::Action;
use crate::ui::components::field_row::field_row;
use crate::ui::components::text_field::input_id;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SelectFieldProps {
    pub field: Field,
    pub label: AttrValue,
    pub hint: AttrValue,
    pub value: AttrValue,
    /// (value, label) of each option.
    pub options: Vec<(String, String)>,
    #[prop_or_default]
    pub error: Option<AttrValue>,
    pub dispatch: Callback<Action>,
}

/// The select.
#[function_component(SelectField)]
pub fn select_field(props: &SelectFieldProps) -> Html {
    let f = props.field;
    let onchange = props.dispatch.reform(move |e: Event| Action::SetInput(f, e.target_unchecked_into::<HtmlSelectElement>().value()));
    let id = input_id(f);
    let select = html! {
        <select class="advisor-form__input" id={id.clone()} {onchange}>
            { for props.options.iter().map(|(v, l)| html! { <option value={v.clone()} selected={*v == *props.value}>{ l.clone() }</option> }) }
        </select>
    };
    field_row(id.into(), props.label.clone(), props.hint.clone(), props.error.clone(), select)
}
