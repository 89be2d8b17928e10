//! Memory terms of one job, in GiB, before they are spread over GPUs: weights, KV cache,
//! activations / compute buffers, gradients, optimizer states and per-engine overhead.
//!
//! Sources: KV cache = 2·layers·kv_heads·head_dim·tokens·batch·bytes (MLA: latent + RoPE key);
//! training activations after Korthikanti et al. 2022 ("Reducing Activation Recomputation in
//! Large Transformer Models", §4.1, eq. 1–2), generalized to GQA and gated FFNs; optimizer and
//! gradient bytes after Rajbhandari et al. 2019 (ZeRO, §3.1: 2 + 2 + K·Ψ with K = 12 for mixed
//! precision Adam); QLoRA storage after Dettmers et al. 2023. See docs/MODEL.md.

use super::arch::ModelArch;
use super::engines::{Engine, GpuFamily};
use super::job::{Checkpointing, LlmJob, LoraTargets, Optimizer, Workload};
use crate::catalog::Gpu;
use crate::model::types::{Arg, Note, GIB};

/// Memory terms of a job, GiB. `activations_gib` and `context_gib` are per replica / per GPU;
/// the rest are totals to be sharded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Terms {
    pub weights_gib: f64,
    pub kv_gib: f64,
    /// Activations (training) or compute buffers (inference) of one GPU.
    pub activations_gib: f64,
    pub gradients_gib: f64,
    pub optimizer_gib: f64,
    /// Optimizer state that may page out to host memory (paged 8-bit AdamW).
    pub pageable_gib: f64,
    /// Runtime context per GPU.
    pub context_gib: f64,
    /// Allocator slack over the whole job.
    pub slack_gib: f64,
    /// Trainable parameters (all, or the adapters).
    pub trainable_params: f64,
    /// Weight bytes per parameter of the transformer body.
    pub body_bytes_per_param: f64,
    /// The routed experts' share of the weight bytes (0 for a dense model), which expert
    /// parallelism spreads ([`super::parallel::mesh_weight_share`]).
    pub routed_share: f64,
}

/// Bytes of the 16-bit tensors that low-bit formats keep (embeddings, LM head).
const KEEP_BYTES: f64 = 2.0;

/// Weight bytes: (body bytes, embedding bytes, head bytes).
pub fn weight_bytes(job: &LlmJob) -> (f64, f64, f64) {
    let m = &job.model;
    let p = job.effective_precision();
    let embed = m.embedding_params();
    let head = m.head_params();
    let body = m.body_params();
    if p == crate::model::precision::Precision::Nf4 && job.bits_per_weight_override.is_none() {
        let b = crate::model::precision::nf4_bits_per_weight(job.nf4_double_quant) / 8.0;
        return (body * b, embed * KEEP_BYTES, head * KEEP_BYTES);
    }
    match job.bits_per_weight_override {
        Some(bits) => (body * bits / 8.0, embed * KEEP_BYTES, head * KEEP_BYTES),
        // MXFP4 as llama.cpp's GGUFs store it (`MXFP4 MoE`): the routed experts in MXFP4, every
        // other tensor in Q8_0, 34 bytes per 32 weights. llama-bench prints gpt-oss 20B (20.91B
        // parameters, 19.11B of them in experts) at 11.27 GiB = 12.10 GB: 19.11e9 × 4.25/8 =
        // 10.15 GB of experts leaves 1.95 GB for the other 1.80B, 8.7 bits each.
        None if p == crate::model::precision::Precision::Mxfp4 && m.is_moe() && job.engine == Some(Engine::LlamaCpp) => {
            let experts = m.routed_expert_params();
            let q8 = crate::model::precision::Precision::Q80.bytes_per_weight();
            (experts * p.bytes_per_weight() + (body - experts) * q8, embed * q8, head * q8)
        }
        // MXFP4 as gpt-oss ships it: the routed experts in MXFP4, attention and router in BF16
        // (`quantization_config.modules_to_not_convert` of openai/gpt-oss-120b).
        None if p == crate::model::precision::Precision::Mxfp4 && m.is_moe() => {
            let experts = m.routed_expert_params();
            (experts * p.bytes_per_weight() + (body - experts) * KEEP_BYTES, embed * KEEP_BYTES, head * KEEP_BYTES)
        }
        None if p.quantizes_embeddings() => {
            let b = p.bytes_per_weight();
            (body * b, embed * b, head * b)
        }
        None => (body * p.bytes_per_weight(), embed * KEEP_BYTES, head * KEEP_BYTES),
    }
}

