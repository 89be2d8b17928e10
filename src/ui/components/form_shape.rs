//! The advisor form's shape section (a disclosure): for LLM serving the prompt, output, cache,
//! engine and serving details; for LLM training the sequence, batch, framework and optimizer
//! settings; for image, video and classic models the resolution, steps, frames, offload and batch.

use crate::catalog;
use crate::i18n::{t, Lang};
use crate::model::llm::engines::Backend;
use crate::model::llm::engines::Engine;
use crate::model::llm::job::MoeLayout;
use crate::model::media::OffloadMode;
use crate::model::media_job::MediaKind;
use crate::model::precision::KvPrecision;
use crate::state::advisor::Field;
use crate::ui::form_section::{named, options, SectionProps};
use crate::ui::lang::use_lang;
use yew::prelude::*;

/// The fields the section holds for `props`' job (its summary lists those that differ from their
/// default).
pub fn fields(props: &SectionProps) -> &'static [Field] {
    if props.applies.serving {
        &[Field::Context, Field::PromptTokens, Field::OutputTokens, Field::KvPrecision, Field::Engine, Field::RateRps, Field::PrefixHit, Field::Spec, Field::SpecAccept, Field::Images, Field::ImageRes, Field::Backend, Field::Arrivals, Field::CudaGraphs, Field::MoeLayout, Field::Disagg]
    } else if props.applies.llm {
        &[Field::SeqLen, Field::Batch, Field::Framework, Field::Optimizer, Field::GradCkpt, Field::LoraRank, Field::Zero, Field::TrainTokens, Field::DeadlineDays,
          Field::MasterWeights, Field::OptimizerInBackward, Field::GradAccum, Field::GlobalBatch, Field::Tp, Field::Pp, Field::Cp, Field::Vp, Field::Ep, Field::NicGbitS]
    } else {
        &[Field::Resolution, Field::Steps, Field::Frames, Field::OffloadMode, Field::Batch, Field::Fp32Math]
    }
}

/// LLM serving: prompt, output, cache, engine, arrival rate, prefix cache, speculative decoding,
/// back-end, and the images of a vision model.
fn serving(props: &SectionProps, lang: Lang) -> Html {
    let model = props.inputs.get(Field::Model);
    html! {
        <>
            { props.text(lang, Field::Context, t(lang, "Context (tokens)"), t(lang, "KV cache reserved per sequence; 8k = 8192."), "numeric") }
            { props.text(lang, Field::PromptTokens, t(lang, "Prompt tokens"), t(lang, "For time to first token and serving."), "numeric") }
            { props.text(lang, Field::OutputTokens, t(lang, "Output tokens"), t(lang, "Generated per request."), "numeric") }
            { props.select(lang, Field::KvPrecision, t(lang, "KV cache"), t(lang, "fp8 / q8_0 halve the cache."), named(false, &KvPrecision::ALL.map(KvPrecision::as_str))) }
            { props.select(lang, Field::Engine, t(lang, "Engine"), t(lang, "Sets overheads, speed and multi-GPU behaviour."), named(true, &Engine::ALL.map(Engine::as_str))) }
            { props.text(lang, Field::RateRps, t(lang, "Arrival rate (requests/s)"), t(lang, "Instead of a fixed number of users: requests queue for a slot (M/M/c); empty = off."), "decimal") }
            { props.text(lang, Field::PrefixHit, t(lang, "Prefix-cache hit (0–1)"), t(lang, "Share of each prompt already cached (shared system prompt)."), "decimal") }
            { props.select(lang, Field::Spec, t(lang, "Speculative decoding"), t(lang, "Draft model, EAGLE head or MTP: more tokens per step."),
                options(&[("off", t(lang, "off")), ("draft", t(lang, "draft model")), ("eagle", "EAGLE"), ("mtp", "MTP")])) }
            if props.inputs.get(Field::Spec) != "off" {
                { props.text(lang, Field::SpecAccept, t(lang, "Acceptance rate (0–1)"), t(lang, "Empty = the method's published default."), "decimal") }
            }
            { props.select(lang, Field::Backend, t(lang, "Back-end"), t(lang, "Each card's first listed back-end unless you pick one."), named(true, &Backend::ALL.map(Backend::as_str))) }
            if catalog::llm(model).is_some_and(|m| m.vision.is_some()) {
                { props.text(lang, Field::Images, t(lang, "Images per request"), t(lang, "Each becomes image tokens by the model's own rule."), "numeric") }
                { props.text(lang, Field::ImageRes, t(lang, "Image size"), t(lang, "Width×height in pixels, e.g. 1024x1024."), "text") }
            }
            { props.select(lang, Field::Arrivals, t(lang, "Arrivals"), t(lang, "random: users at their own pace; in-step: requests started together, as benchmarks run them."),
                options(&[("random", t(lang, "random")), ("in-step", t(lang, "in step"))])) }
            { props.select(lang, Field::CudaGraphs, t(lang, "CUDA graphs"), t(lang, "off: vLLM --enforce-eager, SGLang --disable-cuda-graph; auto: the engine's default."), auto_on_off(lang)) }
            { props.select(lang, Field::Disagg, t(lang, "Prefill/decode split"), t(lang, "Separate prefill and decode replicas; auto: tried past one node."), auto_on_off(lang)) }
            if catalog::llm(model).is_some_and(|m| m.experts_total.is_some()) {
                { props.select(lang, Field::MoeLayout, t(lang, "MoE layout"), t(lang, "tp: every expert split over the GPUs; ep: whole experts per GPU; dep: EP with data-parallel attention."),
                    named(false, &MoeLayout::ALL.map(MoeLayout::as_str))) }
            }
        </>
    }
}

