#![cfg(not(target_arch = "wasm32"))]
//! The LLM engine judged on every published measurement we hold, in-sample and cross-validated
//! (issue 11: "cross-validation is the acceptance figure, not the in-sample fit").
//!
//! # Data
//!
//! All files are in `tests/data/calibration/` (falling back to `../shared/calibration/`); every
//! row names its `source`.
//! - `llm_inference.csv` (the set the engine's efficiency factors were fitted on; human GPU and
//!   model names, mapped as in `tests/calibration.rs`) and `llm_inference_more.csv` (catalog ids):
//!   decode and prefill tokens/s, and the TensorRT-LLM offline serving rows;
//! - `llm_serving_more.csv`: aggregate output tokens/s (`throughput_tok_s`; `total_tok_s` is
//!   converted to output tokens with output = total·OSL/(ISL+OSL)), and per-request latencies.
//!   `tpot_ms` / `per_user_tok_s` at concurrency 1 are compared with decode tokens/s
//!   (1000/TPOT), `ttft_ms` at concurrency 1 with prefill tokens/s (ISL/TTFT). Latencies at
//!   higher concurrency are compared with the serving model of issue 12 (`llm::serving`; the
//!   "per-user speed" and "ttft" sets), except those of offline runs (all requests at once).
//!   The `arrivals` column gives a row's arrival pattern: `in-step` where the row records
//!   fixed-length requests sent together (GenAI-Perf at a fixed concurrency with input stddev 0
//!   and every output at its `max_tokens`; SGLang `bench_serving --random-range-ratio 1`, which
//!   ignores EOS by default, at a capped concurrency; a one-round burst), else random; it sets
//!   the TTFT's mid (`serving::Arrivals`);
//! - `training.csv` (the MPT rows; the ResNet/BERT rows belong to `tests/media_calibration.rs`)
//!   and `llm_training_more.csv`: training tokens/s per GPU;
//! - `memory.csv` (mapped as in `tests/calibration.rs`) and `memory_more.csv`: peak GiB per GPU.
//!
//! Each row's settings go onto [`LlmJob`] as stated: engine, weight and KV formats, batch,
//! prompt/output tokens, sequence length, activation checkpointing, ZeRO stage / FSDP (with
//! `auto_layout = false` whenever the row states its sharding: FSDP FULL_SHARD → ZeRO-3,
//! SHARD_GRAD_OP → ZeRO-2, Megatron tp·pp > 1 → the engine's tensor + pipeline layout, Megatron
//! pure data parallel → ZeRO-1, its distributed optimizer), `grad_accum` (the row's, else
//! global / (micro · data-parallel size)), LoRA rank/targets, `fp32_logits = false` for torchtune
//! (chunked loss), `master_weights = false` for pure-bf16 recipes. Named MPT/GPT shapes without a
//! preset take the `mpt-7b` preset's structure (non-gated 4·d GELU FFN, multi-head attention, tied
//! embeddings) with the row's layers, hidden size and parameter count (a Llama-shaped
//! `custom::arch_from_params` would give them a gated FFN and GQA, which they do not have).
//! Serving rows: `batch` = the stated concurrency (`max`: 4096), lowered to the largest batch
//! that still fits on the stated GPUs (bisection on `Estimate::fits`), so every figure is at the
//! row's own GPU count, never at a larger "count that holds the job". FP8 TensorRT-LLM rows get
//! an FP8 KV cache (stated for the v0.17 tables; assumed for the others, whose FP8 recipes
//! quantize the KV cache too). Rows that time a whole request (`benchmark_latency`: prefill +
//! decode) are compared with OSL / (ISL/prefill + OSL/decode). What cannot be mapped honestly is
//! skipped (CPU offload, DoRA, ShareGPT without lengths, VRAM budgets, rows without a GPU) or,
//! when the engine has no output for it yet (FP8 training; TTFT/TPOT at concurrency > 1), listed
//! as "not yet modelled"; both lists print with `--nocapture`.
//!
//! # Procedure
//!
//! Every row has a GPU family (`GpuFamily::of`; for reporting, NVIDIA GDDR is split into
//! consumer and workstation/datacenter cards by `gpu.segment`) and a source key (the `source`
//! column's GitHub `owner/repo`, or the URL's host). For each set — decode, prefill, serving,
//! training, memory — four figures are computed:
//! 1. **raw**: the engine as shipped;
//! 2. **in-sample**: prediction × r_all, r_all = exp(median over all rows of the set of
//!    ln(measured / model)), the one global scalar refit;
//! 3. **leave-one-family-out (LOFO)**: for each family F, F's rows are predicted with the
//!    factors a family without data gets —
//!    `job.efficiency = Some(engines::carried_over_without(engine, Some(family)))` for engines
//!    whose factors differ by family (none today: llama.cpp's per-family factors became physics
//!    on catalog properties, docs/MODEL.md; detected from `engines::efficiency`), and for
//!    training `job.train_mfu = default_train_mfu(Other)` — and multiplied by r fitted (as
//!    above) on the rows not in F;
//! 4. **leave-one-source-out (LOSO)**: each source's rows are predicted by the shipped engine
//!    multiplied by r fitted on the other sources' rows.
//!
//! The serving sets (serving, per-user speed, TTFT) are held out with no scalar (r = 1 in 3 and
//! 4): the app has none for them, they derive from the decode and prefill factors, and a
//! scalar refitted on the other sources carries one source's offset into all the others (every
//! DeepSeek-R1 source measures far below the physics, every dense source close to it). Both
//! refits — by row and with one vote per source — are printed as `DIAGNOSTIC` lines, and the
//! serving sets print their errors by model class (`BAND` lines: dense, MoE, DeepSeek-class
//! fine-grained MoE) with the measured/model spread a band would have to cover.
//!
//! Error = prediction / measured − 1; reported as the median |error|. A held-out row is "in band"
//! when the measurement lies inside the engine's [low, high] scaled by the same r. Memory rows are
//! judged on the band the engine shows for training memory (`memory::TRAINING_MEMORY_BAND`).
//!
//! Limits: the global factors (one number per engine and physics constant, docs/MODEL.md) were
//! fitted on these same rows and cannot be un-fitted here: LOFO and LOSO hold a family's or a
//! source's rows out of the scalar refit only. That matters most where a constant rests on one
//! family: [`SIMT_GEMM_MFU`](gpu_advisor::model::llm::engines::SIMT_GEMM_MFU) on the Apple rows
//! and the in-flight bandwidth per SM on the HBM rows, so LOFO of Apple prefill and of NVIDIA
//! HBM decode is optimistic.
//!
//! Targets (cross-validated, both LOFO and LOSO): decode ≤ 12% median |error|; prefill, serving,
//! training ≤ 20%; memory ≤ 8%; ≥ 80% of held-out rows inside the band. A target the engine does
//! not meet yet is asserted at today's figure plus a small margin (a regression guard) and marked
//! `TARGET NOT MET`.

mod common;
use common::{median, memory_csv_job, model, read_csv};
use std::collections::{BTreeMap, BTreeSet};

use gpu_advisor::catalog::{self, Gpu, Segment};
use gpu_advisor::model::llm::engines::{self, Efficiency};
use gpu_advisor::model::llm::serving::Arrivals;
use gpu_advisor::model::llm::throughput::default_train_mfu;
use gpu_advisor::model::llm::{
    estimate_llm, Checkpointing, Engine, GpuFamily, LlmJob, LoraTargets, ModelArch, Optimizer, Workload,
};
use gpu_advisor::model::precision::{KvPrecision, Precision};
use gpu_advisor::model::Band;

// ---------------------------------------------------------------------------------------------
// CSV and name maps
// ---------------------------------------------------------------------------------------------




fn preset(id: &str) -> ModelArch {
    ModelArch::from_spec(catalog::llm(id).unwrap_or_else(|| panic!("preset {id} missing")))
}


/// Human GPU names of the first files, or a catalog id.
fn gpu(name: &str) -> &'static Gpu {
    let id = match name {
        "RTX 4090" => "rtx-4090",
        "RTX 3090" => "rtx-3090",
        "RTX A6000" => "rtx-a6000",
        "H100 PCIe 80GB" => "h100-pcie",
        "H100 SXM 80GB" | "H100 80GB" => "h100-sxm",
        "A100 80GB" | "A100 80GB SXM4" => "a100-80gb-sxm",
        "A100 40GB" => "a100-40gb-sxm",
        n if n.starts_with("Apple M2 Ultra") => "apple-m2-ultra",
        other => other,
    };
    catalog::gpu(id).unwrap_or_else(|| panic!("no GPU {name}"))
}

/// The source's repository (`owner/repo`) or, for other URLs, the host.
fn source_key(s: &str) -> String {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("github ") {
        return rest.split_whitespace().next().unwrap_or(rest).to_string();
    }
    if let Some(rest) = s.strip_prefix("https://").or_else(|| s.strip_prefix("http://")) {
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.first() == Some(&"github.com") && parts.len() >= 3 {
            return format!("{}/{}", parts[1], parts[2]);
        }
        return parts.first().copied().unwrap_or(rest).to_string();
    }
    s.to_string()
}

