//! Decode, prefill, serving and training speed, each as a low / mid / high band.
//!
//! Decode is a roofline sum: a step reads the active weights (MoE: the experts the batch
//! touches) and the KV cache from memory and does 2·N_active FLOPs per sequence, plus a fixed
//! time per layer; at batch 1 the memory term dominates, at large batch the compute term.
//! Prefill is compute-bound (2·N FLOPs per token plus causal attention 2·L·T·d_attn). Serving
//! fills the memory left after weights with KV cache and batches as many requests as fit.
//! Training uses 6·N·D FLOPs (Kaplan et al. 2020 §2.1; Hoffmann et al. 2022), 8·N·D with full
//! recomputation, plus 12·L·s·d_attn attention FLOPs per token (MosaicML's MFU definition),
//! at a stated MFU. Constants and their fits: docs/MODEL.md.

use super::arch::{is_mla_moe, ModelArch};
use super::engines::{inference_peak_tflops, Efficiency, Engine, GpuFamily};
use super::in_force::{efficiency, inflight_bw_cap_gb_s, prefill_gemm_shares, quant_stream_factor};
use super::memory::{kv_bytes, weight_bytes, Terms};
use super::parallel::{tensor_kv_share, usable_gib, Layout, Mesh};
use super::job::{Checkpointing, LlmJob};
use crate::catalog::Gpu;
use crate::model::fabric::{self, Link};
use crate::model::precision::Precision;
use crate::model::types::{Band, Note, Throughput, GIB};

/// A band of `mid` as the engine shows it for a set (`crate::model::bands`): the band the held-out
/// rows of the set give for engine and card pairs with published rows (`measured`: the pair's
/// factors were fitted), the wider one of pairs without (a GPU family held out).
pub fn band(mid: f64, measured: bool, set: &crate::model::bands::SetBand) -> Band {
    let (low, high) = if measured { set.fitted } else { set.new_family };
    Band::around(mid, low, high)
}

/// The serving band's factors for `model` (`crate::model::bands`): a DeepSeek-style MoE's own,
/// else the serving set's; each the 10th–90th percentile of measured / model over the held-out
/// rows of its class, every source weighing the same. A serving total is never fitted itself (it
/// derives from the decode and prefill factors), so its band is the same for every pair.
pub fn serving_band_factors(model: &ModelArch) -> (f64, f64) {
    if is_mla_moe(model) {
        crate::model::bands::SERVING_MLA_MOE.fitted
    } else {
        crate::model::bands::SERVING.fitted
    }
}

/// The band of a serving total `mid` of `model` ([`serving_band_factors`]).
pub fn serving_band(model: &ModelArch, mid: f64) -> Band {
    let (low, high) = serving_band_factors(model);
    Band::around(mid, low, high)
}

struct Ctx<'a> {
    job: &'a LlmJob,
    gpu: &'a Gpu,
    engine: Engine,
    eff: Efficiency,
    layout: Layout,
}

/// How one GPU's share of a forward pass divides the build's work.
struct Split {
    /// GPUs the routed experts' bytes and FLOPs are spread over.
    experts: f64,
    /// GPUs every other weight's bytes and FLOPs are spread over (inside an attention group).
    dense: f64,
    /// Share of an attention group's KV cache each of its GPUs reads.
    kv: f64,
    /// Share of the build's sequences one attention group serves (1 without data-parallel attention).
    group: f64,
}

/// Parameters of the routed experts one token runs through (`k` of `E` per MoE layer).
fn routed_active_params(m: &ModelArch) -> f64 {
    m.routed_expert_params() * f64::from(m.experts_active) / f64::from(m.experts_total.max(1))
}

