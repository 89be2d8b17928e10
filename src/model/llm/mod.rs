//! Transformer LLM sizing: memory by term, the number of cards a job needs, and decode, prefill,
//! serving and training throughput, for inference, full training/fine-tuning, LoRA and QLoRA.
//!
//! The web UI calls [`estimate_llm`] for every card on every keystroke, so one call is pure
//! arithmetic on a [`LlmJob`] (no allocation besides the assumption strings). Every formula,
//! constant and efficiency factor is written down with its source in `docs/MODEL.md`.
//! Submodules: [`job`] (one job: what every other part reads), [`arch`] (the model's shape),
//! [`custom`] (shape from a parameter count),
//! [`config_json`] (shape from a Hugging Face config), [`engines`] (engine overheads and the shape
//! of their efficiencies), [`fit`] and [`calibrated`] (the fitted constants and their shipped
//! values), [`in_force`] (the fitted figures in force), [`memory`] (memory terms), [`parallel`]
//! (multi-GPU layout and GPUs needed), [`throughput`] (speed and its bands), [`host`] (system RAM;
//! unified-memory GPU share), [`offload`] (weights in system RAM).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod arch;
pub mod backend;
pub mod calibrated;
pub mod config_json;
pub mod custom;
pub mod engines;
pub mod fit;
pub mod framework;
pub mod host;
pub mod in_force;
pub mod job;
pub mod memory;
pub mod offload;
pub mod mixed;
pub mod parallel;
pub mod deploy;
pub mod disagg;
pub mod serving;
pub mod throughput;
pub mod vision;

pub use arch::ModelArch;
pub use engines::{Efficiency, Engine, GpuFamily};
pub use job::{Checkpointing, LlmJob, LoraTargets, Optimizer, Workload, MAX_GPUS};

use crate::catalog::Gpu;
use crate::model::types::{check_range, Estimate, EstimateError, MemoryBreakdown, Note, OffloadPlan, Throughput};

/// Checks the card's figures the engine divides by.
fn validate_gpu(gpu: &Gpu, gpus: u32) -> Result<(), EstimateError> {
    check_range("gpus", f64::from(gpus), 1.0, f64::from(MAX_GPUS))?;
    check_range("gpu.memory_gib", gpu.memory_gib, 0.5, 100_000.0)?;
    check_range("gpu.memory_bandwidth_gb_s", gpu.memory_bandwidth_gb_s, 1.0, 1e6)?;
    Ok(())
}

/// The memory part of [`estimate_llm`]: GiB on the busiest GPU at `gpus` cards, and whether it
/// fits the engine's usable share (the recommender checks replica sizes with it).
pub fn per_gpu_fit(job: &LlmJob, gpu: &Gpu, gpus: u32) -> Result<(f64, bool), EstimateError> {
    let job = &*vision::with_images(job)?;
    job.validate()?;
    validate_gpu(gpu, gpus)?;
    let engine = job.engine_for(gpu);
    backend::validate(job, gpu, engine)?;
    let terms = memory::terms(job, gpu, engine);
    let layout = layout_for(job, gpu, engine, &terms, gpus);
    let per_gpu = parallel::per_gpu_gib(job, gpu, engine, &terms, &layout);
    if per_gpu <= parallel::usable_gib(gpu, engine, job) {
        return Ok((per_gpu, true));
    }
    match offload::plan(job, gpu, engine, &terms, gpus) {
        Some(p) if p.fits => Ok((p.gpu_gib / f64::from(gpus.max(1)), true)),
        _ => Ok((per_gpu, false)),
    }
}

/// Sizes `job` on `gpus` of `gpu`: memory by term, GPUs needed, fit, throughput and the
/// assumptions made. Errors name the field that is out of range.
///
/// NVIDIA cards older than Volta (compute capability below 7.0: Pascal's P40, P100, Quadro P6000)
/// default to llama.cpp: vLLM's installation guide asks for "compute capability 7.0 or higher
/// (e.g., V100, T4, RTX20xx, A100, L4, H100)" (docs.vllm.ai, getting_started/installation/gpu).
pub fn estimate_llm(job: &LlmJob, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
    estimate_llm_with(job, gpu, gpus, Detail::Full)
}

