//! The advisor's inputs. The few every user sets come first and are always open: model (preset
//! search, parameter count or pasted `config.json`), workload, precision, the users and their
//! speed and first-token targets (LLM serving), and the budget. The rest sit in disclosures that
//! say what they hold and list their non-default values: shape and serving details, costs, and
//! constraints. A disclosure holding a bad value opens. Every input has a default, a hint, and its
//! error shown beside it.

use crate::catalog::{self, ModelKind};
use crate::model::llm::engines::Engine;
use crate::model::media::OffloadMode;
use crate::model::precision::{KvPrecision, Precision};
use crate::state::advisor::{model_kind, AdvisorInputs, Field, FieldError};
use crate::state::Action;
use crate::ui::components::disclosure::Disclosure;
use crate::ui::components::field_row::FieldRow;
use crate::ui::components::model_presets::ModelPresets;
use crate::ui::components::after_start::AfterStart;
use crate::ui::components::select_field::SelectField;
use crate::ui::components::text_field::TextField;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use crate::i18n::t;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AdvisorFormProps {
    pub inputs: AdvisorInputs,
    pub errors: Vec<FieldError>,
    pub dispatch: Callback<Action>,
}

/// The input panel.
#[function_component(AdvisorForm)]
pub fn advisor_form(props: &AdvisorFormProps) -> Html {
    let lang = use_lang();
    let inputs = &props.inputs;
    let err = |f: Field| props.errors.iter().find(|e| e.field == f).map(|e| AttrValue::from(e.message_in(lang)));
    // Each field is a component of plain props: the unchanged ones skip their render.
    let text = |f: Field, label: &'static str, hint: &'static str, mode: &'static str| {
        html! { <TextField field={f} {label} {hint} value={AttrValue::from(inputs.get(f).to_string())} error={err(f)} {mode} dispatch={props.dispatch.clone()} /> }
    };
    let select = |f: Field, label: &'static str, hint: &'static str, options: Vec<(String, String)>| {
        html! { <SelectField field={f} {label} {hint} value={AttrValue::from(inputs.get(f).to_string())} {options} error={err(f)} dispatch={props.dispatch.clone()} /> }
    };
    // A disclosure: its title, the non-default values it holds, and its fields, built only while
    // it is open. It opens by itself when one of them is bad, and stays open after.
    let opened = use_mut_ref(|| [false; 3]);
    let repaint = use_force_update();
    let more = |i: usize, class: &'static str, title: &'static str, fields: &[Field], body: &dyn Fn() -> Html| {
        let changed: Vec<String> = fields
            .iter()
            .filter(|f| inputs.get(**f) != f.default_value())
            .map(|f| format!("{} {}", f.key(), short_value(inputs.get(*f))))
            .collect();
        let has_error = fields.iter().any(|f| props.errors.iter().any(|e| e.field == *f));
        let open = {
            let mut o = opened.borrow_mut();
            o[i] |= has_error;
            o[i]
        };
        let on_toggle = {
            let (opened, repaint) = (opened.clone(), repaint.clone());
            Callback::from(move |()| {
                opened.borrow_mut()[i] ^= true;
                repaint.force_update();
            })
        };
        html! { <Disclosure {class} title={title} {changed} {open} {on_toggle}>{ if open { body() } else { Html::default() } }</Disclosure> }
    };
    let model = inputs.get(Field::Model).to_string();
    let kind = if model == "custom" { Some(ModelKind::Llm) } else { model_kind(&model) };
    let is_llm = model == "custom" || catalog::llm(&model).is_some();
    let workload = inputs.workload().to_string();
    let training = is_llm && workload != "inference";

    let on_model = props.dispatch.reform(|e: Event| Action::SetInput(Field::Model, e.target_unchecked_into::<HtmlInputElement>().value().trim().to_string()));
    let video = catalog::diffusion(&model).is_some_and(|d| d.video.is_some());
    let workload_options: Vec<(String, String)> = match kind {
        Some(ModelKind::Diffusion) if video => vec![("video-generation".into(), t(lang, "Video generation").into())],
        Some(ModelKind::Diffusion) => vec![
            ("image-generation".into(), t(lang, "Image generation").into()),
            ("finetune-full".into(), t(lang, "Fine-tune (full / DreamBooth)").into()),
            ("lora".into(), t(lang, "Fine-tune (LoRA)").into()),
        ],
        Some(_) if !is_llm => vec![("training".into(), t(lang, "Training").into()), ("inference".into(), t(lang, "Inference").into())],
        _ => vec![
            ("inference".into(), t(lang, "Inference / serving").into()),
            ("training".into(), t(lang, "Pre-training").into()),
            ("finetune-full".into(), t(lang, "Fine-tune (full)").into()),
            ("lora".into(), t(lang, "Fine-tune (LoRA)").into()),
            ("qlora".into(), t(lang, "Fine-tune (QLoRA)").into()),
        ],
    };
    let precision_options: Vec<(String, String)> = Precision::ALL
        .into_iter()
        .filter(|p| is_llm || matches!(p, Precision::Fp32 | Precision::Tf32 | Precision::Fp16 | Precision::Bf16 | Precision::Fp8))
        .map(|p| (p.as_str().to_string(), p.as_str().to_ascii_uppercase()))
        .collect();
    let on_config = props.dispatch.reform(|e: InputEvent| Action::SetConfigJson(e.target_unchecked_into::<HtmlTextAreaElement>().value()));
    let on_nvlink = props.dispatch.reform(|e: Event| Action::SetNeedNvlink(e.target_unchecked_into::<HtmlInputElement>().checked()));
    let on_dc = props.dispatch.reform(|e: Event| Action::SetDatacenterOnly(e.target_unchecked_into::<HtmlInputElement>().checked()));
    let model_err = err(Field::Model);
    let serving = is_llm && !training;
    let shape_fields: &[Field] = if serving {
        &[Field::Context, Field::PromptTokens, Field::OutputTokens, Field::KvPrecision, Field::Engine, Field::RateRps, Field::PrefixHit, Field::Spec, Field::SpecAccept, Field::Images, Field::ImageRes, Field::Backend]
    } else if is_llm {
        &[Field::SeqLen, Field::Batch, Field::Framework, Field::Optimizer, Field::GradCkpt, Field::LoraRank, Field::Zero, Field::TrainTokens, Field::DeadlineDays]
    } else {
        &[Field::Resolution, Field::Steps, Field::Frames, Field::OffloadMode, Field::Batch, Field::Fp32Math]
    };
    let shape = || html! {
        <>
            if serving {
                { text(Field::Context, t(lang, "Context (tokens)"), t(lang, "KV cache reserved per sequence; 8k = 8192."), "numeric") }
                { text(Field::PromptTokens, t(lang, "Prompt tokens"), t(lang, "For time to first token and serving."), "numeric") }
                { text(Field::OutputTokens, t(lang, "Output tokens"), t(lang, "Generated per request."), "numeric") }
                { select(Field::KvPrecision, t(lang, "KV cache"), t(lang, "fp8 / q8_0 halve the cache."), KvPrecision::ALL.into_iter().map(|k| (k.as_str().to_string(), k.as_str().to_string())).collect()) }
                { select(Field::Engine, t(lang, "Engine"), t(lang, "Sets overheads, speed and multi-GPU behaviour."),
                    std::iter::once((String::new(), "auto".to_string())).chain(Engine::ALL.into_iter().map(|e| (e.as_str().to_string(), e.as_str().to_string()))).collect()) }
                { text(Field::RateRps, t(lang, "Arrival rate (requests/s)"), t(lang, "Instead of a fixed number of users: requests queue for a slot (M/M/c); empty = off."), "decimal") }
                { text(Field::PrefixHit, t(lang, "Prefix-cache hit (0–1)"), t(lang, "Share of each prompt already cached (shared system prompt)."), "decimal") }
                { select(Field::Spec, t(lang, "Speculative decoding"), t(lang, "Draft model, EAGLE head or MTP: more tokens per step."),
                    [("off", t(lang, "off")), ("draft", t(lang, "draft model")), ("eagle", "EAGLE"), ("mtp", "MTP")].iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()) }
                if inputs.get(Field::Spec) != "off" {
                    { text(Field::SpecAccept, t(lang, "Acceptance rate (0–1)"), t(lang, "Empty = the method's published default."), "decimal") }
                }
                { select(Field::Backend, t(lang, "Back-end"), t(lang, "Each card's first listed back-end unless you pick one."),
                    std::iter::once((String::new(), "auto".to_string())).chain(crate::model::llm::engines::Backend::ALL.into_iter().map(|b| (b.as_str().to_string(), b.as_str().to_string()))).collect()) }
                if crate::catalog::llm(&model).is_some_and(|m| m.vision.is_some()) {
                    { text(Field::Images, t(lang, "Images per request"), t(lang, "Each becomes image tokens by the model's own rule."), "numeric") }
                    { text(Field::ImageRes, t(lang, "Image size"), t(lang, "Width×height in pixels, e.g. 1024x1024."), "text") }
                }
            } else if is_llm {
                { text(Field::SeqLen, t(lang, "Sequence length"), t(lang, "Tokens per training sample."), "numeric") }
                { text(Field::Batch, t(lang, "Micro-batch per GPU"), t(lang, "Sequences per GPU per step."), "numeric") }
                { select(Field::Framework, t(lang, "Framework"), t(lang, "Sets the defaults: torchtune trains in pure bf16; transformers and Megatron keep fp32 master weights."),
                    ["auto", "transformers", "torchtune", "megatron"].iter().map(|o| (o.to_string(), o.to_string())).collect()) }
                { select(Field::Optimizer, t(lang, "Optimizer"), t(lang, "AdamW keeps 2 fp32 states per parameter."),
                    ["auto", "adamw", "adamw-8bit", "paged-adamw-8bit", "sgd", "adafactor"].iter().map(|o| (o.to_string(), o.to_string())).collect()) }
                { select(Field::GradCkpt, t(lang, "Activation checkpointing"), t(lang, "Trades compute for activation memory."),
                    ["auto", "none", "selective", "full"].iter().map(|o| (o.to_string(), o.to_string())).collect()) }
                if workload == "lora" || workload == "qlora" {
                    { text(Field::LoraRank, t(lang, "LoRA rank"), t(lang, "Adapter rank r on all linear layers."), "numeric") }
                }
                { select(Field::Zero, t(lang, "ZeRO / FSDP"), t(lang, "Shards optimizer, gradients, weights over the GPUs."),
                    [("auto", t(lang, "auto (fastest that fits)")), ("0", t(lang, "none")), ("1", t(lang, "ZeRO-1")), ("2", t(lang, "ZeRO-2")), ("3", t(lang, "ZeRO-3 / FSDP"))].iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()) }
                { text(Field::TrainTokens, t(lang, "Training tokens"), t(lang, "For time to train, e.g. 1b, 300b."), "text") }
                { text(Field::DeadlineDays, t(lang, "Deadline (days)"), t(lang, "Finish the training tokens within this time; datacenter cards add nodes. Empty = none."), "decimal") }
            } else {
                if kind == Some(ModelKind::Diffusion) {
                    { text(Field::Resolution, t(lang, "Resolution"), t(lang, "Width×height, e.g. 1024x1024; empty = native."), "text") }
                    { text(Field::Steps, t(lang, "Steps"), t(lang, "Denoising steps; empty = the pipeline default."), "numeric") }
                    if video {
                        { text(Field::Frames, t(lang, "Frames"), t(lang, "Frames per clip; empty = the model's default."), "numeric") }
                    }
                    { select(Field::OffloadMode, t(lang, "CPU offload"), t(lang, "Diffusers' offload: less GPU memory, more time."),
                        OffloadMode::ALL.into_iter().map(|m| (m.as_str().to_string(), m.as_str().to_string())).collect()) }
                }
                { text(Field::Batch, t(lang, "Batch"), t(lang, "Images or samples per step."), "numeric") }
                if inputs.get(Field::Precision) == "fp32" {
                    { select(Field::Fp32Math, t(lang, "FP32 math"), t(lang, "What fp32 runs on cards with TF32 tensor cores."),
                        [("pytorch", t(lang, "PyTorch default: convolutions TF32, matmuls FP32")), ("tf32", t(lang, "TF32 convolutions and matmuls (NGC default)")), ("strict", t(lang, "strict FP32"))].iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()) }
                }
            }
        </>
    };
    let costs = || html! {
        <>
            { select(Field::Objective, t(lang, "Rank by"), t(lang, "What “best” means."),
                [("cheapest", t(lang, "Cheapest that fits")), ("fastest", t(lang, "Fastest within budget")), ("value", t(lang, "Throughput per dollar")), ("cost-per-token", t(lang, "Lowest $ per million tokens")), ("time-to-train", t(lang, "Shortest time to train"))]
                    .iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()) }
            { select(Field::Currency, t(lang, "Currency"), t(lang, "Converted at an editable rate."),
                [("auto", t(lang, "By language")), ("usd", "USD $"), ("cny", "CNY ¥"), ("rub", "RUB ₽"), ("eur", "EUR €")].iter().map(|(v, l)| (v.to_string(), l.to_string())).collect()) }
            { text(Field::HoursPerDay, t(lang, "Usage (hours/day)"), t(lang, "For energy and rental cost."), "decimal") }
            { text(Field::Months, t(lang, "Months"), t(lang, "Horizon of the total cost."), "numeric") }
            if serving {
                { text(Field::ApiPrice, t(lang, "API price per million tokens"), t(lang, "Compare with an API: at what monthly volume self-hosting breaks even; empty = off."), "decimal") }
            }
            { select(Field::Host, t(lang, "What you buy"), t(lang, "Buying: the cards for a PC or server you have, or a complete machine with an estimated host added. Macs, Strix Halo and DGX Spark are whole machines either way."),
                vec![("none".into(), t(lang, "Cards only").into()), ("include".into(), t(lang, "Complete machine").into())]) }
            { text(Field::KwhPrice, t(lang, "Electricity ($/kWh)"), t(lang, "Energy price."), "decimal") }
            { text(Field::Utilisation, t(lang, "Utilisation %"), t(lang, "Average share of board power while running."), "decimal") }
            { text(Field::Pue, t(lang, "PUE"), t(lang, "Cooling overhead; empty = 1.0 at a desk, 1.3 for servers."), "decimal") }
            { select(Field::PriceBasis, t(lang, "Card price"), t(lang, "Street price where known, else launch price."),
                vec![("street".into(), t(lang, "Street").into()), ("launch".into(), t(lang, "Launch (MSRP)").into())]) }
            { text(Field::RentBasis, t(lang, "Cloud price"), t(lang, "cheapest, median, or a provider name (e.g. lambda)."), "text") }
            { text(Field::Rate, t(lang, "Exchange rate per USD"), t(lang, "Empty = the bundled rate."), "decimal") }
            { text(Field::Prices, t(lang, "Your prices"), t(lang, "Vendor overrides, e.g. rtx-4090:buy=1800;hour=0.5"), "text") }
        </>
    };
    let constraints = || html! {
        <>
            { text(Field::MaxGpus, t(lang, "At most N cards"), t(lang, "Per node, 1–8 (datacenter cards may go multi-node)."), "numeric") }
            { text(Field::Headroom, t(lang, "Memory headroom %"), t(lang, "Spare memory to keep on every card."), "decimal") }
            { text(Field::MaxWatts, t(lang, "At most W watts"), t(lang, "Total board power; empty = no limit."), "numeric") }
            { select(Field::Region, t(lang, "Region"), t(lang, "China: only cards sold there (e.g. 4090 D, H20)."), vec![("global".into(), t(lang, "Global").into()), ("cn".into(), t(lang, "China").into())]) }
            if serving {
                { text(Field::Ram, t(lang, "System RAM for offload (GiB)"), t(lang, "llama.cpp keeps what does not fit on the GPU in RAM; empty = no offload."), "decimal") }
                if !inputs.get(Field::Ram).trim().is_empty() {
                    { text(Field::RamBw, t(lang, "RAM bandwidth (GB/s)"), t(lang, "Empty = typical for the card's platform: dual-channel DDR4 or DDR5, 8-channel server DDR5."), "decimal") }
                    { select(Field::Offload, t(lang, "Offload placement"), t(lang, "auto: the faster that fits, whole layers (-ngl) or MoE experts (--n-cpu-moe)."),
                        crate::model::llm::host::OffloadMode::ALL.into_iter().map(|m| (m.as_str().to_string(), m.as_str().to_string())).collect()) }
                }
                { text(Field::Owned, t(lang, "Cards you own"), t(lang, "e.g. rtx-3090:1 — at no cost; the answer is what to add."), "text") }
                { text(Field::Mix, t(lang, "Mixed build"), t(lang, "e.g. rtx-4090:1,rtx-3090:1 — layers split by memory."), "text") }
            }
            { text(Field::GpuShare, t(lang, "Unified memory for the GPU (GiB)"), t(lang, "Mac, Strix Halo, DGX Spark: what the GPU may use; empty = the platform default."), "decimal") }
            <label class="advisor-form__check"><input type="checkbox" checked={inputs.need_nvlink} onchange={on_nvlink.clone()} />{ t(lang, " NVLink or Infinity Fabric required") }</label>
            <label class="advisor-form__check"><input type="checkbox" checked={inputs.datacenter_only} onchange={on_dc.clone()} />{ t(lang, " Datacenter licence only") }</label>
        </>
    };
    let cost_fields = [Field::Objective, Field::Currency, Field::HoursPerDay, Field::Months, Field::ApiPrice, Field::Host, Field::KwhPrice, Field::Utilisation, Field::Pue, Field::PriceBasis, Field::RentBasis, Field::Rate, Field::Prices];
    let constraint_fields = [Field::MaxGpus, Field::Headroom, Field::MaxWatts, Field::Region, Field::Ram, Field::RamBw, Field::Offload, Field::GpuShare, Field::Owned, Field::Mix];
    html! {
        <form class="advisor-form" aria-label={t(lang, "Advisor inputs")} onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <fieldset class="advisor-form__group advisor-form__group--main">
                <legend class="advisor-form__legend">{ t(lang, "Model") }</legend>
                <FieldRow id="in-model" label={t(lang, "Model")} hint={Some(AttrValue::from(t(lang, "Type to search presets, or choose “custom”.")))} error={model_err.clone()}>
                    <input class="advisor-form__input" id="in-model" type="search" list="model-presets" autocomplete="off"
                        value={model.clone()} onchange={on_model} aria-invalid={model_err.is_some().then_some("true")} />
                </FieldRow>
                // Never painted, only searched once typing starts: built after the start.
                <AfterStart><ModelPresets /></AfterStart>
                if model == "custom" {
                    { text(Field::Params, t(lang, "Parameters"), t(lang, "e.g. 13b, 350m (architecture inferred by a scaling rule)"), "text") }
                    <div class="field-row">
                        <label class="field-row__label" for="in-config">{ t(lang, "…or paste a config.json") }</label>
                        <textarea class="advisor-form__input advisor-form__textarea" id="in-config" rows="4" spellcheck="false"
                            placeholder="{ \"hidden_size\": 4096, … }" value={inputs.config_json.clone()} oninput={on_config} />
                        <p class="field-row__hint">{ t(lang, "Parsed in your browser; never uploaded.") }</p>
                    </div>
                }
                { select(Field::Workload, t(lang, "Workload"), t(lang, "What the cards will do."), workload_options) }
                { select(Field::Precision, t(lang, "Precision"), t(lang, "Weight format; GGUF types use their real bits per weight."), precision_options) }
                if serving {
                    { text(Field::Users, t(lang, "Concurrent users"), t(lang, "Requests in flight at once."), "numeric") }
                    { text(Field::TpsUser, t(lang, "Speed per user (tokens/s)"), t(lang, "Each user must see at least this; empty = no target."), "decimal") }
                    { text(Field::Ttft, t(lang, "First token within (s)"), t(lang, "Time-to-first-token limit; empty = no limit."), "decimal") }
                }
                { select(Field::Mode, t(lang, "Buy or rent"), t(lang, "Rent uses the bundled cloud prices."), vec![("buy".into(), t(lang, "Buy").into()), ("rent".into(), t(lang, "Rent").into())]) }
                { text(Field::Budget, if inputs.get(Field::Mode) == "rent" { t(lang, "Budget per hour") } else { t(lang, "Budget") }, t(lang, "In the chosen currency; empty = no limit."), "decimal") }
            </fieldset>
            { more(0, "advisor-form__more--shape", if serving { t(lang, "Prompt, output, engine and serving") } else { t(lang, "Shape") }, shape_fields, &shape) }
            { more(1, "advisor-form__more--costs", t(lang, "Costs and ranking"), &cost_fields, &costs) }
            { more(2, "advisor-form__more--constraints", t(lang, "Constraints"), &constraint_fields, &constraints) }
        </form>
    }
}

/// A value as the disclosure's summary shows it: at most 16 characters.
fn short_value(v: &str) -> String {
    let mut out: String = v.chars().take(16).collect();
    if v.chars().count() > 16 {
        out.push('…');
    }
    out
}
