//! Classic vision, NLP and speech sizing: memory against batch size, samples per second for
//! training and inference, data-parallel scaling over NVLink or PCIe, and the largest batch that
//! fits on a card.
//!
//! Inputs come from `data/classic.toml` (parameters and forward FLOPs of one sample at the default
//! input). Training memory is `params * (weights + gradients + optimizer bytes) + batch * activations
//! per sample`; a training step costs `3 * forward FLOPs` per sample (forward, input gradients,
//! weight gradients) at the effective rate of [`crate::model::media::effective_rate`]. Every constant
//! is written down, with its source, in `docs/MODEL.md`.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{ClassicSpec, Gpu, ModelKind};
use crate::model::fabric;
use crate::model::media::{self, band_half_width, effective_rate_with, KernelMix, Math, MediaFit, StackGain, ALLREDUCE_OVERLAP};
use crate::model::media_job::MediaWorkload;
use crate::model::numeric::Fp32Math;
use crate::model::precision::Precision;
use crate::model::types::{Arg, Band, Estimate, EstimateError, MemoryBreakdown, Note, Throughput, GIB};

/// DRAM bytes one optimizer step moves per parameter, hand count: the FP32 master weight read and
/// written (8), its FP32 gradient read (4), each optimizer state read and written (2 x
/// [`optimizer_bytes_per_param`]: AdamW 16, SGD momentum 8), and under AMP the FP16 copy written
/// (2). BERT-large with AdamW under AMP: 335.1 M x 30 B = 10.1 GB, 11 ms on a V100 (900 GB/s).
pub fn optimizer_step_bytes_per_param(spec: &ClassicSpec, precision: ClassicPrecision) -> f64 {
    let copy = if precision == ClassicPrecision::Amp { 2.0 } else { 0.0 };
    8.0 + 4.0 + 2.0 * optimizer_bytes_per_param(spec) + copy
}

/// DRAM-intensity multiplier of a convolutional network run in channels_last (NHWC) memory format
/// under AMP, against PyTorch's default NCHW. cuDNN's FP16 tensor-core convolutions work in NHWC, so
/// an NCHW network pays a layout transpose around every convolution (NVIDIA, "Deep Learning
/// Performance: Convolutional Layers", tensor layouts: "NCHW ... requires transposes"; PyTorch
/// "Channels Last Memory Format" tutorial). Set from one pair of one source: timm's RTX 3090 AMP
/// training benchmarks at PyTorch 1.12 give ResNet-50 1218.01 img/s in NHWC against 826.06 in NCHW
/// (x1.475, huggingface/pytorch-image-models `results/benchmark-train-amp-{nhwc,nchw}-pt112-cu113-
/// rtx3090.csv` @5e7d47ca); the multiplier reproduces that ratio with the calibrated constants
/// (`tests/classic.rs`). Checked, not fitted, on timm's ResNet-152 (x1.355 measured) and on NVIDIA
/// DeepLearningExamples' NHWC AMP ResNet-50 rows against Lambda's NCHW runs of the same code
/// (A100 2470 against 1582, V100 1200 against 833). ViT-B/16 moves by 0.5% in the same files: the
/// layout only matters to convolutions.
pub const CHANNELS_LAST_INTENSITY_GAIN: f64 = 1.72;

/// Fixed time per inference call, seconds.
pub const INFER_CALL_LATENCY_S: f64 = 0.0005;
/// Forward FLOPs per byte of activations saved for backward, 16-bit, convolutional networks.
/// ResNet-50 then keeps 48 MB per 224 px image, under the 51 MB per image that Lambda's largest AMP
/// batches imply (448 images on a 24 GiB RTX 3090, `training.csv`).
pub const CONV_SAVED_FLOP_PER_BYTE: f64 = 170.0;
/// The same for transformer encoders. BERT-large at 384 tokens then keeps 616 MB per sequence;
/// Korthikanti et al. (arXiv 2205.05198, eq. 1), `s h (34 + 5 a s / h)` bytes per layer, gives
/// 604 MB (24 layers, h 1024, a 16).
pub const TRANSFORMER_SAVED_FLOP_PER_BYTE: f64 = 400.0;
/// Inference keeps only the live tensors: this share of the training activations per sample.
pub const INFER_ACTIVATION_SHARE: f64 = 0.1;
/// Default batch cap when the caller gives none: training and inference.
pub const DEFAULT_TRAIN_BATCH: u32 = 256;
pub const DEFAULT_INFER_BATCH: u32 = 32;