/// [`estimate_llm`] without its assumptions (`assumptions` left empty): the same figures, for
/// callers that rank many (card, count) pairs and show the assumptions of a few (the
/// recommender: building and dropping every candidate's notes was a quarter of its time).
pub fn estimate_llm_figures(job: &LlmJob, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
    estimate_llm_with(job, gpu, gpus, Detail::Figures)
}

/// [`estimate_llm_figures`] for a caller that knows the job's [`gpus_needed`] on this card
/// (`needed`): the recommender sizes every count of a card and finds that count once per card.
/// Without `speed`, the throughput is left out (every figure of it `None`): the memory, the fit
/// and the count needed, for the recommender's serving candidates, whose speed comes from their
/// serving plan (it times the few it shows in full).
pub fn estimate_llm_needing(job: &LlmJob, gpu: &Gpu, gpus: u32, needed: u32, speed: bool) -> Result<Estimate, EstimateError> {
    estimate_llm_as(job, gpu, gpus, if speed { Detail::Figures } else { Detail::Fit }, Some(needed))
}

/// How much of an estimate to work out: the memory and the fit; with the throughput; with the
/// assumptions too.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    Fit,
    Figures,
    Full,
}

/// The figures an estimate's notes are written from.
struct Sized {
    engine: Engine,
    terms: memory::Terms,
    layout: parallel::Layout,
    speed_layout: parallel::Layout,
    speed_gpus: u32,
    needed: u32,
    capacity: f64,
    offload: Option<OffloadPlan>,
}

fn estimate_llm_with(job: &LlmJob, gpu: &Gpu, gpus: u32, detail: Detail) -> Result<Estimate, EstimateError> {
    estimate_llm_as(job, gpu, gpus, detail, None)
}

/// The estimate at `detail`, with the job's [`gpus_needed`] given (`needed`) or found here.
fn estimate_llm_as(job: &LlmJob, gpu: &Gpu, gpus: u32, detail: Detail, needed: Option<u32>) -> Result<Estimate, EstimateError> {
    let job = &*vision::with_images(job)?;
    job.validate()?;
    validate_gpu(gpu, gpus)?;
    let engine = job.engine_for(gpu);
    backend::validate(job, gpu, engine)?;

    let terms = memory::terms(job, gpu, engine);
    let needed = needed.unwrap_or_else(|| parallel::gpus_needed_for(job, gpu, engine, &terms));
    let layout = layout_for(job, gpu, engine, &terms, gpus);
    let per_gpu = parallel::per_gpu_gib(job, gpu, engine, &terms, &layout);
    let capacity = parallel::usable_gib(gpu, engine, job);
    let mut fits = per_gpu <= capacity;
    let mut per_gpu = per_gpu;
    let mut needed = needed;
    // RAM offload (llama.cpp) when the GPUs alone cannot hold the job.
    let offload = if fits { None } else { offload::plan(job, gpu, engine, &terms, gpus) };
    if let Some(p) = offload.filter(|p| p.fits) {
        fits = true;
        per_gpu = p.gpu_gib / f64::from(gpus);
        if needed == 0 || needed > gpus {
            needed = gpus;
        }
    }

    let n_f = f64::from(gpus);
    let overhead = terms.context_gib * n_f + terms.slack_gib;
    let total = terms.weights_gib + terms.kv_gib + terms.activations_gib * layout.activation_copies(gpus)
        + terms.gradients_gib
        + terms.optimizer_gib
        + overhead;
    let memory = MemoryBreakdown {
        weights_gib: terms.weights_gib,
        kv_cache_gib: terms.kv_gib,
        activations_gib: terms.activations_gib * layout.activation_copies(gpus),
        gradients_gib: terms.gradients_gib,
        optimizer_gib: terms.optimizer_gib,
        overhead_gib: overhead,
        total_gib: total,
        total_band_gib: memory::peak_band(job, total),
        per_gpu_band_gib: memory::peak_band(job, per_gpu),
        offloaded_gib: offload.map_or(0.0, |p| p.ram_gib_used),
    };

    // Throughput at the requested count if it fits, else at the count that holds the job.
    let speed_gpus = if fits || needed == 0 { gpus } else { needed.max(gpus) };
    // The layout is chosen once per count (for training, each candidate is timed).
    let speed_layout = if speed_gpus == gpus { layout } else { layout_for(job, gpu, engine, &terms, speed_gpus) };
    let throughput = match offload.as_ref().filter(|p| p.fits) {
        _ if detail == Detail::Fit => Throughput::default(),
        Some(p) => offloaded_throughput(job, gpu, engine, &layout, p),
        None => throughput::throughput(job, gpu, engine, &terms, &speed_layout, speed_gpus),
    };

    let sized = Sized { engine, terms, layout, speed_layout, speed_gpus, needed, capacity, offload };
    let assumptions = if detail == Detail::Full { notes(job, gpu, gpus, &sized) } else { Vec::new() };
    Ok(Estimate {
        model: job.model.id.to_string(),
        gpu: gpu.id.clone(),
        gpus,
        memory,
        per_gpu_gib: per_gpu,
        gpus_needed: needed,
        fits,
        throughput: sanitize(throughput),
        offload,
        assumptions,
    })
}

