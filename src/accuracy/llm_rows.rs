//! The LLM calibration rows as jobs: every row of `llm_inference*.csv`, `llm_serving*.csv`,
//! `training.csv` (its MPT rows), `llm_training_more.csv`, `memory*.csv`, with its settings put
//! onto an [`LlmJob`] as the source states them, and what the engine output is compared with
//! ([`Read`]). What cannot be mapped honestly is skipped with the reason, and rows whose metric
//! the engine has no output for are listed as not modelled.
//!
//! Each row's settings go onto the job as stated: engine, back-end, weight and KV formats, batch,
//! prompt and output tokens (llama-bench `tgN` is 1 prompt token and N generated, `ppN` one
//! N-token prompt, `@ dD` a context already D tokens long), sequence length, activation
//! checkpointing, ZeRO stage / FSDP (FSDP FULL_SHARD → ZeRO-3, SHARD_GRAD_OP → ZeRO-2, Megatron
//! tp·pp > 1 → tensor + pipeline, Megatron data parallel → ZeRO-1, its distributed optimizer),
//! gradient accumulation, LoRA rank and targets. Serving rows run at the stated concurrency,
//! lowered to the largest batch that fits on the stated GPUs, so every figure is at the row's own
//! GPU count. Named MPT/GPT shapes without a preset take the `mpt-7b` preset's structure with the
//! row's layers, hidden size and parameter count.

use super::row::{family_of, generation_of, gpu, source_key, Csv, Row, Set};
use crate::catalog::{self, Gpu};
use crate::model::llm::engines::Backend;
use crate::model::llm::serving::Arrivals;
use crate::model::llm::{config_json, estimate_llm, job, throughput, Checkpointing, Engine, LlmJob, LoraTargets, ModelArch, Optimizer, Workload};
use crate::model::precision::{KvPrecision, Precision};
use std::path::Path;

/// Which engine output a row is compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Read {
    Decode,
    /// Output tokens over a whole request (prefill of `prompt` tokens + `out` decode steps).
    DecodeE2e { prompt: f64, out: f64 },
    Prefill,
    /// Prompt tokens over the time to the first token of one request on a server.
    PrefillFromTtft,
    Serving,
    /// Output tokens/s one user sees at the job's concurrency.
    PerUser,
    /// Seconds to the first token at the job's concurrency, with the row's arrival pattern.
    Ttft(Arrivals),
    /// Training tokens/s of the job divided by the GPUs it ran on.
    TrainPerGpu,
    /// Peak GiB per GPU minus what the measurement leaves out (the CUDA context for allocator
    /// peaks).
    PerGpuMem { minus: f64 },
    /// `torch.cuda.max_memory_allocated()`: live tensors only.
    AllocatedPeak,
    /// Weight bytes only (GGUF file sizes).
    Weights,
}

/// What an LLM row carries.
#[derive(Debug, Clone)]
pub struct LlmCase {
    pub job: LlmJob,
    pub read: Read,
}

/// The rows, and the ones left out.
#[derive(Default)]
pub struct Inventory {
    pub rows: Vec<Row<LlmCase>>,
    /// Rows left out, with the reason.
    pub skipped: Vec<String>,
    /// Rows whose metric has no engine output yet.
    pub not_modelled: Vec<String>,
    /// Data rows read, over every file.
    pub read: usize,
}

/// The files this module reads, in order.
pub const FILES: [&str; 15] = [
    "llm_inference.csv",
    "llm_inference_more.csv",
    "llm_inference_newgen_nvidia.csv",
    "llm_inference_newgen_amd_intel.csv",
    "llm_serving_more.csv",
    "llm_serving_fp4.csv",
    "llm_serving_moe.csv",
    "training.csv",
    "llm_training_more.csv",
    "llm_training_multinode.csv",
    "llm_training_multinode_amd_gaudi.csv",
    "memory.csv",
    "memory_more.csv",
    "memory_peft.csv",
    "memory_new_sources.csv",
];

type R<T> = Result<T, String>;

fn num<T: std::str::FromStr>(s: &str, what: &str) -> R<T> {
    s.trim().parse().map_err(|_| format!("{what}: `{s}` is not a number"))
}

/// LLaMA-1 30B ("Llama-33B" in the exllamav2 table), from huggyllama/llama-30b config.json.
const LLAMA_30B_CONFIG: &str = r#"{"model_type":"llama","hidden_size":6656,"intermediate_size":17920,
 "num_attention_heads":52,"num_hidden_layers":60,"vocab_size":32000,"max_position_embeddings":2048,
 "tie_word_embeddings":false}"#;

/// The shape a row names: the human names of the first files, or a catalog preset id.
pub fn model(name: &str) -> R<ModelArch> {
    let id = match name {
        "Llama-3-8B" => "llama-3-8b",
        "Llama-3-70B" => "llama-3-70b",
        "Llama-3.1-8B" => "llama-3.1-8b",
        "Llama-3.1-70B" => "llama-3.1-70b",
        "Llama-3.1-405B" => "llama-3.1-405b",
        "Mixtral-8x7B" => "mixtral-8x7b",
        // Llama 2 7B and CodeLlama 7B share the shape (CodeLlama adds 16 tokens).
        "Llama-2-7B" | "Llama-7B (CodeLlama-7B)" => "llama-2-7b",
        // LLaMA-1 13B has Llama 2 13B's shape.
        "Llama-13B" => "llama-2-13b",
        "Llama-2-70B" => "llama-2-70b",
        "CodeLlama-34B" => "codellama-34b",
        "bigscience/T0_3B" => "t0-3b",
        "Llama-33B" => {
            let mut m = config_json::arch_from_config_json(LLAMA_30B_CONFIG).map_err(|e| e.to_string())?;
            m.params_total = 32.5e9;
            m.params_active = 32.5e9;
            return Ok(m);
        }
        other => other,
    };
    catalog::llm(id).map(ModelArch::from_spec).ok_or_else(|| format!("no preset for calibration model `{name}`"))
}