/// Reporting group: the engine's family, with NVIDIA GDDR split by segment.
fn group_of(g: &Gpu) -> String {
    match GpuFamily::of(g) {
        GpuFamily::NvidiaGddr if g.segment == Segment::Consumer => "NVIDIA GDDR consumer".into(),
        GpuFamily::NvidiaGddr => "NVIDIA GDDR pro/dc".into(),
        f => f.as_str().into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Set {
    Decode,
    Prefill,
    Serving,
    Training,
    Memory,
    /// Per-user speed at concurrency above 1 (the serving model of issue 12).
    PerUser,
    /// Time to first token at concurrency above 1.
    Ttft,
}

impl Set {
    /// How held-out rows are predicted. Decode, prefill, training and memory: with the scalar
    /// refitted on the other rows, as the app's fitted factors would be. The serving sets: with
    /// no scalar, because the app has none for them: serving, per-user speed and TTFT are
    /// derived from the decode and prefill factors, and none of these rows fitted one (except
    /// TensorRT-LLM's nine perf-overview rows in `llm_inference.csv`, which fitted its factors).
    /// A scalar refitted on the other sources would carry one source's offset into all of
    /// them: every DeepSeek-R1 source measures 2–10× below the physics, every dense source
    /// within ±25% of it, so holding out TensorRT-LLM's tables (84 of 146 rows) scales them by
    /// the MoE sources' 0.5. Both refits are printed as diagnostics.
    fn held_out_refit(self) -> Refit {
        match self {
            Set::Serving | Set::PerUser | Set::Ttft => Refit::None,
            _ => Refit::ByRow,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Set::Decode => "decode",
            Set::Prefill => "prefill",
            Set::Serving => "serving",
            Set::Training => "training",
            Set::Memory => "memory",
            Set::PerUser => "per-user speed",
            Set::Ttft => "ttft",
        }
    }
}

/// Which engine output a row is compared with.
#[derive(Debug, Clone, Copy)]
enum Read {
    Decode,
    /// Output tokens over the whole request (prefill of `prompt` tokens + `out` decode steps).
    DecodeE2e {
        prompt: f64,
        out: f64,
    },
    Prefill,
    Serving,
    /// Output tokens/s one user sees at the job's concurrency (`llm::serving::analyze`).
    PerUser,
    /// Seconds to the first token at the job's concurrency, with the row's arrival pattern (its
    /// `arrivals` column: `in-step` where the row records fixed-length requests sent together).
    Ttft(Arrivals),
    /// Training tokens/s of the job divided by the GPUs it ran on.
    TrainPerGpu,
    /// Peak GiB per GPU minus what the measurement leaves out (the CUDA context for allocator
    /// peaks).
    PerGpuMem {
        minus: f64,
    },
    /// `torch.cuda.max_memory_allocated()`: live tensors only, without the CUDA context and
    /// without the caching allocator's reserved-but-free blocks (the engine's slack).
    AllocatedPeak,
    /// Weight bytes only (GGUF file sizes).
    Weights,
}

#[derive(Debug, Clone)]
struct Case {
    set: Set,
    file: &'static str,
    label: String,
    gpu: &'static Gpu,
    gpus: u32,
    job: LlmJob,
    read: Read,
    measured: f64,
    source: String,
    /// Cross-validation fold: the engine's GPU family (or "any" for GPU-independent rows).
    family: String,
    /// Reporting group.
    group: String,
    /// Engine (inference) or framework (training, memory), for grouping.
    tag: String,
}

#[derive(Default)]
struct Inventory {
    cases: Vec<Case>,
    /// Rows left out, with the reason.
    skipped: Vec<String>,
    /// Rows whose metric has no engine output yet.
    not_modelled: Vec<String>,
}

#[allow(clippy::too_many_arguments)]
fn case(
    set: Set,
    file: &'static str,
    label: String,
    g: &'static Gpu,
    gpus: u32,
    job: LlmJob,
    read: Read,
    measured: f64,
    source: &str,
) -> Case {
    Case {
        set,
        file,
        label,
        gpu: g,
        gpus,
        job,
        read,
        measured,
        source: source_key(source),
        family: GpuFamily::of(g).as_str().into(),
        group: group_of(g),
        tag: String::new(),
    }
}

/// True for engines whose efficiency factors differ between GPU families.
fn per_family(e: Engine) -> bool {
    let fams = [GpuFamily::NvidiaGddr, GpuFamily::NvidiaHbm, GpuFamily::Apple, GpuFamily::Amd, GpuFamily::Other];
    let norm = |f| Efficiency { measured: false, ..engines::efficiency(e, f) };
    fams.iter().any(|&f| norm(f) != norm(GpuFamily::Other))
}

/// The largest batch ≤ `want` that fits on the row's GPUs (1 if even one does not).
fn fit_batch(job: &LlmJob, g: &Gpu, n: u32, want: u32) -> u32 {
    let fits = |b: u32| {
        let mut j = job.clone();
        j.batch = b;
        estimate_llm(&j, g, n).map(|e| e.fits).unwrap_or(false)
    };
    if fits(want) {
        return want;
    }
    if !fits(1) {
        return 1;
    }
    let (mut lo, mut hi) = (1u32, want);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Parses the `context_or_prompt_len` column into (prompt, output) tokens.
fn prompt_output(ctx: &str) -> Option<(u32, u32)> {
    if let Some(g) = ctx.strip_prefix("gen ").and_then(|s| s.strip_suffix(" tok")) {
        return Some((1, g.parse().ok()?));
    }
    if let Some(p) = ctx.strip_prefix("prompt ") {
        return Some((p.parse().ok()?, 1));
    }
    if let Some(io) = ctx.strip_prefix("ISL/OSL ") {
        let (i, o) = io.split_once('/')?;
        return Some((i.parse().ok()?, o.parse().ok()?));
    }
    if ctx == "short prompt" {
        // exllamav2's quick test: a few tokens in and ~128 out.
        return Some((16, 128));
    }
    None
}

fn engine_of(s: &str) -> Engine {
    if s.starts_with("TensorRT-LLM") {
        return Engine::TrtLlm;
    }
    Engine::parse(s).unwrap_or_else(|| panic!("engine {s}"))
}

/// Weight (and KV) format of an inference row.
fn set_precision(job: &mut LlmJob, quant: &str, notes: &str) {
    let q = quant.trim();
    if let Some(bpw) = q.strip_prefix("EXL2 ").and_then(|r| r.split_whitespace().next()).and_then(|b| b.parse().ok()) {
        job.precision = Precision::Int4;
        job.bits_per_weight_override = Some(bpw);
        return;
    }
    if q.starts_with("GPTQ") {
        job.precision = Precision::Int4;
        return;
    }
    job.precision = Precision::parse(q).unwrap_or_else(|| panic!("precision {q}"));
    if job.precision == Precision::Fp8 {
        let n = notes.to_ascii_lowercase();
        // FP8 KV cache where the row says so (v0.17 perf-overview, AMD's FP8-KV checkpoint), and
        // for every TensorRT-LLM 0.x FP8 row: its FP8 recipes (ModelOpt checkpoints, the benchmark
        // builds) quantize the KV cache too. That last part is an assumption, not in the rows.
        // TensorRT-LLM 1.x (`trtllm-serve`, PyTorch back end) takes the KV format from a Hugging
        // Face checkpoint's quantization config (`KvCacheConfig.dtype = "auto"`), 16-bit for the
        // FP8 checkpoints of these rows, which leave the KV cache unquantized.
        if (job.engine == Some(Engine::TrtLlm) && !n.contains("tensorrt-llm v1."))
            || n.contains("kv cache fp8")
            || n.contains("fp8-kv")
            || n.contains("fp8 weights and kv")
        {
            job.kv_precision = KvPrecision::Fp8;
        }
    }
}

fn inference_job(model_name: &str, quant: &str, engine: &str, notes: &str, prompt: u32, output: u32) -> LlmJob {
    let mut job = LlmJob { model: model(model_name), ..LlmJob::default() };
    job.engine = Some(engine_of(engine));
    set_precision(&mut job, quant, notes);
    job.prompt_tokens = prompt;
    job.output_tokens = output;
    job.context_tokens = prompt + output;
    // A row run without CUDA/HIP graphs says so (vLLM `--enforce-eager`, SGLang
    // `--disable-cuda-graph`): every kernel is launched from the host (`Engine::launch_layer_ms`).
    if notes.contains("--enforce-eager") || notes.contains("--disable-cuda-graph") {
        job.cuda_graphs = Some(false);
    }
    job
}

/// decode / prefill / serving rows of llm_inference.csv and llm_inference_more.csv.
fn inference_rows(inv: &mut Inventory) {
    for file in ["llm_inference.csv", "llm_inference_more.csv"] {
        for r in read_csv(file) {
            let [g, n, name, _params, quant, engine, batch, ctx, metric, value, source, notes, ..] = r.as_slice()
            else {
                panic!("short row {r:?}")
            };
            let label = format!("{g} ×{n} {name} {quant} {engine} {ctx}");
            let measured: f64 = value.parse().expect("value");
            let gpus: u32 = n.parse().expect("num_gpus");
            let card = gpu(g);
            let (prompt, output) = prompt_output(ctx).unwrap_or_else(|| panic!("context {ctx}"));
            if engine == "llama.cpp" && gpus > 1 && notes.contains("row split") {
                inv.not_modelled.push(format!(
                    "{file}: {label} = {value}: llama.cpp row split (each matrix split over the GPUs, its multi-GPU mode before PR #4766); the engine models llama.cpp's layer split only"
                ));
                continue;
            }
            let mut job = inference_job(name, quant, engine, notes, prompt, output);
            let (set, read) = match metric.as_str() {
                "decode_tok_s" if ctx.starts_with("ISL/OSL") && notes.contains("includes") => {
                    (Set::Decode, Read::DecodeE2e { prompt: f64::from(prompt), out: f64::from(output) })
                }
                "decode_tok_s" => (Set::Decode, Read::Decode),
                "prompt_tok_s" => (Set::Prefill, Read::Prefill),
                "throughput_tok_s" => {
                    let want = if batch.starts_with("max") { 4096 } else { batch.parse().expect("batch") };
                    job.batch = fit_batch(&job, card, gpus, want);
                    (Set::Serving, Read::Serving)
                }
                m => panic!("metric {m}"),
            };
            inv.cases.push(case(set, file, label, card, gpus, job, read, measured, source));
        }
    }
}

/// llm_serving_more.csv.
fn serving_rows(inv: &mut Inventory) {
    let file = "llm_serving_more.csv";
    for r in read_csv(file) {
        let [g, n, name, _params, quant, engine, batch, ctx, metric, value, source, notes, rest @ ..] = r.as_slice() else {
            panic!("short row {r:?}")
        };
        let arrivals = match rest.first().map(String::as_str) {
            Some("in-step") => Arrivals::InStep,
            Some("random") | Some("") | None => Arrivals::Random,
            Some(a) => panic!("arrivals {a}"),
        };
        let label = format!("{g} ×{n} {name} {quant} {engine} c={batch} {ctx} {metric}");
        let Some((isl, osl)) = prompt_output(ctx) else {
            inv.skipped.push(format!("{file}: {label}: {ctx} prompt/output lengths not printed"));
            continue;
        };
        let value: f64 = value.parse().expect("value");
        let gpus: u32 = n.parse().expect("num_gpus");
        let card = gpu(g);
        let mut job = inference_job(name, quant, engine, notes, isl, osl);
        let conc_one = batch == "1";
        let (set, read, measured) = match metric.as_str() {
            "throughput_tok_s" | "total_tok_s" => {
                let out = if metric == "total_tok_s" { value * f64::from(osl) / f64::from(isl + osl) } else { value };
                let want = if batch == "max" { 4096 } else { batch.parse().expect("batch") };
                job.batch = fit_batch(&job, card, gpus, want);
                (Set::Serving, Read::Serving, out)
            }
            "tpot_ms" if conc_one => (Set::Decode, Read::Decode, 1000.0 / value),
            "per_user_tok_s" if conc_one => (Set::Decode, Read::Decode, value),
            "ttft_ms" if conc_one => (Set::Prefill, Read::Prefill, f64::from(isl) / (value / 1000.0)),
            // At higher concurrency: the serving model (issue 12) at the row's users in flight.
            // An offline benchmark queues every request at once: its latencies are queue time
            // over a request count the tables do not print, not a steady state.
            "tpot_ms" | "per_user_tok_s" | "ttft_ms" if batch == "max" => {
                inv.skipped.push(format!("{file}: {label}: latency of an offline run (all requests queued at once)"));
                continue;
            }
            "tpot_ms" | "per_user_tok_s" | "ttft_ms" => {
                // The users as offered: the serving model caps them at what the build holds and
                // queues the rest (a closed loop), as the benchmark's clients did.
                job.batch = batch.parse().expect("batch");
                match metric.as_str() {
                    "tpot_ms" => (Set::PerUser, Read::PerUser, 1000.0 / value),
                    "per_user_tok_s" => (Set::PerUser, Read::PerUser, value),
                    _ => (Set::Ttft, Read::Ttft(arrivals), value / 1000.0),
                }
            }
            m => panic!("metric {m}"),
        };
        inv.cases.push(case(set, file, label, card, gpus, job, read, measured, source));
    }
}

/// Parses `key=N` out of a sharding string.
fn kv_num(s: &str, key: &str) -> Option<u32> {
    s.split(|c: char| c.is_whitespace() || c == ',').find_map(|t| t.strip_prefix(key).and_then(|v| v.parse().ok()))
}

/// A named training shape without a preset: the mpt-7b structure with the row's size.
fn named_shape(name: &str, params: f64, layers: u32, hidden: u32) -> ModelArch {
    let mut m = preset("mpt-7b");
    m.id = name.to_ascii_lowercase();
    m.params_total = params;
    m.params_active = params;
    m.layers = layers;
    m.hidden_size = hidden;
    m.intermediate_size = 4 * hidden;
    m.head_dim = 128;
    m.attention_heads = hidden / 128;
    m.kv_heads = hidden / 128;
    m.max_context = 32_768;
    if name.starts_with("GPT") {
        m.vocab_size = 51_200;
    }
    m
}

fn training_model(name: &str, params: f64, layers: &str, hidden: &str) -> ModelArch {
    match catalog::llm(name) {
        Some(spec) => {
            let mut m = ModelArch::from_spec(spec);
            if !m.is_moe() {
                m.params_total = params;
                m.params_active = params;
            }
            m
        }
        None => named_shape(name, params, layers.parse().expect("layers"), hidden.parse().expect("hidden_size")),
    }
}

/// (ZeRO stage, data-parallel size) of a stated sharding on `n` GPUs.
fn sharding(s: &str, n: u32) -> (u8, u32) {
    let tp = kv_num(s, "tp=").unwrap_or(1);
    let pp = kv_num(s, "pp=").unwrap_or(1);
    let cp = kv_num(s, "cp=").unwrap_or(1);
    if s.starts_with("single") {
        return (0, 1);
    }
    if s.contains("fsdp") {
        let zero = if s.contains("SHARD_GRAD_OP") { 2 } else { 3 };
        return (zero, (n / (tp * cp)).max(1));
    }
    if tp * pp > 1 {
        (0, (n / (tp * pp * cp)).max(1))
    } else {
        // Megatron data parallel runs its distributed optimizer (ZeRO-1).
        (1, (n / cp).max(1))
    }
}

/// training.csv (MPT rows) and llm_training_more.csv.
fn training_rows(inv: &mut Inventory) {
    // training.csv: only the MPT rows are LLM training.
    let file = "training.csv";
    for r in read_csv(file) {
        let [g, n, name, params, _task, _fw, precision, batch, seq, metric, _value, per_gpu, _mfu, source, notes, ..] =
            r.as_slice()
        else {
            panic!("short row {r:?}")
        };
        if !name.starts_with("MPT") {
            continue;
        }
        assert_eq!(metric, "tokens_s_per_gpu");
        let card = gpu(g);
        let gpus: u32 = n.parse().expect("n");
        let mut job = LlmJob {
            model: training_model("mpt-7b", params.parse::<f64>().expect("params") * 1e9, "", ""),
            ..LlmJob::default()
        };
        job.workload = Workload::Training;
        job.precision = Precision::Bf16;
        job.master_weights = !precision.contains("PURE");
        job.batch = batch.trim_start_matches("micro ").parse().expect("micro batch");
        job.seq_len = seq.parse().expect("seq");
        job.grad_checkpointing =
            if notes.starts_with("no activation") { Checkpointing::None } else { Checkpointing::Full };
        job.zero = 3;
        job.auto_layout = false;
        job.grad_accum = 1;
        let label = format!(
            "{g} ×{n} {name} {precision} micro {} seq {} ckpt {:?} FSDP",
            job.batch, job.seq_len, job.grad_checkpointing
        );
        let measured: f64 = per_gpu.parse().expect("value");
        let mut c = case(Set::Training, file, label, card, gpus, job, Read::TrainPerGpu, measured, source);
        c.tag = "Composer/llm-foundry FSDP".into();
        inv.cases.push(c);
    }

    let file = "llm_training_more.csv";
    for r in read_csv(file) {
        let [g, n, name, params, layers, hidden, task, framework, precision, micro, global, seq, ckpt, shard, metric, value, per_gpu, _mfu, _ic, source, notes, ..] =
            r.as_slice()
        else {
            panic!("short row {r:?}")
        };
        let label =
            format!("{g} ×{n} {name} {task} {precision} micro {micro} gbs {global} seq {seq} ckpt {ckpt} [{shard}]");
        if precision == "fp8" {
            inv.not_modelled
                .push(format!("{file}: {label} = {per_gpu} tok/s/GPU: FP8 training (LlmJob rejects fp8 for training)"));
            continue;
        }
        if framework == "torchtune" && name == "llama-3.1-70b" && task == "finetune_full" {
            inv.skipped.push(format!(
                "{file}: {label}: CPU offload (memory.csv's row of the same recipe offloads), not modelled"
            ));
            continue;
        }
        let card = gpu(g);
        let gpus: u32 = n.parse().expect("n");
        let params: f64 = params.parse::<f64>().expect("params") * 1e9;
        let mut job = LlmJob { model: training_model(name, params, layers, hidden), ..LlmJob::default() };
        let torchtune = framework == "torchtune";
        job.workload = match task.as_str() {
            "pretrain" => Workload::Training,
            "finetune_full" => Workload::FinetuneFull,
            "lora" => Workload::Lora,
            "qlora" => Workload::Qlora,
            t => panic!("task {t}"),
        };
        job.precision = Precision::parse(precision).unwrap_or_else(|| panic!("precision {precision}"));
        job.master_weights = !notes.contains("mp_mode PURE") && !torchtune;
        job.batch = micro.parse().expect("micro");
        job.seq_len = seq.parse().expect("seq");
        job.grad_checkpointing = match ckpt.as_str() {
            "full" => Checkpointing::Full,
            "none" => Checkpointing::None,
            // torchtune recipes checkpoint activations (tests/calibration.rs); Megatron-LM's
            // GPT-3 script too.
            _ => Checkpointing::Full,
        };
        let (zero, dp) = sharding(shard, gpus);
        job.zero = zero;
        job.auto_layout = false;
        let global: u32 = global.parse().expect("global");
        let micro_b = job.batch;
        job.grad_accum = kv_num(shard, "ga=")
            .or_else(|| {
                notes
                    .split("grad_accum ")
                    .nth(1)
                    .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|v| v.parse().ok())
            })
            .unwrap_or_else(|| (global / (micro_b * dp)).max(1));
        if torchtune {
            job.fp32_logits = false;
            job.lora_rank = if gpus > 1 { 16 } else { 8 };
            job.lora_targets = LoraTargets::AllLinear;
            if job.workload == Workload::FinetuneFull {
                job.optimizer = Optimizer::PagedAdamW8bit;
                job.optimizer_in_backward = true;
            }
        } else if job.workload.is_adapter() {
            // NeMo AutoModel recipes: LoRA dim 16 on every *_proj.
            job.lora_rank = 16;
            job.lora_targets = LoraTargets::AllLinear;
        }
        let measured = match metric.as_str() {
            "tokens_s_per_gpu" | "tokens_s" => per_gpu.parse().expect("per gpu"),
            "step_time_s" => {
                f64::from(global) * f64::from(job.seq_len) / value.parse::<f64>().expect("step") / f64::from(gpus)
            }
            m => panic!("metric {m}"),
        };
        let mut c = case(Set::Training, file, label, card, gpus, job, Read::TrainPerGpu, measured, source);
        c.tag = framework.clone();
        inv.cases.push(c);
    }
}

/// memory.csv (as in tests/calibration.rs) and memory_more.csv.
fn memory_rows(inv: &mut Inventory) {
    let ctx = Engine::Transformers.context_gib(false);
    let file = "memory.csv";
    for r in read_csv(file) {
        let [g, n, name, _params, task, fw, dtype, _batch, _seq, _ckpt, _opt, peak, metric, source, ..] = r.as_slice()
        else {
            panic!("short row {r:?}")
        };
        let measured: f64 = peak.parse().expect("peak");
        let label = format!("{g} ×{n} {name} {task} {dtype}");
        if task.contains("offload") || (name == "Llama-3.1-70B" && task == "finetune_full") {
            inv.skipped.push(format!("{file}: {label}: CPU offload, not modelled"));
            continue;
        }
        let mut job = LlmJob { model: model(name), ..LlmJob::default() };
        if task == "weights only" {
            job.precision = if dtype == "Q4_K_M" { Precision::Q4KM } else { Precision::Fp16 };
            job.engine = Some(Engine::LlamaCpp);
            let card = gpu("h100-sxm");
            let mut c = case(Set::Memory, file, label, card, 1, job, Read::Weights, measured, source);
            c.family = "any".into();
            c.group = "any (file size)".into();
            c.tag = fw.clone();
            inv.cases.push(c);
            continue;
        }
        let gpus: u32 = n.parse().expect("num_gpus");
        let card = gpu(g);
        let torchtune = metric.starts_with("peak memory per GPU");
        let job = memory_csv_job(name, task, gpus, torchtune);
        // torchtune reports the allocator's reserved peak (no CUDA context); the PEFT README's
        // T0_3B figures come from its example's `TorchTracemalloc`, `max_memory_allocated()`
        // (examples/conditional_generation/peft_lora_seq2seq_accelerate_ds_zero3_offload.py).
        let read = if torchtune { Read::PerGpuMem { minus: ctx } } else { Read::AllocatedPeak };
        let mut c = case(Set::Memory, file, label, card, gpus, job, read, measured, source);
        c.tag = fw.clone();
        inv.cases.push(c);
    }
    memory_more_rows(inv, ctx);
}

/// memory_more.csv: each row's stated recipe; what its metric counts decides the comparison.
fn memory_more_rows(inv: &mut Inventory, ctx: f64) {
    let file = "memory_more.csv";
    for r in read_csv(file) {
        let [g, n, name, _params, task, framework, dtype, batch, seq, ckpt, opt, peak, metric, rank, targets, source, notes, ..] =
            r.as_slice()
        else {
            panic!("short row {r:?}")
        };
        let label =
            format!("{g} ×{n} {name} {task} {dtype} b{batch} s{seq} ckpt {ckpt} {opt} r{rank} {targets} [{framework}] {}", notes.split(';').next().unwrap_or(""));
        if g.is_empty() {
            inv.skipped.push(format!("{file}: {label}: GPU not stated"));
            continue;
        }
        if metric.contains("upper bound") || metric.contains("budget") {
            inv.skipped.push(format!(
                "{file}: {label}: a VRAM budget at which a context fits (capacity limit), not a measured peak"
            ));
            continue;
        }
        if notes.contains("DoRA") {
            inv.skipped.push(format!("{file}: {label}: DoRA (weight-decomposed LoRA) not modelled"));
            continue;
        }
        if notes.contains("activation offloading") {
            inv.skipped.push(format!("{file}: {label}: activation offloading to CPU, not modelled"));
            continue;
        }
        let measured: f64 = peak.parse().expect("peak");
        let card = gpu(g);
        let gpus: u32 = n.parse().expect("n");
        let mut job = LlmJob { model: model(name), ..LlmJob::default() };
        job.precision = Precision::Bf16;
        job.batch = batch.parse().expect("batch");
        job.seq_len = seq.parse().expect("seq");
        job.grad_checkpointing = if ckpt == "full" { Checkpointing::Full } else { Checkpointing::None };
        job.workload = match task.as_str() {
            "finetune_full" => Workload::FinetuneFull,
            "finetune_lora" => Workload::Lora,
            "finetune_qlora" => Workload::Qlora,
            t => panic!("task {t}"),
        };
        // MetaMathQA and torchtune run pure bf16 (use_amp false); the SFT examples run bf16 mixed
        // precision.
        let torchtune = framework == "torchtune";
        job.master_weights = !(torchtune || (job.workload == Workload::FinetuneFull && notes.contains("pure bf16")));
        // torchtune's decoder upcasts unchunked logits (`self.output(h).float()`); its chunked
        // loss upcasts one chunk at a time.
        job.fp32_logits = !notes.contains("; chunked logits");
        job.optimizer_in_backward = opt.contains("in_bwd");
        job.torch_compile = notes.contains("torch.compile on");
        if opt.starts_with("adamw8bit") {
            job.optimizer = Optimizer::AdamW8bit;
        }
        if job.workload.is_adapter() {
            job.lora_rank = rank.parse().expect("rank");
            // No MLP-only target set exists: the r10 MLP row is run on all linear layers.
            job.lora_targets = if targets == "qv" { LoraTargets::AttentionQv } else { LoraTargets::AllLinear };
        }
        if framework.contains("ZeRO-3") || framework.contains("FSDP") {
            job.zero = 3;
            job.auto_layout = false;
        }
        job.nf4_double_quant = dtype.contains("double");
        // Allocator peaks (torch max_memory_reserved) exclude the CUDA context; nvidia-smi includes it.
        let minus = if metric.contains("nvidia-smi") || metric.starts_with("per-GPU memory") { 0.0 } else { ctx };
        // torchtune's "Peak Memory Active": live tensors, as `max_memory_allocated()`.
        let read = if metric.contains("Active") { Read::AllocatedPeak } else { Read::PerGpuMem { minus } };
        let mut c = case(Set::Memory, file, label, card, gpus, job, read, measured, source);
        c.tag = framework.clone();
        inv.cases.push(c);
    }
}

fn inventory() -> Inventory {
    let mut inv = Inventory::default();
    inference_rows(&mut inv);
    serving_rows(&mut inv);
    training_rows(&mut inv);
    memory_rows(&mut inv);
    for c in &mut inv.cases {
        if c.tag.is_empty() {
            c.tag = c.job.engine_for(c.gpu).as_str().into();
        }
    }
    inv
}

// ---------------------------------------------------------------------------------------------
// Prediction and cross-validation
// ---------------------------------------------------------------------------------------------

/// The engine's band for a case; `carried`: with the factors a family without data gets.
fn predict(c: &Case, carried: bool) -> (Band, String) {
    let mut job = c.job.clone();
    if carried {
        if c.set == Set::Training {
            if job.train_mfu.is_none() {
                job.train_mfu = Some(default_train_mfu(GpuFamily::Other));
            }
        } else if c.set != Set::Memory {
            let e = job.engine_for(c.gpu);
            if per_family(e) {
                job.efficiency = Some(engines::carried_over_without(e, Some(GpuFamily::of(c.gpu))));
            }
        }
    }
    let est = estimate_llm(&job, c.gpu, c.gpus).unwrap_or_else(|e| panic!("{}: {e}", c.label));
    let mut flag = String::new();
    if !est.fits {
        flag = if est.gpus_needed > c.gpus { format!("needs {} GPUs", est.gpus_needed) } else { "does not fit".into() };
    }
    let t = &est.throughput;
    let need = |b: Option<Band>, what: &str| b.unwrap_or_else(|| panic!("{}: no {what}", c.label));
    let band = match c.read {
        Read::Decode => need(t.decode_tokens_per_s, "decode"),
        Read::DecodeE2e { prompt, out } => {
            let d = need(t.decode_tokens_per_s, "decode");
            let p = need(t.prefill_tokens_per_s, "prefill");
            let e2e = |pf: f64, dc: f64| out / (prompt / pf + out / dc);
            Band { low: e2e(p.low, d.low), mid: e2e(p.mid, d.mid), high: e2e(p.high, d.high) }
        }
        Read::Prefill => need(t.prefill_tokens_per_s, "prefill"),
        Read::Serving => need(t.serving_tokens_per_s, "serving"),
        Read::PerUser | Read::Ttft(_) => {
            let arrivals = if let Read::Ttft(a) = c.read { a } else { Arrivals::Random };
            let targets = gpu_advisor::model::llm::serving::ServingTargets { arrivals, ..Default::default() };
            let r = gpu_advisor::model::llm::serving::analyze(&job, c.gpu, c.gpus, &targets)
                .unwrap_or_else(|e| panic!("{}: {e}", c.label));
            if matches!(c.read, Read::PerUser) {
                r.per_user_tokens_per_s
            } else {
                need(r.ttft_s, "ttft")
            }
        }
        Read::TrainPerGpu => {
            // When the job does not fit, the engine gives the speed at the count that holds it.
            let n = if !est.fits && est.gpus_needed > c.gpus { est.gpus_needed } else { c.gpus };
            need(t.train_tokens_per_s, "training").scale(1.0 / f64::from(n))
        }
        // The band the app shows for training memory (`memory::TRAINING_MEMORY_BAND`) around
        // what each measurement counts; weight files (exact sizes) are judged on the same band.
        // Allocator statistics (minus > 0, and allocated peaks) do not see paged optimizer state.
        Read::PerGpuMem { minus } => {
            let paged = if minus > 0.0 { paged_counted_gib(&job, c.gpu, c.gpus) } else { 0.0 };
            Band::around(est.per_gpu_gib - minus - paged, MEM_LOW, MEM_HIGH)
        }
        Read::AllocatedPeak => {
            let v = est.per_gpu_gib - est.memory.overhead_gib / f64::from(c.gpus.max(1)) - paged_counted_gib(&job, c.gpu, c.gpus);
            Band::around(v, MEM_LOW, MEM_HIGH)
        }
        Read::Weights => Band::around(est.memory.weights_gib, MEM_LOW, MEM_HIGH),
    };
    (band, flag)
}


/// GiB of paged optimizer state the engine counts on the busiest GPU. bitsandbytes' paged
/// optimizers keep their state in CUDA managed memory (`cudaMallocManaged`, bitsandbytes
/// `functional.get_paged` → `cget_managed_ptr`), outside PyTorch's caching allocator, so
/// `torch.cuda.max_memory_reserved()` / `max_memory_allocated()` (what torchtune and PEFT's
/// scripts print) never count it, while `nvidia-smi` sees the pages resident on the GPU.
fn paged_counted_gib(job: &LlmJob, g: &Gpu, gpus: u32) -> f64 {
    use gpu_advisor::model::llm::{layout_for, memory, parallel};
    let engine = job.engine_for(g);
    let t = memory::terms(job, g, engine);
    if t.pageable_gib == 0.0 {
        return 0.0;
    }
    let layout = layout_for(job, g, engine, &t, gpus);
    let resident = memory::Terms { optimizer_gib: t.optimizer_gib - t.pageable_gib, pageable_gib: 0.0, ..t };
    parallel::per_gpu_gib(job, g, engine, &t, &layout) - parallel::per_gpu_gib(job, g, engine, &resident, &layout)
}

const MEM_LOW: f64 = gpu_advisor::model::llm::memory::TRAINING_MEMORY_BAND.0;
const MEM_HIGH: f64 = gpu_advisor::model::llm::memory::TRAINING_MEMORY_BAND.1;

/// The `q`-quantile (nearest rank) of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The memory band's own cross-validation: for each source, the 10th–90th percentile of
/// measured / model over the other sources' rows, and the share of that source's rows inside
/// it. Returns (that share, p10 and p90 over all rows).
fn memory_band_loso(scored: &[Scored]) -> (f64, f64, f64) {
    let ratio = |x: &Scored| x.case.measured / x.raw.mid;
    let sources: BTreeSet<&str> = scored.iter().map(|x| x.case.source.as_str()).collect();
    let mut inside_n = 0usize;
    for s in &sources {
        let mut v: Vec<f64> = scored.iter().filter(|x| x.case.source != *s).map(ratio).collect();
        v.sort_by(f64::total_cmp);
        let (lo, hi) = (quantile(&v, 0.1), quantile(&v, 0.9));
        let held: Vec<f64> = scored.iter().filter(|x| x.case.source == *s).map(ratio).collect();
        let n = held.iter().filter(|r| (lo..=hi).contains(*r)).count();
        println!("BAND | memory | without {s}: p10 {lo:.2}, p90 {hi:.2}; {n} of its {} rows inside", held.len());
        inside_n += n;
    }
    let mut all: Vec<f64> = scored.iter().map(ratio).collect();
    all.sort_by(f64::total_cmp);
    let mut held: Vec<f64> = scored.iter().map(|x| 1.0 / (1.0 + x.loso)).collect();
    held.sort_by(f64::total_cmp);
    println!("BAND | memory | measured / model, sorted: raw {all:.2?}; held out (LOSO) {held:.2?}");
    (inside_n as f64 / scored.len().max(1) as f64, quantile(&all, 0.1), quantile(&all, 0.9))
}

/// exp(median ln(measured/model)) over `rows`; 1 when there are none.
fn refit(rows: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = rows.collect();
    if v.is_empty() {
        1.0
    } else {
        median(v).exp()
    }
}

/// exp(median over sources of each source's median ln(measured/model)): one vote per source.
/// 1 when there are no rows.
fn refit_balanced<'a>(rows: impl Iterator<Item = (&'a str, f64)>) -> f64 {
    let mut by_source: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (s, l) in rows {
        by_source.entry(s).or_default().push(l);
    }
    if by_source.is_empty() {
        return 1.0;
    }
    median(by_source.into_values().map(median).collect()).exp()
}

