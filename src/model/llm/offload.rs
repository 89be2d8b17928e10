//! RAM offload: where the weights go when the GPUs cannot hold them all, and how fast the job then
//! runs. The host it offloads to (RAM, its bandwidth, a unified-memory GPU's share) is
//! [`super::host`].
//!
//! Offload follows llama.cpp. `-ngl k` ([`Placement::Layers`]) keeps the last `k` layers (weights
//! and their KV cache) on the GPU and runs the rest on the CPU from system RAM; the output layer
//! goes to the GPU only when every layer does, and the token-embedding table always stays in RAM
//! (llama.cpp `src/llama-model.cpp`, `load_tensors`: "there is very little benefit to offloading
//! the input layer, so always keep it on the CPU"). `--n-cpu-moe m` / `-ot exps=CPU`
//! ([`Placement::Experts`]) keeps attention, shared weights, the output layer and the KV cache on
//! the GPU and the routed-expert tensors of `m` MoE layers in RAM (llama.cpp PR #15077). The plan
//! puts as much on the GPU as fits: the most layers, or the fewest expert layers in RAM.
//!
//! Decode time per token = the all-on-GPU step − the bytes now in RAM at the GPU's stream rate +
//! those bytes at the effective RAM rate + [`CROSSING_S`] per GPU↔CPU hand-over. The CPU reads
//! only what a token touches (MoE: the routed experts in use). Prefill: for batches of 32 tokens
//! or more llama.cpp copies the RAM-resident weights to the GPU and multiplies there (PR #6083,
//! "backend : offload large batches to GPU"), so each 512-token micro-batch pays one copy of
//! them over PCIe. Every figure and its source: docs/MODEL.md, "RAM offload and unified memory".

use super::engines::Engine;
use super::host::{ram_gb_s, unified_gpu_gib, OffloadMode, OS_RESERVE_GIB};
use super::memory::{kv_bytes, routed_expert_bytes, weight_bytes, Terms};
use super::job::{LlmJob, Workload};
use crate::catalog::Gpu;
use crate::model::types::{Note, OffloadPlan, Placement, GIB};

/// The offload engine's fitted constant, swappable per call for cross-validation
/// (`src/accuracy/offload.rs` refits it inside every fold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffloadFit {
    /// Share of the theoretical DRAM bandwidth llama.cpp's CPU path reaches when it streams
    /// offloaded weights at batch 1.
    pub ram_stream_fraction: f64,
}

impl OffloadFit {
    /// Fitted once to the published runs of `tests/data/calibration/llm_offload.csv` (no per-row
    /// or per-model factor); its held-out error is in `docs/ACCURACY.md`.
    pub const CALIBRATED: OffloadFit = OffloadFit { ram_stream_fraction: 0.48 };

    /// `job` with this fit in force ([`super::host::Host::ram_stream_fraction`]).
    pub fn apply(&self, job: &LlmJob) -> LlmJob {
        let mut j = job.clone();
        j.host.ram_stream_fraction = Some(self.ram_stream_fraction);
        j
    }
}

/// Share of the theoretical DRAM bandwidth llama.cpp's CPU path reaches ([`OffloadFit::CALIBRATED`]).
pub const RAM_STREAM_FRACTION: f64 = OffloadFit::CALIBRATED.ram_stream_fraction;

/// The RAM stream share `job` runs at: its override ([`OffloadFit::apply`]), else
/// [`RAM_STREAM_FRACTION`].
pub fn ram_stream_fraction(job: &LlmJob) -> f64 {
    job.host.ram_stream_fraction.unwrap_or(RAM_STREAM_FRACTION)
}

/// One GPU↔CPU hand-over of the hidden state during decode, s: one PCIe hop as
/// [`crate::model::fabric`] times it (25 µs).
pub const CROSSING_S: f64 = 25e-6;

/// llama.cpp's physical micro-batch (`-ub 512`, its default): prefill copies the RAM-resident
/// weights to the GPU once per micro-batch.
pub const UBATCH_TOKENS: f64 = 512.0;

/// True when the job may offload: inference with llama.cpp on a discrete card, RAM given and
/// offload not turned off.
pub fn applies(job: &LlmJob, gpu: &Gpu, engine: Engine) -> bool {
    job.workload == Workload::Inference
        && job.host.ram_gib > 0.0
        && job.host.mode != OffloadMode::None
        && engine == Engine::LlamaCpp
        && !gpu.is_unified_computer()
}

/// Weight parts in GiB: (body, embedding table, output layer).
fn parts_gib(job: &LlmJob) -> (f64, f64, f64) {
    let (body, embed, head) = weight_bytes(job);
    (body / GIB, embed / GIB, head / GIB)
}