#[allow(clippy::too_many_arguments)]
fn row(set: Set, file: &'static str, label: String, g: &'static Gpu, gpus: u32, case: LlmCase, measured: f64, source: &str) -> Row<LlmCase> {
    let engine = case.job.engine_for(g).as_str().to_string();
    Row {
        set,
        file,
        label,
        gpu: g,
        gpus,
        measured,
        source: source_key(source),
        citation: source.trim().to_string(),
        family: family_of(g).to_string(),
        generation: generation_of(g),
        engine,
        payload: case,
    }
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

/// (prompt, output, context already in the cache) of the `context_or_prompt_len` column.
fn prompt_output(ctx: &str) -> Option<(u32, u32, u32)> {
    let (ctx, depth) = match ctx.split_once(" @ d") {
        Some((c, d)) => (c.trim(), d.trim().parse().ok()?),
        None => (ctx.trim(), 0),
    };
    if let Some(g) = ctx.strip_prefix("gen ").and_then(|s| s.strip_suffix(" tok")) {
        return Some((1, g.parse().ok()?, depth));
    }
    if let Some(p) = ctx.strip_prefix("prompt ") {
        return Some((p.parse().ok()?, 1, depth));
    }
    if let Some(io) = ctx.strip_prefix("ISL/OSL ") {
        let (i, o) = io.split_once('/')?;
        return Some((i.parse().ok()?, o.parse().ok()?, depth));
    }
    if ctx == "short prompt" {
        // exllamav2's quick test: a few tokens in and ~128 out.
        return Some((16, 128, depth));
    }
    None
}

fn engine_of(s: &str) -> R<Engine> {
    if s.starts_with("TensorRT-LLM") {
        return Ok(Engine::TrtLlm);
    }
    Engine::parse(s).ok_or_else(|| format!("engine `{s}`"))
}

/// Weight (and KV) format of an inference row.
fn set_precision(job: &mut LlmJob, quant: &str, notes: &str) -> R<()> {
    let q = quant.trim();
    if let Some(bpw) = q.strip_prefix("EXL2 ").and_then(|r| r.split_whitespace().next()).and_then(|b| b.parse().ok()) {
        job.precision = Precision::Int4;
        job.bits_per_weight_override = Some(bpw);
        return Ok(());
    }
    if q.starts_with("GPTQ") {
        job.precision = Precision::Int4;
        return Ok(());
    }
    job.precision = Precision::parse(q).ok_or_else(|| format!("precision `{q}`"))?;
    if job.precision == Precision::Fp8 {
        let n = notes.to_ascii_lowercase();
        // FP8 KV cache where the row says so (v0.17 perf-overview, AMD's FP8-KV checkpoint), and
        // for every TensorRT-LLM 0.x FP8 row: its FP8 recipes (ModelOpt checkpoints, the benchmark
        // builds) quantize the KV cache too. TensorRT-LLM 1.x (`trtllm-serve`, PyTorch back end)
        // takes the KV format from a Hugging Face checkpoint's quantization config, 16-bit for
        // the FP8 checkpoints of these rows.
        if (job.engine == Some(Engine::TrtLlm) && !n.contains("tensorrt-llm v1."))
            || n.contains("kv cache fp8")
            || n.contains("fp8-kv")
            || n.contains("fp8 weights and kv")
        {
            job.kv_precision = KvPrecision::Fp8;
        }
    }
    Ok(())
}

fn inference_job(model_name: &str, quant: &str, engine: &str, notes: &str, (prompt, output, depth): (u32, u32, u32)) -> R<LlmJob> {
    let mut job = LlmJob { model: model(model_name)?, ..LlmJob::default() };
    job.engine = Some(engine_of(engine)?);
    set_precision(&mut job, quant, notes)?;
    job.prompt_tokens = prompt + depth;
    job.output_tokens = output;
    job.context_tokens = prompt + depth + output;
    // llama-bench `-ub N` (n_ubatch): the prompt's chunk.
    job.ubatch_tokens = ["-ub ", "n_ubatch "].iter().find_map(|k| notes.split(k).nth(1)).and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next()).and_then(|v| v.parse().ok());
    // A row run without CUDA/HIP graphs says so (vLLM `--enforce-eager`, SGLang
    // `--disable-cuda-graph`, or a version from before the engine captured them): every kernel
    // is launched from the host.
    if ["--enforce-eager", "--disable-cuda-graph", "no CUDA graphs"].iter().any(|k| notes.contains(k)) {
        job.cuda_graphs = Some(false);
    }
    job.moe_layout = moe_layout_of(notes);
    Ok(job)
}

/// The MoE layout a row's notes state: data-parallel attention with expert parallelism
/// (TensorRT-LLM's "DEP", `enable_attention_dp`, SGLang `--enable-dp-attention`), expert
/// parallelism with tensor-parallel attention ("TEP", vLLM `--enable-expert-parallel`), else the
/// engines' default, tensor parallelism (never the planner's choice: a row ran one layout).
fn moe_layout_of(notes: &str) -> crate::model::llm::job::MoeLayout {
    use crate::model::llm::job::MoeLayout;
    let word = |w: &str| notes.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| t.starts_with(w) && t[w.len()..].chars().all(|c| c.is_ascii_digit()));
    if word("DEP") || notes.contains("attention DP") || notes.contains("attention_dp") || notes.contains("dp-attention") {
        MoeLayout::DpAttention
    } else if word("TEP") || notes.contains("--enable-expert-parallel") || notes.contains("expert parallel") {
        MoeLayout::Expert
    } else {
        MoeLayout::Tensor
    }
}