/// The assumptions of an estimate of `job` on `gpus` of `gpu`, in the order they are shown.
fn notes(job: &LlmJob, gpu: &Gpu, gpus: u32, s: &Sized) -> Vec<Note> {
    let engine = s.engine;
    let mut assumptions = Vec::with_capacity(12);
    if engines::pre_volta(gpu) {
        match job.engine {
            None if engine == Engine::LlamaCpp && !job.effective_precision().is_gguf() => assumptions.push(Note::new(
                "engine llama.cpp: vLLM needs compute capability 7.0 or newer, which {gpu} ({arch}) lacks",
                vec![("gpu", gpu.name.as_str().into()), ("arch", gpu.architecture.as_str().into())],
            )),
            Some(e @ (Engine::Vllm | Engine::TrtLlm | Engine::Exllamav2)) => assumptions.push(Note::new(
                "{engine} does not support {gpu} ({arch}, compute capability below 7.0); figures assume it ran",
                vec![
                    ("engine", e.as_str().into()),
                    ("gpu", gpu.name.as_str().into()),
                    ("arch", gpu.architecture.as_str().into()),
                ],
            )),
            _ => {}
        }
    }
    backend::describe(job, gpu, engine, &mut assumptions);
    vision::describe(job, &mut assumptions);
    memory::describe(job, gpu, engine, &s.terms, &mut assumptions);
    assumptions.push(Note::new(
        "layout at {gpus} GPU(s): {layout}; each GPU may use {usable} GiB of {memory} GiB",
        vec![
            ("gpus", gpus.to_string().into()),
            ("layout", s.layout.describe().into()),
            ("usable", crate::decimal::fixed(s.capacity, 1).into()),
            ("memory", crate::decimal::fixed(gpu.memory_gib, 0).into()),
        ],
    ));
    if s.needed == 0 {
        assumptions.push(Note::new(
            "no count up to {max} of this card holds the job with this layout",
            vec![("max", MAX_GPUS.to_string().into())],
        ));
    } else {
        let nl = match s.needed {
            n if n == gpus => s.layout,
            n if n == s.speed_gpus => s.speed_layout,
            n => layout_for(job, gpu, engine, &s.terms, n),
        };
        assumptions.push(Note::new(
            "needs {n} GPU(s) ({layout})",
            vec![("n", s.needed.to_string().into()), ("layout", nl.describe().into())],
        ));
    }
    if s.speed_gpus != gpus {
        assumptions.push(Note::new(
            "throughput is given at {n} GPUs, the count that holds the job",
            vec![("n", s.speed_gpus.to_string().into())],
        ));
    }
    throughput::describe(job, gpu, engine, &s.terms, &s.speed_layout, &mut assumptions);
    offload::describe(job, gpu, engine, s.offload.as_ref(), &mut assumptions);
    assumptions
}

