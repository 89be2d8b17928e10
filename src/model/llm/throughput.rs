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

use super::engines::{efficiency, inference_peak_tflops, Efficiency, Engine, GpuFamily};
use super::memory::{kv_bytes, weight_bytes, Terms};
use super::parallel::{usable_gib, Layout};
use super::{Checkpointing, LlmJob};
use crate::catalog::{Gpu, Segment};
use crate::model::precision::Precision;
use crate::model::types::{Band, Note, Throughput, GIB};

/// Band half-widths: fitted pairs ±25% (decode) / ±30% (others); carried-over pairs ±35%.
fn band(mid: f64, measured: bool, decode: bool) -> Band {
    let w = if !measured {
        0.35
    } else if decode {
        0.25
    } else {
        0.30
    };
    Band::around(mid, 1.0 - w, 1.0 + w)
}

/// Link between GPUs of one job: (allreduce latency s, bandwidth bytes/s per direction).
fn link(gpu: &Gpu, n: u32) -> (f64, f64) {
    // NVLink bridges on GeForce/workstation cards only pair two GPUs.
    let nvlink_usable = gpu.nvlink && (gpu.segment == Segment::Datacenter || n <= 2);
    if nvlink_usable {
        let bw = gpu.nvlink_gb_s.unwrap_or(100.0) * 1e9 / 2.0;
        (8e-6, bw)
    } else {
        let pcie = match gpu.pcie_gen {
            Some(g) if g >= 5 => 50e9,
            Some(4) => 25e9,
            Some(_) => 12e9,
            None => 25e9,
        };
        // GeForce cards have no PCIe peer-to-peer: traffic bounces through host memory.
        let latency = if gpu.segment == Segment::Consumer { 40e-6 } else { 25e-6 };
        (latency, pcie)
    }
}

/// Data-parallel scaling efficiency η(n) = 1 / (1 + c·(n − 1)); c = 0.005 over NVLink (the
/// default MFU is already measured at scale: MosaicML's 8-GPU runs), 0.06
/// over PCIe with peer-to-peer, 0.2 over PCIe without it (GeForce), chosen so that two RTX
/// 4090s give ≈1.7× and seven ≈3.2× one card (seeds 004 and 000).
pub fn scaling_efficiency(gpu: &Gpu, n: u32) -> f64 {
    if n <= 1 {
        return 1.0;
    }
    let c = if gpu.nvlink && (gpu.segment == Segment::Datacenter || n <= 2) {
        0.005
    } else if gpu.segment == Segment::Consumer {
        0.2
    } else {
        0.06
    };
    1.0 / (1.0 + c * f64::from(n - 1))
}

struct Ctx<'a> {
    job: &'a LlmJob,
    gpu: &'a Gpu,
    engine: Engine,
    eff: Efficiency,
    layout: Layout,
    n: u32,
}

