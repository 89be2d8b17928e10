//! The hardware rate model that image generation, video generation and classic vision/NLP/speech
//! share, and the constants all three take: the fitted constants ([`MediaFit`]), kernel mixes,
//! effective rates, the card checks, CPU offload and the memory overheads.
//!
//! The rate model turns a card's datasheet figures into effective TFLOPS with an additive roofline,
//! `1 / eff = 1 / (eta * peak) + 1 / (intensity * bandwidth)`: a compute term at a fraction `eta` of
//! the dense tensor peak, plus a memory term for a kernel mix that moves one byte of DRAM traffic
//! per `intensity` FLOPs (Williams, Waterman and Patterson, "Roofline", CACM 52(4), 2009, with the
//! two limits added instead of taking the minimum, because real networks alternate between
//! compute-bound and memory-bound kernels). The peak is the sustained one
//! ([`crate::model::numeric::sustained_tensor_factor`]) of the arithmetic the job really runs
//! ([`crate::model::numeric::Fp32Math`] for FP32 tensors). The fitted constants ([`MediaFit`]) were
//! fitted on the published rows of `tests/data/calibration/` (diffusion, training, and the timed video rows,
//! which read the same large-L2 factor and VAE/text-encoder rates);
//! `docs/MODEL.md` ("Image generation and classic workloads") gives the fit, the error tables and
//! the cross-validation.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{Gpu, Segment, Vendor};
use crate::model::numeric::{self, Fp32Math};
use crate::model::types::{check_range, EstimateError};

/// Every constant of the media engines that was fitted to measurements (the rest of the physics
/// has a datasheet, a paper or a hand count behind it). [`MediaFit::CALIBRATED`] holds the values
/// fitted on all rows of `tests/data/calibration/` (`docs/MODEL.md`, "Calibration");
/// the accuracy harness (`src/accuracy/media.rs`) refits them inside every cross-validation fold
/// through the `*_with` functions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MediaFit {
    /// Share of the (sustained) dense 16-bit tensor peak that compute-bound kernels reach.
    pub eta_tensor_16: f64,
    /// The same for TF32 tensor math and FP32 vector math.
    pub eta_32: f64,
    /// FP32 activations move twice the bytes of 16-bit ones: intensity divisor for TF32/FP32 runs.
    pub fp32_intensity_divisor: f64,
    /// Effective DRAM bandwidth multiplier of large-L2 cards (Ada: 72 MB on AD102 against 6 MB on
    /// GA102, NVIDIA Ada GPU architecture whitepaper, table 1).
    pub large_l2_bandwidth_factor: f64,
    /// FLOPs per byte of DRAM traffic with 16-bit activations: diffusion denoisers.
    pub intensity_diffusion: f64,
    /// The same for convolutional networks with batch norm.
    pub intensity_convnet: f64,
    /// The same for transformer encoders.
    pub intensity_transformer: f64,
    /// Per-step launch latency of an eager diffusers pipeline for an 0.86 B UNet, seconds.
    pub eager_step_latency_s: f64,
    /// Fixed time per classic training step (optimizer, launches, loss scaling), seconds.
    pub train_step_latency_s: f64,
}

impl MediaFit {
    /// The fitted values (docs/MODEL.md, "Calibration").
    pub const CALIBRATED: MediaFit = MediaFit {
        eta_tensor_16: 0.796,
        eta_32: 0.796,
        fp32_intensity_divisor: 1.795,
        large_l2_bandwidth_factor: 1.29,
        intensity_diffusion: 83.4,
        intensity_convnet: 29.8,
        intensity_transformer: 68.75,
        eager_step_latency_s: 0.0156,
        train_step_latency_s: 0.0099,
    };

    /// FLOPs per byte of DRAM traffic of `mix` with 16-bit activations.
    pub fn intensity(&self, mix: KernelMix) -> f64 {
        match mix {
            KernelMix::Diffusion => self.intensity_diffusion,
            KernelMix::ConvNet => self.intensity_convnet,
            KernelMix::Transformer => self.intensity_transformer,
        }
    }
}

/// Compute efficiency on 16-bit tensor math ([`MediaFit::CALIBRATED`]).
pub const ETA_TENSOR_16: f64 = MediaFit::CALIBRATED.eta_tensor_16;
/// Compute efficiency on TF32 tensor math or FP32 vector math ([`MediaFit::CALIBRATED`]).
pub const ETA_32: f64 = MediaFit::CALIBRATED.eta_32;
/// Intensity divisor of TF32/FP32 runs ([`MediaFit::CALIBRATED`]).
pub const FP32_INTENSITY_DIVISOR: f64 = MediaFit::CALIBRATED.fp32_intensity_divisor;
/// Large-L2 bandwidth multiplier ([`MediaFit::CALIBRATED`]).
pub const LARGE_L2_BANDWIDTH_FACTOR: f64 = MediaFit::CALIBRATED.large_l2_bandwidth_factor;