/// The columns the inference and serving files share.
struct Cols<'a> {
    g: &'a str,
    n: &'a str,
    name: &'a str,
    quant: &'a str,
    engine: &'a str,
    batch: &'a str,
    ctx: &'a str,
    metric: &'a str,
    value: &'a str,
    source: &'a str,
    notes: &'a str,
}

impl<'a> Cols<'a> {
    fn of(csv: &Csv, r: &'a [String]) -> Cols<'a> {
        let c = |k: &str| csv.get(r, k);
        Cols {
            g: c("gpu"),
            n: c("num_gpus"),
            name: c("model"),
            quant: c("quant_or_dtype"),
            engine: c("engine"),
            batch: c("batch"),
            ctx: c("context_or_prompt_len"),
            metric: c("metric"),
            value: c("value"),
            source: c("source"),
            notes: c("notes"),
        }
    }
}

/// decode / prefill / serving rows of the `llm_inference*.csv` files (an optional `backend`
/// column names the compute back-end).
fn inference_rows(dir: &Path, inv: &mut Inventory) -> R<()> {
    for file in ["llm_inference.csv", "llm_inference_more.csv", "llm_inference_newgen_nvidia.csv", "llm_inference_newgen_amd_intel.csv"] {
        let Ok(csv) = Csv::read(dir, file) else { continue };
        for r in &csv.rows {
            inv.read += 1;
            let c = |k: &str| csv.get(r, k);
            let Cols { g, n, name, quant, engine, batch, ctx, metric, value, source, notes } = Cols::of(&csv, r);
            let backend = c("backend");
            let label = format!("{g} ×{n} {name} {quant} {engine}{} {ctx}", if backend.is_empty() { String::new() } else { format!(" {backend}") });
            let measured: f64 = num(value, &label)?;
            let gpus: u32 = num(n, &label)?;
            let card = gpu(g)?;
            let lengths = prompt_output(ctx).ok_or_else(|| format!("{file}: {label}: context `{ctx}`"))?;
            if engine == "llama.cpp" && gpus > 1 && notes.contains("row split") {
                inv.not_modelled.push(format!("{file}: {label} = {value}: llama.cpp row split (the engine models llama.cpp's layer split only)"));
                continue;
            }
            if lengths.2 > 0 && metric == "prompt_tok_s" {
                inv.not_modelled.push(format!("{file}: {label} = {value}: a prompt on a filled context (the engine's prefill starts from an empty cache)"));
                continue;
            }
            let mut job = inference_job(name, quant, engine, notes, lengths)?;
            if !backend.is_empty() {
                job.backend = Some(Backend::parse(backend).ok_or_else(|| format!("{file}: {label}: back-end `{backend}`"))?);
            }
            let (set, read) = match metric {
                "decode_tok_s" if ctx.starts_with("ISL/OSL") && notes.contains("includes") => {
                    (Set::Decode, Read::DecodeE2e { prompt: f64::from(lengths.0), out: f64::from(lengths.1) })
                }
                "decode_tok_s" => (Set::Decode, Read::Decode),
                "prompt_tok_s" => (Set::Prefill, Read::Prefill),
                "throughput_tok_s" => {
                    let want = if batch.starts_with("max") { 4096 } else { num(batch, &label)? };
                    job.batch = fit_batch(&job, card, gpus, want);
                    (Set::Serving, Read::Serving)
                }
                m => return Err(format!("{file}: metric `{m}`")),
            };
            if let Err(e) = estimate_llm(&job, card, gpus) {
                inv.skipped.push(format!("{file}: {label}: the engine rejects the job ({e})"));
                continue;
            }
            inv.rows.push(row(set, file, label, card, gpus, LlmCase { job, read }, measured, source));
        }
    }
    Ok(())
}

/// The serving files: aggregate output tokens/s (`total_tok_s` converted to output tokens with
/// output = total·OSL/(ISL+OSL)) and per-request latencies. `tpot_ms` / `per_user_tok_s` at
/// concurrency 1 are decode rows, `ttft_ms` at concurrency 1 a prefill row; at higher concurrency
/// they are scored against the serving model, except those of offline runs.
fn serving_rows(dir: &Path, inv: &mut Inventory) -> R<()> {
    for file in ["llm_serving_more.csv", "llm_serving_fp4.csv", "llm_serving_moe.csv"] {
        let Ok(csv) = Csv::read(dir, file) else { continue };
        for r in &csv.rows {
            inv.read += 1;
            let c = |k: &str| csv.get(r, k);
            let Cols { g, n, name, quant, engine, batch, ctx, metric, value, source, notes } = Cols::of(&csv, r);
            let arrivals = match c("arrivals") {
                "in-step" => Arrivals::InStep,
                "random" | "" => Arrivals::Random,
                a => return Err(format!("{file}: arrivals `{a}`")),
            };
            let label = format!("{g} ×{n} {name} {quant} {engine} c={batch} {ctx} {metric}");
            let Some(lengths) = prompt_output(ctx) else {
                inv.skipped.push(format!("{file}: {label}: prompt/output lengths not printed"));
                continue;
            };
            if notes.contains("MTP on") {
                inv.skipped.push(format!("{file}: {label}: run with multi-token prediction, whose acceptance the source does not print"));
                continue;
            }
            let (isl, osl) = (lengths.0, lengths.1);
            let value: f64 = num(value, &label)?;
            let gpus: u32 = num(n, &label)?;
            let card = gpu(g)?;
            let mut job = inference_job(name, quant, engine, notes, lengths)?;
            let conc_one = batch == "1";
            let (set, read, measured) = match metric {
                "throughput_tok_s" | "total_tok_s" => {
                    let out = if metric == "total_tok_s" { value * f64::from(osl) / f64::from(isl + osl) } else { value };
                    let want = if batch == "max" { 4096 } else { num(batch, &label)? };
                    job.batch = fit_batch(&job, card, gpus, want);
                    (Set::Serving, Read::Serving, out)
                }
                "tpot_ms" if conc_one => (Set::Decode, Read::Decode, 1000.0 / value),
                "per_user_tok_s" if conc_one => (Set::Decode, Read::Decode, value),
                "ttft_ms" if conc_one => (Set::Prefill, Read::PrefillFromTtft, f64::from(isl) / (value / 1000.0)),
                // An offline benchmark queues every request at once: its latencies are queue time
                // over a request count the tables do not print, not a steady state.
                "tpot_ms" | "per_user_tok_s" | "ttft_ms" if batch == "max" => {
                    inv.skipped.push(format!("{file}: {label}: latency of an offline run (all requests queued at once)"));
                    continue;
                }
                "tpot_ms" | "per_user_tok_s" | "ttft_ms" => {
                    // The users as offered: the serving model caps them at what the build holds
                    // and queues the rest (a closed loop), as the benchmark's clients did.
                    job.batch = num(batch, &label)?;
                    match metric {
                        "tpot_ms" => (Set::PerUser, Read::PerUser, 1000.0 / value),
                        "per_user_tok_s" => (Set::PerUser, Read::PerUser, value),
                        _ => (Set::Ttft, Read::Ttft(arrivals), value / 1000.0),
                    }
                }
                m => return Err(format!("{file}: metric `{m}`")),
            };
            if let Err(e) = estimate_llm(&job, card, gpus) {
                inv.skipped.push(format!("{file}: {label}: the engine rejects the job ({e})"));
                continue;
            }
            inv.rows.push(row(set, file, label, card, gpus, LlmCase { job, read }, measured, source));
        }
    }
    Ok(())
}

/// Parses `key=N` out of a sharding string.
fn kv_num(s: &str, key: &str) -> Option<u32> {
    s.split(|c: char| c.is_whitespace() || c == ',').find_map(|t| t.strip_prefix(key).and_then(|v| v.parse().ok()))
}

/// A named training shape without a preset: the mpt-7b structure with the row's size.
fn named_shape(name: &str, params: f64, layers: u32, hidden: u32) -> R<ModelArch> {
    let mut m = model("mpt-7b")?;
    m.id = name.to_ascii_lowercase().into();
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
    Ok(m)
}

fn training_model(name: &str, params: f64, layers: &str, hidden: &str) -> R<ModelArch> {
    match catalog::llm(name) {
        Some(spec) => {
            let mut m = ModelArch::from_spec(spec);
            if !m.is_moe() {
                m.params_total = params;
                m.params_active = params;
            }
            Ok(m)
        }
        None => named_shape(name, params, num(layers, name)?, num(hidden, name)?),
    }
}

/// (ZeRO stage, data-parallel size) of a stated sharding on `n` GPUs.
/// The Megatron mesh a sharding cell names (`tp=4 pp=4 cp=2 vp=5 dp=2`), or `None` for data
/// parallel and FSDP rows.
fn mesh_spec(s: &str) -> Option<job::MeshSpec> {
    let (tp, pp, cp) = (kv_num(s, "tp=").unwrap_or(1).max(1), kv_num(s, "pp=").unwrap_or(1).max(1), kv_num(s, "cp=").unwrap_or(1).max(1));
    (!s.contains("fsdp") && !s.starts_with("single") && tp * pp * cp > 1)
        .then(|| job::MeshSpec { tp, cp, pp, interleave: kv_num(s, "vp=").unwrap_or(1).max(1), ep: kv_num(s, "ep=").unwrap_or(1).max(1) })
}

fn sharding(s: &str, n: u32) -> (u8, u32) {
    let tp = kv_num(s, "tp=").unwrap_or(1).max(1);
    let pp = kv_num(s, "pp=").unwrap_or(1).max(1);
    let cp = kv_num(s, "cp=").unwrap_or(1).max(1);
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

/// training.csv (its MPT rows; the ResNet/BERT rows are the classic engine's).
fn mpt_rows(dir: &Path, inv: &mut Inventory) -> R<()> {
    let file = "training.csv";
    let csv = Csv::read(dir, file)?;
    for r in &csv.rows {
        let c = |k: &str| csv.get(r, k);
        let name = c("model");
        if !name.starts_with("MPT") {
            continue;
        }
        inv.read += 1;
        let (g, n, precision, batch, seq, notes) = (c("gpu"), c("num_gpus"), c("precision"), c("batch_per_gpu"), c("seq_len_or_res"), c("notes"));
        let card = gpu(g)?;
        let gpus: u32 = num(n, name)?;
        let mut job = LlmJob { model: training_model("mpt-7b", num::<f64>(c("params_b"), name)? * 1e9, "", "")?, ..LlmJob::default() };
        job.workload = Workload::Training;
        job.precision = Precision::Bf16;
        job.master_weights = !precision.contains("PURE");
        job.batch = num(batch.trim_start_matches("micro "), name)?;
        job.seq_len = num(seq, name)?;
        job.grad_checkpointing = if notes.starts_with("no activation") { Checkpointing::None } else { Checkpointing::Full };
        job.zero = 3;
        job.auto_layout = false;
        job.grad_accum = 1;
        let label = format!("{g} ×{n} {name} {precision} micro {} seq {} ckpt {:?} FSDP", job.batch, job.seq_len, job.grad_checkpointing);
        let measured: f64 = num(c("value_per_gpu"), &label)?;
        let mut x = row(Set::Training, file, label, card, gpus, LlmCase { job, read: Read::TrainPerGpu }, measured, c("source"));
        x.engine = "Composer/llm-foundry FSDP".into();
        inv.rows.push(x);
    }
    Ok(())
}

/// llm_training_more.csv and the multi-node files (llm_training_multinode*.csv).
fn training_rows(dir: &Path, inv: &mut Inventory) -> R<()> {
    training_file(dir, "llm_training_more.csv", inv)?;
    training_file(dir, "llm_training_multinode.csv", inv)?;
    training_file(dir, "llm_training_multinode_amd_gaudi.csv", inv)
}

/// Why a training row is not scored, before its job is built: FP8 LoRA, a published MFU without tokens/s, or no published micro-batch.
fn training_row_gap(precision: &str, task: &str, metric: &str, micro: &str) -> Option<&'static str> {
    if precision == "fp8" && task != "pretrain" && task != "finetune_full" {
        Some("FP8 LoRA (adapters over an FP8 base) is not modelled; FP8 is for full training")
    } else if metric == "mfu_pct_only" {
        Some("the source publishes MFU by its own FLOP count, not tokens/s")
    } else if micro.is_empty() {
        Some("no published micro-batch")
    } else {
        None
    }
}

/// The columns of the training files.
#[derive(Clone, Copy)]
struct TrainCols<'a> {
    g: &'a str,
    n: &'a str,
    name: &'a str,
    task: &'a str,
    framework: &'a str,
    precision: &'a str,
    micro: &'a str,
    global: &'a str,
    seq: &'a str,
    ckpt: &'a str,
    shard: &'a str,
    metric: &'a str,
    notes: &'a str,
    params_b: &'a str,
    layers: &'a str,
    hidden_size: &'a str,
    value_per_gpu: &'a str,
    value: &'a str,
    source: &'a str,
}