impl Ctx<'_> {
    fn quantized(&self) -> bool {
        self.job.bits_per_weight_override.is_some() || self.job.effective_precision().is_quantized()
    }

    fn bw(&self) -> f64 {
        self.gpu.memory_bandwidth_gb_s * 1e9
    }

    /// Bandwidth the weight stream achieves, bytes/s (quantized weights pay their dequantization).
    fn weight_bw(&self) -> f64 {
        let q = if self.quantized() {
            quant_stream_factor(self.engine, self.job.effective_precision(), &self.eff)
        } else {
            1.0
        };
        weight_stream_fraction(self.gpu, self.engine, &self.eff) * self.bw() * q
    }

    /// The sustained dense peak: the datasheet rate times the card's sustained-clock factor
    /// ([`crate::model::numeric::sustained_tensor_factor`], the rule the image and classic
    /// engines use too).
    fn peak_flops(&self) -> f64 {
        let dp4a = if self.quantized() { super::engines::dp4a_tops(self.gpu, self.engine) } else { None };
        // MXFP4/NVFP4 run on FP4 tensor cores where the card has them (Blackwell) in the serving
        // engines (TensorRT-LLM, vLLM and SGLang's FP4 GEMMs); elsewhere they dequantize to 16 bits
        // (vLLM's Marlin MXFP4 kernel on Hopper and Ada). llama.cpp multiplies an MXFP4 GGUF's
        // experts as it does its other quantized types, through its quantized matrix-multiply
        // kernels (ggml-cuda `mmq`, Vulkan's dequantizing shaders), not the FP4 tensor rate: so
        // its peak is the 16-bit one, with its quantized-weight share.
        let fp4_gemm = self.job.effective_precision().is_fp4() && self.engine.continuous_batching();
        let fp4 = if fp4_gemm { self.gpu.fp4_tflops } else { None };
        // A back-end that leaves the matrix units idle multiplies on the FP32 lanes.
        let idle = super::backend::matrix_units_idle(self.job, self.gpu, self.engine);
        let lanes = if idle { self.gpu.fp32_tflops } else { None };
        dp4a.or(fp4)
            .or(lanes)
            .unwrap_or_else(|| inference_peak_tflops(self.gpu, self.engine, self.job.effective_precision() == Precision::Fp8))
            * crate::model::numeric::sustained_tensor_factor(self.gpu)
            * super::engines::sync_mma_share(self.gpu, self.engine)
            * 1e12
    }

    /// (GEMM MFU, multiplier for the weights' format) of this job's GEMMs
    /// ([`prefill_gemm_shares`]).
    fn gemm_shares(&self) -> (f64, f64) {
        prefill_gemm_shares(self.gpu, self.engine, self.matrix_units(), self.quantized(), &self.eff)
    }

    /// True when this job's GEMMs run on the card's matrix units
    /// ([`super::backend::matrix_units_in_use`]).
    fn matrix_units(&self) -> bool {
        super::backend::matrix_units_in_use(self.job, self.gpu, self.engine)
    }

    /// The attention's share of [`Ctx::peak_flops`]: attention multiplies queries by the KV cache
    /// in the cache's precision, whatever the weights' — vLLM's and SGLang's FP8 (W8A8) methods
    /// quantize the linear layers only (vLLM `Fp8LinearMethod`), and FlashAttention, FlashInfer
    /// and FlashMLA run a 16-bit cache in BF16/FP16. So FP8 weights with a 16-bit cache run their
    /// attention FLOPs at the 16-bit rate (half the FP8 rate on Hopper and Ada); an FP8 cache keeps
    /// the FP8 rate (TensorRT-LLM's FP8 context and XQA kernels).
    fn attention_rate_share(&self) -> f64 {
        let fp8_weights = self.job.effective_precision() == Precision::Fp8 && self.gpu.fp8_tflops.is_some();
        if !fp8_weights || self.job.kv_precision == crate::model::precision::KvPrecision::Fp8 {
            return 1.0;
        }
        let fp8 = inference_peak_tflops(self.gpu, self.engine, true);
        (inference_peak_tflops(self.gpu, self.engine, false) / fp8).clamp(0.0, 1.0)
    }

    /// Seconds of fixed time per forward pass in the MoE layers' fused expert kernels
    /// ([`fused_moe_fixed_s`], at the reference clock; 0 for dense models and TensorRT-LLM's
    /// kernels).
    fn moe_fixed(&self) -> f64 {
        fused_moe_fixed_s(self.job, self.gpu, self.engine) * self.cycles()
    }

    /// The card's time for a fixed run of GPU cycles over the reference clock's
    /// ([`crate::model::numeric::cycle_time_factor`]): the engines' fixed kernel times (per-layer
    /// floors, the fused-MoE and block-FP8 kernels' fixed times) are quoted at that clock.
    fn cycles(&self) -> f64 {
        crate::model::numeric::cycle_time_factor(self.gpu)
    }

    /// How one GPU's share of a forward pass divides the build's work ([`Split`]).
    fn split(&self) -> Split {
        match self.layout {
            Layout::Tensor(g) => Split { experts: f64::from(g), dense: f64::from(g), kv: tensor_kv_share(self.job, g), group: 1.0 },
            Layout::Expert { gpus, attn_tp } => Split {
                experts: f64::from(gpus.max(1)),
                dense: f64::from(attn_tp.max(1)),
                kv: tensor_kv_share(self.job, attn_tp),
                group: f64::from(attn_tp.max(1)) / f64::from(gpus.max(1)),
            },
            _ => Split { experts: 1.0, dense: 1.0, kv: 1.0, group: 1.0 },
        }
    }

    /// Communication time per decode/prefill step with `tokens` tokens in one attention group
    /// (the whole batch outside data-parallel attention), s: tensor parallelism's two
    /// all-reduces per layer; under expert parallelism with data-parallel attention also each
    /// MoE layer's dispatch of the tokens to their `k` experts (FP8 with its per-128 scales for
    /// FP8 and FP4 models, as DeepEP dispatches; BF16 otherwise) and the combine of the results
    /// in BF16. With the attention tensor parallel over every GPU of the build (`ep`, "TEP") each
    /// GPU already holds every token after the attention's all-reduce: it runs its own experts on
    /// the tokens routed to them and the MoE layer's all-reduce, counted among the two, sums the
    /// GPUs' parts. No all-to-all runs: vLLM's `FusedMoEParallelConfig::use_all2all_kernels` is
    /// `dp_size > 1 and use_ep` (vllm/model_executor/layers/fused_moe/config.py), TensorRT-LLM's
    /// `enable_alltoall` needs `mapping.enable_attention_dp`, and SGLang's default
    /// `--moe-a2a-backend none` reduces the experts' outputs over the tensor-parallel group.
    fn comm(&self, tokens: f64) -> f64 {
        let m = &self.job.model;
        let tp_allreduce = |g: u32| {
            let link = fabric::group_link(self.gpu, g);
            let bytes = tokens * f64::from(m.hidden_size) * 2.0;
            if g > 1 { 2.0 * f64::from(m.layers) * (link.latency_s + fabric::allreduce_s(bytes, g, &link)) } else { 0.0 }
        };
        match self.layout {
            Layout::Tensor(g) => tp_allreduce(g),
            Layout::Expert { gpus, attn_tp } => {
                let across_groups = gpus > attn_tp.max(1);
                let a2a = if across_groups { f64::from(m.layers.saturating_sub(m.dense_layers)) * self.expert_all_to_all_s(tokens / f64::from(attn_tp.max(1)), gpus) } else { 0.0 };
                tp_allreduce(attn_tp) + a2a
            }
            Layout::LayerSplit(g) => f64::from(g - 1) * self.eff.hop_ms * 1e-3,
            _ => 0.0,
        }
    }

    /// Seconds of one MoE layer's dispatch and combine when each of `gpus` GPUs sends `tokens`.
    fn expert_all_to_all_s(&self, tokens: f64, gpus: u32) -> f64 {
        let m = &self.job.model;
        let elements = tokens * f64::from(m.experts_active) * f64::from(m.hidden_size);
        let dispatch = if matches!(self.job.effective_precision(), Precision::Fp8) || self.job.effective_precision().is_fp4() { 1.0 + 4.0 / 128.0 } else { 2.0 };
        let port = node_port(self.job, self.gpu);
        fabric::all_to_all_s(self.gpu, elements * dispatch, gpus, port) + fabric::all_to_all_s(self.gpu, elements * 2.0, gpus, port)
    }

    /// Seconds per decode step for `batch` sequences at average context `ctx`.
    fn decode_step(&self, batch: f64, ctx: f64) -> f64 {
        self.decode_tokens(batch, 1.0, ctx)
    }

    /// Seconds of one decode forward pass over `seqs` sequences of `queries` new tokens each (a
    /// speculative verification step passes the `k` drafted tokens and one more): the weights are
    /// streamed once for all `seqs · queries` tokens (an MoE's routed experts as those tokens touch
    /// them), each sequence's KV cache is read once for all its query tokens (FlashAttention and
    /// FlashInfer load a KV block once per query block; vLLM, SGLang and TensorRT-LLM verify the
    /// drafts in one such pass), and the FLOPs grow with the tokens.
    fn decode_tokens(&self, seqs: f64, queries: f64, ctx: f64) -> f64 {
        let m = &self.job.model;
        let s = self.split();
        let queries = queries.max(1.0);
        let batch = seqs * queries;
        // Data-parallel attention: one group attends to its share of the sequences (at least one).
        let group_seqs = (seqs * s.group).max(seqs.min(1.0));
        let group_tokens = group_seqs * queries;
        // The routed experts stream in the fused MoE kernel; the other GEMMs stream too, and a
        // block-scaled FP8 checkpoint's calls add their fixed time (0 for other weights).
        let (rest, routed) = decode_weight_split(self.job, batch);
        let t_weights = routed / s.experts / self.weight_bw() + rest / s.dense / self.weight_bw() + block_fp8_fixed_s(self.job, self.engine) * self.cycles();
        let t_kv = kv_bytes(self.job, ctx, group_seqs) * s.kv / (self.bw() * self.eff.attention_bw);
        let routed_active = routed_active_params(m);
        let dense_flops = (2.0 * (m.active_compute_params() - routed_active) + decode_attention_flops(m, ctx) / self.attention_rate_share()) * group_tokens / s.dense;
        let flops = dense_flops + 2.0 * routed_active * batch / s.experts;
        // A continuous-batching engine multiplies a decode batch of B tokens with the same GEMM
        // kernels as a prefill chunk of B tokens — under chunked prefill in the very same GEMM, the
        // decode tokens stacked with the prompt chunk's (Agrawal et al. 2024, "Sarathi-Serve", §4;
        // vLLM and TensorRT-LLM run one linear layer over the mixed batch) — so its decode FLOPs
        // run at the prefill's share of the peak. At a few sequences the term is small beside the
        // weight stream; at full batch it is a large part of the step.
        let mfu = if self.engine.continuous_batching() {
            let (m, q) = self.gemm_shares();
            m * q
        } else {
            self.eff.decode_mfu
        };
        let t_compute = flops / (self.peak_flops() * mfu);
        let t_fixed = f64::from(m.layers) * (self.eff.layer_ms * self.cycles() + self.engine.launch_layer_ms(self.job.cuda_graphs)) * 1e-3 + self.moe_fixed();
        t_weights + t_kv + t_compute + t_fixed + self.comm(group_tokens)
    }

    /// Seconds to prefill one prompt of `tokens`.
    fn prefill_time(&self, tokens: f64, with_fixed: bool) -> f64 {
        self.prefill_seqs(tokens, 1.0, with_fixed)
    }

    /// Seconds to prefill `seqs` prompts of `tokens` in all, batched into the same forward
    /// passes: the GEMMs see every token, each prompt attends to its own `tokens / seqs`.
    fn prefill_seqs(&self, tokens: f64, seqs: f64, with_fixed: bool) -> f64 {
        self.prefill_pass(tokens, seqs, with_fixed, true)
    }

    /// [`Ctx::prefill_seqs`], the weight stream counted only when `streams` (the prompts run in
    /// a pass of their own); a prompt that joins the other users' decode iteration rides the
    /// stream that iteration pays anyway ([`prefill_share_s`]).
    fn prefill_pass(&self, tokens: f64, seqs: f64, with_fixed: bool, streams: bool) -> f64 {
        let m = &self.job.model;
        let s = self.split();
        let (mfu, q) = self.gemm_shares();
        let peak = self.peak_flops() * mfu;
        // Under data-parallel attention each prompt runs in one attention group: the busiest
        // group takes its share of the prompts, and a lone prompt takes one group.
        let group_tokens = tokens * s.group.max(1.0 / seqs.max(1.0)).min(1.0);
        let routed_active = routed_active_params(m);
        let dense = (m.active_compute_params() - routed_active) * group_tokens / s.dense;
        let gemm = 2.0 * (dense + (routed_active + self.expert_tile_loss(tokens)) * tokens / s.experts) / (peak * q);
        // A prompt, however short, reads every weight at least once per prefill chunk: the GEMMs
        // take no less than the weight stream (the decode roofline's memory term).
        let stream = if streams {
            let chunks = self.job.prefill_chunk(self.gpu, self.engine).map_or(1.0, |c| (tokens / c).ceil().max(1.0));
            let (rest, routed) = decode_weight_split(self.job, tokens);
            chunks * (rest / s.dense + routed / s.experts) / self.weight_bw()
        } else {
            0.0
        };
        let attn = 2.0 * f64::from(m.layers) * group_tokens * (tokens / seqs.max(1.0)) * m.attention_width() / s.dense / (peak * self.eff.attention_flops * self.attention_rate_share());
        let fixed = if with_fixed { f64::from(m.layers) * self.eff.prefill_layer_ms * self.cycles() * 1e-3 + self.moe_fixed() + self.comm(group_tokens) } else { 0.0 };
        gemm.max(stream) + attn + fixed + self.vision_time(group_tokens, peak * q * s.dense)
    }

    /// Parameters' worth of GEMM work a prefill of `tokens` loses to partly filled expert tiles:
    /// each routed expert multiplies only the `chunk · k / E` tokens routed to it, and a GEMM of
    /// M token rows fills M / (M + h) of its tiles (h: llama.cpp's
    /// [`super::fit::LlmFit::llama_cpp_expert_half_tokens`]; 0, no loss, for the other engines,
    /// whose fused MoE kernels are timed by [`super::engines::FUSED_MOE_LAYER_MS`]). So the
    /// active experts' parameters count (M + h) / M times.
    fn expert_tile_loss(&self, tokens: f64) -> f64 {
        let m = &self.job.model;
        if !m.is_moe() || self.engine != Engine::LlamaCpp {
            return 0.0;
        }
        let h = super::in_force::with(|f| f.llama_cpp_expert_half_tokens);
        let chunk = self.job.prefill_chunk(self.gpu, self.engine).map_or(tokens, |c| c.min(tokens)).max(1.0);
        let share = f64::from(m.experts_active) / f64::from(m.experts_total.max(1));
        let per_expert = (chunk * share).max(1e-9);
        m.routed_expert_params() * share * h / per_expert
    }

    /// The vision tower's share of a prefill of `tokens` prompt tokens: the request's encoder
    /// FLOPs ([`super::vision::encoder_flops`]) spread over its prompt, at the prefill's rate.
    fn vision_time(&self, tokens: f64, flops_per_s: f64) -> f64 {
        let per_request = super::vision::encoder_flops(self.job);
        if per_request <= 0.0 {
            return 0.0;
        }
        per_request * tokens / f64::from(self.job.prompt_tokens.max(1)) / flops_per_s
    }
}

