//! One LLM job, independent of the card: the model's shape, what the job does (workload,
//! optimizer, checkpointing, LoRA targets), its number formats and engine, its serving and
//! training sizes, how it may spread over GPUs (a fixed mesh, an MoE layout) and the host around
//! them; its defaults and the checks of its ranges. Every part of the LLM engine reads a job;
//! the job reads none of them.

use super::arch::ModelArch;
use super::engines::{pre_volta, Backend, Efficiency, Engine, GpuFamily};
use super::host::Host;
use crate::catalog::Gpu;
use crate::model::precision::{KvPrecision, Precision};
use crate::model::types::{check_range, EstimateError, Note};

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
    pub backend: Option<Backend>,
    /// Inference: tokens of KV cache allocated per sequence.
    pub context_tokens: u32,
    /// Inference: prompt length (prefill and serving).
    pub prompt_tokens: u32,
    /// Inference: generated tokens per request (decode and serving).
    pub output_tokens: u32,
    /// Inference: concurrent sequences. Training: micro-batch per GPU.
    pub batch: u32,
    /// Vision-language inference: images per request (0: text only), each of
    /// `image_width_px` × `image_height_px`; the vision module turns them into tokens.
    pub images: u32,
    pub image_width_px: u32,
    pub image_height_px: u32,
    /// Set by `vision::with_images` once the images are counted in `prompt_tokens` and
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
    /// ([`Engine::launch_layer_ms`]).
    pub cuda_graphs: Option<bool>,
    /// Overrides the engine's efficiency factors (what-if and cross-validation).
    pub efficiency: Option<Efficiency>,
    /// Tokens of one prefill chunk (llama.cpp `-ub`, vLLM `max_num_batched_tokens`); `None`: the
    /// engine's default ([`Engine::prefill_chunk_tokens`]).
    pub ubatch_tokens: Option<u32>,
    /// System RAM and offload (llama.cpp inference), and a unified-memory machine's GPU share.
    pub host: Host,
    /// Training: a fixed Megatron-style mesh (tensor, context and pipeline parallel sizes, and
    /// model chunks per stage); `None`: the layout search picks one.
    pub mesh: Option<MeshSpec>,
    /// Training layout search: the share of each GPU's memory the chosen layout should leave
    /// free (the recommender's headroom); the fastest layout that does, else the fastest that
    /// fits. 0: the fastest that fits.
    pub layout_headroom: f64,
    /// Inference of an MoE model: how its experts spread over the GPUs (tensor or expert
    /// parallel, with data-parallel attention); `Auto`: the serving planner picks.
    pub moe_layout: MoeLayout,
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
            .or_else(|| super::custom::arch_from_params(8.03e9).ok())
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
            host: Host::default(),
            mesh: None,
            layout_headroom: 0.0,
            moe_layout: MoeLayout::Auto,
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
            for (name, v) in [("tp", m.tp), ("pp", m.pp), ("cp", m.cp), ("vp", m.interleave), ("ep", m.ep)] {
                check_range(name, f64::from(v), 1.0, f64::from(MAX_GPUS))?;
            }
            // Each expert-parallel rank keeps whole experts: the routed experts divide by `ep`.
            if m.ep > 1 && !self.model.experts_total.is_multiple_of(m.ep) {
                let args = vec![("experts", self.model.experts_total.to_string().into()), ("ep", m.ep.to_string().into())];
                return Err(EstimateError::invalid("ep", Note::new("the model's {experts} routed experts do not divide over {ep} expert-parallel GPUs", args)));
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
                Note::new(
                    "{precision} weights cannot be trained directly; use fp32, tf32, fp16, bf16 or fp8 (full training), or --workload qlora",
                    vec![("precision", self.precision.to_string().into())],
                ),
            ));
        }
        Ok(())
    }
}

/// How a served mixture-of-experts model spreads its experts (`--moe-layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MoeLayout {
    /// The serving planner tries each and keeps the best for the targets; a fixed estimate uses
    /// the engines' default, tensor parallelism.
    #[default]
    Auto,
    /// Every expert split over the GPUs like the other layers (the engines' default).
    Tensor,
    /// Whole experts per GPU; attention tensor parallel inside a node, data parallel across nodes.
    Expert,
    /// Whole experts per GPU; attention data parallel on every GPU ("DEP").
    DpAttention,
}

impl MoeLayout {
    pub const ALL: [MoeLayout; 4] = [MoeLayout::Auto, MoeLayout::Tensor, MoeLayout::Expert, MoeLayout::DpAttention];

    /// The CLI/URL value.
    pub fn as_str(self) -> &'static str {
        match self {
            MoeLayout::Auto => "auto",
            MoeLayout::Tensor => "tp",
            MoeLayout::Expert => "ep",
            MoeLayout::DpAttention => "dep",
        }
    }

    pub fn parse(s: &str) -> Option<MoeLayout> {
        MoeLayout::ALL.into_iter().find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

/// The parallel sizes a user or a published run fixes: tensor (`tp`), context (`cp`) and
/// pipeline (`pp`) parallel, model chunks per pipeline stage (`interleave`, Megatron's
/// `--num-layers-per-virtual-pipeline-stage` expressed as chunks; 1 = plain 1F1B), and an MoE
/// model's expert parallel size (`ep`, Megatron's `--expert-model-parallel-size`; 1 = none),
/// folded into the tensor, context and data parallel ranks ([`super::parallel::Mesh::ep`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshSpec {
    pub tp: u32,
    pub cp: u32,
    pub pp: u32,
    pub interleave: u32,
    pub ep: u32,
}

impl MeshSpec {
    /// GPUs one model replica spans: `tp · cp · pp` (each at least 1).
    pub fn replica(&self) -> u64 {
        u64::from(self.tp.max(1)) * u64::from(self.cp.max(1)) * u64::from(self.pp.max(1))
    }
}