impl<'a> TrainCols<'a> {
    fn of(csv: &Csv, r: &'a [String]) -> TrainCols<'a> {
        let c = |k: &str| csv.get(r, k);
        TrainCols {
            g: c("gpu"),
            n: c("num_gpus"),
            name: c("model"),
            task: c("task"),
            framework: c("framework"),
            precision: c("precision"),
            micro: c("micro_batch"),
            global: c("global_batch"),
            seq: c("seq_len"),
            ckpt: c("act_ckpt"),
            shard: c("sharding"),
            metric: c("metric"),
            notes: c("notes"),
            params_b: c("params_b"),
            layers: c("layers"),
            hidden_size: c("hidden_size"),
            value_per_gpu: c("value_per_gpu"),
            value: c("value"),
            source: c("source"),
        }
    }
}

/// The job a training row states on `gpus` GPUs, and its global batch.
fn training_job(cols: &TrainCols, file: &str, gpus: u32, label: &str) -> R<(LlmJob, u32)> {
    let TrainCols { name, task, framework, precision, micro, global, seq, ckpt, shard, notes, .. } = *cols;
    let params: f64 = num::<f64>(cols.params_b, label)? * 1e9;
    let mut job = LlmJob { model: training_model(name, params, cols.layers, cols.hidden_size)?, ..LlmJob::default() };
    let torchtune = framework == "torchtune";
    job.workload = match task {
        "pretrain" => Workload::Training,
        "finetune_full" => Workload::FinetuneFull,
        "lora" => Workload::Lora,
        "qlora" => Workload::Qlora,
        t => return Err(format!("{file}: task `{t}`")),
    };
    job.precision = Precision::parse(precision).ok_or_else(|| format!("{file}: precision `{precision}`"))?;
    job.master_weights = !notes.contains("mp_mode PURE") && !torchtune;
    job.batch = num(micro, label)?;
    job.seq_len = num(seq, label)?;
    // torchtune recipes and Megatron-LM's GPT-3 script checkpoint activations; the multi-node
    // files state each run's recomputation, and an empty cell there is Megatron's default
    // (none).
    let multinode = file.starts_with("llm_training_multinode");
    job.grad_checkpointing = match ckpt {
        "none" => Checkpointing::None,
        "" if multinode => Checkpointing::None,
        c if multinode => Checkpointing::parse(c).ok_or_else(|| format!("{file}: act_ckpt `{c}`"))?,
        _ => Checkpointing::Full,
    };
    let (zero, dp) = sharding(shard, gpus);
    job.zero = zero;
    job.auto_layout = false;
    // A row with tokens/s per GPU may leave the global batch out: one micro-batch per GPU.
    let global: u32 = if global.is_empty() { job.batch.max(1) * gpus } else { num(global, label)? };
    job.mesh = mesh_spec(shard);
    if job.mesh.is_some() {
        job.global_batch = Some(global);
    }
    let micro_b = job.batch.max(1);
    job.grad_accum = kv_num(shard, "ga=")
        .or_else(|| notes.split("grad_accum ").nth(1).and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next()).and_then(|v| v.parse().ok()))
        .unwrap_or_else(|| (global / (micro_b * dp)).max(1));
    recipe(&mut job, torchtune, gpus);
    Ok((job, global))
}