/// Fraction of the datasheet bandwidth a batch-1 weight stream of 16-bit weights reaches: the
/// engine's streaming efficiency, capped by what its kernels keep in flight on the card
/// ([`inflight_bw_cap_gb_s`]).
pub fn weight_stream_fraction(gpu: &Gpu, engine: Engine, eff: &Efficiency) -> f64 {
    let bw = gpu.memory_bandwidth_gb_s.max(1e-9);
    let cap = inflight_bw_cap_gb_s(gpu, engine).map_or(f64::INFINITY, |c| c / bw);
    eff.weight_bw.min(cap)
}

/// Bytes per second the decode weight stream reaches on `gpu` (quantized weights pay their
/// dequantization), and the bandwidth the KV-cache reads reach: what a byte read on the GPU costs
/// (the RAM-offload model moves bytes between this and system RAM).
pub fn gpu_stream_bw(job: &LlmJob, gpu: &Gpu, engine: Engine) -> (f64, f64) {
    let c = Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: Layout::Single };
    (c.weight_bw(), c.bw() * c.eff.attention_bw)
}

/// Seconds of one decode step of `batch` sequences at average context `ctx` on `layout` (weights,
/// KV cache, FLOPs, the fixed per-layer time and the layout's communication).
pub fn decode_step_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &Layout, batch: f64, ctx: f64) -> f64 {
    Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: *layout }.decode_step(batch, ctx)
}

/// Seconds of a speculative verification pass: `seqs` sequences of `queries` tokens each, each
/// sequence's KV cache read once (see `Ctx::decode_tokens`).
pub fn verify_step_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &Layout, seqs: f64, queries: f64, ctx: f64) -> f64 {
    Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: *layout }.decode_tokens(seqs, queries, ctx)
}

/// Seconds to prefill `tokens` prompt tokens on `layout`; `with_fixed` adds the per-layer fixed
/// time and the layout's communication of a standalone prefill.
pub fn prefill_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &Layout, tokens: f64, with_fixed: bool) -> f64 {
    Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: *layout }.prefill_time(tokens, with_fixed)
}

