//! Mixed cards in one build (`estimate --mix ID:COUNT,ID:COUNT`, URL `mix`), e.g. 1 × RTX 4090 +
//! 1 × RTX 3090: what each card holds and how fast the build decodes.
//!
//! Only a layer split can use unequal cards: tensor parallelism cuts every layer into equal
//! shards, so it needs matching cards (a mix of one card type is an ordinary estimate, where
//! tensor parallelism stays available). llama.cpp splits the layers in proportion to each
//! device's memory (`--tensor-split`; by default the devices' free memory): layer `i` of `L` goes
//! to the first device whose cumulative share exceeds `i / L` (`llama-model.cpp`,
//! `std::upper_bound` over the normalised split). Each device then holds its layers' weights and
//! KV cache, plus its own compute buffers and runtime context. The layers run one device after
//! another, so a decode step takes Σ over devices of (its layers / L) × the time that card takes
//! for the whole model alone — that is, bytes on the card over the card's bandwidth, with its
//! fixed per-layer time — plus one hand-off per boundary. All the cards must share a back-end
//! the engine runs on (mixing vendors in llama.cpp means Vulkan).

use super::backend;
use super::engines::{Backend, Engine};
use super::job::LlmJob;
use super::parallel::Layout;
use super::{memory, throughput, vision};
use crate::catalog::Gpu;
use crate::model::types::{Estimate, EstimateError, MemoryBreakdown, Note, Throughput};

/// Most devices a mix may hold.
pub const MAX_MIX_GPUS: u32 = 64;

/// One device of a mixed build.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub gpu_id: String,
    /// Transformer layers on this device.
    pub layers: u32,
    /// What this device holds, GiB, and what it may use.
    pub per_gpu_gib: f64,
    pub usable_gib: f64,
}

/// How a job runs on a mix of cards.
#[derive(Debug, Clone, PartialEq)]
pub struct MixedSplit {
    pub engine: Engine,
    pub backend: Backend,
    /// Every device, in the order given.
    pub devices: Vec<Device>,
    /// Seconds per decode step and per prefill of the prompt.
    pub decode_step_s: f64,
    pub prefill_s: f64,
}

impl MixedSplit {
    /// The busiest device's GiB (the `per_gpu_gib` of the estimate).
    pub fn busiest_gib(&self) -> f64 {
        self.devices.iter().map(|d| d.per_gpu_gib).fold(0.0, f64::max)
    }

    /// True when every device holds its share.
    pub fn fits(&self) -> bool {
        self.devices.iter().all(|d| d.per_gpu_gib <= d.usable_gib)
    }
}

/// Layers per device, llama.cpp's rule: layer `i` goes to the first device whose cumulative
/// memory share exceeds `i / layers`.
pub fn layers_by_memory(layers: u32, memory_gib: &[f64]) -> Vec<u32> {
    let total: f64 = memory_gib.iter().sum::<f64>().max(1e-9);
    let mut cumulative = Vec::with_capacity(memory_gib.len());
    let mut acc = 0.0;
    for m in memory_gib {
        acc += m / total;
        cumulative.push(acc);
    }
    let mut out = vec![0u32; memory_gib.len()];
    for i in 0..layers {
        let x = f64::from(i) / f64::from(layers.max(1));
        let d = cumulative.iter().position(|c| x < *c).unwrap_or(memory_gib.len().saturating_sub(1));
        if let Some(slot) = out.get_mut(d) {
            *slot += 1;
        }
    }
    out
}