/// Decode and prefill with part of the weights in RAM (see [`offload`]); no serving figure:
/// llama.cpp's offload path is a single-user setup and its batching is not modelled.
fn offloaded_throughput(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &parallel::Layout, p: &OffloadPlan) -> Throughput {
    let (b, ctx) = offload::decode_point(job);
    // Tokens per second per sequence: one token per sequence per step.
    let decode = 1.0 / offload::decode_step_s(job, gpu, engine, layout, p, b, ctx);
    let prompt = f64::from(job.prompt_tokens);
    let prefill = prompt / offload::prefill_s(job, gpu, engine, layout, p, prompt);
    Throughput {
        decode_tokens_per_s: Some(crate::model::types::Band::around(decode, 1.0 - OFFLOAD_BAND, 1.0 + OFFLOAD_BAND)),
        prefill_tokens_per_s: Some(throughput::band(prefill, false, &crate::model::bands::PREFILL)),
        ..Throughput::default()
    }
}

/// Half-width of the offloaded decode band: the held-out error spread of `tests/offload.rs`
/// (docs/MODEL.md, "RAM offload and unified memory").
pub const OFFLOAD_BAND: f64 = 0.35;

/// The layout `job` runs with on `gpus` of `gpu`. Training with `auto_layout` tries data
/// parallel with ZeRO-0/1/2/3 (FSDP) and every Megatron mesh (with each expert parallel size
/// for an MoE), and keeps the fastest that leaves the job's `layout_headroom` free, else the
/// fastest that fits (the simplest on a tie; the smallest footprint when none fits); otherwise
/// the engine's or the job's fixed layout.
pub fn layout_for(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &memory::Terms, gpus: u32) -> parallel::Layout {
    if !(job.workload.is_training() && job.auto_layout) || gpus <= 1 {
        return parallel::layout(job, gpu, engine, gpus);
    }
    // The fastest layout that leaves the job's headroom, else the fastest of those that only fit
    // (timed at the end, and only when no layout leaves the headroom).
    let mut roomy: Option<(parallel::Layout, f64)> = None;
    let mut tight: Vec<(parallel::Layout, f64)> = Vec::new();
    let single = throughput::train_single_tokens_per_s(job, gpu);
    let all = single * f64::from(gpus);
    let room_gib = parallel::usable_gib(gpu, engine, job) * (1.0 - job.layout_headroom.clamp(0.0, 0.9));
    // The mesh (tp, cp, pp, interleave) whose smallest expert-parallel size with room was tried:
    // a larger one only saves memory and moves more tokens between GPUs, so it is skipped.
    let mut roomy_mesh: Option<(u32, u32, u32, u32)> = None;
    let faster = |best: &Option<(parallel::Layout, f64)>, speed: f64| best.is_none_or(|(_, s)| speed > s * 1.001);
    parallel::for_each_candidate(job, gpu, gpus, true, &mut |l| {
        let mesh = match l {
            parallel::Layout::Mesh(m) => Some((m.tp, m.cp, m.pp, m.interleave)),
            _ => None,
        };
        // A layout that cannot pass the best so far, even with free communication, is skipped
        // (it could not replace it: a replacement must be 0.1% faster).
        let bound = all * throughput::train_bound_share(job, gpu, &l, single);
        if (mesh.is_some() && mesh == roomy_mesh) || !faster(&roomy, bound) {
            return false;
        }
        let Some(held) = parallel::fitting_gib(job, gpu, engine, terms, &l) else { return false };
        if held > room_gib {
            tight.push((l, bound));
            return false;
        }
        roomy_mesh = mesh;
        let speed = throughput::train_step(job, gpu, terms, &l, gpus).tokens_per_s;
        if faster(&roomy, speed) {
            roomy = Some((l, speed));
        }
        false
    });
    let best = roomy.or_else(|| {
        // Each timed unless its bound cannot pass the best so far.
        let mut best: Option<(parallel::Layout, f64)> = None;
        for (l, bound) in tight {
            if faster(&best, bound) {
                let speed = throughput::train_step(job, gpu, terms, &l, gpus).tokens_per_s;
                if faster(&best, speed) {
                    best = Some((l, speed));
                }
            }
        }
        best
    });
    let smallest = || {
        let mut small: Option<(parallel::Layout, f64)> = None;
        parallel::for_each_candidate(job, gpu, gpus, false, &mut |l| {
            let g = parallel::per_gpu_gib(job, gpu, engine, terms, &l);
            if small.is_none_or(|(_, a)| g < a) {
                small = Some((l, g));
            }
            false
        });
        small
    };
    best.or_else(smallest).map_or_else(|| parallel::layout(job, gpu, engine, gpus), |(l, _)| l)
}