/// Seconds of the build's time one prompt of `tokens` takes when `users` keep sending prompts:
/// its prefill ([`prefill_s`]), except under data-parallel attention, where each attention group
/// prefills its own users' prompts in the same forward passes: the work of one prompt in each of
/// as many groups as there are users, over those groups, and the pass's fixed time and
/// communication in full, as one prompt pays them on the other layouts.
pub fn prefill_share_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &Layout, tokens: f64, users: f64) -> f64 {
    let c = Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: *layout };
    let streams = users < 2.0 || !engine.continuous_batching();
    let groups = layout.attention_groups();
    if groups > 1 && users >= 2.0 {
        let groups = f64::from(groups).min(users.floor());
        let work = c.prefill_pass(groups * tokens, groups, false, streams);
        return work / groups + (c.prefill_pass(groups * tokens, groups, true, streams) - work).max(0.0);
    }
    c.prefill_pass(tokens, 1.0, true, streams)
}

/// Seconds to prefill `seqs` prompts of `tokens_each` tokens batched together (prompts that
/// arrive at once share the engine's forward passes: one weight stream per chunk, GEMMs over
/// all their tokens, attention within each prompt); `with_fixed` as in [`prefill_s`].
pub fn prefill_batch_s(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &Layout, seqs: f64, tokens_each: f64, with_fixed: bool) -> f64 {
    let seqs = seqs.max(1.0);
    Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: *layout }.prefill_seqs(seqs * tokens_each, seqs, with_fixed)
}

/// Seconds of fixed time one forward pass spends in the fused expert kernels of `job`'s MoE
/// layers on `engine` on `gpu` (its layers less its dense ones, ×
/// [`super::engines::fused_moe_layer_ms`]); 0 for a dense model.
pub fn fused_moe_fixed_s(job: &LlmJob, gpu: &Gpu, engine: Engine) -> f64 {
    let m = &job.model;
    if !m.is_moe() {
        return 0.0;
    }
    f64::from(m.layers.saturating_sub(m.dense_layers)) * super::engines::fused_moe_layer_ms(job, gpu, engine) * 1e-3
}

/// Weight bytes one decode step reads with `tokens` sequences in the batch: the body (MoE: the
/// shared part plus the experts the batch's tokens touch) and the LM head. A tied head reads
/// the whole embedding table for every step, since it is the head's matrix.
pub fn decode_weight_bytes(job: &LlmJob, tokens: f64) -> f64 {
    let (rest, routed) = decode_weight_split(job, tokens);
    rest + routed
}

/// [`decode_weight_bytes`] in two parts: (every weight but the routed experts', the routed
/// experts' the batch touches).
fn decode_weight_split(job: &LlmJob, tokens: f64) -> (f64, f64) {
    let m = &job.model;
    let (body, embed, head) = weight_bytes(job);
    let head = if m.tied_embeddings { embed } else { head };
    if !m.is_moe() {
        return (body + head, 0.0);
    }
    let experts = super::memory::routed_expert_bytes(job);
    let k = f64::from(m.experts_active) / f64::from(m.experts_total.max(1));
    // Expected fraction of experts a layer's `tokens` routed tokens touch.
    let touched = 1.0 - crate::fmath::pow(1.0 - k.clamp(0.0, 1.0), tokens.max(1.0));
    ((body - experts).max(0.0) + head, experts * touched)
}

/// Fixed time, s, of a forward pass's block-scaled FP8 GEMMs outside the fused MoE kernel, beyond
/// the bytes they stream: the calls that reduce over the hidden size
/// ([`super::arch::hidden_gemm_calls`]) at [`super::engines::BLOCK_FP8_HIDDEN_GEMM_S`] each (at
/// the reference clock). Only for a block-quantized FP8 checkpoint served as FP8
/// (`fp8_weight_block`) by an engine that runs such checkpoints (vLLM, SGLang, TensorRT-LLM); 0
/// otherwise.
pub fn block_fp8_fixed_s(job: &LlmJob, engine: Engine) -> f64 {
    let m = &job.model;
    if m.fp8_weight_block == 0 || job.effective_precision() != Precision::Fp8 || !engine.continuous_batching() {
        return 0.0;
    }
    f64::from(m.hidden_gemms) * super::engines::BLOCK_FP8_HIDDEN_GEMM_S
}

/// Attention FLOPs of one decode token at context `ctx`, over all layers. Multi-head and GQA:
/// QKᵀ and PV, 4·heads·head_dim per cached token. Absorbed MLA (DeepSeek-V2 §2.1, as vLLM,
/// SGLang and FlashMLA run decode): every query head scores against the latent and the RoPE key
/// (2·(r + r_rope)) and mixes the latent (2·r), so 2·heads·(2·r + r_rope) per cached token.
pub fn decode_attention_flops(m: &ModelArch, ctx: f64) -> f64 {
    let heads = f64::from(m.attention_heads);
    let per_token = match m.attention {
        crate::catalog::Attention::Mla if m.kv_lora_rank > 0 => {
            2.0 * heads * (2.0 * f64::from(m.kv_lora_rank) + f64::from(m.qk_rope_head_dim))
        }
        _ => 4.0 * heads * f64::from(m.head_dim),
    };
    let layers = f64::from(m.kv_layers());
    let cached = match m.sliding_window {
        Some(w) if m.sliding_window_layers_fraction > 0.0 => {
            let f = m.sliding_window_layers_fraction.clamp(0.0, 1.0);
            (1.0 - f) * ctx + f * ctx.min(f64::from(w))
        }
        _ => ctx,
    };
    per_token * layers * cached
}

/// Requests the serving engine holds at once on `n` GPUs: the job's concurrency (`batch`), capped
/// by the KV pool left after weights, buffers and context (TensorRT-LLM: its free-memory fraction
/// of that) divided by one request's KV cache, counted as often as tensor parallelism replicates
/// it, and by the engine's scheduler limit.
pub fn serving_batch(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &Terms, layout: &Layout, n: u32) -> f64 {
    let nf = f64::from(n);
    let usable = usable_gib(gpu, engine, job) * nf;
    let fixed = terms.weights_gib + (terms.activations_gib + terms.context_gib) * nf + terms.slack_gib;
    let pool = (usable - fixed).max(0.0) * engine.kv_free_fraction() * GIB;
    let replicas = match *layout {
        Layout::Tensor(g) | Layout::Expert { attn_tp: g, .. } => tensor_kv_share(job, g) * f64::from(g),
        _ => 1.0,
    };
    let per_seq = kv_bytes(job, f64::from(job.prompt_tokens) + f64::from(job.output_tokens), 1.0).max(1.0) * replicas.max(1.0);
    let max_fit = (pool / per_seq).floor();
    // The requests actually in flight: the job's concurrency, no more than the pool holds and
    // the scheduler admits. A full pool is the throughput of a server the user did not ask for.
    // Under data-parallel attention some engines admit their limit in every attention group.
    let groups = if engine.limits_each_attention_group() { f64::from(layout.attention_groups()) } else { 1.0 };
    let cap = engine.max_batch(gpu).map_or(f64::INFINITY, |b| f64::from(b) * groups);
    max_fit.min(cap).min(f64::from(job.batch))
}

/// The efficiency factors a job runs with: its override, else the engine's on this family.
pub fn job_efficiency(job: &LlmJob, engine: Engine, gpu: &Gpu) -> Efficiency {
    job.efficiency.unwrap_or_else(|| {
        let e = efficiency(engine, GpuFamily::of(gpu));
        match super::backend::llama_cpp_decode(job, gpu, engine) {
            Some(b) => Efficiency { weight_bw: b.weight_bw, layer_ms: b.layer_ms, attention_bw: b.attention_bw, ..e },
            None => e,
        }
    })
}