/// Bytes of every weight (body, embedding and head).
pub fn weight_bytes_total(job: &LlmJob) -> f64 {
    let (body, embed, head) = weight_bytes(job);
    body + embed + head
}

/// Bytes of the routed experts alone (their share of the body bytes; MXFP4 stores only them
/// in 4 bits).
pub fn routed_expert_bytes(job: &LlmJob) -> f64 {
    let m = &job.model;
    let experts = m.routed_expert_params();
    let (body, _, _) = weight_bytes(job);
    if job.effective_precision() == crate::model::precision::Precision::Mxfp4 && job.bits_per_weight_override.is_none() {
        experts * job.effective_precision().bytes_per_weight()
    } else if m.body_params() > 0.0 {
        experts * body / m.body_params()
    } else {
        experts * KEEP_BYTES
    }
}

/// KV-cache bytes for `batch` sequences of `tokens` each.
pub fn kv_bytes(job: &LlmJob, tokens: f64, batch: f64) -> f64 {
    job.model.kv_elements(tokens) * batch * job.kv_precision.bytes_per_element()
}

/// Parameters of the LoRA adapters: rank·(in + out) per adapted matrix (Hu et al. 2021, §4).
pub fn lora_params(job: &LlmJob) -> f64 {
    let m = &job.model;
    let h = f64::from(m.hidden_size);
    let q = m.attention_width();
    let kv = f64::from(m.kv_heads) * f64::from(m.head_dim);
    let r = f64::from(job.lora_rank);
    let attn_qv = r * (h + q) + r * (h + kv);
    let attn = attn_qv + r * (h + kv) + r * (q + h);
    let mats = if m.gated_ffn { 3.0 } else { 2.0 };
    // MoE: adapters on every expert's matrices.
    let ffn = if m.is_moe() {
        mats * r * (h + f64::from(m.moe_intermediate_size)) * f64::from(m.experts_total)
    } else {
        mats * r * (h + f64::from(m.intermediate_size))
    };
    let per_layer = match job.lora_targets {
        LoraTargets::AttentionQv => attn_qv,
        LoraTargets::Attention => attn,
        LoraTargets::AllLinear => attn + ffn,
    };
    per_layer * f64::from(m.layers)
}

/// A layer's widths: hidden size, query width, key/value width, and the FFN's (a MoE's active
/// experts together).
struct Widths {
    h: f64,
    hq: f64,
    kvd: f64,
    ffn: f64,
}

fn widths(m: &ModelArch) -> Widths {
    Widths {
        h: f64::from(m.hidden_size),
        hq: m.attention_width(),
        kvd: f64::from(m.kv_heads) * f64::from(m.head_dim),
        ffn: if m.is_moe() { f64::from(m.moe_intermediate_size) * f64::from(m.experts_active) } else { f64::from(m.intermediate_size) },
    }
}

