//! RAM offload and unified memory: where the weights go when the GPUs cannot hold them all, and
//! how much of a shared-memory machine's RAM its GPU may use.
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
use super::memory::{kv_bytes, routed_expert_bytes, weight_bytes, Terms};
use super::{LlmJob, Workload};
use crate::catalog::{Gpu, Segment, Vendor};
use crate::model::types::{Note, GIB};
use serde::Serialize;

/// RAM kept for the operating system and the desktop, GiB: Ubuntu Desktop's and Windows 11's
/// minimum system memory (4 GB, ubuntu.com/download/desktop; Microsoft's Windows 11
/// specifications).
pub const OS_RESERVE_GIB: f64 = 4.0;

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

    /// `job` with this fit in force ([`Host::ram_stream_fraction`]).
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

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OffloadMode {
    /// The faster placement that fits (`--offload auto`, the default).
    #[default]
    Auto,
    /// Never offload.
    None,
    /// Whole layers (`-ngl`).
    Layers,
    /// MoE routed experts (`--n-cpu-moe`).
    Experts,
}

impl OffloadMode {
    /// Every mode, in CLI order.
    pub const ALL: [OffloadMode; 4] = [OffloadMode::Auto, OffloadMode::None, OffloadMode::Layers, OffloadMode::Experts];

    /// CLI and URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            OffloadMode::Auto => "auto",
            OffloadMode::None => "none",
            OffloadMode::Layers => "layers",
            OffloadMode::Experts => "experts",
        }
    }

    /// Parses a CLI or URL name.
    pub fn parse(s: &str) -> Option<OffloadMode> {
        let lower = s.trim().to_ascii_lowercase();
        OffloadMode::ALL.into_iter().find(|m| m.as_str() == lower)
    }
}

/// The host around the GPUs: system RAM and how the job may use it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Host {
    /// System RAM, GiB; 0 = no offload (the default).
    pub ram_gib: f64,
    /// RAM bandwidth, GB/s (theoretical: MT/s × 8 B × channels); `None` = [`default_ram_gb_s`].
    pub ram_gb_s: Option<f64>,
    pub mode: OffloadMode,
    /// Unified-memory machines: the GPU share the user set (`iogpu.wired_limit_mb` on macOS,
    /// the GTT size on Linux), GiB; `None` = the platform's default ([`unified_gpu_gib`]).
    pub unified_gpu_gib: Option<f64>,
    /// Overrides [`RAM_STREAM_FRACTION`] ([`OffloadFit::apply`], for cross-validation).
    pub ram_stream_fraction: Option<f64>,
}

/// Where the weights that do not fit go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Whole layers in RAM (`-ngl`).
    Layers,
    /// Routed experts in RAM (`--n-cpu-moe`).
    Experts,
}

impl Placement {
    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Layers => "layers",
            Placement::Experts => "experts",
        }
    }
}

/// A placement of one job: the `offload` object of `estimate --json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OffloadPlan {
    pub placement: Placement,
    /// Layers wholly on the GPU (experts: layers whose experts stay on the GPU).
    pub layers_on_gpu: u32,
    pub layers_total: u32,
    /// RAM the weights (and, with layers, their KV cache) take, GiB.
    pub ram_gib_used: f64,
    /// GPU memory over all GPUs, GiB.
    #[serde(skip)]
    pub gpu_gib: f64,
    /// True when the GPUs and the RAM (after [`OS_RESERVE_GIB`]) both hold their parts.
    #[serde(skip)]
    pub fits: bool,
}

/// The RAM bandwidth assumed when the user gives none, GB/s (theoretical, MT/s × 8 B per
/// channel): datacenter cards sit in 8-channel DDR5-4800 servers (307.2; Intel Xeon 4th gen);
/// cards from 2022 on in dual-channel DDR5-5600 desktops (89.6); older ones in dual-channel
/// DDR4-3200 (51.2).
pub fn default_ram_gb_s(gpu: &Gpu) -> f64 {
    match gpu.segment {
        Segment::Datacenter => 8.0 * 4800.0 * 8.0 / 1000.0,
        _ if gpu.release_year >= 2022 => 2.0 * 5600.0 * 8.0 / 1000.0,
        _ => 2.0 * 3200.0 * 8.0 / 1000.0,
    }
}

/// The RAM bandwidth the job's host has, GB/s.
pub fn ram_gb_s(job: &LlmJob, gpu: &Gpu) -> f64 {
    job.host.ram_gb_s.unwrap_or_else(|| default_ram_gb_s(gpu))
}

/// Share of a unified-memory machine's RAM its GPU may use by default, and why:
/// - Apple: Metal's `recommendedMaxWorkingSetSize`, 2/3 of RAM up to 36 GiB (10.67 GB of a
///   16 GB M4, exo-explore/exo PR #1672) and 3/4 above (gpustack issue #1375); raised with
///   `sysctl iogpu.wired_limit_mb` (antirez/ds4 PR #893: 112 GiB on a 128 GiB M5 Max).
/// - AMD Strix Halo: 3/4, the largest BIOS carve-out (96 GB of 128 GB, Variable Graphics
///   Memory); on Linux the GTT limit (`ttm.pages_limit`) goes to about 124 GiB of 128.
/// - NVIDIA DGX Spark (GB10): 102 GiB of 128, what CUDA reports free at boot on a headless DGX OS
///   (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks issue #47: "101.3–102.2 GiB of 121.69").
pub fn unified_default_share(gpu: &Gpu, memory_gib: f64) -> f64 {
    match gpu.vendor {
        Vendor::Apple if memory_gib <= 36.0 => 2.0 / 3.0,
        Vendor::Apple => 0.75,
        Vendor::Nvidia => 102.0 / 128.0,
        _ => 0.75,
    }
}

/// GiB a unified-memory machine's GPU may use: the user's share (at most the RAM less
/// [`OS_RESERVE_GIB`]) or the platform's default; `None` for discrete cards.
pub fn unified_gpu_gib(gpu: &Gpu, job: &LlmJob) -> Option<f64> {
    if !gpu.is_unified_computer() {
        return None;
    }
    let mem = gpu.usable_memory_gib();
    let most = (mem - OS_RESERVE_GIB).max(0.0);
    Some(match job.host.unified_gpu_gib {
        Some(g) => g.max(0.0).min(most),
        None => mem * unified_default_share(gpu, mem),
    })
}

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
            let touched = 1.0 - (1.0 - k.clamp(0.0, 1.0)).powf(batch.max(1.0));
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
    let ram_bw = ram_gb_s(job, gpu) * 1e9 * ram_stream_fraction(job);
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
    if let Some(share) = unified_gpu_gib(gpu, job) {
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
    let bw = ram_gb_s(job, gpu);
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