/// All throughput figures of `job` on `n` GPUs laid out as `layout`.
pub fn throughput(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &Terms, layout: &Layout, n: u32) -> Throughput {
    if job.workload.is_training() {
        let step = train_step(job, gpu, terms, layout, n);
        let measured = GpuFamily::of(gpu) == GpuFamily::NvidiaHbm;
        // A mixture of experts trains below what its FLOPs say (an MoE's rows set its own band).
        let set = if job.model.is_moe() { &crate::model::bands::TRAINING_MOE } else { &crate::model::bands::TRAINING };
        return Throughput { train_tokens_per_s: Some(band(step.tokens_per_s, measured, set)), ..Throughput::default() };
    }
    let c = Ctx { job, gpu, engine, eff: job_efficiency(job, engine, gpu), layout: *layout };
    let measured = c.eff.measured;
    let b = f64::from(job.batch);
    let prompt = f64::from(job.prompt_tokens);
    let out = f64::from(job.output_tokens);
    let avg_ctx = (prompt + out / 2.0).min(f64::from(job.context_tokens));
    let step = c.decode_step(b, avg_ctx);
    let decode = 1.0 / step;
    let prefill = prompt / c.prefill_time(prompt, true);

    let batch = serving_batch(job, gpu, engine, terms, layout, n);
    let serving = if batch >= 1.0 {
        let t_step = c.decode_step(batch, prompt + out / 2.0);
        let t_prefill = prefill_share_s(job, gpu, engine, layout, prompt, batch);
        Some(serving_band(&job.model, batch * out / (out * t_step + batch * t_prefill)))
    } else {
        None
    };
    Throughput {
        decode_tokens_per_s: Some(band(decode, measured, &crate::model::bands::DECODE)),
        prefill_tokens_per_s: Some(band(prefill, measured, &crate::model::bands::PREFILL)),
        serving_tokens_per_s: serving,
        ..Throughput::default()
    }
}

/// Default training MFU on `family`, without recomputation: a fitted constant per family
/// ([`super::fit::LlmFit::train_mfu`]; MosaicML's MPT-7B on 8×H100 reaches 46%).
pub fn default_train_mfu(family: GpuFamily) -> f64 {
    super::in_force::with(|f| f.train_mfu(family))
}

/// Model-FLOPs MFU with full activation recomputation, as a share of the MFU without it, for a
/// full (6·N) training step: a fitted constant ([`super::fit::LlmFit::recompute_mfu_ratio`]).
/// Recomputing the forward pass adds 2·N of 6·N FLOPs (which alone would give 0.75), but the
/// larger micro-batches checkpointing allows run the GEMMs closer to peak: MosaicML's llm-foundry
/// table (scripts/train/benchmarking/README.md @061f2c7c) has MPT-7B on 8×H100 at 46.4% MFU
/// without and 40.4% with activation checkpointing, 0.87.
pub fn recompute_mfu_ratio() -> f64 {
    super::in_force::with(|f| f.recompute_mfu_ratio)
}

/// Time cost of one recomputed FLOP relative to one FLOP of the step, from
/// [`recompute_mfu_ratio`]: (1/r − 1) / (2/6) (0.447 at r = 0.87). LoRA's step is 4·N, so its
/// recomputed 2·N is half of it: its MFU ratio is 1 / (1 + 0.447 · 2/4) = 0.82.
pub fn recompute_flop_cost() -> f64 {
    (1.0 / recompute_mfu_ratio() - 1.0) / (2.0 / 6.0)
}

/// Model training FLOPs per token: 6·N (4·N for LoRA, whose frozen weights need no weight
/// gradients) plus 12·L·s·d_attn for attention (MosaicML's MFU definition). Recomputation is
/// not counted here: it shows up as a lower MFU ([`recompute_mfu_ratio`]).
pub fn train_flops_per_token(job: &LlmJob) -> f64 {
    let m = &job.model;
    let k = if job.workload.is_adapter() { 4.0 } else { 6.0 };
    k * m.active_compute_params() + train_attention_flops_per_token(job)
}

/// The attention part of [`train_flops_per_token`]: 12·L·s·d_attn (forward and backward of the
/// score and value products over a sequence of `seq_len`).
pub fn train_attention_flops_per_token(job: &LlmJob) -> f64 {
    12.0 * f64::from(job.model.layers) * f64::from(job.seq_len) * job.model.attention_width()
}

/// The sustained dense peak a training job computes at on `gpu`, TFLOPS. "fp32" follows
/// PyTorch's defaults ([`crate::model::numeric::Fp32Math::PytorchDefault`]): a transformer is
/// all matmuls, which run in strict FP32 unless TF32 is asked for (`tf32`). Every rate is
/// scaled by the card's sustained-clock factor, as the image and classic engines scale theirs.
pub fn train_peak_tflops(job: &LlmJob, gpu: &Gpu) -> f64 {
    use crate::model::numeric::{fp32_path_tflops, sustained_tensor_factor, Fp32Math};
    let peak = match job.effective_precision() {
        Precision::Fp32 => fp32_path_tflops(gpu, Fp32Math::PytorchDefault, 0.0),
        Precision::Tf32 => fp32_path_tflops(gpu, Fp32Math::Tf32, 0.0),
        Precision::Fp8 => gpu.train_16bit_tflops().map(|bf16| fp8_training_peak(job, gpu, bf16)),
        _ => gpu.train_16bit_tflops(),
    };
    peak.filter(|v| v.is_finite() && *v > 0.0).map_or(1.0, |p| p * sustained_tensor_factor(gpu))
}

/// The dense peak an FP8 training step computes at, TFLOPS, from the card's 16-bit rate `bf16`:
/// Transformer Engine (and MXFP8 on Blackwell) runs the linear layers' GEMMs in FP8 and the
/// attention core (FlashAttention) in 16 bits (NVIDIA Transformer Engine docs, "Using FP8 with
/// Transformer Engine": `te.Linear` and friends; `DotProductAttention` in BF16 by default). The
/// GEMMs gain the fitted share ([`super::fit::LlmFit::train_fp8_gain`]) of the card's FP8 over
/// 16-bit speed-up; the step's FLOPs then run at their time-weighted rate. A card without FP8
/// tensor cores stays at its 16-bit rate.
pub fn fp8_training_peak(job: &LlmJob, gpu: &Gpu, bf16: f64) -> f64 {
    let Some(fp8) = gpu.fp8_tflops.filter(|v| v.is_finite() && *v > bf16) else { return bf16 };
    let gain = super::in_force::with(|f| f.train_fp8_gain);
    let gemm_rate = bf16 * (1.0 + (fp8 / bf16 - 1.0) * gain);
    let total = train_flops_per_token(job);
    let attention = train_attention_flops_per_token(job);
    let gemm = (total - attention).max(0.0);
    total / (gemm / gemm_rate + attention / bf16)
}

/// The MFU a training job reaches on one GPU (model FLOPs over peak).
pub fn train_mfu(job: &LlmJob, gpu: &Gpu) -> f64 {
    let base = job.train_mfu.unwrap_or_else(|| default_train_mfu(GpuFamily::of(gpu)));
    if job.grad_checkpointing == Checkpointing::Full {
        let extra = if job.workload.is_adapter() { 2.0 / 4.0 } else { 2.0 / 6.0 };
        base / (1.0 + recompute_flop_cost() * extra)
    } else {
        base
    }
}