/// Activation bytes kept per token per layer during training (16-bit), generalizing
/// Korthikanti et al. 2022 eq. 1 (34·s·b·h + 5·a·s²·b for MHA, 4h MLP, with dropout) to
/// GQA and gated FFNs without dropout: norms 4h, attention input 2h, Q 2·hq, K and V
/// 4·kv_dim, attention output 2·hq, FFN input 2h, FFN 8·I gated or 4·I. An unfused SwiGLU
/// (`down(act(gate(x)) * up(x))`, as Hugging Face's `LlamaMLP` runs it) saves four I-wide
/// tensors for backward: the gate output (for SiLU's backward), SiLU's output and the up output
/// (for the product's backward) and the product (input of `down`): 4·I·2 B = 8·I.
/// Without FlashAttention and without selective recompute, the score and softmax matrices add
/// 4·heads·s per token.
pub fn activation_bytes_per_token_layer(job: &LlmJob, seq: f64, keep_scores: bool) -> f64 {
    let m = &job.model;
    let Widths { h, hq, kvd, ffn: ffn_width } = widths(m);
    let base = 8.0 * h + 4.0 * hq + 4.0 * kvd + ffn_saved_bytes(job, ffn_width);
    if keep_scores {
        base + 4.0 * f64::from(m.attention_heads) * seq
    } else {
        base
    }
}

/// FFN bytes saved for backward per token per layer (16-bit), for an FFN `width` wide. Eager
/// PyTorch: a SwiGLU saves gate, SiLU(gate), up and their product (8·I), a GELU FFN the fc1
/// output and GELU's output (4·I). Under `torch.compile` AOTAutograd's min-cut
/// rematerialization partitioner (`min_cut_rematerialization_partition`, functorch; Horace He,
/// "Min-cut optimal(*) recomputation with AOTAutograd", PyTorch dev-discuss 2022) saves only the
/// matmul outputs and recomputes the cheap pointwise ops in backward: gate and up (4·I), or fc1's
/// output (2·I).
pub fn ffn_saved_bytes(job: &LlmJob, width: f64) -> f64 {
    let tensors = match (job.model.gated_ffn, job.torch_compile) {
        (true, false) => 4.0,
        (true, true) | (false, false) => 2.0,
        (false, true) => 1.0,
    };
    tensors * 2.0 * width
}