/// The scalar a held-out row's prediction is multiplied by (LOFO, LOSO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refit {
    /// exp(median ln(measured/model)) over the other rows.
    ByRow,
    /// The same with one vote per source ([`refit_balanced`]); a diagnostic for the serving sets.
    BySource,
    /// No scalar: the physics as the app ships it (the serving sets, see [`Set::held_out_refit`]).
    None,
}

/// "dense" or "MoE" (experts), for the serving diagnostics.
fn class_of(c: &Case) -> &'static str {
    if c.job.model.is_moe() && c.job.model.experts_total >= 64 {
        "fine-grained MoE (≥ 64 experts)"
    } else if c.job.model.is_moe() {
        "MoE (< 64 experts)"
    } else {
        "dense"
    }
}

struct Scored {
    case: Case,
    raw: Band,
    flag: String,
    in_sample: f64,
    lofo: f64,
    lofo_in: bool,
    r_lofo: f64,
    loso: f64,
    loso_in: bool,
    r_loso: f64,
}

struct Summary {
    set: Set,
    rows: usize,
    raw: f64,
    raw_in_band: f64,
    r_all: f64,
    in_sample: f64,
    lofo: f64,
    loso: f64,
    lofo_in_band: f64,
    loso_in_band: f64,
    /// Raw median |error| on the rows the factors were fitted on (llm_inference.csv) and on the rest.
    raw_fitted_file: f64,
    raw_new_files: f64,
}

