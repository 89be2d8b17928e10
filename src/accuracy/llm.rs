//! The LLM engine as an accuracy [`Domain`]: its rows ([`super::llm_rows`]), its prediction of
//! each, and the refit of every fitted constant of [`LlmFit`] on any subset of rows.
//!
//! # The fit
//!
//! Each fitted constant is a [`Knob`]: where it sits in [`LlmFit`], its physics default (the
//! value a fit starts from and keeps when the rows cannot determine it), its physical bounds, and
//! the rows that determine it. Knobs are fitted in groups, one engine and one measurement at a
//! time (decode before prefill, whose weight-stream floor reads the decode constants), each group
//! on its own rows among those given: coordinate descent on the mean |ln(model / measured)|,
//! every knob searched on a logarithmic grid over its bounds and then on finer grids around the
//! best point, three sweeps. A knob with fewer than [`MIN_ROWS`] rows of its kind keeps its
//! default, and the fold says so. [`CALIBRATED`] is this fit on every row (a test checks
//! it), so the shipped constants are reproducible from the data and the defaults alone.

use super::folds::{Domain, Refit};
use super::llm_rows::{Inventory, LlmCase, Read};
use super::row::{Row, Set};
use crate::catalog::Gpu;
use crate::model::llm::arch::is_mla_moe;
use crate::model::llm::engines::Backend;
use crate::model::llm::calibrated::CALIBRATED;
use crate::model::llm::fit::LlmFit;
use crate::model::llm::in_force;
use crate::model::llm::serving::{self, Arrivals, ServingTargets};
use crate::model::llm::{estimate_llm_figures, layout_for, memory, parallel, Checkpointing, Engine, LlmJob};
use crate::model::precision::Precision;
use crate::model::Band;
use std::collections::HashMap;
use std::sync::Mutex;

/// Rows of its kind a knob needs before the fit moves it from its default.
pub const MIN_ROWS: usize = 3;

/// One fitted constant.
pub struct Knob {
    pub name: &'static str,
    pub at: fn(&mut LlmFit) -> &mut f64,
    /// The physics default.
    pub prior: f64,
    pub lo: f64,
    pub hi: f64,
    /// True for the rows (of its group) that determine it.
    pub determines: fn(&Row<LlmCase>) -> bool,
    /// Where its default comes from when its rows cannot determine it: the knob of the group, among
    /// these, that the most rows of the fold determine (the same kernels on another back-end, the
    /// same training step on another family of cards), else `prior`. One without rows of its own
    /// takes the first's value (which may itself have come from another).
    pub fallback: &'static [&'static str],
}

/// Knobs fitted together on one engine's rows of one set.
pub struct Group {
    pub name: &'static str,
    /// The sets whose rows (of the group's engines) the group is fitted on.
    pub sets: &'static [Set],
    pub engines: &'static [Engine],
    pub knobs: Vec<Knob>,
}

fn any(_: &Row<LlmCase>) -> bool {
    true
}

fn multi_gpu(r: &Row<LlmCase>) -> bool {
    r.gpus > 1
}

/// A context of 2,048 tokens or more, where the KV cache's reads or the attention's FLOPs show.
fn long_context(r: &Row<LlmCase>) -> bool {
    r.payload.job.prompt_tokens + r.payload.job.output_tokens / 2 >= 2048
}

/// Cards whose datasheet bandwidth per SM is above 14 GB/s (HBM cards), where an in-flight cap
/// on the loads of mat-vec kernels would show.
fn high_bw_per_sm(r: &Row<LlmCase>) -> bool {
    r.gpu.sm_count.is_some_and(|n| r.gpu.memory_bandwidth_gb_s / f64::from(n.max(1)) > 14.0)
}

/// The back-end a llama.cpp row ran on (its own, else the card's first).
fn backend(r: &Row<LlmCase>) -> Option<Backend> {
    let j = &r.payload.job;
    crate::model::llm::backend::backend_for(j, r.gpu, j.engine_for(r.gpu))
}

fn on_cuda(r: &Row<LlmCase>) -> bool {
    backend(r) == Some(Backend::Cuda)
}