/// One optimizer step of a training job on `n` GPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainStep {
    /// Tokens per second over all GPUs.
    pub tokens_per_s: f64,
    /// Speed over `n` × one GPU's speed at the same micro-batch.
    pub scaling: f64,
    /// Communication per step, s, and the part of it not hidden behind compute.
    pub comm_s: f64,
    pub exposed_s: f64,
    /// The link the collectives run over (a mesh's data-parallel gradient reduction).
    pub link: Link,
    /// Share of the step a pipeline stage waits idle (the 1F1B bubble); 0 without pipelining.
    pub bubble: f64,
}

/// Training speed with its communication: data parallel layouts all-reduce the gradients once
/// per optimizer step (ZeRO-1/2: reduce-scatter + all-gather, the same bytes), overlapped with
/// the last micro-batch's backward pass; ZeRO-3/FSDP all-gathers the weights twice and
/// reduce-scatters the gradients every micro-batch, overlapped with its whole compute (Rajbhandari
/// et al. 2019 §7: 1.5× DDP's volume); a Megatron mesh is timed by [`mesh_step`].
pub fn train_step(job: &LlmJob, gpu: &Gpu, terms: &Terms, layout: &Layout, n: u32) -> TrainStep {
    let f = train_flops_per_token(job);
    let rate = train_peak_tflops(job, gpu) * 1e12 * train_mfu(job, gpu);
    let micro_tokens = f64::from(job.batch) * f64::from(job.seq_len);
    let accum = f64::from(super::parallel::micro_batches(job, n, n));
    let t_micro = micro_tokens * f / rate;
    let single = micro_tokens / t_micro;
    let port = node_port(job, gpu);
    let link = fabric::spread_link(gpu, n, n.min(fabric::node_gpus(gpu)), port);
    let nf = f64::from(n.max(1));
    let (tokens_per_s, comm_s, exposed_s) = match *layout {
        Layout::Single | Layout::Tensor(_) | Layout::LayerSplit(_) | Layout::Expert { .. } => (single, 0.0, 0.0),
        Layout::DataParallel { gpus, zero } => {
            let grad_bytes = train_grad_bytes(job);
            if zero >= 3 {
                let weights = terms.weights_gib * GIB;
                // Two all-gathers of the weights and one reduce-scatter of the gradients, each (n−1)/n of
                // its bytes: half an all-reduce of (2·W + G).
                let per_micro = fabric::allreduce_s(weights + grad_bytes / 2.0, gpus, &link);
                let exposed = (per_micro - t_micro).max(0.0) * accum;
                (nf * micro_tokens * accum / (t_micro * accum + exposed), per_micro * accum, exposed)
            } else {
                let comm = fabric::allreduce_s(grad_bytes, gpus, &link);
                let exposed = (comm - backward_share(job) * t_micro).max(0.0);
                (nf * micro_tokens * accum / (t_micro * accum + exposed), comm, exposed)
            }
        }
        Layout::Mesh(m) => {
            let s = mesh_step(job, gpu, &m, t_micro);
            return TrainStep { scaling: (s.tokens_per_s / (nf * single)).clamp(0.0, 1.0), ..s };
        }
    };
    let scaling = (tokens_per_s / (nf * single)).clamp(0.0, 1.0);
    TrainStep { tokens_per_s, scaling, comm_s, exposed_s, link, bubble: 0.0 }
}

/// The most tokens/s `layout` could reach on `n` GPUs if its communication were free (but for
/// an expert-parallel mesh's all-to-alls, which nothing hides): `n` × one GPU's speed
/// ([`train_single_tokens_per_s`]) times this share, less than 1 for a mesh's pipeline bubble
/// (`m / (m + (pp − 1)/v)`) and its stage's all-to-all time (`t_c / (t_c + t_ep)`, [`mesh_step`]).
/// The layout search skips a layout whose bound cannot pass the best found. `single` is
/// [`train_single_tokens_per_s`], which the search computes once.
pub fn train_bound_share(job: &LlmJob, gpu: &Gpu, layout: &Layout, single: f64) -> f64 {
    let Layout::Mesh(m) = layout else { return 1.0 };
    let mb = f64::from(m.micro_batches.max(1));
    let pipeline = mb / (mb + f64::from(m.pp.max(1) - 1) / f64::from(m.interleave.max(1)));
    if m.ep <= 1 {
        return pipeline;
    }
    let micro_tokens = f64::from(job.batch.max(1)) * f64::from(job.seq_len);
    let t_c = micro_tokens / single / f64::from(m.tp.max(1) * m.cp.max(1) * m.pp.max(1));
    let t_ep = mesh_expert_exchange_s(job, gpu, m, micro_tokens / f64::from(m.cp.max(1) * m.tp.max(1)), node_port(job, gpu));
    pipeline * t_c / (t_c + t_ep)
}

/// One GPU's training tokens/s at the job's micro-batch, communication aside.
pub fn train_single_tokens_per_s(job: &LlmJob, gpu: &Gpu) -> f64 {
    train_peak_tflops(job, gpu) * 1e12 * train_mfu(job, gpu) / train_flops_per_token(job)
}

/// Each GPU's node port, GB/s per direction: the job's own (`nic_gbit_s`) or the catalog's.
fn node_port(job: &LlmJob, gpu: &Gpu) -> f64 {
    job.nic_gbit_s.filter(|g| g.is_finite() && *g > 0.0).map_or_else(|| fabric::node_port_gb_s(gpu), |g| g / 8.0)
}