/// LLM training and fine-tuning: sequence, micro-batch, framework, optimizer, checkpointing, LoRA
/// rank, ZeRO, tokens and deadline.
fn training(props: &SectionProps, lang: Lang) -> Html {
    let workload = props.inputs.workload();
    html! {
        <>
            { props.text(lang, Field::SeqLen, t(lang, "Sequence length"), t(lang, "Tokens per training sample."), "numeric") }
            { props.text(lang, Field::Batch, t(lang, "Micro-batch per GPU"), t(lang, "Sequences per GPU per step."), "numeric") }
            { props.select(lang, Field::Framework, t(lang, "Framework"), t(lang, "Sets the defaults: torchtune trains in pure bf16; transformers and Megatron keep fp32 master weights."),
                named(false, &["auto", "transformers", "torchtune", "megatron"])) }
            { props.select(lang, Field::Optimizer, t(lang, "Optimizer"), t(lang, "AdamW keeps 2 fp32 states per parameter."),
                named(false, &["auto", "adamw", "adamw-8bit", "paged-adamw-8bit", "sgd", "adafactor"])) }
            { props.select(lang, Field::GradCkpt, t(lang, "Activation checkpointing"), t(lang, "Trades compute for activation memory."),
                named(false, &["auto", "none", "selective", "full"])) }
            if workload == "lora" || workload == "qlora" {
                { props.text(lang, Field::LoraRank, t(lang, "LoRA rank"), t(lang, "Adapter rank r on all linear layers."), "numeric") }
            }
            { props.select(lang, Field::Zero, t(lang, "ZeRO / FSDP"), t(lang, "Shards optimizer, gradients, weights over the GPUs."),
                options(&[("auto", t(lang, "auto (fastest that fits)")), ("0", t(lang, "none")), ("1", t(lang, "ZeRO-1")), ("2", t(lang, "ZeRO-2")), ("3", t(lang, "ZeRO-3 / FSDP"))])) }
            { props.text(lang, Field::TrainTokens, t(lang, "Training tokens"), t(lang, "For time to train, e.g. 1b, 300b."), "text") }
            { props.text(lang, Field::DeadlineDays, t(lang, "Deadline (days)"), t(lang, "Finish the training tokens within this time; datacenter cards add nodes. Empty = none."), "decimal") }
            { props.select(lang, Field::MasterWeights, t(lang, "FP32 master weights"), t(lang, "auto: the framework's choice."), auto_on_off(lang)) }
            { props.select(lang, Field::OptimizerInBackward, t(lang, "Optimizer in backward"), t(lang, "Steps each parameter as its gradient is ready, so gradients are never all held; auto: the framework's choice."), auto_on_off(lang)) }
            { props.text(lang, Field::GradAccum, t(lang, "Gradient accumulation"), t(lang, "Micro-batches per optimizer step."), "numeric") }
            { cluster(props, lang) }
        </>
    }
}