/// Activation bytes kept per token per layer by a LoRA or QLoRA job, whose base weights are
/// frozen. PyTorch's autograd saves an operand only if the gradient that reads it is needed
/// (tools/autograd/gen_variable_type.py: `guard_for` wraps the save in
/// `grad_fn->should_compute_output(i)`), so a frozen linear keeps none of its input: its one
/// use is the weight's gradient. What stays, per token per layer:
/// - each RMSNorm's input, in fp32 in eager mode (transformers' `LlamaRMSNorm`, torchtune's
///   `RMSNorm` and LitGPT's `RMSNorm` upcast with `.float()` before normalizing, and the norm's
///   backward reads that fp32 copy): 2 × 4h; 2 × 2h under `torch.compile`, which fuses the
///   upcast;
/// - the attention's Q, K, V and output (FlashAttention / SDPA save them): 2·hq + 4·kv_dim +
///   2·hq, plus the s×s scores without FlashAttention;
/// - the FFN activation's own operands: SwiGLU 6·I in eager mode (gate, SiLU(gate), up: the
///   product feeds only the frozen `down`), 4·I compiled (gate, up); GELU fc1's output, 2·I;
/// - each adapted linear's input for lora_A's gradient (PEFT's `lora_B(lora_A(dropout(x)))`,
///   peft/tuners/lora/layer.py): with 16-bit adapters and no dropout the matrices reading one
///   tensor share it (2 B per element once); with dropout each adapted matrix keeps its own
///   dropped-out copy and a 1-byte mask (3 B), and fp32 adapters each keep their own cast copy
///   (PEFT's `_cast_input_dtype`; 2 B under autocast); none under `torch.compile`, whose
///   partitioner recomputes them from tensors it keeps anyway; plus x·A, r wide, per adapted
///   matrix;
/// - with bitsandbytes before 0.43.2 ([`LlmJob::nf4_keeps_inputs`]) `MatMul4Bit.forward` keeps
///   every 4-bit linear's input (`ctx.tensors = (A, B)`, bitsandbytes/autograd/_functions.py;
///   removed by PR #1270, "fix QLoRA mem bug: delete useless buffered activation"): attention
///   input 2h, o_proj input 2·hq, FFN input 2h and down's input 2·I, except those the adapters
///   already share.
pub fn adapter_activation_bytes_per_token_layer(job: &LlmJob, seq: f64, keep_scores: bool) -> f64 {
    let m = &job.model;
    let Widths { h, hq, kvd, ffn: ffn_width } = widths(m);
    let norms = 2.0 * h * if job.torch_compile { 2.0 } else { 4.0 };
    let attention = 4.0 * hq + 4.0 * kvd + if keep_scores { 4.0 * f64::from(m.attention_heads) * seq } else { 0.0 };
    let ffn = match (m.gated_ffn, job.torch_compile) {
        (true, false) => 6.0,
        (true, true) => 4.0,
        (false, _) => 2.0,
    } * ffn_width;
    // The linears' input tensors: (width, adapted matrices reading it).
    let up_mats = if m.gated_ffn { 2.0 } else { 1.0 };
    let inputs: [(f64, f64); 4] = match job.lora_targets {
        LoraTargets::AttentionQv => [(h, 2.0), (hq, 0.0), (h, 0.0), (ffn_width, 0.0)],
        LoraTargets::Attention => [(h, 3.0), (hq, 1.0), (h, 0.0), (ffn_width, 0.0)],
        LoraTargets::AllLinear => [(h, 3.0), (hq, 1.0), (h, up_mats), (ffn_width, 1.0)],
    };
    let own_copies = job.lora_dropout || job.master_weights;
    let copy_bytes = if job.lora_dropout { 3.0 } else { 2.0 };
    let mut kept = 0.0;
    for (width, mats) in inputs {
        let adapters = if mats == 0.0 || job.torch_compile {
            // Compiled, every adapted input is a pointwise function of tensors the min-cut
            // partitioner saves anyway (the norms' inputs, the attention output, gate and up),
            // so it is recomputed in backward rather than kept (see `ffn_saved_bytes`).
            0.0
        } else if own_copies {
            copy_bytes * width * mats
        } else {
            2.0 * width
        };
        let shared_by_adapters = mats > 0.0 && !own_copies;
        let bnb = if job.workload == Workload::Qlora && job.nf4_keeps_inputs && !shared_by_adapters { 2.0 * width } else { 0.0 };
        kept += adapters + bnb;
    }
    let mats: f64 = inputs.iter().map(|(_, n)| n).sum();
    let rank = 2.0 * f64::from(job.lora_rank) * mats;
    norms + attention + ffn + kept + rank
}

/// Bytes of one frozen weight matrix dequantized to 16 bits: QLoRA's NF4 linears dequantize
/// their weight for each matmul, forward and backward (bitsandbytes `MatMul4Bit`:
/// `F.dequantize_4bit(B, quant_state).to(A.dtype)`; torchao's `LinearNF4`:
/// `weight.to(input.dtype)`), so one matrix, the largest, is alive beside the activations.
pub fn nf4_dequant_buffer_bytes(job: &LlmJob) -> f64 {
    if job.workload != Workload::Qlora {
        return 0.0;
    }
    let m = &job.model;
    let h = f64::from(m.hidden_size);
    let widest = if m.is_moe() { f64::from(m.moe_intermediate_size) } else { f64::from(m.intermediate_size) };
    h * widest.max(m.attention_width()) * KEEP_BYTES
}