impl Ctx<'_> {
    fn quantized(&self) -> bool {
        self.job.bits_per_weight_override.is_some() || self.job.effective_precision().is_quantized()
    }

    fn bw(&self) -> f64 {
        self.gpu.memory_bandwidth_gb_s * 1e9
    }

    fn peak_flops(&self) -> f64 {
        inference_peak_tflops(self.gpu, self.engine, self.job.effective_precision() == Precision::Fp8) * 1e12
    }

    /// (divisor for per-GPU work, KV share per GPU, is sequential over GPUs).
    fn split(&self) -> (f64, f64) {
        match self.layout {
            Layout::Tensor(g) => {
                let kv = if matches!(self.job.model.attention, crate::catalog::Attention::Mla) {
                    1.0
                } else {
                    (1.0 / f64::from(g)).max(1.0 / f64::from(self.job.model.kv_heads.max(1)))
                };
                (f64::from(g), kv)
            }
            _ => (1.0, 1.0),
        }
    }

    /// Communication time per decode/prefill step for `tokens` tokens in flight, s.
    fn comm(&self, tokens: f64) -> f64 {
        let m = &self.job.model;
        match self.layout {
            Layout::Tensor(g) => {
                let (lat, bw) = link(self.gpu, g);
                let bytes = tokens * f64::from(m.hidden_size) * 2.0;
                let gf = f64::from(g);
                2.0 * f64::from(m.layers) * (lat + 2.0 * (gf - 1.0) / gf * bytes / bw)
            }
            Layout::LayerSplit(g) => f64::from(g - 1) * self.eff.hop_ms * 1e-3,
            _ => 0.0,
        }
    }

    /// Weight bytes a decode step reads with `tokens` sequences in the batch.
    fn weight_read_bytes(&self, tokens: f64) -> f64 {
        let m = &self.job.model;
        let (body, _embed, head) = weight_bytes(self.job);
        if !m.is_moe() {
            return body + head;
        }
        let bpp = if m.body_params() > 0.0 { body / m.body_params() } else { 2.0 };
        let experts = m.routed_expert_params() * bpp;
        let k = f64::from(m.experts_active) / f64::from(m.experts_total.max(1));
        // Expected fraction of experts a layer's `tokens` routed tokens touch.
        let touched = 1.0 - (1.0 - k.clamp(0.0, 1.0)).powf(tokens.max(1.0));
        (body - experts).max(0.0) + experts * touched + head
    }

    /// Seconds per decode step for `batch` sequences at average context `ctx`.
    fn decode_step(&self, batch: f64, ctx: f64) -> f64 {
        let m = &self.job.model;
        let (div, kv_share) = self.split();
        let wbw = self.bw() * self.eff.weight_bw * if self.quantized() { self.eff.quant_bw } else { 1.0 };
        let t_weights = self.weight_read_bytes(batch) / div / wbw;
        let t_kv = kv_bytes(self.job, ctx, batch) * kv_share / (self.bw() * self.eff.attention_bw);
        let flops = 2.0 * m.active_compute_params() * batch / div;
        let t_compute = flops / (self.peak_flops() * self.eff.decode_mfu);
        let t_fixed = f64::from(m.layers) * self.eff.layer_ms * 1e-3;
        t_weights + t_kv + t_compute + t_fixed + self.comm(batch)
    }

    /// Seconds to prefill one prompt of `tokens`.
    fn prefill_time(&self, tokens: f64, with_fixed: bool) -> f64 {
        let m = &self.job.model;
        let (div, _) = self.split();
        let peak = self.peak_flops() * self.eff.prefill_mfu;
        let q = if self.quantized() { self.eff.quant_prefill } else { 1.0 };
        let gemm = 2.0 * m.active_compute_params() * tokens / div / (peak * q);
        let attn = 2.0 * f64::from(m.layers) * tokens * tokens * m.attention_width() / div / (peak * self.eff.attention_flops);
        let fixed = if with_fixed { f64::from(m.layers) * self.eff.prefill_layer_ms * 1e-3 + self.comm(tokens) } else { 0.0 };
        gemm + attn + fixed
    }
}

/// All throughput figures of `job` on `n` GPUs laid out as `layout`.
pub fn throughput(job: &LlmJob, gpu: &Gpu, engine: Engine, terms: &Terms, layout: &Layout, n: u32) -> Throughput {
    let family = GpuFamily::of(gpu);
    if job.workload.is_training() {
        return Throughput { train_tokens_per_s: Some(train_band(job, gpu, family, n)), ..Throughput::default() };
    }
    let c = Ctx { job, gpu, engine, eff: efficiency(engine, family), layout: *layout, n };
    let measured = c.eff.measured;
    let b = f64::from(job.batch);
    let prompt = f64::from(job.prompt_tokens);
    let out = f64::from(job.output_tokens);
    let avg_ctx = (prompt + out / 2.0).min(f64::from(job.context_tokens));
    let step = c.decode_step(b, avg_ctx);
    let decode = 1.0 / step;
    let prefill = prompt / c.prefill_time(prompt, true);

    // Serving: KV pool left on the group after weights, buffers and context.
    let usable = usable_gib(gpu, engine) * f64::from(c.n);
    let fixed = terms.weights_gib + (terms.activations_gib + terms.context_gib) * f64::from(c.n) + terms.slack_gib;
    let pool = (usable - fixed).max(0.0) * GIB;
    let per_seq = kv_bytes(job, prompt + out, 1.0).max(1.0);
    let max_fit = (pool / per_seq).floor();
    let batch = match engine.max_batch() {
        Some(cap) => max_fit.min(f64::from(cap)),
        None => max_fit.min(b),
    };
    let serving = if batch >= 1.0 {
        let t_step = c.decode_step(batch, prompt + out / 2.0);
        let t_prefill = c.prefill_time(prompt, false);
        Some(band(batch * out / (out * t_step + batch * t_prefill), measured, false))
    } else {
        None
    };
    Throughput {
        decode_tokens_per_s: Some(band(decode, measured, true)),
        prefill_tokens_per_s: Some(band(prefill, measured, false)),
        serving_tokens_per_s: serving,
        ..Throughput::default()
    }
}

/// Default training MFU by family: 0.45 on NVIDIA HBM (MosaicML MPT-7B on 8×H100: 46%),
/// 0.40 on NVIDIA GDDR, 0.30 elsewhere.
pub fn default_train_mfu(family: GpuFamily) -> f64 {
    match family {
        GpuFamily::NvidiaHbm => 0.45,
        GpuFamily::NvidiaGddr => 0.40,
        _ => 0.30,
    }
}

