//! Transformer LLM sizing: memory by term, the number of cards a job needs, and decode, prefill,
//! serving and training throughput, for inference, full training/fine-tuning, LoRA and QLoRA.
//!
//! The web UI calls [`estimate_llm`] for every card on every keystroke, so one call is pure
//! arithmetic on a [`LlmJob`] (no allocation besides the assumption strings). Every formula,
//! constant and efficiency factor is written down with its source in `docs/MODEL.md`.
//! Submodules: [`arch`] (the model's shape), [`custom`] (shape from a parameter count),
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
pub mod memory;
pub mod offload;
pub mod mixed;
pub mod parallel;
pub mod deploy;
pub mod serving;
pub mod throughput;
pub mod vision;

pub use arch::ModelArch;
pub use engines::{Efficiency, Engine, GpuFamily};

use crate::catalog::Gpu;
use crate::model::precision::{KvPrecision, Precision};
use crate::model::types::{check_range, Estimate, EstimateError, MemoryBreakdown, Note, OffloadPlan, Throughput};

/// What the job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Serving / generation.
    Inference,
    /// Pre-training from scratch (same memory as a full fine-tune).
    Training,
    /// Full fine-tune: every weight trainable.
    FinetuneFull,
    /// LoRA adapters on frozen 16-bit weights.
    Lora,
    /// LoRA adapters on frozen NF4 weights (QLoRA).
    Qlora,
}

impl Workload {
    /// Every workload, in CLI order.
    pub const ALL: [Workload; 5] =
        [Workload::Inference, Workload::Training, Workload::FinetuneFull, Workload::Lora, Workload::Qlora];

    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Workload::Inference => "inference",
            Workload::Training => "training",
            Workload::FinetuneFull => "finetune-full",
            Workload::Lora => "lora",
            Workload::Qlora => "qlora",
        }
    }

    /// Parses a CLI name.
    pub fn parse(s: &str) -> Option<Workload> {
        let lower = s.trim().to_ascii_lowercase();
        Workload::ALL.into_iter().find(|w| w.as_str() == lower)
    }

    /// True for every workload that runs a backward pass.
    pub fn is_training(self) -> bool {
        self != Workload::Inference
    }

    /// True for LoRA and QLoRA.
    pub fn is_adapter(self) -> bool {
        matches!(self, Workload::Lora | Workload::Qlora)
    }
}

/// Optimizer, which sets the bytes of state per trainable parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Optimizer {
    /// AdamW with fp32 first and second moments: 8 B/param.
    AdamW,
    /// bitsandbytes 8-bit AdamW (block-wise quantized moments): 2 B/param.
    AdamW8bit,
    /// bitsandbytes paged 8-bit AdamW: 2 B/param in unified memory that pages to the host.
    PagedAdamW8bit,
    /// SGD with momentum: 4 B/param.
    Sgd,
    /// Adafactor (factored second moment, no first moment): about 4·(rows+cols) B per matrix.
    Adafactor,
}

impl Optimizer {
    /// Every optimizer, in CLI order.
    pub const ALL: [Optimizer; 5] =
        [Optimizer::AdamW, Optimizer::AdamW8bit, Optimizer::PagedAdamW8bit, Optimizer::Sgd, Optimizer::Adafactor];

    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Optimizer::AdamW => "adamw",
            Optimizer::AdamW8bit => "adamw-8bit",
            Optimizer::PagedAdamW8bit => "paged-adamw-8bit",
            Optimizer::Sgd => "sgd",
            Optimizer::Adafactor => "adafactor",
        }
    }

    /// Parses a CLI name.
    pub fn parse(s: &str) -> Option<Optimizer> {
        let lower = s.trim().to_ascii_lowercase().replace('_', "-");
        let alias = match lower.as_str() {
            "adam" => "adamw",
            "adamw8bit" | "adam-8bit" => "adamw-8bit",
            "paged-adamw8bit" | "paged-adamw" => "paged-adamw-8bit",
            other => other,
        };
        Optimizer::ALL.into_iter().find(|o| o.as_str() == alias)
    }
}

/// Activation (gradient) checkpointing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Checkpointing {
    /// Keep every activation.
    None,
    /// Recompute attention internals only (Korthikanti et al. 2022 §4.2).
    Selective,
    /// Keep each layer's input only and recompute the layer in backward.
    Full,
}