fn err(pred: f64, measured: f64) -> f64 {
    pred / measured - 1.0
}

fn inside(b: Band, r: f64, measured: f64) -> bool {
    b.low * r <= measured && measured <= b.high * r
}

fn cross_validate(cases: Vec<Case>, mode: Refit) -> (Vec<Scored>, Summary) {
    let set = cases.first().expect("rows").set;
    let preds: Vec<(Band, String)> = cases.iter().map(|c| predict(c, false)).collect();
    let carried: Vec<Band> = cases.iter().map(|c| predict(c, true).0).collect();
    let lr: Vec<f64> = cases.iter().zip(&preds).map(|(c, (b, _))| (c.measured / b.mid).ln()).collect();
    // The held-out scalar, fitted on the rows `keep` accepts.
    let fit = |keep: &dyn Fn(&Case) -> bool| {
        let rows = cases.iter().zip(&lr).filter(|(c, _)| keep(c));
        match mode {
            Refit::ByRow => refit(rows.map(|(_, &l)| l)),
            Refit::BySource => refit_balanced(rows.map(|(c, &l)| (c.source.as_str(), l))),
            Refit::None => 1.0,
        }
    };
    let r_all = refit(lr.iter().copied());
    let families: BTreeSet<&str> = cases.iter().map(|c| c.family.as_str()).collect();
    let sources: BTreeSet<&str> = cases.iter().map(|c| c.source.as_str()).collect();
    let r_family: BTreeMap<&str, f64> = families.iter().map(|&f| (f, fit(&|c: &Case| c.family != f))).collect();
    let r_source: BTreeMap<&str, f64> = sources.iter().map(|&s| (s, fit(&|c: &Case| c.source != s))).collect();
    let mut scored = Vec::with_capacity(cases.len());
    for (i, c) in cases.iter().enumerate() {
        let (raw, flag) = preds[i].clone();
        let rf = r_family[c.family.as_str()];
        let rs = r_source[c.source.as_str()];
        let cb = carried[i];
        scored.push(Scored {
            case: c.clone(),
            raw,
            flag,
            in_sample: err(raw.mid * r_all, c.measured),
            lofo: err(cb.mid * rf, c.measured),
            lofo_in: inside(cb, rf, c.measured),
            r_lofo: rf,
            loso: err(raw.mid * rs, c.measured),
            loso_in: inside(raw, rs, c.measured),
            r_loso: rs,
        });
    }
    let n = scored.len();
    let med = |f: &dyn Fn(&Scored) -> f64| median(scored.iter().map(|s| f(s).abs()).collect());
    let share = |f: &dyn Fn(&Scored) -> bool| scored.iter().filter(|s| f(s)).count() as f64 / n as f64;
    let summary = Summary {
        set,
        rows: n,
        raw: med(&|s| err(s.raw.mid, s.case.measured)),
        raw_in_band: share(&|s| inside(s.raw, 1.0, s.case.measured)),
        r_all,
        in_sample: med(&|s| s.in_sample),
        lofo: med(&|s| s.lofo),
        loso: med(&|s| s.loso),
        lofo_in_band: share(&|s| s.lofo_in),
        loso_in_band: share(&|s| s.loso_in),
        raw_fitted_file: median(
            scored
                .iter()
                .filter(|s| s.case.file == "llm_inference.csv")
                .map(|s| err(s.raw.mid, s.case.measured).abs())
                .collect(),
        ),
        raw_new_files: median(
            scored
                .iter()
                .filter(|s| s.case.file != "llm_inference.csv")
                .map(|s| err(s.raw.mid, s.case.measured).abs())
                .collect(),
        ),
    };
    (scored, summary)
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "—".into()
    } else {
        format!("{:+.1}%", x * 100.0)
    }
}