/// Training activations of one GPU's micro-batch, bytes, including the logits (see
/// [`LlmJob::fp32_logits`]). LoRA and QLoRA keep what
/// [`adapter_activation_bytes_per_token_layer`] lists, plus QLoRA's dequantized weight
/// ([`nf4_dequant_buffer_bytes`]).
pub fn training_activation_bytes(job: &LlmJob) -> f64 {
    let m = &job.model;
    let s = f64::from(job.seq_len);
    let b = f64::from(job.batch);
    let tokens = s * b;
    // Encoder-decoder models keep activations for both stacks.
    let layers = f64::from(m.layers) + f64::from(m.encoder_layers);
    let h = f64::from(m.hidden_size);
    let scores = !job.flash_attention && job.grad_checkpointing == Checkpointing::None;
    let per_token_layer = |keep_scores: bool| {
        if job.workload.is_adapter() {
            adapter_activation_bytes_per_token_layer(job, s, keep_scores)
        } else {
            activation_bytes_per_token_layer(job, s, keep_scores)
        }
    };
    let per_layer = per_token_layer(scores) * tokens;
    let body = match job.grad_checkpointing {
        Checkpointing::None | Checkpointing::Selective => per_layer * layers,
        // Layer inputs (2·s·b·h each) plus one layer recomputed in full during backward.
        Checkpointing::Full => 2.0 * h * tokens * layers + per_token_layer(!job.flash_attention) * tokens,
    };
    // Bytes per logit at the loss's peak. A chunked loss (torchtune's `CEWithChunkedOutputLoss`,
    // `num_output_chunks = 8`) keeps the 16-bit logits of every chunk and upcasts one chunk at a
    // time: 2 + 4/8 = 2.5 B. Hugging Face's loss upcasts them all (`logits.float()`): the 16-bit
    // logits, an fp32 copy, fp32 log-softmax saved for backward and, in backward, the fp32
    // gradient overlap at about 2 + 4 + 4 + 2 = 12 B; fp32 training holds fp32 logits,
    // log-softmax and gradient: 12 B too.
    let wide = matches!(job.precision, crate::model::precision::Precision::Fp32 | crate::model::precision::Precision::Tf32);
    let logit_bytes = if wide || job.fp32_logits { 12.0 } else { 2.5 };
    let logits = tokens * f64::from(m.vocab_size) * logit_bytes;
    body + logits + nf4_dequant_buffer_bytes(job)
}

/// Inference compute buffers of one GPU, bytes.
///
/// llama.cpp: its graph allocator reserves the worst ubatch graph, dominated by the f32 logits
/// (n_ubatch·vocab·4 B) and, without flash attention, the f32 KQ scores
/// (n_ubatch·n_ctx·heads·4 B). With FlashAttention (`-fa auto`, llama.cpp's default since
/// mid-2025, PR #15434) the fused kernel never materialises KQ, so that term goes. Others: one
/// prefill chunk's hidden states and FFN activations in 16 bits plus f32 logits for the last
/// token of each sequence (whole prompt for transformers).
pub fn inference_buffer_bytes(job: &LlmJob, gpu: &Gpu, engine: Engine) -> f64 {
    let m = &job.model;
    let h = f64::from(m.hidden_size);
    let v = f64::from(m.vocab_size);
    let b = f64::from(job.batch);
    let ctx = f64::from(job.context_tokens);
    match engine {
        Engine::LlamaCpp => {
            let ub = job.prefill_chunk(gpu, engine).unwrap_or(512.0).min(f64::from(job.prompt_tokens).max(1.0) * b).max(1.0);
            let kq = if job.flash_attention { 0.0 } else { f64::from(m.attention_heads) * ctx };
            ub * 4.0 * (v + kq) + ub * h * 4.0 * 4.0
        }
        _ => {
            let prompt = f64::from(job.prompt_tokens) * b;
            let chunk = job.prefill_chunk(gpu, engine).map_or(prompt, |c| c.min(prompt.max(1.0)));
            let ffn_width = if m.is_moe() {
                f64::from(m.moe_intermediate_size) * f64::from(m.experts_active)
            } else {
                f64::from(m.intermediate_size)
            };
            let logit_rows = if engine == Engine::Transformers { chunk } else { b };
            chunk * (4.0 * h + 3.0 * ffn_width) * 2.0 + logit_rows * v * 4.0
        }
    }
}