/// Train or run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassicMode {
    Train,
    Infer,
}

impl ClassicMode {
    /// The mode a classic workload runs; None for a workload a classic network does not list
    /// ([`MediaKind::workloads`](crate::model::media_job::MediaKind::workloads)).
    pub fn for_workload(w: MediaWorkload) -> Option<ClassicMode> {
        match w {
            MediaWorkload::Training => Some(ClassicMode::Train),
            MediaWorkload::Inference => Some(ClassicMode::Infer),
            _ => None,
        }
    }
}

/// Number format: automatic mixed precision (FP16/BF16 math, FP32 master weights), FP32, or TF32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassicPrecision {
    Amp,
    Fp32,
    Tf32,
}

impl ClassicPrecision {
    /// FP16/BF16 mean AMP; FP32 and TF32 map to themselves; other formats are not classic.
    pub fn from_precision(p: Precision) -> Option<ClassicPrecision> {
        match p {
            Precision::Fp16 | Precision::Bf16 => Some(ClassicPrecision::Amp),
            Precision::Fp32 => Some(ClassicPrecision::Fp32),
            Precision::Tf32 => Some(ClassicPrecision::Tf32),
            _ => None,
        }
    }

    /// The arithmetic of a network whose FLOPs are `conv_share` convolutions, `winograd_share` of
    /// them 3×3 stride-1; `fp32` is the job's FP32 rule (TF32 always means TF32 for convolutions
    /// and matmuls).
    fn math(self, fp32: Fp32Math, conv_share: f64, winograd_share: f64) -> Math {
        match self {
            ClassicPrecision::Amp => Math::Half,
            ClassicPrecision::Fp32 => Math::Fp32 { mode: fp32, conv_share, winograd_share },
            ClassicPrecision::Tf32 => Math::Fp32 { mode: Fp32Math::Tf32, conv_share, winograd_share },
        }
    }

    fn activation_bytes(self) -> f64 {
        match self {
            ClassicPrecision::Amp => 2.0,
            ClassicPrecision::Fp32 | ClassicPrecision::Tf32 => 4.0,
        }
    }

    fn label(self) -> &'static str {
        match self {
            ClassicPrecision::Amp => "AMP (FP16/BF16)",
            ClassicPrecision::Fp32 => "FP32",
            ClassicPrecision::Tf32 => "TF32",
        }
    }
}

/// One classic training or inference job.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassicJob {
    /// Classic preset id.
    pub model: String,
    pub mode: ClassicMode,
    /// Global batch, split over the GPUs; `None` picks the largest that fits, capped at
    /// [`DEFAULT_TRAIN_BATCH`] / [`DEFAULT_INFER_BATCH`].
    pub batch: Option<u32>,
    pub precision: ClassicPrecision,
    /// Input side in pixels for vision presets (default: the preset's).
    pub input_px: Option<u32>,
    /// Input length in tokens for text and speech presets (default: the preset's).
    pub seq_len: Option<u32>,
    /// How [`ClassicPrecision::Fp32`] tensors are multiplied on cards with TF32 tensor cores
    /// (default: PyTorch's, TF32 convolutions and FP32 matmuls; NGC containers run
    /// [`Fp32Math::Tf32`]).
    pub fp32_math: Fp32Math,
    /// channels_last (NHWC) memory format for a convolutional network (default: PyTorch's NCHW).
    /// Only AMP runs are affected ([`CHANNELS_LAST_INTENSITY_GAIN`]; TF32 and FP32 have no
    /// measurement).
    pub channels_last: bool,
}

impl ClassicJob {
    /// The preset's defaults in `mode`: AMP, default input, automatic batch.
    pub fn for_spec(spec: &ClassicSpec, mode: ClassicMode) -> ClassicJob {
        ClassicJob {
            model: spec.id.clone(),
            mode,
            batch: None,
            precision: ClassicPrecision::Amp,
            input_px: None,
            seq_len: None,
            fp32_math: Fp32Math::PytorchDefault,
            channels_last: false,
        }
    }