/// One training file's rows.
fn training_file(dir: &Path, file: &'static str, inv: &mut Inventory) -> R<()> {
    let csv = Csv::read(dir, file)?;
    for r in &csv.rows {
        inv.read += 1;
        let t = TrainCols::of(&csv, r);
        let TrainCols { g, n, name, task, framework, precision, micro, global, seq, ckpt, shard, metric, .. } = t;
        let label = format!("{g} ×{n} {name} {task} {precision} micro {micro} gbs {global} seq {seq} ckpt {ckpt} [{shard}]");
        if let Some(why) = training_row_gap(precision, task, metric, micro) {
            inv.not_modelled.push(format!("{file}: {label}: {why}"));
            continue;
        }
        if framework == "torchtune" && name == "llama-3.1-70b" && task == "finetune_full" {
            inv.skipped.push(format!("{file}: {label}: CPU offload (memory.csv's row of the same recipe offloads), not modelled"));
            continue;
        }
        let card = gpu(g)?;
        let gpus: u32 = num(n, &label)?;
        let (job, global) = training_job(&t, file, gpus, &label)?;
        let measured = match metric {
            "tokens_s_per_gpu" | "tokens_s" => num(t.value_per_gpu, &label)?,
            "step_time_s" => f64::from(global) * f64::from(job.seq_len) / num::<f64>(t.value, &label)? / f64::from(gpus),
            m => return Err(format!("{file}: metric `{m}`")),
        };
        if let Some(why) = implausible(&job, card, measured) {
            inv.skipped.push(format!("{file}: {label} = {measured:.0} tokens/s per GPU: {why}"));
            continue;
        }
        let mut x = row(Set::Training, file, label, card, gpus, LlmCase { job, read: Read::TrainPerGpu }, measured, t.source);
        x.engine = framework.to_string();
        inv.rows.push(x);
    }
    Ok(())
}