impl Checkpointing {
    /// Every mode, in CLI order.
    pub const ALL: [Checkpointing; 3] = [Checkpointing::None, Checkpointing::Selective, Checkpointing::Full];

    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Checkpointing::None => "none",
            Checkpointing::Selective => "selective",
            Checkpointing::Full => "full",
        }
    }

    /// Parses a CLI name.
    pub fn parse(s: &str) -> Option<Checkpointing> {
        let lower = s.trim().to_ascii_lowercase();
        Checkpointing::ALL.into_iter().find(|c| c.as_str() == lower)
    }
}

/// Which linear layers get LoRA adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoraTargets {
    /// q_proj and v_proj (the LoRA paper's choice, PEFT's default for Llama).
    AttentionQv,
    /// q, k, v and o projections.
    Attention,
    /// Every attention and FFN projection (QLoRA paper's choice).
    AllLinear,
}

/// One LLM job, independent of the card. `Default` is Llama-3-8B-shaped inference in fp16.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmJob {
    /// The model's shape.
    pub model: ModelArch,
    pub workload: Workload,
    /// Weight format. QLoRA always stores base weights in NF4.
    pub precision: Precision,
    /// Overrides the weight format's bits per weight (e.g. EXL2 at 4.0 bpw). Embeddings and the
    /// LM head then stay in 16 bits.
    pub bits_per_weight_override: Option<f64>,
    pub kv_precision: KvPrecision,
    /// Inference engine; `None` picks one per card (llama.cpp for GGUF or Apple, else vLLM).
    pub engine: Option<Engine>,
    /// Compute back-end (`--backend`); `None`: the card's first listed one the engine runs on.
    pub backend: Option<backend::Backend>,
    /// Inference: tokens of KV cache allocated per sequence.
    pub context_tokens: u32,
    /// Inference: prompt length (prefill and serving).
    pub prompt_tokens: u32,
    /// Inference: generated tokens per request (decode and serving).
    pub output_tokens: u32,
    /// Inference: concurrent sequences. Training: micro-batch per GPU.
    pub batch: u32,
    /// Vision-language inference: images per request (0: text only), each of
    /// `image_width_px` × `image_height_px`; [`vision`] turns them into tokens.
    pub images: u32,
    pub image_width_px: u32,
    pub image_height_px: u32,
    /// Set by [`vision::with_images`] once the images are counted in `prompt_tokens` and
    /// `context_tokens` (so a second pass does not add them again); callers leave it false.
    pub images_in_prompt: bool,
    /// Training: sequence length.
    pub seq_len: u32,
    pub optimizer: Optimizer,
    pub grad_checkpointing: Checkpointing,
    /// FlashAttention (or SDPA memory-efficient attention): no s×s score matrices kept.
    pub flash_attention: bool,
    pub lora_rank: u32,
    pub lora_targets: LoraTargets,
    /// ZeRO stage 0–3 (3 = FSDP full sharding).
    pub zero: u8,
    /// Optimizer step fused into backward (torchtune `optimizer_in_bwd`): one gradient at a time.
    pub optimizer_in_backward: bool,
    /// Mixed precision keeps an fp32 master copy of 16-bit trainable weights (ZeRO paper's K=12
    /// for Adam includes it); false for pure-bf16 training.
    pub master_weights: bool,
    /// Training tokens D for the time-to-train figure.
    pub train_tokens: f64,
    /// Training MFU override (default: per GPU family, see docs/MODEL.md).
    pub train_mfu: Option<f64>,
    /// Training: micro-batches accumulated per optimizer step (gradient accumulation). The
    /// gradient all-reduce (or reduce-scatter) runs once per step, so more accumulation hides it.
    pub grad_accum: u32,
    /// Training: pick the sharding (data parallel with ZeRO-0/1/2/3 or FSDP, or tensor + pipeline
    /// model parallel) that fits and runs fastest at each GPU count; false: use `zero` as given.
    pub auto_layout: bool,
    /// Training: the loss upcasts the logits to fp32 (Hugging Face transformers/PEFT do:
    /// `logits.float()` before the cross-entropy); false for chunked losses (torchtune).
    pub fp32_logits: bool,
    /// QLoRA: bitsandbytes double quantization of the NF4 block scales (transformers'
    /// `bnb_4bit_use_double_quant`, default False).
    pub nf4_double_quant: bool,
    /// Training under `torch.compile`: AOTAutograd's min-cut partitioner recomputes the FFN's
    /// pointwise results in backward instead of saving them (see `memory::ffn_saved_bytes`).
    pub torch_compile: bool,
    /// LoRA dropout on (p > 0; LitGPT's and axolotl's configs use 0.05, PEFT's `LoraConfig`
    /// defaults to 0): each adapted matrix keeps its own dropped-out copy of its input and a
    /// 1-byte mask for backward (see `memory::adapter_activation_bytes_per_token_layer`).
    pub lora_dropout: bool,
    /// QLoRA on bitsandbytes before 0.43.2: its `MatMul4Bit` keeps the input of every 4-bit
    /// linear for backward although the frozen weight takes no gradient (removed in
    /// bitsandbytes PR #1270); false for later versions and for torchao's NF4 (torchtune).
    pub nf4_keeps_inputs: bool,
    /// Whether the serving engine's decode step replays CUDA (HIP) graphs: `Some(false)` for
    /// vLLM `--enforce-eager` or SGLang `--disable-cuda-graph`, `Some(true)` for TensorRT-LLM's
    /// `cuda_graph_mode`; `None` (default): the engine's default
    /// ([`engines::Engine::launch_layer_ms`]).
    pub cuda_graphs: Option<bool>,
    /// Overrides the engine's efficiency factors (what-if and cross-validation).
    pub efficiency: Option<Efficiency>,
    /// Tokens of one prefill chunk (llama.cpp `-ub`, vLLM `max_num_batched_tokens`); `None`: the
    /// engine's default ([`Engine::prefill_chunk_tokens`]).
    pub ubatch_tokens: Option<u32>,
    /// System RAM and offload (llama.cpp inference), and a unified-memory machine's GPU share.
    pub host: host::Host,
    /// Training: a fixed Megatron-style mesh (tensor, context and pipeline parallel sizes, and
    /// model chunks per stage); `None`: the layout search picks one.
    pub mesh: Option<parallel::MeshSpec>,
    /// Inference of an MoE model: how its experts spread over the GPUs (tensor or expert
    /// parallel, with data-parallel attention); `Auto`: the serving planner picks.
    pub moe_layout: parallel::MoeLayout,
    /// Training: sequences per optimizer step over all GPUs; `None`: `batch × grad_accum` per
    /// data-parallel GPU, as many as a pure data-parallel run of the same count would step.
    pub global_batch: Option<u32>,
    /// Training: each GPU's node port, Gb/s per direction (the user's cluster); `None`: the
    /// catalog's `scale_out_gbit_s`, or the platform rule in `model::fabric`.
    pub nic_gbit_s: Option<f64>,
}