/// A training cluster's plan: the global batch, a fixed Megatron mesh (each empty: the layout
/// search's choice) and each GPU's scale-out port.
fn cluster(props: &SectionProps, lang: Lang) -> Html {
    let searched = t(lang, "Empty = the layout search's choice.");
    html! {
        <>
            { props.text(lang, Field::GlobalBatch, t(lang, "Global batch (sequences)"), t(lang, "Sequences per optimizer step over all GPUs; empty = the micro-batch × accumulation on each data-parallel GPU."), "numeric") }
            { props.text(lang, Field::Tp, t(lang, "Tensor parallel (TP)"), searched, "numeric") }
            { props.text(lang, Field::Pp, t(lang, "Pipeline parallel (PP)"), searched, "numeric") }
            { props.text(lang, Field::Cp, t(lang, "Context parallel (CP)"), searched, "numeric") }
            { props.text(lang, Field::Vp, t(lang, "Virtual pipeline stages (VP)"), t(lang, "Model chunks per pipeline stage (interleaved 1F1B)."), "numeric") }
            { props.text(lang, Field::Ep, t(lang, "Expert parallel (EP)"), searched, "numeric") }
            { props.text(lang, Field::NicGbitS, t(lang, "Scale-out port (Gb/s per GPU)"), t(lang, "Each GPU's network port between nodes; empty = the platform's."), "decimal") }
        </>
    }
}

/// The options of an `auto`/`on`/`off` select.
fn auto_on_off(lang: Lang) -> Vec<(String, String)> {
    options(&[("auto", t(lang, "auto")), ("on", t(lang, "on")), ("off", t(lang, "off"))])
}

/// Image, video and classic models: resolution, steps, frames and offload (diffusion), the batch,
/// and what fp32 runs on.
fn media(props: &SectionProps, lang: Lang) -> Html {
    html! {
        <>
            if matches!(props.applies.media, Some(MediaKind::Image | MediaKind::Video)) {
                { props.text(lang, Field::Resolution, t(lang, "Resolution"), t(lang, "Width×height, e.g. 1024x1024; empty = native."), "text") }
                { props.text(lang, Field::Steps, t(lang, "Steps"), t(lang, "Denoising steps; empty = the pipeline default."), "numeric") }
                if props.applies.media == Some(MediaKind::Video) {
                    { props.text(lang, Field::Frames, t(lang, "Frames"), t(lang, "Frames per clip; empty = the model's default."), "numeric") }
                }
                { props.select(lang, Field::OffloadMode, t(lang, "CPU offload"), t(lang, "Diffusers' offload: less GPU memory, more time."), named(false, &OffloadMode::ALL.map(OffloadMode::as_str))) }
            }
            { props.text(lang, Field::Batch, t(lang, "Batch"), t(lang, "Images or samples per step."), "numeric") }
            if props.inputs.get(Field::Precision) == "fp32" {
                { props.select(lang, Field::Fp32Math, t(lang, "FP32 math"), t(lang, "What fp32 runs on cards with TF32 tensor cores."),
                    options(&[("pytorch", t(lang, "PyTorch default: convolutions TF32, matmuls FP32")), ("tf32", t(lang, "TF32 convolutions and matmuls (NGC default)")), ("strict", t(lang, "strict FP32"))])) }
            }
        </>
    }
}

/// The section's fields, shown while its disclosure is open.
#[function_component(FormShape)]
pub fn form_shape(props: &SectionProps) -> Html {
    let lang = use_lang();
    if props.applies.serving {
        serving(props, lang)
    } else if props.applies.llm {
        training(props, lang)
    } else {
        media(props, lang)
    }
}