/// CUDA rows on cards whose bandwidth per SM is below the in-flight cap's reach (GDDR cards),
/// where the weight-stream share shows without the cap.
fn cuda_uncapped(r: &Row<LlmCase>) -> bool {
    on_cuda(r) && !high_bw_per_sm(r)
}

fn on_rocm(r: &Row<LlmCase>) -> bool {
    backend(r) == Some(Backend::Rocm)
}

fn on_vulkan(r: &Row<LlmCase>) -> bool {
    backend(r) == Some(Backend::Vulkan)
}

fn on_metal(r: &Row<LlmCase>) -> bool {
    matches!(backend(r), Some(Backend::Metal | Backend::Mlx))
}

fn on_sycl(r: &Row<LlmCase>) -> bool {
    backend(r) == Some(Backend::Sycl)
}

fn from_ttft(r: &Row<LlmCase>) -> bool {
    r.payload.read == Read::PrefillFromTtft
}

fn moe(r: &Row<LlmCase>) -> bool {
    r.payload.job.model.is_moe()
}

fn matrix_units(r: &Row<LlmCase>) -> bool {
    let job = &r.payload.job;
    crate::model::llm::backend::matrix_units_in_use(job, r.gpu, job.engine_for(r.gpu))
}

fn no_matrix_units(r: &Row<LlmCase>) -> bool {
    !matrix_units(r)
}

fn quantized_on_matrix_units(r: &Row<LlmCase>) -> bool {
    matrix_units(r) && r.payload.job.effective_precision().is_quantized()
}

fn int8(r: &Row<LlmCase>) -> bool {
    r.payload.job.precision == crate::model::precision::Precision::Int8
}

fn family_is(r: &Row<LlmCase>, fam: crate::model::llm::GpuFamily) -> bool {
    crate::model::llm::GpuFamily::of(r.gpu) == fam
}

fn hbm(r: &Row<LlmCase>) -> bool {
    family_is(r, crate::model::llm::GpuFamily::NvidiaHbm)
}

fn gddr(r: &Row<LlmCase>) -> bool {
    family_is(r, crate::model::llm::GpuFamily::NvidiaGddr)
}

fn other_family(r: &Row<LlmCase>) -> bool {
    !hbm(r) && !gddr(r)
}

fn fp8_training(r: &Row<LlmCase>) -> bool {
    r.payload.job.workload.is_training() && r.payload.job.precision == Precision::Fp8
}

fn recompute(r: &Row<LlmCase>) -> bool {
    r.payload.job.grad_checkpointing == Checkpointing::Full
}

/// A knob on one field of an engine's [`crate::model::llm::Efficiency`] (or of a back-end's
/// decode factors).
macro_rules! eff_knob {
    ($name:expr, $engine:ident . $field:ident, $prior:expr, $lo:expr, $hi:expr, $det:expr) => {
        Knob { name: $name, at: |f| &mut f.$engine.$field, prior: $prior, lo: $lo, hi: $hi, determines: $det, fallback: &[] }
    };
    ($name:expr, $engine:ident . $field:ident, $prior:expr, $lo:expr, $hi:expr, $det:expr, $fb:expr) => {
        Knob { name: $name, at: |f| &mut f.$engine.$field, prior: $prior, lo: $lo, hi: $hi, determines: $det, fallback: $fb }
    };
}

/// The weight-stream shares CUDA's falls back to when no CUDA row on a GDDR card is in the fold.
const OTHER_BACKEND_SHARES: [&str; 4] = [
    "llama.cpp weight-stream share, Vulkan",
    "llama.cpp weight-stream share, ROCm",
    "llama.cpp weight-stream share, Metal",
    "llama.cpp weight-stream share, SYCL",
];

/// The KV-read shares CUDA's falls back to when no long-context CUDA row is in the fold.
const OTHER_BACKEND_KV_SHARES: [&str; 4] = [
    "llama.cpp KV-read share, Vulkan",
    "llama.cpp KV-read share, ROCm",
    "llama.cpp KV-read share, Metal",
    "llama.cpp KV-read share, SYCL",
];