impl Default for LlmJob {
    fn default() -> Self {
        // The preset `data/models.toml` marks `default_job_model` (Llama 3 8B; build.rs checks
        // there is exactly one).
        let model = crate::catalog::catalog()
            .llms
            .iter()
            .find(|m| m.default_job_model)
            .map(ModelArch::from_spec)
            .or_else(|| custom::arch_from_params(8.03e9).ok())
            .unwrap_or_else(fallback_arch);
        LlmJob {
            model,
            workload: Workload::Inference,
            precision: Precision::Fp16,
            bits_per_weight_override: None,
            kv_precision: KvPrecision::Fp16,
            engine: None,
            backend: None,
            context_tokens: 4096,
            prompt_tokens: 512,
            output_tokens: 256,
            batch: 1,
            images: 0,
            image_width_px: 1024,
            image_height_px: 1024,
            images_in_prompt: false,
            seq_len: 2048,
            optimizer: Optimizer::AdamW,
            grad_checkpointing: Checkpointing::None,
            flash_attention: true,
            lora_rank: 16,
            lora_targets: LoraTargets::AllLinear,
            zero: 0,
            optimizer_in_backward: false,
            master_weights: true,
            train_tokens: 1e9,
            train_mfu: None,
            grad_accum: 1,
            auto_layout: true,
            fp32_logits: true,
            nf4_double_quant: false,
            torch_compile: false,
            lora_dropout: false,
            nf4_keeps_inputs: false,
            cuda_graphs: None,
            efficiency: None,
            ubatch_tokens: None,
            host: host::Host::default(),
            mesh: None,
            moe_layout: parallel::MoeLayout::Auto,
            global_batch: None,
            nic_gbit_s: None,
        }
    }
}

/// A tiny valid shape, only used if the catalog were empty.
fn fallback_arch() -> ModelArch {
    ModelArch {
        id: "custom".into(),
        arch: crate::catalog::Arch::Decoder,
        params_total: 8.03e9,
        params_active: 8.03e9,
        layers: 32,
        encoder_layers: 0,
        hidden_size: 4096,
        intermediate_size: 14336,
        attention_heads: 32,
        kv_heads: 8,
        head_dim: 128,
        vocab_size: 128_256,
        max_context: 8192,
        tied_embeddings: false,
        attention: crate::catalog::Attention::Gqa,
        sliding_window: None,
        sliding_window_layers_fraction: 0.0,
        kv_lora_rank: 0,
        qk_rope_head_dim: 0,
        experts_total: 0,
        experts_active: 0,
        moe_intermediate_size: 0,
        dense_layers: 0,
        gated_ffn: true,
        fixed_state_layers: 0,
        fixed_state_elements_per_layer: 0.0,
        vision: None,
        fp8_weight_block: 0,
        hidden_gemms: 32 * 2,
    }
}