/// One optimizer step of a Megatron mesh (Narayanan et al. 2021, SC21), where `t_micro` is one
/// micro-batch's compute on one GPU:
/// - a stage computes `t_micro / (tp · cp · pp)` per micro-batch, plus its tensor-parallel
///   collectives (with sequence parallelism, an all-gather and a reduce-scatter of the
///   micro-batch's `b · s/cp · h` activations around attention and around the MLP, forward and
///   backward: 4 all-reduces' worth per layer, 6 with recomputation; Korthikanti et al. 2022 §4),
///   plus the context-parallel ring's KV exchange where it outlasts the attention it overlaps
///   (each rank passes its K and V chunk `cp − 1` times forward and twice that backward), plus
///   the point-to-point sends of activations and their gradients between stages, `v` times per
///   micro-batch when interleaved, over the node port when the next stage is in another node;
/// - the pipeline runs `m + (pp − 1)/v` stage times per step: `m` micro-batches and the
///   interleaved 1F1B bubble (§2.2);
/// - the distributed optimizer reduce-scatters the gradients and all-gathers the weights over
///   the `dp · cp` ranks that hold the same shard (one GPU per node when tensor parallelism fills
///   the node, so one port), overlapped with the last micro-batch's backward.
fn mesh_step(job: &LlmJob, gpu: &Gpu, m: &Mesh, t_micro: f64) -> TrainStep {
    let node = fabric::node_gpus(gpu).max(1);
    let port = node_port(job, gpu);
    let (tp, cp, pp, dp) = (m.tp.max(1), m.cp.max(1), m.pp.max(1), m.dp.max(1));
    let v = f64::from(m.interleave.max(1));
    let micro_tokens = f64::from(job.batch.max(1)) * f64::from(job.seq_len);
    let t_c = t_micro / f64::from(tp * cp * pp);
    let layers = f64::from(job.model.layers.max(1)) / f64::from(pp);
    let h = f64::from(job.model.hidden_size);
    let shard_tokens = micro_tokens / f64::from(cp);
    let t_tp = if tp > 1 {
        let passes = if job.grad_checkpointing == Checkpointing::Full { 6.0 } else { 4.0 };
        passes * layers * fabric::allreduce_s(shard_tokens * h * 2.0, tp, &fabric::group_link(gpu, tp))
    } else {
        0.0
    };
    let t_cp = if cp > 1 {
        let kv_bytes = shard_tokens * 2.0 * f64::from(job.model.kv_heads) * f64::from(job.model.head_dim) * 2.0 / f64::from(tp);
        let link = fabric::spread_link(gpu, cp, (node / tp).clamp(1, cp), port);
        let ring = 3.0 * f64::from(cp - 1) * layers * kv_bytes / (link.gb_s * 1e9);
        (ring - t_c * train_attention_flops_per_token(job) / train_flops_per_token(job)).max(0.0)
    } else {
        0.0
    };
    let t_p2p = if pp > 1 {
        let bytes = shard_tokens * h * 2.0 / f64::from(tp);
        let across = tp * cp * dp >= node;
        let gb_s = if across { port * fabric::NODE_LINK_EFFICIENCY } else { fabric::group_link(gpu, 2).gb_s };
        2.0 * v * bytes / (gb_s.max(1e-9) * 1e9)
    } else {
        0.0
    };
    let t_ep = mesh_expert_exchange_s(job, gpu, m, shard_tokens / f64::from(tp), port);
    let t_stage = t_c + t_tp + t_cp + t_p2p + t_ep;
    let mb = f64::from(m.micro_batches.max(1));
    let bubble_stages = f64::from(pp - 1) / v;
    let t_pipe = (mb + bubble_stages) * t_stage;
    let shard_group = dp * cp;
    let link = fabric::spread_link(gpu, shard_group, (node / tp).clamp(1, shard_group), port);
    let t_dp = mesh_gradient_sync_s(job, gpu, m, &link, port);
    let exposed_dp = (t_dp - backward_share(job) * t_c).max(0.0);
    let t_step = t_pipe + exposed_dp;
    let per_micro = t_tp + t_cp + t_p2p + t_ep;
    TrainStep {
        tokens_per_s: mb * micro_tokens * f64::from(dp) / t_step,
        scaling: 0.0,
        comm_s: mb * per_micro + t_dp,
        exposed_s: mb * per_micro + exposed_dp,
        link,
        bubble: bubble_stages * t_stage / t_step,
    }
}

/// Seconds per micro-batch a pipeline stage of mesh `m` spends moving tokens to their experts and
/// back, when each rank holds `tokens` of the micro-batch (its sequence-parallel shard): with
/// expert parallelism every MoE layer dispatches each token's hidden state to its `k` experts
/// and combines the results, forward, and the gradients of both backward (four all-to-alls;
/// six with full recomputation, which dispatches and combines again), in BF16, over the `ep`
/// consecutive ranks of the expert group ([`fabric::all_to_all_s`]: the scale-up fabric inside
/// a node, the node ports across). Not overlapped with compute (Megatron's all-to-all overlap
/// is an option the published runs do not all state). 0 without expert parallelism.
pub fn mesh_expert_exchange_s(job: &LlmJob, gpu: &Gpu, m: &Mesh, tokens: f64, port_gb_s: f64) -> f64 {
    if m.ep <= 1 {
        return 0.0;
    }
    let model = &job.model;
    let moe_layers = f64::from(model.layers.saturating_sub(model.dense_layers)) / f64::from(m.pp.max(1));
    let bytes = tokens * f64::from(model.experts_active) * f64::from(model.hidden_size) * 2.0;
    let passes = if job.grad_checkpointing == Checkpointing::Full { 6.0 } else { 4.0 };
    passes * moe_layers * fabric::all_to_all_s(gpu, bytes, m.ep, port_gb_s)
}

/// Seconds of mesh `m`'s gradient reduction per optimizer step (reduce-scatter and all-gather:
/// one all-reduce's bytes) over `link`, the `dp · cp` ranks that hold the same shard. With
/// expert parallelism the routed experts' gradients reduce apart, over the `tp · cp · dp / ep`
/// ranks that hold the same experts, `ep` ranks apart (so `node / ep` of them per node).
fn mesh_gradient_sync_s(job: &LlmJob, gpu: &Gpu, m: &Mesh, link: &fabric::Link, port_gb_s: f64) -> f64 {
    let (tp, cp, pp, dp) = (m.tp.max(1), m.cp.max(1), m.pp.max(1), m.dp.max(1));
    let grads = train_grad_bytes(job);
    if m.ep <= 1 {
        return fabric::allreduce_s(grads / f64::from(tp * pp), dp * cp, link);
    }
    let routed = (job.model.routed_expert_params() / job.model.params_total.max(1.0)).clamp(0.0, 1.0);
    let ranks = tp * cp * dp;
    let edp = (ranks / m.ep).max(1);
    let per_node = (fabric::node_gpus(gpu) / m.ep).clamp(1, edp);
    let expert_link = fabric::spread_link(gpu, edp, per_node, port_gb_s);
    fabric::allreduce_s(grads * (1.0 - routed) / f64::from(tp * pp), dp * cp, link)
        + fabric::allreduce_s(grads * routed / f64::from(m.ep * pp), edp, &expert_link)
}

/// Gradient bytes a data-parallel step reduces: 16-bit gradients of the trainable parameters
/// (fp32 for fp32 training, and for adapters kept in fp32 under mixed precision).
fn train_grad_bytes(job: &LlmJob) -> f64 {
    let trainable = if job.workload.is_adapter() { super::memory::lora_params(job) } else { job.model.params_total };
    let wide = matches!(job.precision, Precision::Fp32 | Precision::Tf32) || (job.workload.is_adapter() && job.master_weights);
    trainable * if wide { 4.0 } else { 2.0 }
}

/// Share of a micro-batch's compute that is backward (and so can hide the gradient
/// all-reduce): 4 of 6·N (2 of 4·N for LoRA), plus the recomputed forward with checkpointing.
fn backward_share(job: &LlmJob) -> f64 {
    let (fwd, bwd) = if job.workload.is_adapter() { (2.0, 2.0) } else { (2.0, 4.0) };
    let re = if job.grad_checkpointing == Checkpointing::Full { fwd } else { 0.0 };
    (bwd + re) / (fwd + bwd + re)
}

/// Multi-GPU training scaling of `job` on `n` GPUs laid out as `layout` (1 on one GPU).
pub fn scaling_efficiency(job: &LlmJob, gpu: &Gpu, terms: &Terms, layout: &Layout, n: u32) -> f64 {
    train_step(job, gpu, terms, layout, n).scaling
}