/// llama.cpp's groups: decode (every back-end's factors, the KV reads, the layer-split hand-off,
/// the in-flight cap) and prefill.
fn llama_cpp_groups() -> [Group; 2] {
    use Engine as E;
    [
        Group {
            name: "llama.cpp decode",
            sets: &[Set::Decode],
            engines: &[E::LlamaCpp],
            knobs: vec![
                eff_knob!("llama.cpp weight-stream share, CUDA", llama_cpp.weight_bw, 0.80, 0.3, 1.0, cuda_uncapped, &OTHER_BACKEND_SHARES),
                eff_knob!("llama.cpp decode time per layer (ms), CUDA", llama_cpp.layer_ms, 0.05, 0.002, 1.0, on_cuda),
                eff_knob!("llama.cpp weight-stream share, ROCm", llama_cpp_rocm.weight_bw, 0.80, 0.3, 1.0, on_rocm, &["llama.cpp weight-stream share, CUDA"]),
                eff_knob!("llama.cpp decode time per layer (ms), ROCm", llama_cpp_rocm.layer_ms, 0.05, 0.002, 1.0, on_rocm, &["llama.cpp decode time per layer (ms), CUDA"]),
                eff_knob!("llama.cpp weight-stream share, Vulkan", llama_cpp_vulkan.weight_bw, 0.80, 0.3, 1.0, on_vulkan, &["llama.cpp weight-stream share, CUDA"]),
                eff_knob!("llama.cpp decode time per layer (ms), Vulkan", llama_cpp_vulkan.layer_ms, 0.05, 0.002, 1.0, on_vulkan, &["llama.cpp decode time per layer (ms), CUDA"]),
                eff_knob!("llama.cpp weight-stream share, Metal", llama_cpp_metal.weight_bw, 0.80, 0.3, 1.0, on_metal, &["llama.cpp weight-stream share, CUDA"]),
                eff_knob!("llama.cpp decode time per layer (ms), Metal", llama_cpp_metal.layer_ms, 0.05, 0.002, 1.0, on_metal, &["llama.cpp decode time per layer (ms), CUDA"]),
                eff_knob!("llama.cpp weight-stream share, SYCL", llama_cpp_sycl.weight_bw, 0.80, 0.3, 1.0, on_sycl, &["llama.cpp weight-stream share, CUDA"]),
                eff_knob!("llama.cpp decode time per layer (ms), SYCL", llama_cpp_sycl.layer_ms, 0.05, 0.002, 1.0, on_sycl, &["llama.cpp decode time per layer (ms), CUDA"]),
                eff_knob!("llama.cpp KV-read share, CUDA", llama_cpp.attention_bw, 0.5, 0.03, 1.0, |r| long_context(r) && on_cuda(r), &OTHER_BACKEND_KV_SHARES),
                eff_knob!("llama.cpp KV-read share, ROCm", llama_cpp_rocm.attention_bw, 0.5, 0.03, 1.0, |r| long_context(r) && on_rocm(r), &["llama.cpp KV-read share, CUDA"]),
                eff_knob!("llama.cpp KV-read share, Vulkan", llama_cpp_vulkan.attention_bw, 0.5, 0.03, 1.0, |r| long_context(r) && on_vulkan(r), &["llama.cpp KV-read share, CUDA"]),
                eff_knob!("llama.cpp KV-read share, Metal", llama_cpp_metal.attention_bw, 0.5, 0.03, 1.0, |r| long_context(r) && on_metal(r), &["llama.cpp KV-read share, CUDA"]),
                eff_knob!("llama.cpp KV-read share, SYCL", llama_cpp_sycl.attention_bw, 0.5, 0.03, 1.0, |r| long_context(r) && on_sycl(r), &["llama.cpp KV-read share, CUDA"]),
                eff_knob!("llama.cpp layer-split hand-off (ms)", llama_cpp.hop_ms, 0.1, 0.005, 3.0, multi_gpu),
                Knob {
                    name: "llama.cpp read per SM (GB/s)",
                    at: |f| &mut f.llama_cpp_sm_read_gb_s,
                    prior: 1000.0,
                    lo: 4.0,
                    hi: 1000.0,
                    determines: high_bw_per_sm,
                    fallback: &[],
                },
            ],
        },
        Group {
            name: "llama.cpp prefill",
            sets: &[Set::Prefill],
            engines: &[E::LlamaCpp],
            knobs: vec![
                eff_knob!("llama.cpp prefill MFU", llama_cpp.prefill_mfu, 0.5, 0.05, 0.95, matrix_units),
                eff_knob!("llama.cpp quantized prefill share", llama_cpp.quant_prefill, 0.8, 0.2, 1.0, quantized_on_matrix_units),
                eff_knob!("llama.cpp prefill attention share", llama_cpp.attention_flops, 0.5, 0.02, 1.0, long_context),
                eff_knob!("llama.cpp prefill time per layer (ms)", llama_cpp.prefill_layer_ms, 0.05, 0.002, 3.0, any),
                Knob { name: "GEMM share without matrix units", at: |f| &mut f.simt_gemm_mfu, prior: SIMT_GEMM_PRIOR, lo: 0.05, hi: 0.95, determines: no_matrix_units, fallback: &[] },
                Knob {
                    name: "llama.cpp expert GEMM half-fill tokens",
                    at: |f| &mut f.llama_cpp_expert_half_tokens,
                    prior: 1.0,
                    lo: 0.1,
                    hi: 1000.0,
                    determines: moe,
                    fallback: &[],
                },
            ],
        },
    ]
}