/// A training row's recipe settings: torchtune's (chunked loss, LoRA rank 8 on one GPU and 16
/// on several, paged 8-bit AdamW stepped in backward for full fine-tunes) or NeMo AutoModel's
/// LoRA (dim 16 on every `*_proj`).
fn recipe(job: &mut LlmJob, torchtune: bool, gpus: u32) {
    if torchtune {
        job.fp32_logits = false;
        job.lora_rank = if gpus > 1 { 16 } else { 8 };
        job.lora_targets = LoraTargets::AllLinear;
        if job.workload == Workload::FinetuneFull {
            job.optimizer = Optimizer::PagedAdamW8bit;
            job.optimizer_in_backward = true;
        }
    } else if job.workload.is_adapter() {
        job.lora_rank = 16;
        job.lora_targets = LoraTargets::AllLinear;
    }
}

/// Why a training measurement cannot be of the job it states: a measurement above what the card
/// can compute. The model FLOPs it implies (6·N or 4·N per token plus attention,
/// `train_flops_per_token`) over the card's sustained dense peak must stay below
/// [`MAX_PLAUSIBLE_MFU`] (the best published LLM training MFUs are 40–60%).
fn implausible(job: &LlmJob, card: &Gpu, measured: f64) -> Option<String> {
    let implied = measured * throughput::train_flops_per_token(job) / (throughput::train_peak_tflops(job, card) * 1e12);
    (implied > MAX_PLAUSIBLE_MFU).then(|| format!("implies {:.0}% of the card's dense peak", implied * 100.0))
}

/// The largest share of a card's sustained dense peak a training row may imply and still be
/// taken as a measurement of the job it states.
pub const MAX_PLAUSIBLE_MFU: f64 = 0.85;

/// The job of a `memory.csv` fine-tuning row on `gpus` GPUs, with its source's recipe.
///
/// torchtune (recipes/configs/llama3_1/*_single_device.yaml and the 70B/405B distributed configs;
/// the README's table runs them with torch.compile): pure bf16, batch 2, 2048 packed tokens,
/// activation checkpointing, FSDP on 8 GPUs; its `CEWithChunkedOutputLoss` upcasts one chunk of
/// logits at a time, and torchao's NF4 tensors quantize their block scales (double quantization).
/// Full fine-tunes use paged 8-bit AdamW fused into backward; LoRA/QLoRA rank 8 (16 on several
/// GPUs) on all linear layers. Otherwise the HF PEFT README's T0_3B on ought/raft
/// twitter_complaints: fp32, batch 8, LoRA r=8 on q and v, tweets of about 64 T5 tokens.
pub fn memory_csv_job(name: &str, task: &str, gpus: u32, torchtune: bool) -> R<LlmJob> {
    let mut job = LlmJob { model: model(name)?, ..LlmJob::default() };
    if !torchtune {
        job.precision = Precision::Fp32;
        job.batch = 8;
        job.seq_len = 64;
        if task == "finetune_full" {
            job.workload = Workload::FinetuneFull;
        } else {
            job.workload = Workload::Lora;
            job.lora_rank = 8;
            job.lora_targets = LoraTargets::AttentionQv;
        }
        return Ok(job);
    }
    job.precision = Precision::Bf16;
    job.master_weights = false;
    job.batch = 2;
    job.seq_len = 2048;
    job.grad_checkpointing = Checkpointing::Full;
    job.zero = if gpus > 1 { 3 } else { 0 };
    job.auto_layout = false;
    job.fp32_logits = false;
    job.nf4_double_quant = true;
    job.torch_compile = true;
    match task {
        "finetune_full" => {
            job.workload = Workload::FinetuneFull;
            job.optimizer = Optimizer::PagedAdamW8bit;
            job.optimizer_in_backward = true;
        }
        "finetune_lora" | "finetune_qlora" => {
            job.workload = if task == "finetune_lora" { Workload::Lora } else { Workload::Qlora };
            job.lora_rank = if gpus > 1 { 16 } else { 8 };
            job.lora_targets = LoraTargets::AllLinear;
        }
        t => return Err(format!("task `{t}`")),
    }
    Ok(job)
}