/// Largest GPU count the engine considers.
pub const MAX_GPUS: u32 = 16_384;

impl LlmJob {
    /// A job for a catalog preset with every other setting at its default.
    pub fn for_preset(spec: &crate::catalog::LlmSpec) -> LlmJob {
        LlmJob { model: ModelArch::from_spec(spec), ..LlmJob::default() }
    }

    /// The weight format actually stored (QLoRA forces NF4).
    pub fn effective_precision(&self) -> Precision {
        if self.workload == Workload::Qlora {
            Precision::Nf4
        } else {
            self.precision
        }
    }

    /// The engine used on `gpu`: the job's, or llama.cpp for GGUF weights, Apple GPUs and
    /// inference with system RAM given for offload, else vLLM.
    /// Tokens of one prefill chunk on `gpu` with `engine`: the job's `ubatch_tokens`, else the
    /// engine's default; `None`: the whole prompt at once.
    pub fn prefill_chunk(&self, gpu: &Gpu, engine: Engine) -> Option<f64> {
        match self.ubatch_tokens {
            Some(t) if t > 0 => Some(f64::from(t)),
            _ => engine.prefill_chunk_tokens(gpu),
        }
    }

    pub fn engine_for(&self, gpu: &Gpu) -> Engine {
        match self.engine {
            Some(e) => e,
            None if self.effective_precision().is_gguf() || GpuFamily::of(gpu) == GpuFamily::Apple || pre_volta(gpu) => {
                Engine::LlamaCpp
            }
            // System RAM given for offload: the llama.cpp setup (`-ngl`, `--n-cpu-moe`).
            None if self.host.ram_gib > 0.0 && self.workload == Workload::Inference => Engine::LlamaCpp,
            None => Engine::Vllm,
        }
    }

    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), EstimateError> {
        let m = &self.model;
        check_range("params", m.params_total, 1e6, 1e13)?;
        check_range("params_active", m.params_active, 1e5, m.params_total.max(1e5) * 1.0001)?;
        check_range("layers", f64::from(m.layers), 1.0, 1000.0)?;
        check_range("hidden_size", f64::from(m.hidden_size), 16.0, 131_072.0)?;
        check_range("attention_heads", f64::from(m.attention_heads), 1.0, 4096.0)?;
        check_range("kv_heads", f64::from(m.kv_heads), 1.0, f64::from(m.attention_heads.max(1)))?;
        check_range("head_dim", f64::from(m.head_dim), 1.0, 4096.0)?;
        check_range("vocab_size", f64::from(m.vocab_size), 1.0, 10_000_000.0)?;
        check_range("intermediate_size", f64::from(m.intermediate_size), 1.0, 1_000_000.0)?;
        check_range("context", f64::from(self.context_tokens), 1.0, 10_485_760.0)?;
        check_range("prompt_tokens", f64::from(self.prompt_tokens), 1.0, 10_485_760.0)?;
        check_range("output_tokens", f64::from(self.output_tokens), 1.0, 10_485_760.0)?;
        check_range("batch", f64::from(self.batch), 1.0, 65_536.0)?;
        check_range("seq_len", f64::from(self.seq_len), 1.0, 10_485_760.0)?;
        check_range("zero", f64::from(self.zero), 0.0, 3.0)?;
        check_range("train_tokens", self.train_tokens, 1.0, 1e16)?;
        check_range("grad_accum", f64::from(self.grad_accum), 1.0, 65_536.0)?;
        if let Some(g) = self.global_batch {
            check_range("global_batch", f64::from(g), 1.0, 16_777_216.0)?;
        }
        if let Some(g) = self.nic_gbit_s {
            check_range("nic_gbit_s", g, 1.0, 100_000.0)?;
        }
        if let Some(m) = self.mesh {
            for (name, v) in [("tp", m.tp), ("pp", m.pp), ("cp", m.cp), ("vp", m.interleave)] {
                check_range(name, f64::from(v), 1.0, f64::from(MAX_GPUS))?;
            }
        }
        if self.workload.is_adapter() {
            check_range("lora_rank", f64::from(self.lora_rank), 1.0, 65_536.0)?;
        }
        if let Some(b) = self.bits_per_weight_override {
            check_range("bits_per_weight", b, 1.0, 32.0)?;
        }
        check_range("ram_gib", self.host.ram_gib, 0.0, 1e6)?;
        if let Some(bw) = self.host.ram_gb_s {
            check_range("ram_gb_s", bw, 1.0, 1e5)?;
        }
        if let Some(g) = self.host.unified_gpu_gib {
            check_range("unified_gpu_gib", g, 1.0, 1e6)?;
        }
        if let Some(mfu) = self.train_mfu {
            check_range("mfu", mfu, 0.01, 1.0)?;
        }
        let fp8_training = self.precision == Precision::Fp8 && !self.workload.is_adapter();
        if self.workload.is_training() && self.workload != Workload::Qlora && !self.precision.is_trainable() && !fp8_training {
            return Err(EstimateError::invalid(
                "precision",
                format!(
                    "{} weights cannot be trained directly; use fp32, tf32, fp16, bf16 or fp8 (full training), or --workload qlora",
                    self.precision
                ),
            ));
        }
        Ok(())
    }
}

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
    estimate_llm_with(job, gpu, gpus, true)
}