/// The serving engines' groups: vLLM/SGLang and TensorRT-LLM, decode and prefill.
fn server_groups() -> [Group; 4] {
    use Engine as E;
    [
        Group {
            name: "vLLM/SGLang decode",
            sets: &[Set::Decode],
            engines: &[E::Vllm, E::Sglang],
            knobs: vec![
                eff_knob!("vLLM weight-stream share", vllm.weight_bw, 0.80, 0.3, 1.0, any),
                eff_knob!("vLLM decode time per layer (ms)", vllm.layer_ms, 0.05, 0.002, 1.0, any),
            ],
        },
        Group {
            name: "vLLM/SGLang prefill",
            sets: &[Set::Prefill],
            engines: &[E::Vllm, E::Sglang],
            knobs: vec![
                eff_knob!("vLLM prefill MFU", vllm.prefill_mfu, 0.5, 0.05, 0.95, any),
                Knob { name: "serving request overhead (ms)", at: |f| &mut f.serving_request_ms, prior: 5.0, lo: 0.1, hi: 200.0, determines: from_ttft, fallback: &[] },
            ],
        },
        Group {
            name: "TensorRT-LLM decode",
            sets: &[Set::Decode],
            engines: &[E::TrtLlm],
            knobs: vec![
                eff_knob!("TensorRT-LLM weight-stream share", trt_llm.weight_bw, 0.80, 0.3, 1.0, any),
                eff_knob!("TensorRT-LLM decode time per layer (ms)", trt_llm.layer_ms, 0.05, 0.002, 1.0, any),
            ],
        },
        Group {
            name: "TensorRT-LLM prefill",
            sets: &[Set::Prefill],
            engines: &[E::TrtLlm],
            knobs: vec![
                eff_knob!("TensorRT-LLM prefill MFU", trt_llm.prefill_mfu, 0.5, 0.05, 0.95, any),
                Knob { name: "TensorRT-LLM request overhead (ms)", at: |f| &mut f.trt_llm_request_ms, prior: 5.0, lo: 0.1, hi: 200.0, determines: from_ttft, fallback: &[] },
            ],
        },
    ]
}