/// memory.csv.
fn memory_rows(dir: &Path, inv: &mut Inventory) -> R<()> {
    let ctx = Engine::Transformers.context_gib(false);
    let file = "memory.csv";
    let csv = Csv::read(dir, file)?;
    for r in &csv.rows {
        inv.read += 1;
        let c = |k: &str| csv.get(r, k);
        let (g, n, name, task, fw, dtype, metric) = (c("gpu"), c("num_gpus"), c("model"), c("task"), c("framework"), c("dtype_or_quant"), c("mem_metric"));
        let label = format!("{g} ×{n} {name} {task} {dtype}");
        let measured: f64 = num(c("peak_mem_gb"), &label)?;
        if task.contains("offload") || (name == "Llama-3.1-70B" && task == "finetune_full") {
            inv.skipped.push(format!("{file}: {label}: CPU offload, not modelled"));
            continue;
        }
        if task == "weights only" {
            let mut job = LlmJob { model: model(name)?, ..LlmJob::default() };
            job.precision = if dtype == "Q4_K_M" { Precision::Q4KM } else { Precision::Fp16 };
            job.engine = Some(Engine::LlamaCpp);
            let card = gpu("h100-sxm")?;
            let mut x = row(Set::Memory, file, label, card, 1, LlmCase { job, read: Read::Weights }, measured, c("source"));
            x.family = "any (file size)".into();
            x.generation = "any (file size)".into();
            x.engine = fw.to_string();
            inv.rows.push(x);
            continue;
        }
        let gpus: u32 = num(n, &label)?;
        let card = gpu(g)?;
        let torchtune = metric.starts_with("peak memory per GPU");
        let job = memory_csv_job(name, task, gpus, torchtune)?;
        // torchtune reports the allocator's reserved peak (no CUDA context); the PEFT README's
        // T0_3B figures come from its example's `TorchTracemalloc`, `max_memory_allocated()`.
        let read = if torchtune { Read::PerGpuMem { minus: ctx } } else { Read::AllocatedPeak };
        let mut x = row(Set::Memory, file, label, card, gpus, LlmCase { job, read }, measured, c("source"));
        x.engine = fw.to_string();
        inv.rows.push(x);
    }
    Ok(())
}

/// memory_more.csv and memory_peft.csv: each row's stated recipe; what its metric counts decides
/// the comparison.
fn memory_more_rows(dir: &Path, inv: &mut Inventory) -> R<()> {
    let ctx = Engine::Transformers.context_gib(false);
    for file in ["memory_more.csv", "memory_peft.csv", "memory_new_sources.csv"] {
        let Ok(csv) = Csv::read(dir, file) else { continue };
        for r in &csv.rows {
            inv.read += 1;
            if let Some(x) = memory_more_row(&csv, r, ctx, inv)? {
                inv.rows.push(x);
            }
        }
    }
    Ok(())
}

/// The columns of memory_more.csv and memory_peft.csv.
#[derive(Clone, Copy)]
struct MemoryCols<'a> {
    g: &'a str,
    n: &'a str,
    name: &'a str,
    task: &'a str,
    framework: &'a str,
    dtype: &'a str,
    batch: &'a str,
    seq: &'a str,
    ckpt: &'a str,
    opt: &'a str,
    metric: &'a str,
    rank: &'a str,
    targets: &'a str,
    notes: &'a str,
    peak_mem_gb: &'a str,
    source: &'a str,
}

impl<'a> MemoryCols<'a> {
    fn of(csv: &Csv, r: &'a [String]) -> MemoryCols<'a> {
        let c = |k: &str| csv.get(r, k);
        MemoryCols {
            g: c("gpu"),
            n: c("num_gpus"),
            name: c("model"),
            task: c("task"),
            framework: c("framework"),
            dtype: c("dtype_or_quant"),
            batch: c("batch"),
            seq: c("seq_len_or_res"),
            ckpt: c("grad_ckpt"),
            opt: c("optimizer"),
            metric: c("mem_metric"),
            rank: c("lora_rank"),
            targets: c("lora_targets"),
            notes: c("notes"),
            peak_mem_gb: c("peak_mem_gb"),
            source: c("source"),
        }
    }

    /// Why the row is not scored, before its card and model are looked up: no GPU stated, a
    /// capacity limit rather than a peak, DoRA, or activation offloading.
    fn gap(&self) -> Option<&'static str> {
        let MemoryCols { g, metric, notes, .. } = *self;
        if g.is_empty() {
            Some("GPU not stated")
        } else if metric.contains("upper bound") || metric.contains("budget") {
            Some("a VRAM budget at which a context fits (capacity limit), not a measured peak")
        } else if notes.contains("DoRA") {
            Some("DoRA (weight-decomposed LoRA) not modelled")
        } else if notes.contains("activation offloading") || notes.contains("activations offloaded to CPU") {
            Some("activation offloading to CPU, not modelled")
        } else {
            None
        }
    }

    /// The peak in GiB. Figures printed as `bytes / 1e9` (LitGPT's `max_memory_allocated() /
    /// 1e9`, torchtune's `memory_stats_log` until mid-2024) are decimal GB: the engine's figures
    /// are GiB.
    fn measured_gib(&self, label: &str) -> R<f64> {
        let printed: f64 = num(self.peak_mem_gb, label)?;
        let decimal = self.metric.contains("/1e9") || self.metric.contains("units of 1e9 bytes");
        Ok(if decimal { printed * 1e9 / (1u64 << 30) as f64 } else { printed })
    }