    /// [`ClassicJob::for_spec`] for a preset id.
    pub fn new(model_id: &str, mode: ClassicMode) -> Result<ClassicJob, EstimateError> {
        lookup(model_id).map(|s| ClassicJob::for_spec(s, mode))
    }
}

fn lookup(model_id: &str) -> Result<&'static ClassicSpec, EstimateError> {
    crate::catalog::classic(model_id).ok_or_else(|| EstimateError::Unknown {
        field: "model",
        value: model_id.to_string(),
        suggestions: crate::catalog::nearest(model_id, crate::catalog::catalog().classic.iter().map(|c| c.id.as_str()))
            .into_iter()
            .map(str::to_string)
            .collect(),
    })
}

/// Transformer presets (the preset's `network = "transformer"`: the NLP and speech ones, ViT and
/// CLIP) use the transformer kernel mix and AdamW; the rest (`convnet`: ResNet, YOLO, Mask R-CNN)
/// the convolutional mix and SGD with momentum.
pub fn is_transformer(spec: &ClassicSpec) -> bool {
    spec.network == crate::catalog::schema::Network::Transformer
}

/// Share of the FLOPs in convolutions: all of them for the ConvNets (ResNet-50's one linear layer is
/// 4 MFLOPs of 8.18 GFLOPs), none for transformers (a ViT's patch embedding is one small
/// convolution).
pub fn conv_flop_share(spec: &ClassicSpec) -> f64 {
    if is_transformer(spec) {
        0.0
    } else {
        1.0
    }
}

/// The memory-traffic gain of the job's memory format: [`CHANNELS_LAST_INTENSITY_GAIN`] for a
/// convolutional network in channels_last under AMP, none otherwise.
fn layout_gain(job: &ClassicJob, spec: &ClassicSpec) -> StackGain {
    if job.channels_last && !is_transformer(spec) && job.precision == ClassicPrecision::Amp {
        StackGain { compute: 1.0, intensity: CHANNELS_LAST_INTENSITY_GAIN }
    } else {
        StackGain::EAGER
    }
}

fn mix(spec: &ClassicSpec) -> KernelMix {
    if is_transformer(spec) {
        KernelMix::Transformer
    } else {
        KernelMix::ConvNet
    }
}

/// Optimizer state bytes per parameter: AdamW two FP32 moments (8), SGD momentum one (4).
pub fn optimizer_bytes_per_param(spec: &ClassicSpec) -> f64 {
    if is_transformer(spec) {
        8.0
    } else {
        4.0
    }
}

/// How much bigger than the preset's default input the job's input is (FLOPs and activations scale
/// linearly with it: pixel count for vision, token count for text and speech).
fn input_scale(job: &ClassicJob, spec: &ClassicSpec) -> Result<f64, EstimateError> {
    if spec.scales_with == "pixels" {
        let base = f64::from(spec.input_px.unwrap_or(224).max(1));
        let px = match job.input_px {
            Some(px) if !(16..=8192).contains(&px) => {
                return Err(EstimateError::invalid("resolution", Note::new("input side must be between 16 and 8192 px, got {value}", vec![("value", px.to_string().into())])))
            }
            Some(px) => f64::from(px),
            None => base,
        };
        Ok((px / base).powi(2))
    } else {
        let base = f64::from(spec.seq_len.unwrap_or(512).max(1));
        let s = match job.seq_len {
            Some(s) if !(1..=65_536).contains(&s) => {
                return Err(EstimateError::invalid("seq_len", Note::new("must be between 1 and 65536 tokens, got {value}", vec![("value", s.to_string().into())])))
            }
            Some(s) => f64::from(s),
            None => base,
        };
        Ok(s / base)
    }
}

/// Forward GFLOPs of one sample at the job's input.
pub fn forward_gflops(job: &ClassicJob, spec: &ClassicSpec) -> Result<f64, EstimateError> {
    Ok(spec.forward_gflops * input_scale(job, spec)?)
}