/// Adds the throughput assumptions to `out`.
pub fn describe(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &Terms, layout: &Layout, out: &mut Vec<Note>) {
    let family = GpuFamily::of(gpu);
    if job.workload.is_training() {
        describe_training(job, gpu, terms, layout, out);
        return;
    }
    let eff = job_efficiency(job, engine, gpu);
    out.push(Note::new(
        "decode: memory-bound roofline at {bw_pct}% of {bw} GB/s for weights, {layer_ms} ms per layer fixed, {tokens} tokens of context on average; prefill at {mfu}% MFU",
        vec![
            ("bw_pct", crate::decimal::fixed(weight_stream_fraction(gpu, engine, &eff) * 100.0, 0).into()),
            ("bw", crate::decimal::fixed(gpu.memory_bandwidth_gb_s, 0).into()),
            ("layer_ms", crate::decimal::fixed(eff.layer_ms * crate::model::numeric::cycle_time_factor(gpu) + engine.launch_layer_ms(job.cuda_graphs), 2).into()),
            ("tokens", (job.prompt_tokens + job.output_tokens / 2).to_string().into()),
            ("mfu", crate::decimal::fixed(prefill_gemm_shares(gpu, engine, super::backend::matrix_units_in_use(job, gpu, engine), false, &eff).0 * 100.0, 0).into()),
        ],
    ));
    let standing = super::engines::standing(engine, family);
    let note = match standing {
        super::engines::Standing::Fitted => "{engine} on {family} GPUs: fitted on this pair's published measurements; decode band {low}–{high} × the mid, from rows of other sources",
        super::engines::Standing::CrossValidated => "{engine} on {family} GPUs: factors from other pairs, checked on this pair's measurements; decode band {low}–{high} × the mid, from rows of other sources",
        super::engines::Standing::CarriedOver => "{engine} on {family} GPUs has no calibration rows: factors carried over; decode band {low}–{high} × the mid, as for a GPU family held out",
    };
    let set = crate::model::bands::DECODE;
    let (low, high) = if eff.measured { set.fitted } else { set.new_family };
    if job.efficiency.is_none() {
        out.push(Note::new(
            note,
            vec![
                ("engine", engine.as_str().into()),
                ("family", family.as_str().into()),
                ("low", crate::decimal::fixed(low, 2).into()),
                ("high", crate::decimal::fixed(high, 2).into()),
            ],
        ));
    }
    describe_serving_band(job, engine, out);
    match layout {
        Layout::LayerSplit(_) => {
            out.push(Note::plain("layer split: GPUs run one after another, so extra cards add memory, not decode speed"))
        }
        Layout::Tensor(_) => out.push(Note::new(
            "tensor parallel over {link}: each GPU streams its share of the weights; two all-reduces per layer",
            vec![("link", fabric::link_name(gpu, &fabric::group_link(gpu, n_of(layout))).to_string().into())],
        )),
        _ => {}
    }
}

/// Adds the serving assumptions to `out`: where the serving band comes from, and, for a
/// DeepSeek-style MoE (latent attention and routed experts), that published serving sweeps run
/// well below the estimate (docs/MODEL.md, "Serving under load").
fn describe_serving_band(job: &LlmJob, engine: Engine, out: &mut Vec<Note>) {
    if !engine.continuous_batching() {
        return;
    }
    // One band per estimate: a DeepSeek-style MoE names its widened band and why, instead of the
    // dense band it does not use.
    let (low, high) = serving_band_factors(&job.model);
    let args = vec![("low", crate::decimal::fixed(low, 2).into()), ("high", crate::decimal::fixed(high, 2).into())];
    out.push(if is_mla_moe(&job.model) {
        Note::new(
            "DeepSeek-style MoE with latent attention: published serving sweeps of other sources measure {low}–{high} × this estimate (the 10th–90th percentile of held-out rows); the model does not capture that gap yet",
            args,
        )
    } else {
        Note::new(
            "serving totals: band {low}–{high} × the mid, the 10th–90th percentile of published serving measurements held out of every fit",
            args,
        )
    });
    if is_mla_moe(&job.model) {
        let (low, high) = crate::model::bands::TTFT_MLA_MOE.fitted;
        out.push(Note::new(
            "DeepSeek-style MoE: published sweeps of other sources time its first token at {low}–{high} × this estimate",
            vec![("low", crate::decimal::fixed(low, 1).into()), ("high", crate::decimal::fixed(high, 1).into())],
        ));
    }
}

/// GPUs in a layout.
fn n_of(layout: &Layout) -> u32 {
    match *layout {
        Layout::Single => 1,
        Layout::Tensor(g) | Layout::LayerSplit(g) | Layout::DataParallel { gpus: g, .. } | Layout::Expert { gpus: g, .. } => g,
        Layout::Mesh(m) => m.gpus(),
    }
}

/// The training assumptions: FLOPs per token, MFU, recomputation, the link and the exposed
/// communication.
fn describe_training(job: &LlmJob, gpu: &Gpu, terms: &Terms, layout: &Layout, out: &mut Vec<Note>) {
    let n = n_of(layout);
    let step = train_step(job, gpu, terms, layout, n);
    let hours = job.train_tokens / step.tokens_per_s.max(1e-9) / 3600.0;
    let k = if job.workload.is_adapter() { 4 } else { 6 };
    out.push(Note::new(
        "training speed from {gflop} GFLOP per token ({k}·N + attention) at {mfu}% MFU{recompute}; {tokens} tokens take {hours} h",
        vec![
            ("gflop", crate::decimal::fixed(train_flops_per_token(job) / 1e9, 1).into()),
            ("k", k.to_string().into()),
            ("mfu", crate::decimal::fixed(train_mfu(job, gpu) * 100.0, 0).into()),
            (
                "recompute",
                if job.grad_checkpointing == Checkpointing::Full {
                    Note::plain(" (full recompute: measured MFU)").into()
                } else {
                    crate::model::types::Arg::from("")
                },
            ),
            ("tokens", crate::decimal::sci(job.train_tokens, 3).into()),
            ("hours", crate::decimal::fixed(hours, 1).into()),
        ],
    ));
    if n > 1 {
        out.push(Note::new(
            "{n} GPUs over {link} ({gb_s} GB/s each way): {comm} ms of traffic per step, {exposed} ms exposed, scaling {pct}%",
            vec![
                ("n", n.to_string().into()),
                ("link", fabric::link_name(gpu, &step.link).to_string().into()),
                ("gb_s", crate::decimal::fixed(step.link.gb_s, 0).into()),
                ("comm", crate::decimal::fixed(step.comm_s * 1e3, 0).into()),
                ("exposed", crate::decimal::fixed(step.exposed_s * 1e3, 0).into()),
                ("pct", crate::decimal::fixed(step.scaling * 100.0, 0).into()),
            ],
        ));
    }
    if job.model.is_moe() {
        let measured = GpuFamily::of(gpu) == GpuFamily::NvidiaHbm;
        let b = crate::model::bands::TRAINING_MOE;
        let (low, high) = if measured { b.fitted } else { b.new_family };
        out.push(Note::new(
            "mixture of experts: published training runs measure {low}–{high} × this estimate (the 10th–90th percentile of held-out rows); the model does not capture that gap yet",
            vec![("low", crate::decimal::fixed(low, 2).into()), ("high", crate::decimal::fixed(high, 2).into())],
        ));
    }
    if let Layout::Mesh(m) = layout {
        if m.pp > 1 {
            out.push(Note::new(
                "pipeline of {pp} stages: {m} micro-batches per step, the 1F1B bubble idles {pct}% of it",
                vec![
                    ("pp", m.pp.to_string().into()),
                    ("m", m.micro_batches.to_string().into()),
                    ("pct", crate::decimal::fixed(step.bubble * 100.0, 0).into()),
                ],
            ));
        }
    }
}