fn report(scored: &[Scored], s: &Summary) {
    let name = s.set.name();
    println!("\n## {name}: per-row table\n");
    println!("| row | file | group | source | measured | model mid (low–high) | raw | in-sample | LOFO (r) | LOSO (r) | in band LOFO/LOSO |");
    println!("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|");
    for x in scored {
        let c = &x.case;
        println!(
            "| {}{} | {} | {} | {} | {:.2} | {:.2} ({:.2}–{:.2}) | {} | {} | {} ({:.2}) | {} ({:.2}) | {}/{} |",
            c.label,
            if x.flag.is_empty() { String::new() } else { format!(" [{}]", x.flag) },
            c.file,
            c.group,
            c.source,
            c.measured,
            x.raw.mid,
            x.raw.low,
            x.raw.high,
            pct(err(x.raw.mid, c.measured)),
            pct(x.in_sample),
            pct(x.lofo),
            x.r_lofo,
            pct(x.loso),
            x.r_loso,
            if x.lofo_in { "yes" } else { "no" },
            if x.loso_in { "yes" } else { "no" },
        );
    }
    println!("\n### {name}: groups (median error, signed; |median|)\n");
    let mut groups: BTreeMap<String, Vec<&Scored>> = BTreeMap::new();
    for x in scored {
        groups.entry(format!("family {}", x.case.group)).or_default().push(x);
        groups.entry(format!("source {}", x.case.source)).or_default().push(x);
        groups.entry(format!("engine/framework {}", x.case.tag)).or_default().push(x);
        if s.set.held_out_refit() == Refit::None {
            groups.entry(format!("source × engine {} / {}", x.case.source, x.case.tag)).or_default().push(x);
            groups.entry(format!("class {}", class_of(&x.case))).or_default().push(x);
        }
    }
    let mut rows: Vec<(String, usize, f64, f64, f64, f64)> = groups
        .into_iter()
        .map(|(k, v)| {
            let raw = median(v.iter().map(|x| err(x.raw.mid, x.case.measured)).collect());
            let lofo = median(v.iter().map(|x| x.lofo).collect());
            let loso = median(v.iter().map(|x| x.loso).collect());
            let worst = median(v.iter().map(|x| x.lofo.abs().max(x.loso.abs())).collect());
            (k, v.len(), raw, lofo, loso, worst)
        })
        .collect();
    rows.sort_by(|a, b| b.5.total_cmp(&a.5));
    println!("| group | rows | raw (signed median) | LOFO (signed) | LOSO (signed) | median max(|LOFO|,|LOSO|) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (k, n, raw, lofo, loso, worst) in &rows {
        println!("| {k} | {n} | {} | {} | {} | {} |", pct(*raw), pct(*lofo), pct(*loso), pct(*worst));
    }
    let mut worst: Vec<&Scored> = scored.iter().collect();
    worst.sort_by(|a, b| b.lofo.abs().max(b.loso.abs()).total_cmp(&a.lofo.abs().max(a.loso.abs())));
    println!("\n### {name}: worst 10 rows (held out)\n");
    for x in worst.iter().take(10) {
        println!(
            "- {} [{}; {}]: measured {:.2}, raw {:.2} ({}), LOFO {}, LOSO {}{}",
            x.case.label,
            x.case.group,
            x.case.source,
            x.case.measured,
            x.raw.mid,
            pct(err(x.raw.mid, x.case.measured)),
            pct(x.lofo),
            pct(x.loso),
            if x.flag.is_empty() { String::new() } else { format!(" [{}]", x.flag) }
        );
    }
    println!(
        "\n**{name}**: {} rows; median |error| raw {:.1}% (llm_inference.csv {}, other files {}), in-sample {:.1}% (r_all {:.3}), LOFO {:.1}%, LOSO {:.1}%; inside band: raw {:.0}%, LOFO {:.0}%, LOSO {:.0}%",
        s.rows,
        s.raw * 100.0,
        pct(s.raw_fitted_file).trim_start_matches('+'),
        pct(s.raw_new_files).trim_start_matches('+'),
        s.in_sample * 100.0,
        s.r_all,
        s.lofo * 100.0,
        s.loso * 100.0,
        s.raw_in_band * 100.0,
        s.lofo_in_band * 100.0,
        s.loso_in_band * 100.0
    );
    println!(
        "SUMMARY | {name} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.0}% / {:.0}% |",
        s.rows,
        s.raw * 100.0,
        s.in_sample * 100.0,
        s.lofo * 100.0,
        s.loso * 100.0,
        s.lofo_in_band * 100.0,
        s.loso_in_band * 100.0
    );
}