/// Activation bytes per sample (saved for backward in training, live tensors in inference).
fn activation_bytes_per_sample(job: &ClassicJob, spec: &ClassicSpec) -> Result<f64, EstimateError> {
    let scale = input_scale(job, spec)?;
    let amp_bytes = match spec.activation_mib_per_sample {
        Some(mib) => mib * 1024.0 * 1024.0 * scale,
        None => {
            let per_byte = if is_transformer(spec) { TRANSFORMER_SAVED_FLOP_PER_BYTE } else { CONV_SAVED_FLOP_PER_BYTE };
            spec.forward_gflops * 1e9 * scale / per_byte
        }
    };
    let bytes = amp_bytes * job.precision.activation_bytes() / 2.0;
    Ok(match job.mode {
        ClassicMode::Train => bytes,
        ClassicMode::Infer => bytes * INFER_ACTIVATION_SHARE,
    })
}

/// Memory of one card holding `per_gpu_batch` samples (GiB by term).
fn memory_at(job: &ClassicJob, spec: &ClassicSpec, per_gpu_batch: f64) -> Result<MemoryBreakdown, EstimateError> {
    let params = spec.params_m * 1e6;
    let mut m = MemoryBreakdown::default();
    match job.mode {
        ClassicMode::Train => {
            // FP32 master weights, plus the FP16 copies autocast caches under AMP.
            let weight_bytes = if job.precision == ClassicPrecision::Amp { 6.0 } else { 4.0 };
            m.weights_gib = params * weight_bytes / GIB;
            m.gradients_gib = params * 4.0 / GIB;
            m.optimizer_gib = params * optimizer_bytes_per_param(spec) / GIB;
        }
        ClassicMode::Infer => {
            m.weights_gib = params * job.precision.activation_bytes() / GIB;
        }
    }
    m.activations_gib = per_gpu_batch * activation_bytes_per_sample(job, spec)? / GIB;
    let tensors = m.weights_gib + m.activations_gib + m.gradients_gib + m.optimizer_gib;
    m.overhead_gib = media::CONTEXT_GIB + media::FRAGMENTATION * tensors;
    m.total_gib = tensors + m.overhead_gib;
    Ok(m)
}

/// The largest per-card batch of `job` (ignoring `job.batch`) that fits in `gpu`'s memory; 0 when
/// not even one sample fits.
pub fn max_batch_that_fits(job: &ClassicJob, gpu: &Gpu) -> Result<u32, EstimateError> {
    let spec = lookup(&job.model)?;
    media::check_gpu(gpu)?;
    max_batch_for(job, spec, gpu)
}

fn max_batch_for(job: &ClassicJob, spec: &ClassicSpec, gpu: &Gpu) -> Result<u32, EstimateError> {
    // total(b) = fixed + b * slope is linear in b: solve, then step down past rounding.
    let fixed = memory_at(job, spec, 0.0)?.total_gib;
    let slope = memory_at(job, spec, 1.0)?.total_gib - fixed;
    if fixed > gpu.usable_memory_gib() || slope <= 0.0 {
        return Ok(0);
    }
    let guess = ((gpu.usable_memory_gib() - fixed) / slope).floor().clamp(0.0, 1.0e6);
    let mut b = guess as u32;
    while b > 0 && memory_at(job, spec, f64::from(b))?.total_gib > gpu.usable_memory_gib() {
        b -= 1;
    }
    Ok(b)
}

/// Resolves the global batch: the job's, or the largest that fits per card times `gpus`, capped.
fn resolve_batch(job: &ClassicJob, spec: &ClassicSpec, gpu: &Gpu, gpus: u32) -> Result<(u32, bool), EstimateError> {
    match job.batch {
        Some(b) if !(1..=1_000_000).contains(&b) => {
            Err(EstimateError::invalid("batch", crate::model::types::between("1".into(), "1000000".into(), b.to_string())))
        }
        Some(b) => Ok((b, false)),
        None => {
            let cap = match job.mode {
                ClassicMode::Train => DEFAULT_TRAIN_BATCH,
                ClassicMode::Infer => DEFAULT_INFER_BATCH,
            };
            let per_gpu = max_batch_for(job, spec, gpu)?.clamp(1, cap);
            Ok((per_gpu.saturating_mul(gpus), true))
        }
    }
}