/// Fixed time per training step (optimizer kernels, launches, loss scaling), seconds
/// ([`MediaFit::CALIBRATED`]).
pub const TRAIN_STEP_LATENCY_S: f64 = MediaFit::CALIBRATED.train_step_latency_s;
/// Share of a step's compute that hides the gradient all-reduce (PyTorch DDP overlaps bucketed
/// all-reduces with the backward pass, about two thirds of the step; Li et al., "PyTorch
/// Distributed", VLDB 13(12), 2020).
pub const ALLREDUCE_OVERLAP: f64 = 0.6;

/// CUDA context, cuBLAS/cuDNN workspaces and allocator reserve, in GiB (PyTorch's context alone is
/// 0.3-0.5 GiB; `torch.cuda.memory_reserved` adds the caching allocator's slack).
pub const CONTEXT_GIB: f64 = 0.75;
/// Allocator fragmentation on top of tensors, as a fraction of them.
pub const FRAGMENTATION: f64 = 0.08;
/// Live channel-equivalents per output pixel during VAE decode, hand count: at full resolution the
/// last up block holds a 256-channel input, its 256-channel GroupNorm output and two 128-channel
/// conv outputs (768), doubled for cuDNN workspaces and allocator slack.
pub const VAE_DECODE_LIVE_CHANNELS: f64 = 1536.0;
/// Effective CPU throughput for text encoders run on the host, in TFLOPS (a 16-core AVX2 desktop).
pub const CPU_TFLOPS: f64 = 0.5;

/// How a network's kernels trade FLOPs for DRAM traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelMix {
    /// Diffusion UNets and DiTs: convolutions, GroupNorm, attention (intensity in [`MediaFit`]).
    Diffusion,
    /// Convolutional networks with batch norm (ResNet, YOLO, Mask R-CNN).
    ConvNet,
    /// Transformer encoders (BERT, ViT, Whisper, CLIP).
    Transformer,
}

impl KernelMix {
    /// FLOPs per byte of DRAM traffic with 16-bit activations ([`MediaFit::CALIBRATED`]).
    pub fn intensity_flop_per_byte(self) -> f64 {
        MediaFit::CALIBRATED.intensity(self)
    }
}

/// Which arithmetic a job runs on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Math {
    /// FP16/BF16 tensor math (AMP, half-precision inference).
    Half,
    /// FP8 tensor math (only with TensorRT on cards that have it).
    Fp8,
    /// FP32 tensors: convolutions and matmuls in TF32 or strict FP32 as `mode` says
    /// ([`crate::model::numeric::fp32_path_tflops_winograd`]); `conv_share` is the share of the
    /// FLOPs in convolutions, `winograd_share` the share in 3×3 stride-1 convolutions.
    Fp32 { mode: Fp32Math, conv_share: f64, winograd_share: f64 },
}

impl Math {
    /// TF32 for convolutions and matmuls.
    pub const TF32: Math = Math::Fp32 { mode: Fp32Math::Tf32, conv_share: 0.5, winograd_share: 0.0 };
}

/// A software stack's gain over plain PyTorch eager: on compute efficiency and on memory traffic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StackGain {
    pub compute: f64,
    pub intensity: f64,
}

impl StackGain {
    /// PyTorch eager: the calibration baseline.
    pub const EAGER: StackGain = StackGain { compute: 1.0, intensity: 1.0 };
}

/// Effective throughput of one card for one kernel mix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Effective TFLOPS.
    pub tflops: f64,
    /// True when the card's family has calibration rows (Volta, Turing, Ampere, Ada).
    pub calibrated: bool,
    /// The sustained peak the compute term used (datasheet peak × sustained-clock factor), in TFLOPS.
    pub peak_tflops: f64,
}

/// True for families with published calibration rows (V100, T4, A100, RTX 3090, RTX 4090).
pub fn family_calibrated(gpu: &Gpu) -> bool {
    gpu.vendor == Vendor::Nvidia && matches!(gpu.architecture.as_str(), "Volta" | "Turing" | "Ampere" | "Ada Lovelace")
}