    /// The job the row states, on `arch`.
    fn job(&self, arch: ModelArch, file: &str, label: &str) -> R<LlmJob> {
        let MemoryCols { task, framework, dtype, batch, seq, ckpt, opt, notes, .. } = *self;
        let mut job = LlmJob { model: arch, ..LlmJob::default() };
        job.precision = if dtype.starts_with("fp16") { Precision::Fp16 } else { Precision::Bf16 };
        job.batch = num(batch, label)?;
        // The sequence column is the longest batch of the run (padded datasets: the cap the
        // longest samples reach, or the longest sample forced first).
        job.seq_len = num(seq.split_whitespace().next().unwrap_or(seq), label)?;
        job.grad_checkpointing = if ckpt == "full" || ckpt == "unsloth" { Checkpointing::Full } else { Checkpointing::None };
        job.workload = match task {
            "finetune_full" => Workload::FinetuneFull,
            "finetune_lora" => Workload::Lora,
            "finetune_qlora" => Workload::Qlora,
            t => return Err(format!("{file}: task `{t}`")),
        };
        // MetaMathQA and torchtune run pure bf16 (use_amp false); LitGPT's `--precision bf16-true`
        // keeps the adapters in bf16 too; the SFT examples bf16 mixed precision (fp32 adapters).
        let torchtune = framework.starts_with("torchtune");
        let litgpt = framework.starts_with("LitGPT");
        job.master_weights = !(torchtune || notes.contains("bf16-true") || (job.workload == Workload::FinetuneFull && notes.contains("pure bf16")));
        job.fp32_logits = !(notes.contains("; chunked logits") || notes.contains("chunked cross entropy"));
        job.optimizer_in_backward = opt.contains("in_bwd") || notes.contains("optimizer_in_bwd True");
        job.torch_compile = notes.contains("torch.compile on");
        job.optimizer = match opt {
            // bitsandbytes' paged AdamW, 32-bit or 8-bit, keeps its state in CUDA managed memory
            // that the allocator statistics never count; as 8-bit it is counted where nvidia-smi
            // is read.
            o if o.starts_with("paged-adamw") || o.starts_with("paged_adamw") => Optimizer::PagedAdamW8bit,
            o if o.starts_with("adamw8bit") || o.starts_with("adamw-8bit") || o.starts_with("adamw_8bit") => Optimizer::AdamW8bit,
            _ => Optimizer::AdamW,
        };
        if job.workload.is_adapter() {
            self.set_adapter(&mut job, litgpt, label)?;
        }
        if framework.contains("ZeRO-3") || framework.contains("FSDP") {
            job.zero = 3;
            job.auto_layout = false;
        }
        job.nf4_double_quant = dtype.contains("double");
        // bitsandbytes before 0.43.2 keeps every 4-bit linear's input: LitGPT's runs pin 0.41.1
        // (resource tables) and 0.42.0 (pyproject.toml at every config_hub commit cited), and the
        // LLaMA-Factory wiki's table (2024-04) predates 0.43.2 (2024-07). torchtune uses
        // torchao's NF4; the other rows do not state their version.
        job.nf4_keeps_inputs = dtype.starts_with("nf4") && (litgpt || framework.starts_with("LLaMA-Factory"));
        Ok(job)
    }

    /// An adapter row's LoRA rank, targets and dropout.
    fn set_adapter(&self, job: &mut LlmJob, litgpt: bool, label: &str) -> R<()> {
        let notes = self.notes;
        job.lora_rank = num(self.rank, label)?;
        job.lora_targets = match self.targets {
            "qv" => LoraTargets::AttentionQv,
            // q, k, v: the nearest set the engine has is q, k, v, o.
            "qkv" | "qkvo" => LoraTargets::Attention,
            _ => LoraTargets::AllLinear,
        };
        // LitGPT's finetune/lora.py and every config_hub/finetune config set lora_dropout 0.05
        // (0.1 for Gemma 2); other rows say so in their notes.
        job.lora_dropout = litgpt || notes.contains("dropout 0.05") || notes.contains("lora_dropout 0.05");
        Ok(())
    }

    /// What the row's metric counts: allocator peaks (torch max_memory_reserved) exclude the
    /// CUDA context, nvidia-smi includes it; `max_memory_allocated` counts live tensors only.
    fn read(&self, ctx: f64) -> Read {
        let metric = self.metric;
        let minus = if metric.contains("nvidia-smi") || metric.starts_with("per-GPU memory") { 0.0 } else { ctx };
        if metric.contains("Active") || metric.contains("max_memory_allocated") {
            Read::AllocatedPeak
        } else {
            Read::PerGpuMem { minus }
        }
    }
}

/// One row of memory_more.csv or memory_peft.csv, or `None` when it is skipped (the reason goes
/// to `inv`).
fn memory_more_row(csv: &Csv, r: &[String], ctx: f64, inv: &mut Inventory) -> R<Option<Row<LlmCase>>> {
    let file = csv.name;
    let m = MemoryCols::of(csv, r);
    let MemoryCols { g, n, name, task, framework, dtype, batch, seq, ckpt, opt, rank, targets, .. } = m;
    let label = format!("{g} ×{n} {name} {task} {dtype} b{batch} s{seq} ckpt {ckpt} {opt} r{rank} {targets} [{framework}]");
    let skip = |why: &str, inv: &mut Inventory| {
        inv.skipped.push(format!("{file}: {label}: {why}"));
        Ok(None)
    };
    if let Some(why) = m.gap() {
        return skip(why, inv);
    }
    let Ok(card) = gpu(g) else { return skip("GPU not in the catalog", inv) };
    let Ok(arch) = model(name) else { return skip("model not in the catalog", inv) };
    let measured = m.measured_gib(&label)?;
    let gpus: u32 = num(n, &label)?;
    let job = m.job(arch, file, &label)?;
    let read = m.read(ctx);
    if let Err(e) = estimate_llm(&job, card, gpus) {
        return skip(&format!("the engine rejects the job ({e})"), inv);
    }
    let mut x = row(Set::Memory, file, label, card, gpus, LlmCase { job, read }, measured, m.source);
    x.engine = framework.to_string();
    Ok(Some(x))
}

/// Every LLM row under `dir`.
pub fn inventory(dir: &Path) -> R<Inventory> {
    let mut inv = Inventory::default();
    inference_rows(dir, &mut inv)?;
    serving_rows(dir, &mut inv)?;
    mpt_rows(dir, &mut inv)?;
    training_rows(dir, &mut inv)?;
    memory_rows(dir, &mut inv)?;
    memory_more_rows(dir, &mut inv)?;
    Ok(inv)
}