/// Samples per second of `job` on `gpus` cards of `gpu` (training or inference) as a band, with
/// assumption lines.
fn rate_for(fit: &MediaFit, job: &ClassicJob, spec: &ClassicSpec, gpu: &Gpu, gpus: u32, batch: u32) -> Result<(Band, Vec<Note>), EstimateError> {
    let rate = effective_rate_with(fit, gpu, job.precision.math(job.fp32_math, conv_flop_share(spec), spec.winograd_flop_share.min(conv_flop_share(spec))), mix(spec), layout_gain(job, spec))?;
    let fwd_tflop = forward_gflops(job, spec)? / 1000.0;
    let per_gpu = f64::from(batch.div_ceil(gpus));
    let mut notes = Vec::new();
    let (step_s, flops_note) = match job.mode {
        ClassicMode::Train => {
            // The optimizer step streams every parameter's states once per step (bandwidth-bound).
            let optimizer_s = spec.params_m * 1e6 * optimizer_step_bytes_per_param(spec, job.precision) / (gpu.memory_bandwidth_gb_s * 1e9);
            (fit.train_step_latency_s + optimizer_s + per_gpu * 3.0 * fwd_tflop / rate.tflops, Note::plain("3x forward FLOPs per sample"))
        }
        ClassicMode::Infer => (INFER_CALL_LATENCY_S + per_gpu * fwd_tflop / rate.tflops, Note::plain("forward FLOPs per sample")),
    };
    let mut exposed = 0.0;
    if job.mode == ClassicMode::Train && gpus > 1 {
        let link = fabric::group_link(gpu, gpus);
        let comm = fabric::allreduce_s(spec.params_m * 1e6 * 4.0, gpus, &link);
        exposed = (comm - ALLREDUCE_OVERLAP * step_s).max(0.0);
        let eff = step_s / (step_s + exposed);
        notes.push(Note::new(
            "data parallel over {gpus} cards: FP32 gradient all-reduce over {link} ({gb_s} GB/s per direction), {ms} ms exposed per step, scaling efficiency {pct}%",
            vec![
                ("gpus", gpus.to_string().into()),
                ("link", fabric::link_name(gpu, &link).to_string().into()),
                ("gb_s", crate::decimal::fixed(link.gb_s, 0).into()),
                ("ms", crate::decimal::fixed(exposed * 1000.0, 0).into()),
                ("pct", crate::decimal::fixed(eff * 100.0, 0).into()),
            ],
        ));
    }
    let mid = per_gpu * f64::from(gpus) / (step_s + exposed);
    let w = band_half_width(rate.calibrated);
    notes.insert(
        0,
        Note::new(
            "{precision} on {tflops} effective TFLOPS per card ({peak} peak), {flops}",
            vec![
                ("precision", match job.precision {
                    ClassicPrecision::Amp => job.precision.label().into(),
                    ClassicPrecision::Fp32 => format!("FP32 ({})", job.fp32_math.label()).into(),
                    ClassicPrecision::Tf32 => format!("TF32 ({})", Fp32Math::Tf32.label()).into(),
                }),
                ("tflops", crate::decimal::fixed(rate.tflops, 1).into()),
                ("peak", crate::decimal::fixed(rate.peak_tflops, 0).into()),
                ("flops", flops_note.into()),
            ],
        ),
    );
    if layout_gain(job, spec) != StackGain::EAGER {
        notes.push(Note::plain("channels_last (NHWC) memory format: no layout transposes around the tensor-core convolutions"));
    }
    if !rate.calibrated {
        notes.push(Note::plain("no calibration rows for this card family: band widened to +/-35%"));
    }
    Ok((Band::around(mid, 1.0 - w, 1.0 + w), notes))
}

/// Samples per second of `job` (training or inference) on `gpus` cards, as a band.
pub fn classic_samples_per_s(job: &ClassicJob, gpu: &Gpu, gpus: u32) -> Result<Band, EstimateError> {
    classic_samples_per_s_with(&MediaFit::CALIBRATED, job, gpu, gpus)
}

