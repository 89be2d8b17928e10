//! The props every section of the advisor form shares (the inputs, their errors, which fields the
//! job calls for, and the app's one dispatch callback), and the builders of its fields.
//!
//! The inputs and errors are reference-counted: the form hands each section the same two
//! allocations, and a section whose props compare equal skips its render.

use crate::catalog;
use crate::i18n::Lang;
use crate::model::media_job::MediaKind;
use crate::state::advisor::{AdvisorInputs, Field, FieldError};
use crate::state::Action;
use crate::ui::components::select_field::SelectField;
use crate::ui::components::text_field::TextField;
use std::rc::Rc;
use yew::prelude::*;

/// What the model and the workload make of the form: which fields apply.
#[derive(Clone, Copy, PartialEq)]
pub struct Applies {
    /// A language model: a preset or `custom`.
    pub llm: bool,
    /// A language model serving requests (inference): the serving fields.
    pub serving: bool,
    /// The kind of an image, video or classic preset (None: a language model or an unknown id).
    pub media: Option<MediaKind>,
}

impl Applies {
    /// What `inputs` call for.
    pub fn of(inputs: &AdvisorInputs) -> Applies {
        let model = inputs.get(Field::Model);
        let custom = model == "custom";
        let llm = custom || catalog::llm(model).is_some();
        Applies { llm, serving: llm && inputs.workload() == "inference", media: MediaKind::of_preset(model) }
    }
}

/// The props of a section of the advisor form.
#[derive(Properties, PartialEq, Clone)]
pub struct SectionProps {
    pub inputs: Rc<AdvisorInputs>,
    pub errors: Rc<Vec<FieldError>>,
    pub applies: Applies,
    pub dispatch: Callback<Action>,
}

impl SectionProps {
    /// The message of `f`'s error in `lang`, if it has one.
    pub fn error(&self, lang: Lang, f: Field) -> Option<AttrValue> {
        self.errors.iter().find(|e| e.field == f).map(|e| AttrValue::from(e.message_in(lang)))
    }

    /// The text input of `f`, with its `inputmode` `mode` (numeric, decimal, text). Each field is a
    /// component of plain props: the unchanged ones skip their render.
    pub fn text(&self, lang: Lang, f: Field, label: &'static str, hint: &'static str, mode: &'static str) -> Html {
        html! { <TextField field={f} {label} {hint} value={AttrValue::from(self.inputs.get(f).to_string())} error={self.error(lang, f)} {mode} dispatch={self.dispatch.clone()} /> }
    }

    /// The select of `f` with its (value, label) `options`.
    pub fn select(&self, lang: Lang, f: Field, label: &'static str, hint: &'static str, options: Vec<(String, String)>) -> Html {
        html! { <SelectField field={f} {label} {hint} value={AttrValue::from(self.inputs.get(f).to_string())} {options} error={self.error(lang, f)} dispatch={self.dispatch.clone()} /> }
    }
}

/// A select's options from (value, label) pairs.
pub fn options(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()
}

/// A select's options labelled with their values, after an `auto` of empty value when `auto`.
pub fn named(auto: bool, values: &[&str]) -> Vec<(String, String)> {
    let first = auto.then(|| (String::new(), "auto".to_string()));
    first.into_iter().chain(values.iter().map(|v| (v.to_string(), v.to_string()))).collect()
}
