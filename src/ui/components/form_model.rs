//! The advisor form's first section, always open: the model (preset search, parameter count or
//! pasted `config.json`), the workload and precision it allows, the users and their speed and
//! first-token targets (LLM serving), buying or renting, and the budget.

use crate::i18n::{t, Lang};
use crate::model::llm::Workload;
use crate::model::precision::Precision;
use crate::present;
use crate::state::advisor::Field;
use crate::state::Action;
use crate::ui::components::after_start::AfterStart;
use crate::ui::components::field_row::field_row;
use crate::ui::components::model_presets::ModelPresets;
use crate::ui::form_section::{options, Applies, SectionProps};
use crate::ui::lang::use_lang;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The workloads the model allows: (value, label); an image, video or classic preset's are its
/// kind's list, anything else (a language model, an id being typed) the language-model ones.
fn workload_options(lang: Lang, a: Applies) -> Vec<(String, String)> {
    match a.media {
        Some(kind) => kind.workloads().iter().map(|w| (w.as_str().to_string(), t(lang, present::media_workload_label(*w)).to_string())).collect(),
        None => Workload::ALL.iter().map(|w| (w.as_str().to_string(), t(lang, present::workload_label(*w)).to_string())).collect(),
    }
}

/// The precisions the model allows: every format for a language model, the float ones otherwise.
fn precision_options(llm: bool) -> Vec<(String, String)> {
    Precision::ALL
        .into_iter()
        .filter(|p| llm || matches!(p, Precision::Fp32 | Precision::Tf32 | Precision::Fp16 | Precision::Bf16 | Precision::Fp8))
        .map(|p| (p.as_str().to_string(), p.as_str().to_ascii_uppercase()))
        .collect()
}

/// The section's fieldset.
#[function_component(FormModel)]
pub fn form_model(props: &SectionProps) -> Html {
    let lang = use_lang();
    let inputs = &props.inputs;
    let a = props.applies;
    let model = inputs.get(Field::Model);
    let on_model = props.dispatch.reform(|e: Event| Action::SetInput(Field::Model, e.target_unchecked_into::<HtmlInputElement>().value().trim().to_string()));
    let on_config = props.dispatch.reform(|e: InputEvent| Action::SetConfigJson(e.target_unchecked_into::<HtmlTextAreaElement>().value()));
    let model_err = props.error(lang, Field::Model);
    let model_input = html! {
        <input class="advisor-form__input" id="in-model" type="search" list="model-presets" autocomplete="off"
            value={model.to_string()} onchange={on_model} aria-invalid={model_err.is_some().then_some("true")} />
    };
    html! {
        <fieldset class="advisor-form__group advisor-form__group--main">
            <legend class="advisor-form__legend">{ t(lang, "Model") }</legend>
            { field_row("in-model".into(), t(lang, "Model").into(), t(lang, "Type to search presets, or choose “custom”.").into(), model_err, model_input) }
            // Never painted, only searched once typing starts: built after the start.
            <AfterStart><ModelPresets /></AfterStart>
            if model == "custom" {
                { props.text(lang, Field::Params, t(lang, "Parameters"), t(lang, "e.g. 13b, 350m (architecture inferred by a scaling rule)"), "text") }
                <div class="field-row">
                    <label class="field-row__label" for="in-config">{ t(lang, "…or paste a config.json") }</label>
                    <textarea class="advisor-form__input advisor-form__textarea" id="in-config" rows="4" spellcheck="false"
                        placeholder="{ \"hidden_size\": 4096, … }" value={inputs.config_json.clone()} oninput={on_config} />
                    <p class="field-row__hint">{ t(lang, "Parsed in your browser; never uploaded.") }</p>
                </div>
            }
            { props.select(lang, Field::Workload, t(lang, "Workload"), t(lang, "What the cards will do."), workload_options(lang, a)) }
            { props.select(lang, Field::Precision, t(lang, "Precision"), t(lang, "Weight format; GGUF types use their real bits per weight."), precision_options(a.llm)) }
            if a.serving {
                { props.text(lang, Field::Users, t(lang, "Concurrent users"), t(lang, "Requests in flight at once."), "numeric") }
                { props.text(lang, Field::TpsUser, t(lang, "Speed per user (tokens/s)"), t(lang, "Each user must see at least this; empty = no target."), "decimal") }
                { props.text(lang, Field::Ttft, t(lang, "First token within (s)"), t(lang, "Time-to-first-token limit; empty = no limit."), "decimal") }
            }
            { props.select(lang, Field::Mode, t(lang, "Buy or rent"), t(lang, "Rent uses the bundled cloud prices."), options(&[("buy", t(lang, "Buy")), ("rent", t(lang, "Rent"))])) }
            { props.text(lang, Field::Budget, if inputs.get(Field::Mode) == "rent" { t(lang, "Budget per hour") } else { t(lang, "Budget") }, t(lang, "In the chosen currency; empty = no limit."), "decimal") }
        </fieldset>
    }
}