/// The other inference engines' groups: ExLlamaV2 (decode and prefill), MLC and transformers
/// (decode).
fn local_engine_groups() -> [Group; 4] {
    use Engine as E;
    [
        Group {
            name: "ExLlamaV2 decode",
            sets: &[Set::Decode],
            engines: &[E::Exllamav2],
            knobs: vec![
                eff_knob!("ExLlamaV2 weight-stream share", exllamav2.weight_bw, 0.80, 0.3, 1.0, any),
                eff_knob!("ExLlamaV2 decode time per layer (ms)", exllamav2.layer_ms, 0.05, 0.002, 1.0, any),
            ],
        },
        Group {
            name: "ExLlamaV2 prefill",
            sets: &[Set::Prefill],
            engines: &[E::Exllamav2],
            knobs: vec![eff_knob!("ExLlamaV2 prefill MFU", exllamav2.prefill_mfu, 0.5, 0.05, 0.95, any)],
        },
        Group {
            name: "MLC decode",
            sets: &[Set::Decode],
            engines: &[E::Mlc],
            knobs: vec![
                eff_knob!("MLC weight-stream share", mlc.weight_bw, 0.80, 0.3, 1.0, any),
                eff_knob!("MLC decode time per layer (ms)", mlc.layer_ms, 0.05, 0.002, 1.0, any),
            ],
        },
        Group {
            name: "transformers decode",
            sets: &[Set::Decode],
            engines: &[E::Transformers],
            knobs: vec![
                eff_knob!("transformers weight-stream share", transformers.weight_bw, 0.80, 0.3, 1.0, |r| !int8(r)),
                eff_knob!("transformers decode time per layer (ms)", transformers.layer_ms, 0.05, 0.002, 3.0, |r| !int8(r)),
                Knob { name: "LLM.int8() speed over 16-bit", at: |f| &mut f.llm_int8_speed, prior: 0.5, lo: 0.1, hi: 1.0, determines: int8, fallback: &[] },
            ],
        },
    ]
}

/// The least the MFU with full recomputation can be of the MFU without it: recomputing the
/// forward pass adds 2·N to a 6·N step, run by the same kernels on the same shapes, so at the
/// step's own rate it costs 6/8 of the MFU; it cannot cost more per FLOP than the pass it repeats.
const RECOMPUTE_RATIO_FLOOR: f64 = 6.0 / 8.0;

/// Training's group: MFU by card family, recomputation and FP8.
fn training_group() -> Group {
    Group {
        name: "training",
        sets: &[Set::Training],
        engines: &[],
        knobs: vec![
            Knob { name: "training MFU, NVIDIA HBM", at: |f| &mut f.train_mfu_hbm, prior: 0.40, lo: 0.05, hi: 0.9, determines: hbm, fallback: &["training MFU, other cards", "training MFU, NVIDIA GDDR"] },
            Knob { name: "training MFU, NVIDIA GDDR", at: |f| &mut f.train_mfu_gddr, prior: 0.40, lo: 0.05, hi: 0.9, determines: gddr, fallback: &["training MFU, NVIDIA HBM", "training MFU, other cards"] },
            Knob { name: "training MFU, other cards", at: |f| &mut f.train_mfu_other, prior: 0.40, lo: 0.05, hi: 0.9, determines: other_family, fallback: &["training MFU, NVIDIA HBM", "training MFU, NVIDIA GDDR"] },
            Knob { name: "MFU with recomputation over without", at: |f| &mut f.recompute_mfu_ratio, prior: 0.75, lo: RECOMPUTE_RATIO_FLOOR, hi: 1.0, determines: recompute, fallback: &[] },
            Knob { name: "share of FP8's GEMM rate a training step realizes", at: |f| &mut f.train_fp8_gain, prior: 1.0, lo: 0.01, hi: 1.0, determines: fp8_training, fallback: &[] },
        ],
    }
}

/// Every group, in fitting order.
pub fn groups() -> Vec<Group> {
    let mut all = Vec::with_capacity(11);
    all.extend(llama_cpp_groups());
    all.extend(server_groups());
    all.extend(local_engine_groups());
    all.push(training_group());
    all
}

/// The shipped constants with every knob at its physics default.
pub fn prior_fit(groups: &[Group]) -> LlmFit {
    let mut f = CALIBRATED;
    for k in groups.iter().flat_map(|g| &g.knobs) {
        *(k.at)(&mut f) = k.prior;
    }
    f
}