/// Optimizer bytes per trainable parameter, excluding the fp32 master copy.
pub fn optimizer_bytes_per_param(job: &LlmJob) -> f64 {
    match job.optimizer {
        // PyTorch's AdamW creates its moments with `torch.zeros_like(param)`: fp32 beside an fp32
        // master copy, but bf16 (2 + 2 B) when pure-bf16 training has no master copy.
        Optimizer::AdamW if !job.master_weights && !job.workload.is_adapter() && job.precision.bits_per_weight() <= 16.0 => 4.0,
        Optimizer::AdamW => 8.0,
        // Block-wise 8-bit moments (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
        // Quantization"): 1 B each plus one fp32 absmax per block of 2048.
        Optimizer::AdamW8bit | Optimizer::PagedAdamW8bit => 2.0 * (1.0 + 4.0 / 2048.0),
        Optimizer::Sgd => 4.0,
        // Adafactor (Shazeer & Stern 2018): row + column statistics per matrix,
        // 4·(r + c) bytes for r·c weights ≈ 4·2/hidden per weight.
        Optimizer::Adafactor => 8.0 / f64::from(job.model.hidden_size.max(1)),
    }
}

/// Measured peak / model for LLM training and fine-tuning (`crate::model::bands::MEMORY`): the
/// 10th and 90th percentiles of the held-out memory rows, every source weighing the same
/// (allocator and `nvidia-smi` peaks each compared with what they count; docs/ACCURACY.md).
pub const TRAINING_MEMORY_BAND: (f64, f64) = crate::model::bands::MEMORY.fitted;

/// `gib` as the band measured peaks fall in: training and fine-tuning only; `None` for
/// inference, whose held-out rows are weight files only (no measured peaks to set a spread).
pub fn peak_band(job: &LlmJob, gib: f64) -> Option<crate::model::types::Band> {
    job.workload.is_training().then(|| crate::model::types::Band::around(gib, TRAINING_MEMORY_BAND.0, TRAINING_MEMORY_BAND.1))
}