/// The most requests `job` can have in flight on `gpus` of `gpu`: as many as the engine's KV
/// pool holds after weights and buffers, and its scheduler admits (vLLM's `max_num_seqs`,
/// TensorRT-LLM's `max_batch_size`). Each request keeps `prompt + output` tokens of cache.
/// The buffers grow with the batch, so the count is settled in a few rounds.
pub fn max_concurrency(job: &LlmJob, gpu: &Gpu, gpus: u32) -> Result<u32, EstimateError> {
    let job = &*vision::with_images(job)?;
    job.validate()?;
    validate_gpu(gpu, gpus)?;
    let engine = job.engine_for(gpu);
    let mut j = job.clone();
    j.batch = 1;
    j.context_tokens = job.prompt_tokens.saturating_add(job.output_tokens).max(1);
    let mut n = 1.0_f64;
    for _ in 0..4 {
        let terms = memory::terms(&j, gpu, engine);
        let layout = layout_for(&j, gpu, engine, &terms, gpus);
        // Offered every user there could be, the batch is what the memory holds.
        let held = std::mem::replace(&mut j.batch, 65_536);
        n = throughput::serving_batch(&j, gpu, engine, &terms, &layout, gpus).clamp(0.0, 65_536.0);
        j.batch = held;
        let next = (n as u32).max(1);
        if next == j.batch {
            break;
        }
        j.batch = next;
    }
    Ok(n as u32)
}

/// The smallest number of `gpu` that holds `job` (0 when no count up to [`MAX_GPUS`] does).
pub fn gpus_needed(job: &LlmJob, gpu: &Gpu) -> Result<u32, EstimateError> {
    let job = &*vision::with_images(job)?;
    job.validate()?;
    validate_gpu(gpu, 1)?;
    let engine = job.engine_for(gpu);
    let terms = memory::terms(job, gpu, engine);
    Ok(parallel::gpus_needed_for(job, gpu, engine, &terms))
}

/// Drops any band that is not finite and ordered (never expected; a guard for the UI).
fn sanitize(t: Throughput) -> Throughput {
    let ok = |b: Option<crate::model::types::Band>| b.filter(|b| b.is_sane() && b.low >= 0.0);
    Throughput {
        decode_tokens_per_s: ok(t.decode_tokens_per_s),
        prefill_tokens_per_s: ok(t.prefill_tokens_per_s),
        serving_tokens_per_s: ok(t.serving_tokens_per_s),
        train_tokens_per_s: ok(t.train_tokens_per_s),
        seconds_per_image: ok(t.seconds_per_image),
        train_samples_per_s: ok(t.train_samples_per_s),
        seconds_per_video: ok(t.seconds_per_video),
    }
}