/// The placement with the most on the GPU that `capacity_gib` (all GPUs) holds, or `None`.
/// `fixed_gib` is what every placement keeps on the GPUs (buffers, context, slack).
pub fn place(job: &LlmJob, placement: Placement, terms: &Terms, fixed_gib: f64, capacity_gib: f64) -> Option<OffloadPlan> {
    let m = &job.model;
    let l = m.layers.max(1);
    let (body, embed, head) = parts_gib(job);
    let kv = terms.kv_gib;
    let ram_room = job.host.ram_gib - OS_RESERVE_GIB;
    let plan = |on: u32, gpu_gib: f64, ram_gib: f64| OffloadPlan {
        placement,
        layers_on_gpu: on,
        layers_total: l,
        ram_gib_used: ram_gib,
        gpu_gib,
        fits: gpu_gib <= capacity_gib && ram_gib <= ram_room,
    };
    match placement {
        Placement::Layers => (0..=l).rev().find_map(|k| {
            let share = f64::from(k) / f64::from(l);
            let all = k == l;
            let gpu = fixed_gib + share * (body + kv) + if all { head } else { 0.0 };
            let ram = embed + (1.0 - share) * (body + kv) + if all { 0.0 } else { head };
            (gpu <= capacity_gib).then(|| plan(k, gpu, ram))
        }),
        Placement::Experts if m.is_moe() => {
            let moe_layers = m.layers.saturating_sub(m.dense_layers).max(1);
            let per_layer = routed_expert_bytes(job) / GIB / f64::from(moe_layers);
            (0..=moe_layers).find_map(|n| {
                let ram_experts = f64::from(n) * per_layer;
                let gpu = fixed_gib + body - ram_experts + kv + head;
                (gpu <= capacity_gib).then(|| plan(l - n, gpu, embed + ram_experts))
            })
        }
        Placement::Experts => None,
    }
}

/// Bytes one decode step reads from RAM, KV bytes read there, and GPU↔CPU hand-overs.
fn ram_reads(job: &LlmJob, plan: &OffloadPlan, batch: f64, ctx: f64) -> (f64, f64, f64) {
    let m = &job.model;
    let l = f64::from(plan.layers_total.max(1));
    match plan.placement {
        Placement::Layers => {
            let off = 1.0 - f64::from(plan.layers_on_gpu) / l;
            let (_, embed, head) = weight_bytes(job);
            let head = if m.tied_embeddings { embed } else { head };
            let body_read = (super::throughput::decode_weight_bytes(job, batch) - head).max(0.0);
            let head_ram = if plan.layers_on_gpu < plan.layers_total { head } else { 0.0 };
            let hops = if off > 0.0 { 2.0 } else { 0.0 };
            (off * body_read + head_ram, off * kv_bytes(job, ctx, batch), hops)
        }
        Placement::Experts => {
            let moe_layers = f64::from(m.layers.saturating_sub(m.dense_layers).max(1));
            let in_ram = f64::from(plan.layers_total - plan.layers_on_gpu);
            let k = f64::from(m.experts_active) / f64::from(m.experts_total.max(1));
            let touched = 1.0 - crate::fmath::pow(1.0 - k.clamp(0.0, 1.0), batch.max(1.0));
            let bytes = routed_expert_bytes(job) * touched * in_ram / moe_layers;
            (bytes, 0.0, 2.0 * in_ram)
        }
    }
}

/// Seconds of one decode step with `plan`: the all-on-GPU step with the RAM-resident bytes moved
/// from the GPU's stream rate to the effective RAM rate, plus the hand-overs.
pub fn decode_step_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &super::parallel::Layout, plan: &OffloadPlan, batch: f64, ctx: f64) -> f64 {
    let on_gpu = super::throughput::decode_step_s(job, gpu, engine, layout, batch, ctx);
    let (gpu_weight_bw, gpu_kv_bw) = super::throughput::gpu_stream_bw(job, gpu, engine);
    let ram_bw = ram_gb_s(&job.host, gpu) * 1e9 * ram_stream_fraction(job);
    let (weights, kv, hops) = ram_reads(job, plan, batch, ctx);
    on_gpu - weights / gpu_weight_bw - kv / gpu_kv_bw + (weights + kv) / ram_bw + hops * CROSSING_S
}