/// A group's knob values and the knobs it left at their default.
type GroupFit = (Vec<f64>, Vec<&'static str>);

/// The knob whose value `k` takes when its own rows cannot determine it: of its fallbacks, the one
/// the most rows of the fold determine, else (none determined) the first, which may itself be tied.
fn tie_source(g: &Group, k: &Knob, free: &[usize], counts: &[usize]) -> Option<usize> {
    let found: Vec<usize> = k.fallback.iter().filter_map(|name| g.knobs.iter().position(|o| o.name == *name)).collect();
    found.iter().copied().filter(|i| free.contains(i)).max_by_key(|&i| counts[i]).or_else(|| found.first().copied())
}

/// The LLM rows and their refits.
pub struct LlmDomain {
    pub inventory: Inventory,
    groups: Vec<Group>,
    /// Each group's member rows (indices), by group.
    members: Vec<Vec<usize>>,
    /// Refitted knob values by (group, the group's rows in the fold).
    cache: Mutex<HashMap<(usize, Vec<usize>), GroupFit>>,
}

impl LlmDomain {
    pub fn new(inventory: Inventory) -> LlmDomain {
        let groups = groups();
        let members = groups
            .iter()
            .map(|g| {
                (0..inventory.rows.len())
                    .filter(|&i| {
                        let r = &inventory.rows[i];
                        // A DeepSeek-style MoE, and the training of any MoE, are known gaps (their
                        // figures have bands of their own): their rows are scored but set no
                        // constant the dense models share.
                        g.knobs.iter().any(|k| (k.determines)(r))
                            && g.sets.contains(&r.set)
                            && (g.engines.is_empty() || g.engines.contains(&r.payload.job.engine_for(r.gpu)))
                            && !is_mla_moe(&r.payload.job.model)
                            && !(r.set == Set::Training && r.payload.job.model.is_moe())
                    })
                    .collect()
            })
            .collect();
        LlmDomain { inventory, groups, members, cache: Mutex::new(HashMap::new()) }
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// Mean |ln(model / measured)| of `rows` under `f`.
    fn loss(&self, f: &LlmFit, rows: &[usize]) -> f64 {
        if rows.is_empty() {
            return 0.0;
        }
        in_force::scoped(f, || rows.iter().map(|&i| (predict_row(&self.inventory.rows[i]).mid / self.inventory.rows[i].measured).ln().abs()).sum::<f64>())
            / rows.len() as f64
    }

    /// Fits group `gi`'s knobs on `rows` (the group's rows in the fold), from `base` (earlier
    /// groups already fitted). Returns the knob values and the knobs left at their default.
    fn fit_group(&self, gi: usize, rows: &[usize], base: &LlmFit) -> (Vec<f64>, Vec<&'static str>) {
        let g = &self.groups[gi];
        let mut f = *base;
        let mut free = Vec::new();
        let mut fallbacks = Vec::new();
        let mut counts = Vec::with_capacity(g.knobs.len());
        for (ki, k) in g.knobs.iter().enumerate() {
            *(k.at)(&mut f) = k.prior;
            let n = rows.iter().filter(|&&i| (k.determines)(&self.inventory.rows[i])).count();
            counts.push(n);
            if n >= MIN_ROWS {
                free.push(ki);
            } else {
                fallbacks.push(k.name);
            }
        }
        // Knobs without rows of their own that take another knob's value: set after every sweep.
        let tied: Vec<(usize, usize)> = g
            .knobs
            .iter()
            .enumerate()
            .filter(|(ki, _)| !free.contains(ki))
            .filter_map(|(ki, k)| tie_source(g, k, &free, &counts).map(|src| (ki, src)))
            .collect();
        let tie = |f: &mut LlmFit| {
            for &(ki, src) in &tied {
                let v = *(g.knobs[src].at)(f);
                *(g.knobs[ki].at)(f) = v;
            }
        };
        tie(&mut f);
        let mut best = self.loss(&f, rows);
        for _sweep in 0..3 {
            let before = best;
            for &ki in &free {
                let k = &g.knobs[ki];
                let (mut lo, mut hi) = (k.lo.ln(), k.hi.ln());
                for _level in 0..3 {
                    let steps = 12;
                    let mut best_x = (k.at)(&mut f).ln();
                    for s in 0..=steps {
                        let x = lo + (hi - lo) * f64::from(s) / f64::from(steps);
                        let mut trial = f;
                        *(k.at)(&mut trial) = x.exp();
                        tie(&mut trial);
                        let l = self.loss(&trial, rows);
                        if l < best - 1e-12 {
                            best = l;
                            best_x = x;
                        }
                    }
                    *(k.at)(&mut f) = best_x.exp();
                    tie(&mut f);
                    let w = (hi - lo) / f64::from(steps);
                    lo = (best_x - w).max(k.lo.ln());
                    hi = (best_x + w).min(k.hi.ln());
                }
            }
            if before - best < 1e-6 {
                break;
            }
        }
        let values = g.knobs.iter().map(|k| *(k.at)(&mut f)).collect();
        (values, fallbacks)
    }
}

impl Domain for LlmDomain {
    type Fit = LlmFit;
    type Payload = LlmCase;

    fn rows(&self) -> &[Row<LlmCase>] {
        &self.inventory.rows
    }

    fn shipped(&self) -> LlmFit {
        CALIBRATED
    }

    fn refit(&self, train: &[usize]) -> Refit<LlmFit> {
        let mut f = prior_fit(&self.groups);
        let mut fallbacks = Vec::new();
        let in_train = |i: &usize| train.binary_search(i).is_ok();
        for gi in 0..self.groups.len() {
            let rows: Vec<usize> = self.members[gi].iter().copied().filter(in_train).collect();
            // The fit of a group reads the constants of the groups before it on the same engines
            // (prefill's weight-stream floor reads the decode share): its key holds their rows.
            let shares_engine = |h: usize| h == gi || self.groups[h].engines.iter().any(|e| self.groups[gi].engines.contains(e));
            let mut key_rows: Vec<usize> = (0..=gi)
                .filter(|&h| shares_engine(h))
                .flat_map(|h| self.members[h].iter().copied().filter(in_train))
                .collect();
            key_rows.sort_unstable();
            let key = (gi, key_rows);
            let cached = self.cache.lock().ok().and_then(|c| c.get(&key).cloned());
            let (values, fb) = match cached {
                Some(v) => v,
                None => {
                    let v = self.fit_group(gi, &rows, &f);
                    if let Ok(mut c) = self.cache.lock() {
                        c.insert(key, v.clone());
                    }
                    v
                }
            };
            for (k, v) in self.groups[gi].knobs.iter().zip(values) {
                *(k.at)(&mut f) = v;
            }
            fallbacks.extend(fb);
        }
        Refit { fit: f, fallbacks }
    }

    fn predict(&self, f: &LlmFit, i: usize) -> Band {
        in_force::scoped(f, || predict_row(&self.inventory.rows[i]))
    }

    /// The serving figures of a DeepSeek-style MoE (routed experts and latent attention), an
    /// MoE's training speed, and a TTFT by its arrivals, have bands of their own
    /// (`arch::is_mla_moe`, `ModelArch::is_moe`, `Arrivals`).
    fn class(&self, i: usize) -> &'static str {
        let r = &self.inventory.rows[i];
        let serving_set = matches!(r.set, Set::Serving | Set::PerUser | Set::Ttft);
        if serving_set && is_mla_moe(&r.payload.job.model) {
            return "mla-moe";
        }
        if r.set == Set::Training && r.payload.job.model.is_moe() {
            return "moe";
        }
        match r.payload.read {
            Read::Ttft(Arrivals::InStep) => "in-step",
            _ => "",
        }
    }
}

/// The engine's band for a row under the constants in force.
pub fn predict_row(r: &Row<LlmCase>) -> Band {
    let (job, g, n) = (&r.payload.job, r.gpu, r.gpus);
    let nan = Band { low: f64::NAN, mid: f64::NAN, high: f64::NAN };
    let Ok(est) = estimate_llm_figures(job, g, n) else { return nan };
    let t = &est.throughput;
    let or_nan = |b: Option<Band>| b.unwrap_or(nan);
    match r.payload.read {
        Read::Decode => or_nan(t.decode_tokens_per_s),
        Read::DecodeE2e { prompt, out } => match (t.decode_tokens_per_s, t.prefill_tokens_per_s) {
            (Some(d), Some(p)) => {
                let e2e = |pf: f64, dc: f64| out / (prompt / pf + out / dc);
                Band { low: e2e(p.low, d.low), mid: e2e(p.mid, d.mid), high: e2e(p.high, d.high) }
            }
            _ => nan,
        },
        Read::Prefill => or_nan(t.prefill_tokens_per_s),
        Read::PrefillFromTtft => match serving::analyze_opts(job, g, n, &ServingTargets::default(), true) {
            Ok(rep) => rep.ttft_s.map_or(nan, |b| b.recip().scale(f64::from(job.prompt_tokens))),
            Err(_) => nan,
        },
        Read::Serving => or_nan(t.serving_tokens_per_s),
        Read::PerUser | Read::Ttft(_) => {
            let arrivals = if let Read::Ttft(a) = r.payload.read { a } else { Arrivals::Random };
            let targets = ServingTargets { arrivals, ..Default::default() };
            match serving::analyze_opts(job, g, n, &targets, matches!(r.payload.read, Read::Ttft(_))) {
                Ok(rep) if matches!(r.payload.read, Read::PerUser) => rep.per_user_tokens_per_s,
                Ok(rep) => or_nan(rep.ttft_s),
                Err(_) => nan,
            }
        }
        Read::TrainPerGpu => {
            // When the job does not fit, the engine gives the speed at the count that holds it.
            let used = if !est.fits && est.gpus_needed > n { est.gpus_needed } else { n };
            or_nan(t.train_tokens_per_s).scale(1.0 / f64::from(used.max(1)))
        }
        Read::PerGpuMem { minus } => {
            let paged = if minus > 0.0 { paged_counted_gib(job, g, n) } else { 0.0 };
            memory_band(est.per_gpu_gib - minus - paged)
        }
        Read::AllocatedPeak => memory_band(est.per_gpu_gib - est.memory.overhead_gib / f64::from(n.max(1)) - paged_counted_gib(job, g, n)),
        Read::Weights => memory_band(est.memory.weights_gib),
    }
}

/// The band the app shows for training memory, around `gib`.
fn memory_band(gib: f64) -> Band {
    let (lo, hi) = memory::TRAINING_MEMORY_BAND;
    Band::around(gib, lo, hi)
}

/// GiB of paged optimizer state the engine counts on the busiest GPU. bitsandbytes' paged
/// optimizers keep their state in CUDA managed memory, outside PyTorch's caching allocator, so
/// `max_memory_reserved()` / `max_memory_allocated()` never count it, while `nvidia-smi` sees the
/// pages resident on the GPU.
fn paged_counted_gib(job: &LlmJob, g: &Gpu, gpus: u32) -> f64 {
    let engine = job.engine_for(g);
    let t = memory::terms(job, g, engine);
    if t.pageable_gib == 0.0 {
        return 0.0;
    }
    let layout = layout_for(job, g, engine, &t, gpus);
    let resident = memory::Terms { optimizer_gib: t.optimizer_gib - t.pageable_gib, pageable_gib: 0.0, ..t };
    parallel::per_gpu_gib(job, g, engine, &t, &layout) - parallel::per_gpu_gib(job, g, engine, &resident, &layout)
}

/// The GEMM share without matrix units where a fold has no row to fit it: what a vendor-tuned
/// half-precision GEMM reaches on a GPU whose matrix products run on its FMA lanes. Apple's Metal
/// Performance Shaders multiply 4,096³ in F16 at 7,771 GFLOPS on a 32-core Apple 7 GPU (M1 Max;
/// philipturner/metal-flash-attention README @01e41e6, "GFLOPS during general matrix
/// multiplication"), whose F16 peak is 10,620 GFLOPS (philipturner/metal-benchmarks README):
/// 0.73. llama.cpp's Metal prefill multiplies in F16 with its own SIMD-group matrix kernels.
const SIMT_GEMM_PRIOR: f64 = 7771.0 / 10620.0;