/// The engine and back-end for a mix of different cards, or the error naming what cannot run.
fn engine_and_backend(job: &LlmJob, cards: &[(&Gpu, u32)]) -> Result<(Engine, Backend), EstimateError> {
    let engine = job.engine.unwrap_or(Engine::LlamaCpp);
    if engine.tensor_parallel() {
        return Err(EstimateError::invalid(
            "mix",
            Note::new(
                "{engine} splits every layer (tensor parallelism), which needs matching cards; different cards run layer by layer (llama.cpp)",
                vec![("engine", engine.as_str().into())],
            ),
        ));
    }
    let on_all = |b: Backend| cards.iter().all(|(g, _)| backend::card_has(g, b)) && b.runs(engine);
    if let Some(b) = job.backend {
        return if on_all(b) {
            Ok((engine, b))
        } else {
            Err(EstimateError::invalid(
                "backend",
                Note::new("{backend} does not run on every card of the mix with {engine}", vec![("backend", b.as_str().into()), ("engine", engine.as_str().into())]),
            ))
        };
    }
    let first = cards.first().map(|(g, _)| *g);
    let preferred = first.into_iter().flat_map(|g| g.backends.iter()).filter_map(|s| Backend::parse(s));
    preferred.into_iter().find(|b| on_all(*b)).map(|b| (engine, b)).ok_or_else(|| {
        let listed: Vec<String> = cards.iter().map(|(g, _)| format!("{}: {}", g.id, g.backends.join("/"))).collect();
        let args = vec![("engine", engine.as_str().into()), ("cards", listed.join("; ").into())];
        EstimateError::invalid("mix", Note::new("no back-end that {engine} runs on is common to these cards ({cards})", args))
    })
}

/// Checks the mix itself: at least one card, counts of 1 and more, at most [`MAX_MIX_GPUS`].
fn check_cards(cards: &[(&Gpu, u32)]) -> Result<u32, EstimateError> {
    let total: u32 = cards.iter().map(|(_, n)| *n).sum();
    if cards.is_empty() || cards.iter().any(|(_, n)| *n == 0) {
        return Err(EstimateError::invalid("mix", "give each card as ID:COUNT with a count of 1 or more"));
    }
    if total > MAX_MIX_GPUS {
        let args = vec![("max", MAX_MIX_GPUS.to_string().into()), ("count", total.to_string().into())];
        return Err(EstimateError::invalid("mix", Note::new("at most {max} cards, got {count}", args)));
    }
    Ok(total)
}

/// How `job` splits over `cards` (different cards; inference only).
pub fn split(job: &LlmJob, cards: &[(&Gpu, u32)]) -> Result<MixedSplit, EstimateError> {
    let job = &*vision::with_images(job)?;
    job.validate()?;
    if job.workload.is_training() {
        return Err(EstimateError::invalid("mix", "mixed cards are sized for inference only"));
    }
    let n = check_cards(cards)?;
    let (engine, backend) = engine_and_backend(job, cards)?;
    let job = &LlmJob { backend: Some(backend), engine: Some(engine), ..job.clone() };
    let devices: Vec<&Gpu> = cards.iter().flat_map(|(g, c)| std::iter::repeat_n(*g, *c as usize)).collect();
    let memory: Vec<f64> = devices.iter().map(|g| g.memory_gib).collect();
    let layers = layers_by_memory(job.model.layers, &memory);
    let l_total = f64::from(job.model.layers.max(1));
    let (prompt, out) = (f64::from(job.prompt_tokens), f64::from(job.output_tokens));
    let ctx = (prompt + out / 2.0).min(f64::from(job.context_tokens));
    let mut split = MixedSplit { engine, backend, devices: Vec::with_capacity(devices.len()), decode_step_s: 0.0, prefill_s: 0.0 };
    for (g, l) in devices.iter().zip(&layers) {
        let t = memory::terms(job, g, engine);
        let share = f64::from(*l) / l_total;
        let gib = (t.weights_gib + t.kv_gib) * share + t.activations_gib + t.context_gib + t.slack_gib / f64::from(n);
        let usable = super::parallel::usable_gib(g, engine, job);
        split.devices.push(Device { gpu_id: g.id.clone(), layers: *l, per_gpu_gib: gib, usable_gib: usable });
        split.decode_step_s += share * throughput::decode_step_s(job, g, engine, &Layout::Single, f64::from(job.batch), ctx);
        split.prefill_s += share * throughput::prefill_s(job, g, engine, &Layout::Single, prompt, true);
    }
    let hop_s = devices.first().map_or(0.0, |g| throughput::job_efficiency(job, engine, g).hop_ms * 1e-3);
    split.decode_step_s += f64::from(n - 1) * hop_s;
    split.prefill_s += f64::from(n - 1) * hop_s;
    Ok(split)
}