/// Every memory term of `job` on `gpu` with `engine`.
pub fn terms(job: &LlmJob, gpu: &Gpu, engine: Engine) -> Terms {
    let m = &job.model;
    let apple = GpuFamily::of(gpu) == GpuFamily::Apple;
    let (body, embed, head) = weight_bytes(job);
    let weights = body + embed + head;
    let body_bpp = if m.body_params() > 0.0 { body / m.body_params() } else { 2.0 };
    let routed_share = if m.is_moe() { (routed_expert_bytes(job) / weights.max(1.0)).clamp(0.0, 1.0) } else { 0.0 };
    if job.workload == Workload::Inference {
        let kv = kv_bytes(job, f64::from(job.context_tokens), f64::from(job.batch));
        let act = inference_buffer_bytes(job, gpu, engine);
        let slack = engine.allocator_slack() * (weights + kv + act);
        return Terms {
            weights_gib: weights / GIB,
            kv_gib: kv / GIB,
            activations_gib: act / GIB,
            gradients_gib: 0.0,
            optimizer_gib: 0.0,
            pageable_gib: 0.0,
            context_gib: engine.context_gib(apple),
            slack_gib: slack / GIB,
            trainable_params: 0.0,
            body_bytes_per_param: body_bpp,
            routed_share,
        };
    }

    // Training: weights in the job's precision (QLoRA: NF4 base), trainable parameters in
    // 16 or 32 bits.
    let wide = matches!(job.precision, crate::model::precision::Precision::Fp32 | crate::model::precision::Precision::Tf32);
    let param_bytes = if wide { 4.0 } else { 2.0 };
    let (trainable, adapter_weights) = if job.workload.is_adapter() {
        let p = lora_params(job);
        (p, p * if job.master_weights { 4.0 } else { 2.0 })
    } else {
        (m.params_total, 0.0)
    };
    let grad_bytes = if job.workload.is_adapter() && job.master_weights { 4.0 } else { param_bytes };
    let gradients = if job.optimizer_in_backward {
        // One parameter's gradient at a time: the largest tensor.
        let largest = m.embedding_params().max(f64::from(m.hidden_size) * f64::from(m.intermediate_size));
        largest.min(trainable) * grad_bytes
    } else {
        trainable * grad_bytes
    };
    let master = if job.master_weights && !wide && !job.workload.is_adapter() { 4.0 * trainable } else { 0.0 };
    let states = optimizer_bytes_per_param(job) * trainable;
    let optimizer = master + states;
    let pageable = if job.optimizer == Optimizer::PagedAdamW8bit { states } else { 0.0 };
    let act = training_activation_bytes(job);
    // FP8 training keeps the 16-bit parameters and, beside them, the FP8 casts of the linear
    // layers' weights that Transformer Engine caches across a step's micro-batches
    // (`is_first_microbatch`): 2 B + 1 B per body parameter (`weights` above holds the casts).
    let fp8_params = if job.precision == crate::model::precision::Precision::Fp8 { m.body_params() * 2.0 } else { 0.0 };
    let all_weights = weights + adapter_weights + fp8_params;
    let slack = Engine::Transformers.allocator_slack() * (all_weights + gradients + optimizer - pageable + act);
    Terms {
        weights_gib: all_weights / GIB,
        kv_gib: 0.0,
        activations_gib: act / GIB,
        gradients_gib: gradients / GIB,
        optimizer_gib: optimizer / GIB,
        pageable_gib: pageable / GIB,
        context_gib: Engine::Transformers.context_gib(apple),
        slack_gib: slack / GIB,
        trainable_params: trainable,
        body_bytes_per_param: body_bpp,
        routed_share,
    }
}

/// `note` when `on`, else nothing.
fn fragment(on: bool, note: Note) -> Arg {
    if on {
        note.into()
    } else {
        Arg::from("")
    }
}

/// Adds the memory assumptions of this job to `out`.
pub fn describe(job: &LlmJob, _gpu: &Gpu, engine: Engine, t: &Terms, out: &mut Vec<Note>) {
    describe_weights(job, out);
    if job.workload == Workload::Inference {
        describe_inference(job, engine, t, out);
    } else {
        describe_training(job, t, out);
    }
}

/// The weights line: parameters, number format, what stays in 16 bits.
fn describe_weights(job: &LlmJob, out: &mut Vec<Note>) {
    let m = &job.model;
    let p = job.effective_precision();
    let bpw = job.bits_per_weight_override.unwrap_or_else(|| p.bits_per_weight());
    out.push(Note::new(
        "weights: {params}B parameters at {precision} ({bpw} bits/weight{embeddings}){moe}",
        vec![
            ("params", crate::decimal::fixed(m.params_total / 1e9, 2).into()),
            ("precision", p.to_string().into()),
            ("bpw", crate::decimal::fixed(bpw, 3).into()),
            (
                "embeddings",
                fragment(
                    !(p.quantizes_embeddings() && job.bits_per_weight_override.is_none()),
                    Note::plain("; embeddings and LM head in 16 bits"),
                ),
            ),
            ("moe", fragment(m.is_moe(), Note::plain("; every expert resident (MoE)"))),
        ],
    ));
}

