//! The advisor's inputs, one component per section. The few every user sets come first and are
//! always open ([`FormModel`]): model (preset search, parameter count or pasted `config.json`),
//! workload, precision, the users and their speed and first-token targets (LLM serving), and the
//! budget. The rest sit in disclosures that say what they hold and list their non-default values:
//! shape and serving details ([`FormShape`]), costs ([`FormCosts`]), and constraints
//! ([`FormConstraints`]). A disclosure holding a bad value opens. Every input has a default, a
//! hint, and its error shown beside it.

use crate::i18n::t;
use crate::state::advisor::{AdvisorInputs, Field, FieldError};
use crate::state::Action;
use crate::ui::components::disclosure::Disclosure;
use crate::ui::components::form_constraints::{self, FormConstraints};
use crate::ui::components::form_costs::{self, FormCosts};
use crate::ui::components::form_model::FormModel;
use crate::ui::components::form_shape::{self, FormShape};
use crate::ui::form_section::{Applies, SectionProps};
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AdvisorFormProps {
    pub inputs: Rc<AdvisorInputs>,
    pub errors: Rc<Vec<FieldError>>,
    pub dispatch: Callback<Action>,
}

/// A value as the disclosure's summary shows it: at most 16 characters.
fn short_value(v: &str) -> String {
    let mut out: String = v.chars().take(16).collect();
    if v.chars().count() > 16 {
        out.push('…');
    }
    out
}

/// "key value" of each of `fields` that differs from its default: what a disclosure's summary
/// lists.
fn changed(inputs: &AdvisorInputs, fields: &[Field]) -> Vec<String> {
    fields
        .iter()
        .filter(|f| inputs.get(**f) != f.default_value())
        .map(|f| format!("{} {}", f.key(), short_value(inputs.get(*f))))
        .collect()
}

/// The input panel.
#[function_component(AdvisorForm)]
pub fn advisor_form(props: &AdvisorFormProps) -> Html {
    let lang = use_lang();
    // Whether each disclosure is open. Its fields are built only while it is open; it opens by
    // itself when one of them is bad, and stays open after.
    let opened = use_mut_ref(|| [false; 3]);
    let repaint = use_force_update();
    // Created once: a disclosure whose title, values and fields are unchanged skips its render.
    let toggles = {
        let opened = opened.clone();
        use_memo((), move |_| {
            [0, 1, 2].map(|i| {
                let (opened, repaint) = (opened.clone(), repaint.clone());
                Callback::from(move |()| {
                    opened.borrow_mut()[i] ^= true;
                    repaint.force_update();
                })
            })
        })
    };
    let open = |i: usize, fields: &[Field]| {
        let has_error = fields.iter().any(|f| props.errors.iter().any(|e| e.field == *f));
        let mut o = opened.borrow_mut();
        o[i] |= has_error;
        o[i]
    };
    let section = SectionProps { inputs: props.inputs.clone(), errors: props.errors.clone(), applies: Applies::of(&props.inputs), dispatch: props.dispatch.clone() };
    let shape_fields = form_shape::fields(&section);
    let (shape, costs, constraints) = (open(0, shape_fields), open(1, &form_costs::FIELDS), open(2, &form_constraints::FIELDS));
    let shape_title = if section.applies.serving { t(lang, "Prompt, output, engine and serving") } else { t(lang, "Shape") };
    html! {
        <form class="advisor-form" aria-label={t(lang, "Advisor inputs")} onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <FormModel ..section.clone() />
            <Disclosure class="advisor-form__more--shape" title={shape_title} changed={changed(&props.inputs, shape_fields)} open={shape} on_toggle={toggles[0].clone()}>
                if shape { <FormShape ..section.clone() /> }
            </Disclosure>
            <Disclosure class="advisor-form__more--costs" title={t(lang, "Costs and ranking")} changed={changed(&props.inputs, &form_costs::FIELDS)} open={costs} on_toggle={toggles[1].clone()}>
                if costs { <FormCosts ..section.clone() /> }
            </Disclosure>
            <Disclosure class="advisor-form__more--constraints" title={t(lang, "Constraints")} changed={changed(&props.inputs, &form_constraints::FIELDS)} open={constraints} on_toggle={toggles[2].clone()}>
                if constraints { <FormConstraints ..section /> }
            </Disclosure>
        </form>
    }
}