fn run(set: Set) -> (Vec<Scored>, Summary) {
    let inv = inventory();
    let cases: Vec<Case> = inv.cases.into_iter().filter(|c| c.set == set).collect();
    let mode = set.held_out_refit();
    if mode == Refit::None {
        // Diagnostics: what a scalar refitted on the held-out rows' complement would give.
        for alt in [Refit::ByRow, Refit::BySource] {
            let (_, s) = cross_validate(cases.clone(), alt);
            println!(
                "DIAGNOSTIC | {} | held out × scalar refitted {:?} | LOFO {:.1}%, LOSO {:.1}%; in band {:.0}% / {:.0}%",
                set.name(),
                alt,
                s.lofo * 100.0,
                s.loso * 100.0,
                s.lofo_in_band * 100.0,
                s.loso_in_band * 100.0
            );
        }
    }
    let (scored, summary) = cross_validate(cases, mode);
    report(&scored, &summary);
    band_spread(&scored);
    (scored, summary)
}

/// The band the held-out residuals call for: per class, the 10th and 90th percentiles of
/// measured / model (80% of rows inside), printed for the serving sets.
fn band_spread(scored: &[Scored]) {
    let Some(first) = scored.first() else { return };
    if first.case.set.held_out_refit() != Refit::None {
        return;
    }
    let mut by_class: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for x in scored {
        let r = x.case.measured / x.raw.mid;
        by_class.entry(class_of(&x.case)).or_default().push(r);
        by_class.entry("all").or_default().push(r);
        // The TTFT's arrival patterns apart: the in-step band is derived from these rows.
        if let Read::Ttft(a) = x.case.read {
            let pattern = if a == Arrivals::InStep { "in step" } else { "random" };
            by_class.entry(if class_of(&x.case) == "dense" { pattern } else { "other" }).or_default().push(r);
        }
    }
    println!(
        "BAND | {} | dense rows inside the 10th–90th percentile band of the other sources: {:.0}%",
        first.case.set.name(),
        band_loso(scored) * 100.0
    );
    for (class, mut v) in by_class {
        v.sort_by(f64::total_cmp);
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        let (err_abs, in_band) = class_stats(scored, class);
        println!(
            "BAND | {} | {class} | {} rows | measured/model: p10 {:.2}, median {:.2}, p90 {:.2} | median |error| {:.1}%, in band {:.0}%",
            first.case.set.name(),
            v.len(),
            q(0.1),
            q(0.5),
            q(0.9),
            err_abs * 100.0,
            in_band * 100.0
        );
    }
}