/// True for cards with a large L2 (Ada, GeForce Blackwell): [`MediaFit::large_l2_bandwidth_factor`].
pub fn large_l2(gpu: &Gpu) -> bool {
    gpu.vendor == Vendor::Nvidia
        && (gpu.architecture == "Ada Lovelace" || (gpu.architecture == "Blackwell" && gpu.segment != Segment::Datacenter))
}

/// The headline dense 16-bit tensor rate: FP16 with FP16 accumulate where the datasheet gives one
/// (GeForce), else FP16, else BF16. Normalising by the headline rather than the half-rate
/// FP32-accumulate figure fits the measured RTX 3090/4090 rows far better (docs/MODEL.md).
pub fn headline_16bit_tflops(gpu: &Gpu) -> Option<f64> {
    gpu.fp16_acc16_tflops.or(gpu.fp16_tflops).or(gpu.bf16_tflops).filter(|v| v.is_finite() && *v > 0.0)
}

/// Checks the card figures the media engine reads, naming the bad one.
pub fn check_gpu(gpu: &Gpu) -> Result<(), EstimateError> {
    check_range("gpu.memory_gib", gpu.memory_gib, 0.5, 100_000.0)?;
    check_range("gpu.memory_bandwidth_gb_s", gpu.memory_bandwidth_gb_s, 1.0, 1.0e6)?;
    for (field, v) in [
        ("gpu.fp32_tflops", gpu.fp32_tflops),
        ("gpu.tf32_tflops", gpu.tf32_tflops),
        ("gpu.fp16_tflops", gpu.fp16_tflops),
        ("gpu.fp16_acc16_tflops", gpu.fp16_acc16_tflops),
        ("gpu.bf16_tflops", gpu.bf16_tflops),
        ("gpu.fp8_tflops", gpu.fp8_tflops),
    ] {
        if let Some(v) = v {
            check_range(field, v, 0.001, 1.0e6)?;
        }
    }
    if headline_16bit_tflops(gpu).is_none() && gpu.fp32_tflops.is_none() {
        return Err(EstimateError::invalid("gpu", "the card has neither a 16-bit nor an FP32 rate in the catalog"));
    }
    Ok(())
}

/// Effective TFLOPS of `gpu` on `math` for a `mix` of kernels under a stack's `gain`, with the
/// calibrated constants ([`effective_rate_with`]).
pub fn effective_rate(gpu: &Gpu, math: Math, mix: KernelMix, gain: StackGain) -> Result<Rate, EstimateError> {
    effective_rate_with(&MediaFit::CALIBRATED, gpu, math, mix, gain)
}

/// Effective TFLOPS of `gpu` on `math` for a `mix` of kernels under a stack's `gain` and the
/// fitted constants `fit`.
///
/// `1 / eff = 1 / (eta * peak * sustain) + 1 / (intensity * gain * bandwidth * l2)`; see the module
/// doc. `sustain` is [`numeric::sustained_tensor_factor`] (the card's power budget against its
/// architecture's flagship). FP32 tensors run at [`numeric::fp32_path_tflops`]: TF32 or FP32 per
/// convolution and matmul as the mode says. Cards without the requested tensor rate fall back: FP8
/// to 16-bit, 16-bit to FP32 vector math, FP32 (Gaudi) to a quarter of the 16-bit rate.
pub fn effective_rate_with(fit: &MediaFit, gpu: &Gpu, math: Math, mix: KernelMix, gain: StackGain) -> Result<Rate, EstimateError> {
    check_gpu(gpu)?;
    let half = headline_16bit_tflops(gpu);
    let fp32 = gpu.fp32_tflops.filter(|v| v.is_finite() && *v > 0.0);
    // (peak, eta, intensity divisor)
    let (peak, eta, divisor) = match math {
        Math::Fp8 => match (gpu.fp8_tflops, half) {
            (Some(p), _) => (p, fit.eta_tensor_16, 1.0),
            (None, Some(p)) => (p, fit.eta_tensor_16, 1.0),
            (None, None) => (fp32.unwrap_or(0.0), fit.eta_32, fit.fp32_intensity_divisor),
        },
        Math::Half => match half {
            Some(p) => (p, fit.eta_tensor_16, 1.0),
            // No tensor cores (Pascal, Apple in this catalog): 16-bit runs at the FP32 vector rate.
            None => (fp32.unwrap_or(0.0), fit.eta_32, 1.0),
        },
        Math::Fp32 { mode, conv_share, winograd_share } => match numeric::fp32_path_tflops_winograd(gpu, mode, conv_share, winograd_share) {
            Some(p) => (p, fit.eta_32, fit.fp32_intensity_divisor),
            None => (half.unwrap_or(0.0) / 4.0, fit.eta_32, fit.fp32_intensity_divisor),
        },
    };
    if !(peak.is_finite() && peak > 0.0) {
        return Err(EstimateError::invalid("gpu", "the card has no usable compute rate in the catalog"));
    }
    let sustain = numeric::sustained_tensor_factor(gpu);
    let l2 = if large_l2(gpu) { fit.large_l2_bandwidth_factor } else { 1.0 };
    let compute_tflops = (eta * gain.compute).min(0.95) * peak * sustain;
    let intensity = fit.intensity(mix) / divisor * gain.intensity;
    // intensity [FLOP/B] * bandwidth [GB/s] / 1000 = TFLOPS.
    let memory_tflops = intensity * gpu.memory_bandwidth_gb_s * l2 / 1000.0;
    let tflops = 1.0 / (1.0 / compute_tflops + 1.0 / memory_tflops);
    Ok(Rate { tflops, calibrated: family_calibrated(gpu), peak_tflops: peak * sustain })
}