/// Seconds to prefill `tokens` with `plan`: the all-on-GPU prefill plus one PCIe copy of the
/// RAM-resident weights per [`UBATCH_TOKENS`] micro-batch (llama.cpp PR #6083).
pub fn prefill_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &super::parallel::Layout, plan: &OffloadPlan, tokens: f64) -> f64 {
    let on_gpu = super::throughput::prefill_s(job, gpu, engine, layout, tokens, true);
    let (_, embed, _) = parts_gib(job);
    let weights_in_ram = (plan.ram_gib_used - embed).max(0.0) * GIB;
    let pcie = crate::model::fabric::pcie_gb_s(gpu) * crate::model::fabric::FABRIC_EFFICIENCY * 1e9;
    on_gpu + (tokens / UBATCH_TOKENS).ceil().max(1.0) * weights_in_ram / pcie
}

/// The placement the job runs with when its GPUs cannot hold it: the one asked for, or (auto)
/// the faster of the two that fit. `None` when offload does not apply or nothing fits.
pub fn plan(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &Terms, gpus: u32) -> Option<OffloadPlan> {
    if !applies(job, gpu, engine) {
        return None;
    }
    let n = f64::from(gpus.max(1));
    let capacity = super::parallel::usable_gib(gpu, engine, job) * n;
    let fixed = (terms.activations_gib + terms.context_gib) * n + terms.slack_gib;
    let layout = super::parallel::layout(job, gpu, engine, gpus);
    let (b, ctx) = decode_point(job);
    let speed = |p: &OffloadPlan| decode_step_s(job, gpu, engine, &layout, p, b, ctx);
    let candidates: Vec<OffloadPlan> = match job.host.mode {
        OffloadMode::Layers => place(job, Placement::Layers, terms, fixed, capacity).into_iter().collect(),
        OffloadMode::Experts => place(job, Placement::Experts, terms, fixed, capacity).into_iter().collect(),
        _ => [Placement::Experts, Placement::Layers].into_iter().filter_map(|p| place(job, p, terms, fixed, capacity)).collect(),
    };
    let mut best: Option<(OffloadPlan, f64)> = None;
    for p in candidates {
        let t = speed(&p);
        let better = match best {
            None => true,
            Some((q, tq)) => (p.fits && !q.fits) || (p.fits == q.fits && t < tq),
        };
        if better {
            best = Some((p, t));
        }
    }
    best.map(|(p, _)| p)
}

/// The batch and average context decode is timed at (as `throughput::throughput` does).
pub fn decode_point(job: &LlmJob) -> (f64, f64) {
    let prompt = f64::from(job.prompt_tokens);
    let out = f64::from(job.output_tokens);
    (f64::from(job.batch), (prompt + out / 2.0).min(f64::from(job.context_tokens)))
}

/// The assumption lines of an offload plan, or of why none was made.
pub fn describe(job: &LlmJob, gpu: &Gpu, engine: Engine, plan: Option<&OffloadPlan>, out: &mut Vec<Note>) {
    let fixed = |v: f64, d: usize| crate::decimal::fixed(v, d);
    if let Some(share) = unified_gpu_gib(gpu, &job.host) {
        out.push(Note::new(
            "unified memory: the GPU may use {gpu} GiB of {total} GiB; the same memory is never counted again as RAM for offload",
            vec![("gpu", fixed(share, 1).into()), ("total", fixed(gpu.usable_memory_gib(), 0).into())],
        ));
    }
    if job.host.ram_gib <= 0.0 || job.workload != Workload::Inference || gpu.is_unified_computer() {
        return;
    }
    if engine != Engine::LlamaCpp {
        out.push(Note::new(
            "RAM offload is modelled for llama.cpp only; {engine} keeps every weight on the GPUs",
            vec![("engine", engine.as_str().into())],
        ));
        return;
    }
    let Some(p) = plan else { return };
    let bw = ram_gb_s(&job.host, gpu);
    let eff = ram_stream_fraction(job);
    let what = match p.placement {
        Placement::Layers => Note::new(
            "layers (-ngl {on}): {on} of {total} layers on the GPU",
            vec![("on", p.layers_on_gpu.to_string().into()), ("total", p.layers_total.to_string().into())],
        ),
        Placement::Experts => Note::new(
            "experts (--n-cpu-moe {n}): routed experts of {n} of {total} layers in RAM",
            vec![("n", (p.layers_total - p.layers_on_gpu).to_string().into()), ("total", p.layers_total.to_string().into())],
        ),
    };
    out.push(Note::new(
        "RAM offload: {what}; {ram} GiB in system RAM of {have} GiB ({reserve} GiB kept for the OS), read at {bw} GB/s × {eff}",
        vec![
            ("what", what.into()),
            ("ram", fixed(p.ram_gib_used, 1).into()),
            ("have", fixed(job.host.ram_gib, 0).into()),
            ("reserve", fixed(OS_RESERVE_GIB, 0).into()),
            ("bw", fixed(bw, 1).into()),
            ("eff", fixed(eff, 2).into()),
        ],
    ));
}