/// The estimate of `job` on a mix of cards: one card type is an ordinary estimate on that many;
/// different cards are [`split`] layer by layer, with `per_gpu_gib` the busiest device.
pub fn estimate_mixed(job: &LlmJob, cards: &[(&Gpu, u32)]) -> Result<Estimate, EstimateError> {
    if let [(gpu, count)] = cards {
        check_cards(cards)?;
        return super::estimate_llm(job, gpu, *count);
    }
    let s = split(job, cards)?;
    let expanded = vision::with_images(job)?;
    let job = &LlmJob { backend: Some(s.backend), engine: Some(s.engine), ..(*expanded).clone() };
    let mut terms = Vec::with_capacity(cards.len());
    for (g, c) in cards {
        terms.push((memory::terms(job, g, s.engine), f64::from(*c)));
    }
    let first = terms.first().map(|(t, _)| *t).ok_or_else(|| EstimateError::invalid("mix", "no cards"))?;
    let activations: f64 = terms.iter().map(|(t, c)| t.activations_gib * c).sum();
    let overhead: f64 = terms.iter().map(|(t, c)| t.context_gib * c).sum::<f64>() + first.slack_gib;
    let total = first.weights_gib + first.kv_gib + activations + overhead;
    let measured = cards.iter().all(|(g, _)| throughput::job_efficiency(job, s.engine, g).measured);
    Ok(Estimate {
        model: job.model.id.to_string(),
        gpu: cards.iter().map(|(g, c)| format!("{}:{c}", g.id)).collect::<Vec<_>>().join(","),
        gpus: s.devices.len() as u32,
        memory: MemoryBreakdown {
            weights_gib: first.weights_gib,
            kv_cache_gib: first.kv_gib,
            activations_gib: activations,
            gradients_gib: 0.0,
            optimizer_gib: 0.0,
            overhead_gib: overhead,
            total_gib: total,
            total_band_gib: None,
            per_gpu_band_gib: None,
            // A mixed build does not offload to RAM (llama.cpp's layer split across the cards only).
            offloaded_gib: 0.0,
        },
        per_gpu_gib: s.busiest_gib(),
        gpus_needed: if s.fits() { s.devices.len() as u32 } else { 0 },
        fits: s.fits(),
        throughput: Throughput {
            decode_tokens_per_s: Some(throughput::band(1.0 / s.decode_step_s.max(1e-12), measured, &crate::model::bands::DECODE)),
            prefill_tokens_per_s: Some(throughput::band(f64::from(job.prompt_tokens) / s.prefill_s.max(1e-12), measured, &crate::model::bands::PREFILL)),
            ..Throughput::default()
        },
        assumptions: describe(job, cards, &s),
        offload: None,
    })
}

/// The assumption notes of a mixed build: the back-end, the split and each card's share.
fn describe(job: &LlmJob, cards: &[(&Gpu, u32)], s: &MixedSplit) -> Vec<Note> {
    let mut out = Vec::with_capacity(cards.len() + 4);
    if let Some((g, _)) = cards.first() {
        backend::describe(job, g, s.engine, &mut out);
    }
    vision::describe(job, &mut out);
    let split: Vec<String> = s.devices.iter().map(|d| crate::decimal::fixed(crate::catalog::gpu(&d.gpu_id).map_or(0.0, |g| g.memory_gib), 0)).collect();
    out.push(Note::new(
        "mixed cards on {engine}: layers split in proportion to memory (--tensor-split {split}); the cards run one after another, so each adds its share of the time per token",
        vec![("engine", s.engine.as_str().into()), ("split", split.join(",").into())],
    ));
    for d in &s.devices {
        out.push(Note::new(
            "{gpu}: {layers} of {total} layers, {gib} GiB of {usable} GiB usable",
            vec![
                ("gpu", d.gpu_id.clone().into()),
                ("layers", d.layers.to_string().into()),
                ("total", job.model.layers.to_string().into()),
                ("gib", crate::decimal::fixed(d.per_gpu_gib, 1).into()),
                ("usable", crate::decimal::fixed(d.usable_gib, 1).into()),
            ],
        ));
    }
    out
}