/// The serving band re-derived without each source (10th–90th percentile of the other sources'
/// dense measured/model) and the share of that source's dense rows inside it: the band's own
/// cross-validation, printed for the serving sets.
fn band_loso(scored: &[Scored]) -> f64 {
    let dense: Vec<&Scored> = scored.iter().filter(|x| class_of(&x.case) == "dense").collect();
    let sources: BTreeSet<&str> = dense.iter().map(|x| x.case.source.as_str()).collect();
    let mut inside_n = 0usize;
    for s in &sources {
        let mut v: Vec<f64> = dense.iter().filter(|x| x.case.source != *s).map(|x| x.case.measured / x.raw.mid).collect();
        if v.is_empty() {
            continue;
        }
        v.sort_by(f64::total_cmp);
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        let (lo, hi) = (q(0.1), q(0.9));
        let own: Vec<f64> = dense.iter().filter(|x| x.case.source == *s).map(|x| x.case.measured / x.raw.mid).collect();
        let inside = own.iter().filter(|r| (lo..=hi).contains(*r)).count();
        println!(
            "BAND | {} | held out {s}: {} dense rows, median measured/model {:.2}; the others' band {lo:.2}–{hi:.2} holds {inside}",
            scored[0].case.set.name(),
            own.len(),
            median(own.clone())
        );
        inside_n += inside;
    }
    inside_n as f64 / dense.len().max(1) as f64
}

/// Median |error| and in-band share of the held-out predictions (LOSO) of one class ("all":
/// every row).
fn class_stats(scored: &[Scored], class: &str) -> (f64, f64) {
    let pattern = |c: &Case| match c.read {
        Read::Ttft(a) if class_of(c) == "dense" => if a == Arrivals::InStep { "in step" } else { "random" },
        Read::Ttft(_) => "other",
        _ => "",
    };
    let rows: Vec<&Scored> = scored.iter().filter(|x| class == "all" || class_of(&x.case) == class || pattern(&x.case) == class).collect();
    let n = rows.len().max(1) as f64;
    (median(rows.iter().map(|x| x.loso.abs()).collect()), rows.iter().filter(|x| x.loso_in).count() as f64 / n)
}

fn at_most(what: &str, value: f64, limit: f64) {
    assert!(value <= limit, "{what}: {:.1}% > {:.1}%", value * 100.0, limit * 100.0);
}