/// Half-width of a band: 25% where the family and stack are calibrated, 35% otherwise.
pub fn band_half_width(calibrated: bool) -> f64 {
    if calibrated {
        0.25
    } else {
        0.35
    }
}

/// Diffusers' CPU-offload modes (`enable_model_cpu_offload` and `enable_sequential_cpu_offload`),
/// and Wan's `--offload_model`, which is the `model` mode (docs/MODEL.md, "Video generation").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffloadMode {
    /// Every component stays on the GPU.
    None,
    /// One whole component (text encoder, denoiser, VAE) on the GPU at a time.
    Model,
    /// Weights stream to the GPU layer by layer on every forward pass.
    Sequential,
}

impl OffloadMode {
    /// Every mode, in the order the CLI and the form list them.
    pub const ALL: [OffloadMode; 3] = [OffloadMode::None, OffloadMode::Model, OffloadMode::Sequential];

    /// The CLI and URL value (a contract: `none`, `model`, `sequential`).
    pub fn as_str(self) -> &'static str {
        match self {
            OffloadMode::None => "none",
            OffloadMode::Model => "model",
            OffloadMode::Sequential => "sequential",
        }
    }

    /// The mode with this CLI/URL value.
    pub fn parse(s: &str) -> Option<OffloadMode> {
        OffloadMode::ALL.into_iter().find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

/// Share of the PCIe x16 per-direction rate that host-to-GPU weight copies reach under offloading:
/// accelerate's hooks copy from pageable memory, which CUDA stages through a pinned buffer (NVIDIA,
/// "How to Optimize Data Transfers in CUDA C/C++": pageable copies reach about half the pinned rate).
/// An assumption, not calibrated.
pub const HOST_COPY_EFFICIENCY: f64 = 0.5;

/// Host-to-GPU copy rate under offloading, bytes per second.
pub fn host_copy_bytes_per_s(gpu: &Gpu) -> f64 {
    crate::model::fabric::pcie_gb_s(gpu) * 1e9 * HOST_COPY_EFFICIENCY
}

/// One phase of a generation pipeline: the weights it needs on the GPU, its working set, and the
/// layers its weights split into (what sequential offload streams one at a time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    pub weights_bytes: f64,
    pub work_bytes: f64,
    pub layers: f64,
}

/// Resident weights and working set at the memory peak of a pipeline run in `mode`.
///
/// `none`: every phase's weights plus the largest working set. `model`: the phase whose weights
/// plus working set are largest (diffusers moves each component to the GPU when it runs).
/// `sequential`: the largest single layer of any phase plus the largest working set.
pub fn offload_peak(mode: OffloadMode, phases: &[Phase]) -> (f64, f64) {
    let max_work = phases.iter().map(|p| p.work_bytes).fold(0.0, f64::max);
    match mode {
        OffloadMode::None => (phases.iter().map(|p| p.weights_bytes).sum(), max_work),
        OffloadMode::Model => phases
            .iter()
            .map(|p| (p.weights_bytes, p.work_bytes))
            .fold((0.0, 0.0), |best, p| if p.0 + p.1 > best.0 + best.1 { p } else { best }),
        OffloadMode::Sequential => (phases.iter().map(|p| p.weights_bytes / p.layers.max(1.0)).fold(0.0, f64::max), max_work),
    }
}