/// Training FLOPs per token: 6·N (8·N with full recompute; 4·N for LoRA, whose frozen weights
/// need no weight gradients, +2·N with full recompute) plus 12·L·s·d_attn for attention.
pub fn train_flops_per_token(job: &LlmJob) -> f64 {
    let m = &job.model;
    let n = m.active_compute_params();
    let k = match (job.workload.is_adapter(), job.grad_checkpointing == Checkpointing::Full) {
        (false, false) => 6.0,
        (false, true) => 8.0,
        (true, false) => 4.0,
        (true, true) => 6.0,
    };
    k * n + 12.0 * f64::from(m.layers) * f64::from(job.seq_len) * m.attention_width()
}

fn train_band(job: &LlmJob, gpu: &Gpu, family: GpuFamily, n: u32) -> Band {
    let peak = match job.effective_precision() {
        Precision::Fp32 => gpu.fp32_tflops,
        Precision::Tf32 => gpu.tf32_tflops.or(gpu.fp32_tflops),
        _ => gpu.train_16bit_tflops(),
    }
    .filter(|v| v.is_finite() && *v > 0.0)
    .unwrap_or(1.0)
        * 1e12;
    let mfu = job.train_mfu.unwrap_or_else(|| default_train_mfu(family));
    let tokens = f64::from(n) * scaling_efficiency(gpu, n) * peak * mfu / train_flops_per_token(job);
    band(tokens, family == GpuFamily::NvidiaHbm, false)
}

/// Adds the throughput assumptions to `out`.
pub fn describe(job: &LlmJob, gpu: &Gpu, engine: Engine, layout: &Layout, out: &mut Vec<Note>) {
    let family = GpuFamily::of(gpu);
    if job.workload.is_training() {
        let mfu = job.train_mfu.unwrap_or_else(|| default_train_mfu(family));
        let n = match *layout {
            Layout::Single => 1,
            Layout::Tensor(g) | Layout::LayerSplit(g) | Layout::ModelParallel(g) | Layout::DataParallel { gpus: g, .. } => g,
        };
        let tps = train_band(job, gpu, family, n).mid;
        let hours = job.train_tokens / tps.max(1e-9) / 3600.0;
        let k = match (job.workload.is_adapter(), job.grad_checkpointing == Checkpointing::Full) {
            (false, false) => 6,
            (false, true) => 8,
            (true, false) => 4,
            (true, true) => 6,
        };
        out.push(Note::new(
            "training speed from {gflop} GFLOP per token ({k}·N + attention) at {mfu}% MFU, multi-GPU scaling {scaling}; {tokens} tokens take {hours} h",
            vec![
                ("gflop", format!("{:.1}", train_flops_per_token(job) / 1e9).into()),
                ("k", k.to_string().into()),
                ("mfu", format!("{:.0}", mfu * 100.0).into()),
                ("scaling", format!("{:.2}", scaling_efficiency(gpu, n)).into()),
                ("tokens", format!("{:.3e}", job.train_tokens).into()),
                ("hours", format!("{hours:.1}").into()),
            ],
        ));
        return;
    }
    let eff = efficiency(engine, family);
    out.push(Note::new(
        "decode: memory-bound roofline at {bw_pct}% of {bw} GB/s for weights, {layer_ms} ms per layer fixed, {tokens} tokens of context on average; prefill at {mfu}% MFU",
        vec![
            ("bw_pct", format!("{:.0}", eff.weight_bw * 100.0).into()),
            ("bw", format!("{:.0}", gpu.memory_bandwidth_gb_s).into()),
            ("layer_ms", format!("{:.2}", eff.layer_ms).into()),
            ("tokens", (job.prompt_tokens + job.output_tokens / 2).to_string().into()),
            ("mfu", format!("{:.0}", eff.prefill_mfu * 100.0).into()),
        ],
    ));
    if !eff.measured {
        out.push(Note::new(
            "{engine} on {family} GPUs has no calibration rows: factors carried over, band ±35%",
            vec![("engine", engine.as_str().into()), ("family", family.as_str().into())],
        ));
    }
    match layout {
        Layout::LayerSplit(_) => {
            out.push(Note::plain("layer split: GPUs run one after another, so extra cards add memory, not decode speed"))
        }
        Layout::Tensor(_) => out.push(Note::new(
            "tensor parallel over {link}: each GPU streams its share of the weights; two all-reduces per layer",
            vec![("link", if gpu.nvlink { "NVLink" } else { "PCIe" }.into())],
        )),
        _ => {}
    }
}