/// The inference lines: the KV cache, the engine's buffers and context, its memory pool.
fn describe_inference(job: &LlmJob, engine: Engine, t: &Terms, out: &mut Vec<Note>) {
    let m = &job.model;
    let kind = match m.attention {
        crate::catalog::Attention::Mla => Note::new(
            "MLA latent {rank} + RoPE {rope} per token per layer",
            vec![("rank", m.kv_lora_rank.to_string().into()), ("rope", m.qk_rope_head_dim.to_string().into())],
        ),
        _ => Note::new(
            "{kv} KV heads × head_dim {dim}",
            vec![("kv", m.kv_heads.to_string().into()), ("dim", m.head_dim.to_string().into())],
        ),
    };
    let window = match m.sliding_window {
        Some(w) if m.sliding_window_layers_fraction > 0.0 => Note::new(
            "; {pct}% of layers capped at a {w}-token window",
            vec![("pct", crate::decimal::fixed(m.sliding_window_layers_fraction * 100.0, 0).into()), ("w", w.to_string().into())],
        )
        .into(),
        _ => Arg::from(""),
    };
    out.push(Note::new(
        "KV cache: {batch} sequence(s) × {tokens} tokens at {kv_precision} ({kind}{window})",
        vec![
            ("batch", job.batch.to_string().into()),
            ("tokens", job.context_tokens.to_string().into()),
            ("kv_precision", job.kv_precision.to_string().into()),
            ("kind", kind.into()),
            ("window", window),
        ],
    ));
    out.push(Note::new(
        "engine {engine}: compute buffers {buffers} GiB per GPU, runtime context {context} GiB per GPU",
        vec![
            ("engine", engine.as_str().into()),
            ("buffers", crate::decimal::fixed(t.activations_gib, 2).into()),
            ("context", crate::decimal::fixed(t.context_gib, 2).into()),
        ],
    ));
    if engine.memory_utilization() < 1.0 {
        out.push(Note::new(
            "{engine} pre-allocates {pct}% of each GPU (gpu_memory_utilization); the unused part of that pool becomes extra KV cache",
            vec![
                ("engine", engine.as_str().into()),
                ("pct", crate::decimal::fixed(engine.memory_utilization() * 100.0, 0).into()),
            ],
        ));
    }
}

/// The training lines: the setup, the trainable parameters or master weights, paging and ZeRO.
fn describe_training(job: &LlmJob, t: &Terms, out: &mut Vec<Note>) {
    out.push(Note::new(
        "training: {workload} with {optimizer}, micro-batch {batch} × {seq} tokens per GPU, checkpointing {ckpt}, {attention}",
        vec![
            ("workload", job.workload.as_str().into()),
            ("optimizer", job.optimizer.as_str().into()),
            ("batch", job.batch.to_string().into()),
            ("seq", job.seq_len.to_string().into()),
            ("ckpt", job.grad_checkpointing.as_str().into()),
            (
                "attention",
                if job.flash_attention {
                    Arg::from("FlashAttention")
                } else {
                    Note::plain("eager attention (s×s scores kept)").into()
                },
            ),
        ],
    ));
    if job.workload.is_adapter() {
        out.push(Note::new(
            "LoRA rank {rank}: {params}M trainable parameters with their own gradients and optimizer states",
            vec![("rank", job.lora_rank.to_string().into()), ("params", crate::decimal::fixed(t.trainable_params / 1e6, 1).into())],
        ));
    } else if job.master_weights && job.precision.bits_per_weight() < 32.0 {
        out.push(Note::plain("mixed precision: fp32 master weights counted with the optimizer states (ZeRO's K = 12 for Adam)"));
    }
    if t.pageable_gib > 0.0 {
        out.push(Note::new(
            "paged optimizer: {gib} GiB of states page to host memory when the GPU is full",
            vec![("gib", crate::decimal::fixed(t.pageable_gib, 1).into())],
        ));
    }
    if job.zero > 0 {
        let what = match job.zero {
            1 => Note::plain("optimizer states"),
            2 => Note::plain("optimizer states and gradients"),
            _ => Note::plain("optimizer states, gradients and weights (FSDP full shard)"),
        };
        out.push(Note::new(
            "ZeRO stage {stage} shards {what} over the data-parallel GPUs",
            vec![("stage", job.zero.to_string().into()), ("what", what.into())],
        ));
    }
}