/// [`estimate_llm`] without its assumptions (`assumptions` left empty): the same figures, for
/// callers that rank many (card, count) pairs and show the assumptions of a few (the
/// recommender: building and dropping every candidate's notes was a quarter of its time).
pub fn estimate_llm_figures(job: &LlmJob, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
    estimate_llm_with(job, gpu, gpus, false)
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

fn estimate_llm_with(job: &LlmJob, gpu: &Gpu, gpus: u32, with_notes: bool) -> Result<Estimate, EstimateError> {
    let job = &*vision::with_images(job)?;
    job.validate()?;
    validate_gpu(gpu, gpus)?;
    let engine = job.engine_for(gpu);
    backend::validate(job, gpu, engine)?;

    let terms = memory::terms(job, gpu, engine);
    let needed = parallel::gpus_needed_for(job, gpu, engine, &terms);
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
    let mut throughput = throughput::throughput(job, gpu, engine, &terms, &speed_layout, speed_gpus);
    if let Some(p) = offload.as_ref().filter(|p| p.fits) {
        throughput = offloaded_throughput(job, gpu, engine, &layout, p);
    }

    let sized = Sized { engine, terms, layout, speed_layout, speed_gpus, needed, capacity, offload };
    let assumptions = if with_notes { notes(job, gpu, gpus, &sized) } else { Vec::new() };
    Ok(Estimate {
        model: job.model.id.clone(),
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
    if pre_volta(gpu) {
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
/// parallel with ZeRO-0/1/2/3 (FSDP) and every Megatron mesh, and keeps the
/// fastest that fits (the simplest on a tie; the smallest footprint when none fits); otherwise
/// the engine's or the job's fixed layout.
pub fn layout_for(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &memory::Terms, gpus: u32) -> parallel::Layout {
    if !(job.workload.is_training() && job.auto_layout) || gpus <= 1 {
        return parallel::layout(job, gpu, engine, gpus);
    }
    let mut best: Option<(parallel::Layout, f64)> = None;
    let all = throughput::train_single_tokens_per_s(job, gpu) * f64::from(gpus);
    parallel::for_each_candidate(job, gpu, gpus, true, &mut |l| {
        // A layout that cannot pass the best so far, even with free communication, is skipped
        // (it could not replace it: a replacement must be 0.1% faster).
        if best.is_some_and(|(_, s)| all * throughput::train_bound_share(&l) <= s * 1.001) {
            return false;
        }
        if parallel::fits(job, gpu, engine, terms, &l) {
            let speed = throughput::train_step(job, gpu, terms, &l, gpus).tokens_per_s;
            if best.is_none_or(|(_, s)| speed > s * 1.001) {
                best = Some((l, speed));
            }
        }
        false
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
        let mut offered = j.clone();
        offered.batch = 65_536;
        n = throughput::serving_batch(&offered, gpu, engine, &terms, &layout, gpus).clamp(0.0, 65_536.0);
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

/// True for NVIDIA cards older than Volta (compute capability below 7.0), which vLLM,
/// TensorRT-LLM and ExLlamaV2 do not support.
pub fn pre_volta(gpu: &Gpu) -> bool {
    gpu.vendor == crate::catalog::Vendor::Nvidia && ["Pascal", "Maxwell", "Kepler"].iter().any(|a| gpu.architecture.starts_with(a))
}