/// [`classic_samples_per_s`] with the fitted constants `fit` (for cross-validation).
pub fn classic_samples_per_s_with(fit: &MediaFit, job: &ClassicJob, gpu: &Gpu, gpus: u32) -> Result<Band, EstimateError> {
    let spec = lookup(&job.model)?;
    check_gpus(gpus)?;
    let (batch, _) = resolve_batch(job, spec, gpu, gpus)?;
    Ok(rate_for(fit, job, spec, gpu, gpus, batch)?.0)
}

fn check_gpus(gpus: u32) -> Result<(), EstimateError> {
    if !(1..=1024).contains(&gpus) {
        return Err(EstimateError::invalid("gpus", crate::model::types::between("1".into(), "1024".into(), gpus.to_string())));
    }
    Ok(())
}

/// Sizes one classic training or inference job on `gpus` cards of `gpu` (data parallel; the batch
/// is global). Training fills `throughput.train_samples_per_s`; inference leaves every throughput
/// key null and states its samples per second in the assumptions (use [`classic_samples_per_s`] for
/// the number).
pub fn estimate_classic(job: &ClassicJob, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
    let spec = lookup(&job.model)?;
    check_gpus(gpus)?;
    media::check_gpu(gpu)?;
    input_scale(job, spec)?;
    let (batch, chosen) = resolve_batch(job, spec, gpu, gpus)?;
    let per_gpu = batch.div_ceil(gpus);
    let memory = memory_at(job, spec, f64::from(per_gpu))?;
    let (band, mut notes) = rate_for(&MediaFit::CALIBRATED, job, spec, gpu, gpus, batch)?;
    let mut throughput = Throughput::default();
    match job.mode {
        ClassicMode::Train => throughput.train_samples_per_s = Some(band),
        ClassicMode::Infer => notes.insert(
            0,
            Note::new(
                "inference: {mid} samples/s (band {low}-{high}) at batch {batch}",
                vec![
                    ("mid", crate::decimal::fixed(band.mid, 0).into()),
                    ("low", crate::decimal::fixed(band.low, 0).into()),
                    ("high", crate::decimal::fixed(band.high, 0).into()),
                    ("batch", batch.to_string().into()),
                ],
            ),
        ),
    }
    if job.mode == ClassicMode::Train {
        notes.push(Note::new(
            "{optimizer} with FP32 master weights and gradients; activations {mib} MiB per sample",
            vec![
                ("optimizer", if is_transformer(spec) { Arg::from("AdamW") } else { Note::plain("SGD with momentum").into() }),
                ("mib", crate::decimal::fixed(memory.activations_gib * 1024.0 / f64::from(per_gpu.max(1)), 1).into()),
            ],
        ));
    }
    if spec.kind == ModelKind::Speech && job.mode == ClassicMode::Infer {
        notes.push(Note::plain("speech inference counts one teacher-forced decoder pass; token-by-token decoding is slower"));
    }
    if chosen {
        notes.push(Note::new("batch {batch}: the largest that fits per card, capped at the default", vec![("batch", batch.to_string().into())]));
    }
    let max_fit = max_batch_for(job, spec, gpu)?;
    notes.push(Note::new(
        "largest batch that fits on one {gpu}: {batch}",
        vec![("gpu", gpu.name.as_str().into()), ("batch", max_fit.to_string().into())],
    ));
    let fits = memory.total_gib <= gpu.usable_memory_gib();
    let gpus_needed = if max_fit == 0 { 0 } else { batch.div_ceil(max_fit) };
    let total = memory.across(gpus);
    Ok(Estimate {
        model: spec.id.clone(),
        gpu: gpu.id.clone(),
        gpus,
        memory: total,
        per_gpu_gib: memory.total_gib,
        gpus_needed,
        fits,
        throughput,
        offload: None,
        assumptions: notes,
    })
}

/// Memory of one card for `job` at its batch (global batch split over `gpus`).
pub fn classic_memory(job: &ClassicJob, gpu: &Gpu, gpus: u32) -> Result<MemoryBreakdown, EstimateError> {
    let spec = lookup(&job.model)?;
    check_gpus(gpus)?;
    media::check_gpu(gpu)?;
    let (batch, _) = resolve_batch(job, spec, gpu, gpus)?;
    memory_at(job, spec, f64::from(batch.div_ceil(gpus)))
}