fn at_least(what: &str, value: f64, limit: f64) {
    assert!(value >= limit, "{what}: {:.1}% < {:.1}%", value * 100.0, limit * 100.0);
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn inventory_accounts_for_every_row() {
    let inv = inventory();
    let count = |s: Set| inv.cases.iter().filter(|c| c.set == s).count();
    for s in &inv.skipped {
        println!("skipped: {s}");
    }
    for s in &inv.not_modelled {
        println!("not yet modelled: {s}");
    }
    println!(
        "rows: decode {}, prefill {}, serving {}, training {}, memory {}, per-user {}, ttft {}; skipped {}; not yet modelled {}",
        count(Set::Decode),
        count(Set::Prefill),
        count(Set::Serving),
        count(Set::Training),
        count(Set::Memory),
        count(Set::PerUser),
        count(Set::Ttft),
        inv.skipped.len(),
        inv.not_modelled.len()
    );
    // Every data row is a case, skipped, or not modelled (training.csv: its 4 MPT rows only).
    let rows: usize = [
        "llm_inference.csv",
        "llm_inference_more.csv",
        "llm_serving_more.csv",
        "llm_training_more.csv",
        "memory.csv",
        "memory_more.csv",
    ]
    .iter()
    .map(|f| read_csv(f).len())
    .sum::<usize>()
        + 4;
    assert_eq!(inv.cases.len() + inv.skipped.len() + inv.not_modelled.len(), rows);
    assert_eq!(count(Set::Decode), 163);
    assert_eq!(count(Set::Prefill), 99);
    assert_eq!(count(Set::Serving), 474);
    assert_eq!(count(Set::Training), 81);
    assert_eq!(count(Set::Memory), 26);
    assert!(count(Set::PerUser) > 0 && count(Set::Ttft) > 0);
}

// Regression guards (for targets not met yet) sit at today's figure + 3 points (medians) or
// − 5 points (in-band shares), rounded.

#[test]
fn decode_cross_validated() {
    let (_, s) = run(Set::Decode);
    assert!(s.rows >= 130);
    at_most("decode in-sample median |error|", s.in_sample, 0.12);
    // Target met (LOFO 11.1%, LOSO 7.8%, in band 83% / 86%) since session 12's vLLM/SGLang
    // decode step: the weight stream at 0.86 of the bandwidth plus a 0.077 ms floor per layer
    // (`engines.rs`, derived from AccelMark's L4 and H100 rows). Before, one weight-stream share
    // (0.75 on every card, no floor) sat between what vLLM's GDDR cards reach at one user (0.80–
    // 0.90 of their bandwidth) and its HBM cards (0.60–0.79), so the family held out was always
    // on the wrong side: LOFO 12.9% (session 11), 12.6% (session 10).
    at_most("decode LOFO median |error|", s.lofo, 0.12);
    at_most("decode LOSO median |error|", s.loso, 0.12);
    at_least("decode LOFO in band", s.lofo_in_band, 0.80);
    at_least("decode LOSO in band", s.loso_in_band, 0.80);
}

#[test]
fn prefill_cross_validated() {
    let (_, s) = run(Set::Prefill);
    assert!(s.rows >= 70);
    at_most("prefill in-sample median |error|", s.in_sample, 0.20);
    // Targets met (LOFO 10.6%, LOSO 9.9%; in band 92% / 89% today).
    at_most("prefill LOFO median |error|", s.lofo, 0.20);
    at_most("prefill LOSO median |error|", s.loso, 0.20);
    at_least("prefill LOFO in band", s.lofo_in_band, 0.80);
    at_least("prefill LOSO in band", s.loso_in_band, 0.80);
}

#[test]
fn serving_cross_validated() {
    let (scored, s) = run(Set::Serving);
    assert!(s.rows >= 230);
    // Held out with no scalar (`Set::held_out_refit`): raw = LOFO = LOSO. The in-sample scalar
    // makes it 18.7%.
    at_most("serving in-sample median |error|", s.in_sample, 0.23);
    // Target met: 17.7% since session 12's vLLM/SGLang per-layer kernel floor (19.6% on
    // session 11's 474 rows, 19.8% on session 10's; 21.3% before MI300X took the GEMM clock AMD
    // measured, `numeric::MEASURED_GEMM_CLOCK_MHZ`; 23.6% before TensorRT-LLM's exposed kernel
    // launches, `engines::EAGER_LAUNCH_LAYER_MS`). AMD's H100 TensorRT-LLM runs 0.75 of NVIDIA's
    // own for the same configuration; GPUStack's Qwen3-235B and gpt-oss runs scatter 0.34–1.96
    // (docs/MODEL.md).
    at_most("serving LOFO median |error|", s.lofo, 0.20);
    at_most("serving LOSO median |error|", s.loso, 0.20);
    // Target met: ≥ 80% in band (81% since session 12; 73% before DeepSeek-style MoE got its
    // own band, `serving::MLA_MOE_SERVING_BAND`). DeepSeek-R1 (MLA, 256 experts; dstack and
    // GPUStack, 33 rows) still runs 1.4–4× below the physics (median measured/model 0.47); its
    // band's low edge is that class's 10th percentile, derived from these same rows as the other
    // band is from the other rows, so the share is not an out-of-sample figure (see the class
    // check below and docs/MODEL.md). Session 12 derives `serving::SERVING_BAND` from every row
    // that shows it (dense and MoE without latent attention) instead of the dense rows alone:
    // with the per-layer floor the dense rows tightened to 0.71–1.26, and a band that narrow
    // held 77% of all rows (Mixtral 60%, Qwen3-235B, gpt-oss and GLM-4.5-Air 68%).
    at_least("serving LOFO in band", s.lofo_in_band, 0.80);
    at_least("serving LOSO in band", s.loso_in_band, 0.80);
    // The DeepSeek-style band: its low edge is the class's 10th percentile of measured/model
    // (0.34), its high edge the other band's (the class's 90th percentile, 1.09, is below it).
    let mut mla: Vec<f64> = scored
        .iter()
        .filter(|x| gpu_advisor::model::llm::serving::is_mla_moe(&x.case.job.model))
        .map(|x| x.case.measured / x.raw.mid)
        .collect();
    mla.sort_by(f64::total_cmp);
    let mla_q = |p: f64| mla[((mla.len() - 1) as f64 * p).round() as usize];
    let (mla_low, mla_high) = gpu_advisor::model::llm::serving::MLA_MOE_SERVING_BAND;
    assert!(mla.len() >= 30, "{} DeepSeek-style rows", mla.len());
    assert!((mla_low - mla_q(0.1)).abs() < 0.03 && mla_q(0.9) <= mla_high, "MLA MoE band {mla_low}–{mla_high} against p10 {:.2}, p90 {:.2}", mla_q(0.1), mla_q(0.9));
    assert_eq!(mla_high, gpu_advisor::model::llm::serving::SERVING_BAND.1);
    // Dense models meet both (14.2%, 85%), but the band's width was derived from these rows:
    // re-derived without each source it holds 69% of that source's dense rows (printed; 71% in
    // session 11, 59% before session 10's sources).
    let (dense_err, dense_in) = class_stats(&scored, "dense");
    at_most("serving dense median |error|", dense_err, 0.20);
    at_least("serving dense in band", dense_in, 0.80);
    // The serving band is the held-out spread of the rows it is shown for (all but DeepSeek-style
    // MoE): SERVING_BAND's factors hold measured/model from the 10th to the 90th percentile
    // (0.654–1.269 today), and neither side could be 5 points narrower.
    let mut ratios: Vec<f64> = scored
        .iter()
        .filter(|x| !gpu_advisor::model::llm::serving::is_mla_moe(&x.case.job.model))
        .map(|x| x.case.measured / x.raw.mid)
        .collect();
    ratios.sort_by(f64::total_cmp);
    let q = |p: f64| ratios[((ratios.len() - 1) as f64 * p).round() as usize];
    let (low, high) = gpu_advisor::model::llm::serving::SERVING_BAND;
    let spread = format!("{} rows: p10 {:.4}, p90 {:.4}", ratios.len(), q(0.1), q(0.9));
    assert!(low <= q(0.1) && q(0.9) <= high, "band {low}–{high} against {spread}");
    assert!(low + 0.05 > q(0.1) && high - 0.05 < q(0.9), "band {low}–{high} could be narrower: {spread}");
}

#[test]
fn training_cross_validated() {
    let (_, s) = run(Set::Training);
    assert!(s.rows >= 75);
    at_most("training in-sample median |error|", s.in_sample, 0.20);
    at_most("training LOFO median |error|", s.lofo, 0.20);
    at_most("training LOSO median |error|", s.loso, 0.20);
    at_least("training LOFO in band", s.lofo_in_band, 0.80);
    at_least("training LOSO in band", s.loso_in_band, 0.80);
}

#[test]
fn memory_cross_validated() {
    let (scored, s) = run(Set::Memory);
    let (band_loso, p10, p90) = memory_band_loso(&scored);
    println!("BAND | memory | all rows: p10 {p10:.2}, p90 {p90:.2}; rows inside the band re-derived without their source: {:.0}%", band_loso * 100.0);
    assert!(s.rows >= 26);
    at_most("memory in-sample median |error|", s.in_sample, 0.08);
    // Targets met: ≤ 8% cross-validated (LOFO 4.8%, LOSO 6.0% today).
    at_most("memory LOFO median |error|", s.lofo, 0.08);
    at_most("memory LOSO median |error|", s.loso, 0.08);
    // Targets met: ≥ 80% inside the band the app shows (`memory::TRAINING_MEMORY_BAND`,
    // 0.85–1.25 × the figure; LOFO 88%, LOSO 81% today).
    at_least("memory LOFO in band", s.lofo_in_band, 0.80);
    at_least("memory LOSO in band", s.loso_in_band, 0.80);
    // The band is the narrowest that holds ≥ 80% of the held-out (LOSO) measured / model: its low
    // edge is their 10th percentile, its high edge the largest ratio below the three rows with
    // known measurement problems (1.54–1.92: torchtune's A6000 pair, 2× its own 4090 rows for the
    // same recipes; PEFT's FSDP `nvidia-smi` reading with a checkpoint-save spike).
    let mut held: Vec<f64> = scored.iter().map(|x| 1.0 / (1.0 + x.loso)).collect();
    held.sort_by(f64::total_cmp);
    let inside = held.iter().filter(|r| (MEM_LOW..=MEM_HIGH).contains(*r)).count() as f64 / held.len() as f64;
    at_least("held-out measured/model inside TRAINING_MEMORY_BAND", inside, 0.80);
    assert!((MEM_LOW - quantile(&held, 0.1)).abs() < 0.03, "band low {MEM_LOW} vs p10 {:.2}", quantile(&held, 0.1));
    // TARGET NOT MET: the band re-derived from the other sources' rows (p10–p90) holds 77% of
    // each held-out source's rows (torchtune's rows scatter more widely than PEFT's).
    at_least("memory band re-derived without each source", band_loso, 0.72);
}

/// Per-user speed (TPOT) and TTFT at concurrency above 1 against the serving model of issue 12
/// (steady-state rows; offline "max" runs are skipped).
#[test]
fn latency_cross_validated() {
    let (pu, p) = run(Set::PerUser);
    let (tt, t) = run(Set::Ttft);
    assert!(p.rows >= 100 && t.rows >= 100);
    // Held out with no scalar (`Set::held_out_refit`): raw = LOFO = LOSO.
    // Target met (issue 12: ≤ 20%): per-user speed 17.1% on 155 rows since session 12's vLLM/SGLang
    // per-layer floor (19.1% before it; 18.7% on 145 rows, 18.1% on the 123
    // before session 10's data; 18.4% before the block-scaled FP8
    // GEMMs' floor per call, `engines::BLOCK_FP8_HIDDEN_GEMM_S`; 34.1% before TensorRT-LLM's
    // exposed kernel launches, `engines::EAGER_LAUNCH_LAYER_MS`: NIM's TensorRT-LLM ran 1.2–2.4×
    // slower than the model at 5–25 users).
    at_most("per-user LOSO median |error|", p.loso, 0.20);
    // Target met: ≥ 80% in band (86% today; 72% before DeepSeek-style MoE got its own band,
    // `serving::MLA_MOE_SERVING_BAND`, derived from the aggregate rows, so out of sample for
    // these). DeepSeek-R1 (21 rows: dstack at 4–128 users, GPUStack at 4) is still 1.2–4× slower
    // per user than the physics (median measured/model 0.46, 0.38 before the block-FP8 floor);
    // dense models 14.3%, 88% in band on 113 rows (14.5%, 85% on 102 before session 10's data;
    // 13.6% before batched decode ran at the prefill's GEMM
    // rate: the NIM rows at 100–250 users, already above the measured, rose).
    at_least("per-user LOSO in band", p.loso_in_band, 0.80);
    let (dense_err, dense_in) = class_stats(&pu, "dense");
    at_most("per-user dense median |error|", dense_err, 0.16);
    at_least("per-user dense in band", dense_in, 0.80);
    // TTFT: 32.9% median |error| (issue 12 sets no error target for it; 91.0% before the rows'
    // arrival pattern was modelled: `serving::Arrivals`, the `arrivals` column), 85% in band (70%
    // before DeepSeek-style MoE got its TTFT band, `serving::MLA_MOE_TTFT_HIGH`; 52% before the
    // arrivals). Fixed-length requests sent together (95 dense rows, mostly the NIM DLI sweep's
    // GenAI-Perf runs) take the in-step figure as their mid (`serving::Build::ttft_in_step`):
    // dense 23.8%, 83% in band. DeepSeek-R1 (21 rows) is 3–15× the in-step figure (its prefill is
    // far slower than the physics): its band's high end, 10 × the mid, was derived from these
    // same rows (in-sample; docs/MODEL.md says so). The in-step figure is a limit, 0.3–0.7 of the
    // measured at 100–250 users with 2,000-token prompts.
    // Session 10's rows (GPUStack's Qwen3/gpt-oss, the vLLM blog, dennislee22's bursts): 37.1%,
    // 79% in band (dense 26.4%, 78%); 78% (114 of 146) since session 12's per-layer floor, which
    // took GPUStack's gpt-oss-120b at 4 users (0.05 s measured) from 0.04 to 0.03 s modelled.
    // TARGET NOT MET (≥ 80% in band).
    at_most("ttft LOSO median |error|", t.loso, 0.38);
    at_least("ttft LOSO in band", t.loso_in_band, 0.78);
    let (dense_err, dense_in) = class_stats(&tt, "dense");
    at_most("ttft dense median |error|", dense_err, 0.27);
    at_least("ttft dense in band", dense_in, 0.77);
    // The in-step band (`serving::IN_STEP_TTFT_BAND`, 0.45–1.40) was derived from these rows.
    let (_, in_step_in) = class_stats(&tt, "in step");
    // 80% of the 95 rows it was derived from; 79.8% of 99 with session 10's in-step bursts.
    at_least("ttft in-step dense rows in band", in_step_in, 0.78);
}
