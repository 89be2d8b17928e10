//! Image-generation sizing: memory and seconds per image for a diffusion pipeline on a card, and
//! the memory and speed of fine-tuning one (DreamBooth, full, LoRA).
//!
//! Inputs come from the presets in `data/diffusion.toml` (component sizes, FLOPs of one denoiser
//! pass at the native resolution and its attention share). Time per image is
//! `steps * (L + n * F_step(r) / eff) / batch + VAE + text encoders`, with `n = batch * (2 if CFG)`,
//! `F_step(r) = F_native * ((1 - a) r + a r^2)` (r = pixels / native pixels, a = attention share),
//! `eff` from [`crate::model::media::effective_rate`] and `L` a fixed per-step launch latency that
//! a bigger batch amortises. Memory is the resident weights plus the larger of the denoising and
//! the VAE-decode working sets. Every constant is written down, with its source, in `docs/MODEL.md`.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{DiffusionSpec, Gpu};
use crate::model::media::{
    self, band_half_width, effective_rate, effective_rate_with, offload_peak, KernelMix, Math, MediaFit, OffloadMode, Phase, StackGain,
    ALLREDUCE_OVERLAP, CONTEXT_GIB, CPU_TFLOPS, FRAGMENTATION, TRAIN_STEP_LATENCY_S, VAE_DECODE_LIVE_CHANNELS,
};
use crate::model::media_job::MediaWorkload;
use crate::model::numeric::Fp32Math;
use crate::model::precision::Precision;
use crate::model::types::{check_count, Arg, Band, Estimate, EstimateError, MemoryBreakdown, Note, Throughput, GIB};

/// Per-step launch latency of a diffusers eager pipeline for an 0.86 B UNet, in seconds
/// ([`MediaFit::CALIBRATED`]): the intercept of step time against batch. Scales with
/// sqrt(denoiser params).
pub const EAGER_STEP_LATENCY_S: f64 = MediaFit::CALIBRATED.eager_step_latency_s;
/// Extra band half-width per unit of launch-latency share of a generation's time. The per-step
/// launch latency is host-bound (CPU, driver, PyTorch version), not a card property, and the data
/// say its uncertainty is real: the two diffusers tables that time SD 1.5 denoising at batch 1 on
/// an A100 40GB disagree by 34% (2.308 s in `torch2.0.mdx` @07dc8feb, 1.724 s in `fp16.mdx`
/// @75d53cc8; `tests/data/calibration/`), a log spread of 0.292, where the model puts the launch
/// latency at 0.485 of the time: half the spread per unit share, 0.146 / 0.485 = 0.30. (Their T4
/// pair, 7.246 s against 9.091 s, is 25% apart at a launch share of 0.15: most of that spread is
/// not launch latency, and it is not widened for.) Batch 16 adds about 1.5 points, batch 1 on a
/// fast card about 15.
pub const LAUNCH_BAND_EXTRA: f64 = 0.3;
/// Live channel-equivalents per latent position while the denoiser runs (inference), hand count:
/// SD 1.5 at 64x64 latents keeps 1,600 channels of skip connections plus a 2,560-wide GEGLU and
/// three 320-wide residual tensors in its first transformer block, about 5,000 in all.
pub const DENOISE_LIVE_CHANNELS: f64 = 5000.0;
/// Saved activations of a UNet for backward, FLOPs of the forward pass per byte saved. Hand count for
/// SD 1.5 at 512 px: about 1 GB per sample in 16 bits (transformer blocks at 4096 tokens about
/// 20 kB per token each, ResNet blocks six 320-channel maps) against 0.80 TFLOPs.
pub const UNET_SAVED_FLOP_PER_BYTE: f64 = 800.0;
/// Share of activations kept with gradient checkpointing: block inputs only (2 of 34 bytes per
/// token and channel in Korthikanti et al., arXiv 2205.05198, eq. 1) plus one block's recompute.
pub const CHECKPOINT_KEEP: f64 = 0.12;
/// LoRA adapter size as a share of the denoiser's parameters (rank 16 on the attention projections).
pub const LORA_PARAM_SHARE: f64 = 0.005;
/// Blocks a UNet's weights split into under sequential offload (SD's 12 down, 1 mid and 12 up
/// ResNet/attention blocks, about 25).
pub const UNET_OFFLOAD_BLOCKS: f64 = 25.0;
/// Image-to-image strength of the SDXL refiner in diffusers (`strength = 0.3`): it runs this share
/// of the steps.
pub const REFINER_STEP_SHARE: f64 = 0.3;

/// Where the denoiser's attention happens and how wide the network is, from the preset's fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Image tokens at the first attention level = latent positions / this.
    pub token_divisor: f64,
    /// Text tokens that join the image tokens in joint attention (MMDiT).
    pub joint_text_tokens: f64,
    /// Heads at the first attention level.
    pub heads: f64,
    /// Transformer width for DiTs (saved activations 34 * width bytes per token and block); 0 for UNets.
    pub dit_width: f64,
    /// DiT blocks.
    pub dit_blocks: f64,
}

/// The attention geometry of a preset: its `attention_token_divisor`, `attention_heads`,
/// `joint_text_tokens`, `dit_width` and `dit_blocks` (`data/diffusion.toml`, from each model's
/// diffusers config: SD 1.x 8 heads at 64x64 latents; SD 2.x 64-dim heads at 320 channels = 5;
/// SDXL no attention at the top level, 10 heads at 640 channels; SD3 Medium 24 heads, 1536 wide, 24
/// blocks, 333 text tokens; FLUX 24 heads, 3072 wide, 57 blocks, 512 text tokens; PixArt-Σ 16
/// heads, 1152 wide, 28 blocks). A preset without them (the video presets, which the video engine
/// sizes from their own geometry) is taken as a generic DiT: SD 1.x's attention level and 8 heads
/// for a UNet; 2×2 patches, 24 heads, 1536 wide and 28 blocks otherwise.
pub fn geometry(spec: &DiffusionSpec) -> Geometry {
    let unet = spec.denoiser == "unet";
    let (divisor, heads, width, blocks) = if unet { (1.0, 8, 0, 0) } else { (4.0, 24, 1536, 28) };
    Geometry {
        token_divisor: spec.attention_token_divisor.unwrap_or(divisor),
        joint_text_tokens: f64::from(spec.joint_text_tokens),
        heads: f64::from(spec.attention_heads.unwrap_or(heads)),
        dit_width: f64::from(spec.dit_width.unwrap_or(width)),
        dit_blocks: f64::from(spec.dit_blocks.unwrap_or(blocks)),
    }
}

/// Share of a denoiser step's FLOPs in convolutions (the rest are matmuls: linear layers and
/// attention), which decides how much of an FP32 run PyTorch's default TF32 convolutions speed up.
/// Hand counts of the 3x3/1x1 convolution MACs of the ResNet blocks, down/upsamplers and conv_in/out
/// against the step totals of `data/diffusion.toml`:
/// - SD 1.x (64x64 latent, channels 320/640/1280/1280, 2 ResNet blocks per down level, 3 per up
///   level with the skip concatenations, 2 in the mid block): down 48.5 + mid 3.8 + up 156.8 =
///   209 GMACs = 0.418 TFLOPs of 0.803: 0.52;
/// - SD 2.x: the same UNet at 96x96 latents, 209 x 2.25 = 470 GMACs = 0.94 of 2.149 TFLOPs: 0.44;
/// - SDXL (128x128 latent, 320/640/1280, ResNet blocks as above over three levels): 811 GMACs =
///   1.62 of 6.761 TFLOPs: 0.24 (the refiner is taken as the same);
/// - DiT/MMDiT (SD3, FLUX, PixArt): only the patch embedding is a convolution: 0.
///
/// The preset's `conv_flop_share` (`data/diffusion.toml`).
pub fn conv_flop_share(spec: &DiffusionSpec) -> f64 {
    spec.conv_flop_share.clamp(0.0, 1.0)
}

/// FLOP-weighted width of a denoiser, channels: its step FLOPs over `Σ F_i / d_i`, the sum over its
/// convolutions and linear layers of their FLOPs `F_i` over their block's width `d_i`. A GEMM or
/// convolution of width `d` on `T` tokens does `∝ T d²` FLOPs while the element-wise kernels around
/// it (norms, activations, residual adds, modulation) move `∝ T d` bytes, so the DRAM traffic of a
/// step is `∝ Σ F_i / d_i` and its FLOPs per byte scale with this width (flash attention moves
/// `4 T d` elements for `4 T² d` FLOPs: its traffic per FLOP, `1 / T`, is left out). Hand counts at
/// the native resolution, FLOPs by block width (GFLOPs):
/// - SD 1.x (64x64 latents): width 320: linear 84 + convolutions 113.7; 640: 84 + 136.1; 1280:
///   88.2 + 168.6; `Σ F_i / d_i` = 197.7 / 320 + 220.1 / 640 + 256.8 / 1280 = 1.162; 803.3 / 1.162
///   = 691 ([`SD1_TRAFFIC_WIDTH`]);
/// - SD 2.x (96x96 latents, the same widths): every linear and convolution ×2.25, so 2149 / (2.25 ×
///   1.162) = 822;
/// - SDXL (128x128 latents; 10 transformer blocks at 640, 60 at 1280 of 60.4 GFLOPs each): 320:
///   convolutions 454.6; 640: linear 637.5 + convolutions 544.4; 1280: 3716 + 624.1;
///   6761 / (1.4206 + 1.8467 + 3.3907) = 1015 (the refiner taken as the same);
/// - DiTs: the model width over the share of FLOPs outside attention, `dit_width / (1 − a)`
///   (FLUX.1: 3072 / 0.842 = 3648; the hand count 74.38 / (59.5 / 3072) gives 3840).
///
/// A UNet's is its preset's `traffic_width` (SD 1.x's where absent); a DiT's is derived.
pub fn traffic_width(spec: &DiffusionSpec) -> f64 {
    if spec.denoiser == "unet" {
        spec.traffic_width.filter(|w| w.is_finite() && *w > 0.0).unwrap_or(SD1_TRAFFIC_WIDTH)
    } else {
        geometry(spec).dit_width / (1.0 - spec.attn_fraction_at_native.clamp(0.0, 0.95))
    }
}

/// [`traffic_width`] of SD 1.x, the network [`MediaFit::intensity_diffusion`] is fitted on (all but
/// two diffusion calibration rows are SD 1.5).
pub const SD1_TRAFFIC_WIDTH: f64 = 691.0;

/// Multiplier on [`MediaFit::intensity_diffusion`] for a denoiser: its [`traffic_width`] over SD 1.x's.
pub fn intensity_scale(spec: &DiffusionSpec) -> f64 {
    traffic_width(spec) / SD1_TRAFFIC_WIDTH
}

/// The stack's gain with the denoiser's FLOPs per byte ([`intensity_scale`]) folded into it.
fn denoiser_gain(gain: StackGain, spec: &DiffusionSpec) -> StackGain {
    StackGain { compute: gain.compute, intensity: gain.intensity * intensity_scale(spec) }
}

/// Share of a denoiser step's FLOPs in 3×3 stride-1 convolutions, which cuDNN may run with
/// Winograd's F(2×2, 3×3) on the FP32 units ([`crate::model::numeric::fp32_path_tflops_winograd`];
/// the same rule as the classic ConvNets' `winograd_flop_share`). Hand counts from the convolution
/// totals of [`conv_flop_share`], less the stride-2 downsamplers and the 1×1 shortcuts of the ResNet
/// blocks whose channel count changes:
/// - SD 1.x at 64x64 latents: 209.2 GMACs of convolutions, less three stride-2 downsamplers
///   (3 × 0.944 = 2.83) and eleven 1×1 shortcuts (9.02: down 0.21 + 0.21, up 0.63 + 2.31 + 2.73 +
///   2.94) = 197.35 GMACs = 0.3947 TFLOPs of 0.8033: 0.49;
/// - SD 2.x: the same UNet at 96x96 latents (every convolution scales alike): 0.44 × 197.35 / 209.2
///   = 0.415;
/// - SDXL at 128x128 latents: 811.6 GMACs, less two stride-2 downsamplers (2 × 3.775) and eleven 1×1
///   shortcuts (33.55) = 770.5 GMACs = 1.541 of 6.761 TFLOPs: 0.228 (the refiner taken as the same);
/// - DiTs: 0.
///
/// The preset's `winograd_flop_share` (`data/diffusion.toml`), within its convolution share.
pub fn winograd_flop_share(spec: &DiffusionSpec) -> f64 {
    spec.winograd_flop_share.min(conv_flop_share(spec)).max(0.0)
}

/// Share of the KL-f8 VAE decoder's FLOPs in 3×3 stride-1 convolutions. Hand count at 512 px (64x64
/// latent, channels 512/512/256/128, three ResNet blocks per level, nearest upsampling then a 3×3
/// convolution): 1235.6 GMACs of convolutions (BK-SDM counts 1240) of which only the two 1×1
/// shortcuts (512→256 at 256², 256→128 at 512², 8.59 GMACs each) are not 3×3 stride-1:
/// (1235.6 − 17.2) / 1257 GMACs with the mid-block attention = 0.97.
pub const VAE_WINOGRAD_SHARE: f64 = 0.97;

/// The software that runs the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stack {
    /// diffusers with PyTorch 2 SDPA, no compilation (the calibration baseline).
    DiffusersEager,
    /// diffusers with `torch.compile(mode="reduce-overhead")`.
    DiffusersCompile,
    /// A TensorRT engine for the denoiser.
    TensorRt,
}

impl Stack {
    /// Gain over eager, and the share of the eager per-step latency that remains.
    /// Compile: op fusion cuts DRAM traffic (intensity x1.4 reproduces the 1.13-1.26x speed-ups of the
    /// compile column of diffusers' torch2.0 benchmark at batch 4 and 16) and CUDA graphs remove most
    /// launch latency. TensorRT: not calibrated; NVIDIA reports about 2x over PyTorch for SD UNets, which
    /// compute x1.4 and intensity x2 reproduce on an A100.
    pub fn gain(self) -> (StackGain, f64, bool) {
        match self {
            Stack::DiffusersEager => (StackGain::EAGER, 1.0, true),
            Stack::DiffusersCompile => (StackGain { compute: 1.0, intensity: 1.4 }, 0.15, true),
            Stack::TensorRt => (StackGain { compute: 1.4, intensity: 2.0 }, 0.1, false),
        }
    }

    /// A short name for assumption lines.
    pub fn label(self) -> &'static str {
        match self {
            Stack::DiffusersEager => "diffusers eager (PyTorch SDPA)",
            Stack::DiffusersCompile => "diffusers + torch.compile",
            Stack::TensorRt => "TensorRT",
        }
    }
}

/// Fine-tuning recipe, or none for plain generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Finetune {
    None,
    /// Full denoiser fine-tune with prior preservation (diffusers `train_dreambooth.py
    /// --with_prior_preservation`: every step also trains on a class image, doubling the batch).
    DreamBooth,
    /// Full denoiser fine-tune, AdamW with FP32 master weights.
    Full,
    /// LoRA adapters on a frozen 16-bit denoiser.
    Lora,
}

impl Finetune {
    /// The fine-tune an image workload runs (generation: none); None for a workload an image
    /// model does not list ([`MediaKind::workloads`](crate::model::media_job::MediaKind::workloads)).
    pub fn for_workload(w: MediaWorkload) -> Option<Finetune> {
        match w {
            MediaWorkload::ImageGeneration => Some(Finetune::None),
            MediaWorkload::FinetuneFull => Some(Finetune::Full),
            MediaWorkload::DreamBooth => Some(Finetune::DreamBooth),
            MediaWorkload::Lora => Some(Finetune::Lora),
            _ => None,
        }
    }
}

/// One image-generation or diffusion fine-tuning job.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageJob {
    /// Diffusion preset id.
    pub model: String,
    /// Number format of the denoiser weights and math.
    pub precision: Precision,
    pub width_px: u32,
    pub height_px: u32,
    /// Denoising steps (ignored for fine-tuning).
    pub steps: u32,
    /// Images per call (global; split over GPUs). For fine-tuning, the training batch.
    pub batch: u32,
    /// Classifier-free guidance; `None` follows the preset.
    pub cfg: Option<bool>,
    pub stack: Stack,
    /// SDPA / xFormers attention; without it the full attention matrix is materialised.
    pub memory_efficient_attention: bool,
    /// Run the text encoders on the CPU: they leave GPU memory and cost CPU time per prompt.
    pub cpu_offload_text_encoders: bool,
    /// Add the preset's refiner (SDXL), run on `REFINER_STEP_SHARE` of the steps.
    pub refiner: bool,
    pub finetune: Finetune,
    pub gradient_checkpointing: bool,
    /// How FP32 (`Precision::Fp32`) tensors are multiplied on cards with TF32 tensor cores
    /// (default: PyTorch's, TF32 convolutions and FP32 matmuls). `Precision::Tf32` always means
    /// [`Fp32Math::Tf32`].
    pub fp32_math: Fp32Math,
    /// Diffusers' CPU offload for generation ([`OffloadMode`]).
    pub offload: OffloadMode,
}

impl ImageJob {
    /// The preset's defaults: native square resolution, its default steps, batch 1, its
    /// `default_precision` (the format its model card loads it in: BF16 for FLUX.1, SD 3.5 and
    /// Qwen-Image; FP16 where absent), eager diffusers with SDPA.
    pub fn for_spec(spec: &DiffusionSpec) -> ImageJob {
        let precision = spec.default_precision.as_deref().and_then(Precision::parse).unwrap_or(Precision::Fp16);
        ImageJob {
            model: spec.id.clone(),
            precision,
            width_px: spec.native_resolution_px,
            height_px: spec.native_resolution_px,
            steps: spec.default_steps,
            batch: 1,
            cfg: None,
            stack: Stack::DiffusersEager,
            memory_efficient_attention: true,
            cpu_offload_text_encoders: false,
            refiner: false,
            finetune: Finetune::None,
            gradient_checkpointing: false,
            fp32_math: Fp32Math::PytorchDefault,
            offload: OffloadMode::None,
        }
    }

    /// [`ImageJob::for_spec`] for a preset id.
    pub fn new(model_id: &str) -> Result<ImageJob, EstimateError> {
        lookup(model_id).map(ImageJob::for_spec)
    }
}

fn lookup(model_id: &str) -> Result<&'static DiffusionSpec, EstimateError> {
    crate::catalog::diffusion(model_id).ok_or_else(|| EstimateError::Unknown {
        field: "model",
        value: model_id.to_string(),
        suggestions: crate::catalog::nearest(model_id, crate::catalog::catalog().diffusion.iter().map(|d| d.id.as_str()))
            .into_iter()
            .map(str::to_string)
            .collect(),
    })
}

/// Bytes per weight of a number format ([`Precision::bytes_per_weight`], shared with the LLM engine).
pub fn bytes_per_weight(p: Precision) -> f64 {
    p.bytes_per_weight()
}

/// Bytes per activation value: 4 in FP32/TF32, else 2 (quantised weights still compute in 16 bits).
fn act_bytes(p: Precision) -> f64 {
    if matches!(p, Precision::Fp32 | Precision::Tf32) {
        4.0
    } else {
        2.0
    }
}

/// The arithmetic of a part of the pipeline whose FLOPs are `conv_share` convolutions, of which
/// `winograd_share` (of all FLOPs) are 3×3 stride-1.
fn math_for(job: &ImageJob, conv_share: f64, winograd_share: f64) -> Math {
    let winograd_share = winograd_share.min(conv_share);
    match job.precision {
        Precision::Fp32 => Math::Fp32 { mode: job.fp32_math, conv_share, winograd_share },
        Precision::Tf32 => Math::Fp32 { mode: Fp32Math::Tf32, conv_share, winograd_share },
        Precision::Fp8 if job.stack == Stack::TensorRt => Math::Fp8,
        _ => Math::Half,
    }
}

/// The FP32 rule an FP32/TF32 job runs under, for assumption lines; None for 16-bit jobs.
fn fp32_label(job: &ImageJob) -> Option<&'static str> {
    match job.precision {
        Precision::Fp32 => Some(job.fp32_math.label()),
        Precision::Tf32 => Some(Fp32Math::Tf32.label()),
        _ => None,
    }
}

/// Weight-only quantisation formats dequantise on the fly: time factor on the denoiser.
/// 1.3 is an assumption (bitsandbytes/GGUF kernels in diffusers and ComfyUI), not calibrated.
fn dequant_slowdown(p: Precision) -> f64 {
    if p.is_quantized() && p != Precision::Fp8 {
        1.3
    } else {
        1.0
    }
}

/// Largest image side the engine accepts, in pixels.
pub const MAX_SIDE_PX: u32 = 8192;

/// Checks a job's numbers, naming the first bad field.
pub fn validate(job: &ImageJob, gpus: u32) -> Result<(), EstimateError> {
    for (v, what) in [(job.width_px, Note::plain("the width")), (job.height_px, Note::plain("the height"))] {
        if !(64..=MAX_SIDE_PX).contains(&v) {
            let args = vec![("what", what.into()), ("max", MAX_SIDE_PX.to_string().into()), ("value", v.to_string().into())];
            return Err(EstimateError::invalid("resolution", Note::new("{what} must be between 64 and {max} px, got {value}", args)));
        }
    }
    if job.finetune == Finetune::None && !(1..=1000).contains(&job.steps) {
        return Err(EstimateError::invalid("steps", crate::model::types::between("1".into(), "1000".into(), job.steps.to_string())));
    }
    check_count("batch", job.batch, 1, 1024)?;
    check_count("gpus", gpus, 1, 1024)?;
    Ok(())
}

/// Step FLOPs of one denoiser pass of one sample at `pixels`, in TFLOPs.
pub fn step_tflops(spec: &DiffusionSpec, pixels: f64) -> f64 {
    let native = f64::from(spec.native_resolution_px) * f64::from(spec.native_resolution_px);
    let r = pixels / native;
    let a = spec.attn_fraction_at_native.clamp(0.0, 0.95);
    spec.step_tflops_at_native * ((1.0 - a) * r + a * r * r)
}

/// Seconds per image and its parts, for generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageTiming {
    /// Denoising (all steps, base and refiner), per image, seconds (mid).
    pub denoise_s: f64,
    /// VAE decode per image, seconds (mid).
    pub vae_s: f64,
    /// Text encoding per image, seconds (mid).
    pub text_s: f64,
    /// Whole pipeline per image as a band.
    pub total_s: Band,
    /// Denoising alone as a band (what `diffusion.csv` measures).
    pub denoise_band_s: Band,
    /// True when the card family and stack have calibration rows.
    pub calibrated: bool,
    /// Share of the whole pipeline's time that is the per-step launch latency (host-bound).
    pub launch_share: f64,
}

struct Ctx<'a> {
    spec: &'a DiffusionSpec,
    refiner: Option<&'a DiffusionSpec>,
    cfg: bool,
    pixels: f64,
    per_gpu_batch: f64,
}

fn context<'a>(job: &ImageJob, spec: &'a DiffusionSpec, gpus: u32) -> Ctx<'a> {
    let refiner = if job.refiner { spec.refiner.as_deref().and_then(crate::catalog::diffusion) } else { None };
    Ctx {
        spec,
        refiner,
        cfg: job.cfg.unwrap_or(spec.cfg),
        pixels: f64::from(job.width_px) * f64::from(job.height_px),
        per_gpu_batch: f64::from(job.batch.div_ceil(gpus.max(1))),
    }
}

fn params_of(spec: &DiffusionSpec, role: &str) -> f64 {
    spec.component.iter().filter(|c| c.role == role).map(|c| c.params_b * 1e9).sum()
}

/// Generation timing of `job` on `gpus` cards of `gpu` (images spread over the cards).
pub fn image_timing(job: &ImageJob, gpu: &Gpu, gpus: u32) -> Result<ImageTiming, EstimateError> {
    image_timing_with(&MediaFit::CALIBRATED, job, gpu, gpus)
}

/// [`image_timing`] with the fitted constants `fit` (for cross-validation).
pub fn image_timing_with(fit: &MediaFit, job: &ImageJob, gpu: &Gpu, gpus: u32) -> Result<ImageTiming, EstimateError> {
    let spec = lookup(&job.model)?;
    timing_for(fit, job, spec, gpu, gpus)
}

fn timing_for(fit: &MediaFit, job: &ImageJob, spec: &DiffusionSpec, gpu: &Gpu, gpus: u32) -> Result<ImageTiming, EstimateError> {
    validate(job, gpus)?;
    let c = context(job, spec, gpus);
    let (gain, latency_share, stack_calibrated) = job.stack.gain();
    let rate = effective_rate_with(fit, gpu, math_for(job, conv_flop_share(spec), winograd_flop_share(spec)), KernelMix::Diffusion, denoiser_gain(gain, spec))?;
    // The VAE decoder is convolutions (about 95%); the text encoders are transformers. Both run in
    // the pipeline's number format.
    let vae_rate = effective_rate_with(fit, gpu, math_for(job, 1.0, VAE_WINOGRAD_SHARE), KernelMix::Diffusion, gain)?;
    let text_rate = effective_rate_with(fit, gpu, math_for(job, 0.0, 0.0), KernelMix::Transformer, StackGain::EAGER)?;
    let cfg_mult = if c.cfg { 2.0 } else { 1.0 };
    let n = c.per_gpu_batch * cfg_mult;
    let slow = dequant_slowdown(job.precision);

    // (launch latency, whole step) of one denoiser step, seconds.
    let step_s = |s: &DiffusionSpec| -> (f64, f64) {
        let latency = fit.eager_step_latency_s * latency_share * (params_of(s, "denoiser") / 0.86e9).max(0.01).sqrt();
        (latency, latency + n * step_tflops(s, c.pixels) * slow / rate.tflops)
    };
    let steps = f64::from(job.steps);
    let (base_latency_s, base_step_s) = step_s(c.spec);
    let mut launch_call_s = steps * base_latency_s;
    let mut denoise_call_s = steps * base_step_s;
    if let Some(r) = c.refiner {
        let (latency_s, refiner_step_s) = step_s(r);
        let refiner_steps = (steps * REFINER_STEP_SHARE).round().max(1.0);
        launch_call_s += refiner_steps * latency_s;
        denoise_call_s += refiner_steps * refiner_step_s;
    }
    let native = f64::from(spec.native_resolution_px) * f64::from(spec.native_resolution_px);
    let vae_call_s = c.per_gpu_batch * spec.vae_decode_tflops_at_native * c.pixels / native / vae_rate.tflops;
    let text_tflop = spec.text_encoder_gflops / 1000.0 * cfg_mult * c.per_gpu_batch;
    let text_call_s = if job.cpu_offload_text_encoders { text_tflop / CPU_TFLOPS } else { text_tflop / text_rate.tflops };

    let denoise_call_s = denoise_call_s + offload_copy_s(job, spec, gpu, steps);
    // Per image: a call makes per_gpu_batch images on each of the gpus cards at once.
    let images_per_call = c.per_gpu_batch * f64::from(gpus);
    let denoise_s = denoise_call_s / images_per_call;
    let vae_s = vae_call_s / images_per_call;
    let text_s = text_call_s / images_per_call;
    let calibrated = rate.calibrated && stack_calibrated;
    let total = denoise_s + vae_s + text_s;
    let launch_share = (launch_call_s / images_per_call / total).clamp(0.0, 1.0);
    let w = band_half_width(calibrated) + LAUNCH_BAND_EXTRA * launch_share;
    Ok(ImageTiming {
        denoise_s,
        vae_s,
        text_s,
        total_s: Band::around(total, 1.0 - w, 1.0 + w),
        denoise_band_s: Band::around(denoise_s, 1.0 - w, 1.0 + w),
        calibrated,
        launch_share,
    })
}

/// Seconds per call spent copying weights from the host under CPU offload: `model` moves every
/// component in once per call, `sequential` streams the denoiser's weights on every step.
fn offload_copy_s(job: &ImageJob, spec: &DiffusionSpec, gpu: &Gpu, steps: f64) -> f64 {
    let den = params_of(spec, "denoiser") * bytes_per_weight(job.precision);
    let rest = (params_of(spec, "text_encoder") + params_of(spec, "vae")) * 2.0;
    let bytes = match job.offload {
        OffloadMode::None => 0.0,
        OffloadMode::Model => den + rest,
        OffloadMode::Sequential => den * steps + rest,
    };
    bytes / media::host_copy_bytes_per_s(gpu)
}

/// The sizes both memory cases read: bytes per value, parameters, and the attention's tokens.
struct Sizes {
    /// Bytes per denoiser weight.
    wbytes: f64,
    /// Bytes per activation.
    abytes: f64,
    /// Bytes per text-encoder and VAE value (they stay in 16 bits, or 32 with FP32 activations).
    side_bytes: f64,
    /// Denoiser parameters, the refiner's included.
    denoiser_params: f64,
    vae_params: f64,
    /// GiB the text encoders take on the GPU (0 when they run on the CPU).
    text_gib: f64,
    latent_positions: f64,
    /// Image tokens at the first attention level plus the text tokens of joint attention.
    tokens: f64,
}

/// Memory of one card for `job`, with the assumption lines that explain it.
fn memory_for(job: &ImageJob, spec: &DiffusionSpec, gpus: u32) -> (MemoryBreakdown, Vec<Note>) {
    let c = context(job, spec, gpus);
    let geo = geometry(spec);
    let mut notes = Vec::new();
    let abytes = act_bytes(job.precision);
    let side_bytes = if abytes > 2.0 { 4.0 } else { 2.0 }; // text encoders and VAE stay in 16 bits
    let text_params = params_of(spec, "text_encoder");
    let latent_positions = c.pixels / f64::from(spec.vae_downscale.max(1)).powi(2);
    let sizes = Sizes {
        wbytes: bytes_per_weight(job.precision),
        abytes,
        side_bytes,
        denoiser_params: params_of(spec, "denoiser") + c.refiner.map_or(0.0, |r| params_of(r, "denoiser")),
        vae_params: params_of(spec, "vae"),
        text_gib: if job.cpu_offload_text_encoders { 0.0 } else { text_params * side_bytes / GIB },
        latent_positions,
        tokens: latent_positions / geo.token_divisor + geo.joint_text_tokens,
    };
    if job.cpu_offload_text_encoders {
        notes.push(Note::plain("text encoders run on the CPU: not in GPU memory"));
    }
    let mut m = if job.finetune == Finetune::None {
        generation_memory(job, &c, &geo, &sizes, &mut notes)
    } else {
        finetune_memory(job, spec, &c, &geo, &sizes, &mut notes)
    };
    let tensors = m.weights_gib + m.activations_gib + m.gradients_gib + m.optimizer_gib;
    m.overhead_gib = CONTEXT_GIB + FRAGMENTATION * tensors;
    m.total_gib = tensors + m.overhead_gib;
    (m, notes)
}

/// Weights and working set of generation: every component resident (or what CPU offload keeps),
/// and the larger of the denoising and the VAE-decode working sets.
fn generation_memory(job: &ImageJob, c: &Ctx<'_>, geo: &Geometry, s: &Sizes, notes: &mut Vec<Note>) -> MemoryBreakdown {
    let weights_gib = s.denoiser_params * s.wbytes / GIB + s.text_gib + s.vae_params * s.side_bytes / GIB;
    let mut m = MemoryBreakdown { weights_gib, ..MemoryBreakdown::default() };
    let cfg_mult = if c.cfg { 2.0 } else { 1.0 };
    let samples = c.per_gpu_batch * cfg_mult;
    let linear = samples * DENOISE_LIVE_CHANNELS * s.latent_positions * s.abytes;
    let attention = if job.memory_efficient_attention {
        0.0
    } else {
        // Scores and softmax output of one layer, all heads: 2 * n * heads * T^2 values.
        2.0 * samples * geo.heads * s.tokens * s.tokens * s.abytes
    };
    let denoise = linear + attention;
    let vae = c.per_gpu_batch * VAE_DECODE_LIVE_CHANNELS * c.pixels * s.side_bytes;
    m.activations_gib = denoise.max(vae) / GIB;
    if job.offload != OffloadMode::None {
        let blocks = if geo.dit_blocks > 0.0 { geo.dit_blocks } else { UNET_OFFLOAD_BLOCKS };
        let phases = [
            Phase { weights_bytes: s.text_gib * GIB, work_bytes: 0.0, layers: 24.0 },
            Phase { weights_bytes: s.denoiser_params * s.wbytes, work_bytes: denoise, layers: blocks },
            Phase { weights_bytes: s.vae_params * s.side_bytes, work_bytes: vae, layers: 1.0 },
        ];
        let (w, a) = offload_peak(job.offload, &phases);
        m.weights_gib = w / GIB;
        m.activations_gib = a / GIB;
        notes.push(Note::new("CPU offload ({mode}): only what the running stage needs is on the GPU", vec![("mode", job.offload.as_str().into())]));
    }
    notes.push(Note::new(
        "activations: the larger of denoising ({denoise} GiB{attention}) and VAE decode at full resolution ({vae} GiB)",
        vec![
            ("denoise", crate::decimal::fixed(denoise / GIB, 2).into()),
            (
                "attention",
                if job.memory_efficient_attention {
                    Note::plain(", SDPA/xFormers attention").into()
                } else {
                    Note::plain(", incl. the full attention matrix").into()
                },
            ),
            ("vae", crate::decimal::fixed(vae / GIB, 2).into()),
        ],
    ));
    m
}

/// Weights, gradients, optimizer states and saved activations of a fine-tune (full, DreamBooth
/// or LoRA), with the text encoders and the VAE frozen.
fn finetune_memory(job: &ImageJob, spec: &DiffusionSpec, c: &Ctx<'_>, geo: &Geometry, s: &Sizes, notes: &mut Vec<Note>) -> MemoryBreakdown {
    let mut m = MemoryBreakdown::default();
    let samples = c.per_gpu_batch * if job.finetune == Finetune::DreamBooth { 2.0 } else { 1.0 };
    let frozen_side = (s.text_gib * GIB + s.vae_params * s.side_bytes) / GIB;
    match job.finetune {
        Finetune::Lora => {
            let lora = s.denoiser_params * LORA_PARAM_SHARE;
            m.weights_gib = s.denoiser_params * s.wbytes / GIB + lora * 4.0 / GIB + frozen_side;
            m.gradients_gib = lora * 4.0 / GIB;
            m.optimizer_gib = lora * 8.0 / GIB;
            notes.push(Note::plain("LoRA: frozen denoiser, adapters 0.5% of its parameters with FP32 master weights, gradients and AdamW"));
        }
        _ => {
            m.weights_gib = s.denoiser_params * 4.0 / GIB + frozen_side;
            m.gradients_gib = s.denoiser_params * 4.0 / GIB;
            m.optimizer_gib = s.denoiser_params * 8.0 / GIB;
            notes.push(Note::plain("full fine-tune: FP32 master weights, FP32 gradients, AdamW (8 bytes/param); text encoders and VAE frozen"));
        }
    }
    let fwd_tflop = step_tflops(spec, c.pixels);
    let per_sample = if geo.dit_width > 0.0 {
        // Korthikanti et al. (arXiv 2205.05198): 34 * width bytes per token and block with 16-bit
        // activations and memory-efficient attention.
        34.0 * geo.dit_width * s.tokens * geo.dit_blocks * s.abytes / 2.0
    } else {
        fwd_tflop * 1e12 / UNET_SAVED_FLOP_PER_BYTE * s.abytes / 2.0
    };
    let keep = if job.gradient_checkpointing { CHECKPOINT_KEEP } else { 1.0 };
    let attention = if job.memory_efficient_attention { 0.0 } else { 2.0 * samples * geo.heads * s.tokens * s.tokens * s.abytes };
    m.activations_gib = (samples * per_sample * keep + attention) / GIB;
    if job.finetune == Finetune::DreamBooth {
        notes.push(Note::plain("DreamBooth with prior preservation: each step also trains on a class image (2x samples)"));
    }
    let gib = vec![("gib", Arg::from(crate::decimal::fixed(per_sample * keep / GIB, 2)))];
    notes.push(if job.gradient_checkpointing {
        Note::new("saved activations {gib} GiB per sample with gradient checkpointing", gib)
    } else {
        Note::new("saved activations {gib} GiB per sample without gradient checkpointing", gib)
    });
    m
}

/// Memory of one card for `job` (GiB by term; `total_gib` is one card's total).
pub fn image_memory(job: &ImageJob, gpus: u32) -> Result<MemoryBreakdown, EstimateError> {
    let spec = lookup(&job.model)?;
    validate(job, gpus)?;
    Ok(memory_for(job, spec, gpus).0)
}

/// Training throughput of a diffusion fine-tune, in samples (images) per second, as a band.
fn finetune_rate(job: &ImageJob, spec: &DiffusionSpec, gpu: &Gpu, gpus: u32) -> Result<(Band, Vec<Note>), EstimateError> {
    let c = context(job, spec, gpus);
    let (gain, _, stack_calibrated) = job.stack.gain();
    let rate = effective_rate(gpu, math_for(job, conv_flop_share(spec), winograd_flop_share(spec)), KernelMix::Diffusion, denoiser_gain(gain, spec))?;
    let fwd = step_tflops(spec, c.pixels);
    // Forward + backward: 3 F for full training (weight and input gradients), 2 F for LoRA (input
    // gradients only); checkpointing recomputes one forward. Plus one VAE encode (half a decode) and
    // the text encoders per sample.
    let mut per_sample = fwd * if job.finetune == Finetune::Lora { 2.0 } else { 3.0 };
    if job.gradient_checkpointing {
        per_sample += fwd;
    }
    let native = f64::from(spec.native_resolution_px) * f64::from(spec.native_resolution_px);
    per_sample += 0.5 * spec.vae_decode_tflops_at_native * c.pixels / native + spec.text_encoder_gflops / 1000.0;
    let samples_per_gpu = c.per_gpu_batch * if job.finetune == Finetune::DreamBooth { 2.0 } else { 1.0 };
    let compute_s = TRAIN_STEP_LATENCY_S + samples_per_gpu * per_sample / rate.tflops;
    let trainable = params_of(spec, "denoiser") * if job.finetune == Finetune::Lora { LORA_PARAM_SHARE } else { 1.0 };
    let link = crate::model::fabric::group_link(gpu, gpus);
    let comm = crate::model::fabric::allreduce_s(trainable * 4.0, gpus, &link);
    let exposed = (comm - ALLREDUCE_OVERLAP * compute_s).max(0.0);
    // Instance images per second (DreamBooth's class images are not counted).
    let mid = c.per_gpu_batch * f64::from(gpus) / (compute_s + exposed);
    let w = band_half_width(rate.calibrated && stack_calibrated);
    let mut notes = vec![Note::new(
        "{tflops} effective TFLOPS per card on the denoiser",
        vec![("tflops", crate::decimal::fixed(rate.tflops, 1).into())],
    )];
    if gpus > 1 {
        notes.push(Note::new(
            "data parallel over {gpus} cards, gradient all-reduce over {link}: {ms} ms exposed per step",
            vec![
                ("gpus", gpus.to_string().into()),
                ("link", crate::model::fabric::link_name(gpu, &link).to_string().into()),
                ("ms", crate::decimal::fixed(exposed * 1000.0, 0).into()),
            ],
        ));
    }
    Ok((Band::around(mid, 1.0 - w, 1.0 + w), notes))
}

/// The assumption line of the launch-latency band widening ([`LAUNCH_BAND_EXTRA`]), when it adds
/// at least one point.
fn launch_note(t: &ImageTiming) -> Option<Note> {
    (LAUNCH_BAND_EXTRA * t.launch_share >= 0.01).then(|| {
        Note::new(
            "{share}% of the time is per-step launch latency, which depends on the host CPU and software: band widened by {points} points",
            vec![
                ("share", crate::decimal::fixed(t.launch_share * 100.0, 0).into()),
                ("points", crate::decimal::fixed(LAUNCH_BAND_EXTRA * t.launch_share * 100.0, 0).into()),
            ],
        )
    })
}

/// Sizes one image-generation or diffusion fine-tuning job on `gpus` cards of `gpu`.
///
/// Generation spreads the batch over the cards (data parallel; each holds the whole pipeline) and
/// reports `throughput.seconds_per_image`. Fine-tuning is data parallel too and reports
/// `throughput.train_samples_per_s` (instance images per second).
pub fn estimate_image(job: &ImageJob, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
    let spec = lookup(&job.model)?;
    validate(job, gpus)?;
    media::check_gpu(gpu)?;
    if job.refiner && spec.refiner.is_none() {
        return Err(EstimateError::invalid("refiner", Note::new("`{id}` has no refiner", vec![("id", spec.id.as_str().into())])));
    }
    let (memory, mut notes) = memory_for(job, spec, gpus);
    let mut throughput = Throughput::default();
    if job.finetune == Finetune::None {
        let t = timing_for(&MediaFit::CALIBRATED, job, spec, gpu, gpus)?;
        throughput.seconds_per_image = Some(t.total_s);
        let cfg = context(job, spec, gpus).cfg;
        notes.insert(
            0,
            Note::new(
                "{steps} steps{cfg} at {w}x{h} px, batch {batch}, {stack}: denoise {denoise} s + VAE {vae} s + text {text} s per image",
                vec![
                    ("steps", job.steps.to_string().into()),
                    ("cfg", if cfg { Note::plain(" with CFG (2 denoiser passes each)").into() } else { Arg::from("") }),
                    ("w", job.width_px.to_string().into()),
                    ("h", job.height_px.to_string().into()),
                    ("batch", job.batch.to_string().into()),
                    ("stack", match fp32_label(job) {
                        Some(l) => format!("{}, FP32 as {l}", job.stack.label()).into(),
                        None => job.stack.label().into(),
                    }),
                    ("denoise", crate::decimal::fixed(t.denoise_s, 2).into()),
                    ("vae", crate::decimal::fixed(t.vae_s, 2).into()),
                    ("text", crate::decimal::fixed(t.text_s, 2).into()),
                ],
            ),
        );
        if !t.calibrated {
            notes.push(Note::plain("no calibration rows for this card family or stack: band widened to +/-35%"));
        }
        notes.extend(launch_note(&t));
    } else {
        let (band, more) = finetune_rate(job, spec, gpu, gpus)?;
        throughput.train_samples_per_s = Some(band);
        notes.extend(more);
    }
    if gpus > 1 {
        notes.push(Note::new(
            "{gpus} cards each hold the whole pipeline and take ceil(batch / {gpus}) images",
            vec![("gpus", gpus.to_string().into())],
        ));
    }
    let fits = memory.total_gib <= gpu.usable_memory_gib();
    let gpus_needed = gpus_needed(job, spec, gpu);
    if !fits {
        notes.push(Note::new(
            "needs {need} GiB per card, the card has {has} GiB",
            vec![("need", crate::decimal::fixed(memory.total_gib, 1).into()), ("has", crate::decimal::fixed(gpu.usable_memory_gib(), 0).into())],
        ));
    }
    Ok(Estimate {
        model: spec.id.clone(),
        gpu: gpu.id.clone(),
        gpus,
        memory: memory.across(gpus),
        per_gpu_gib: memory.total_gib,
        gpus_needed,
        fits,
        throughput,
        offload: None,
        assumptions: notes,
    })
}

/// The smallest card count whose per-card share of the batch fits; 0 when even one image per card
/// does not fit (the model is replicated, so more cards cannot help).
fn gpus_needed(job: &ImageJob, spec: &DiffusionSpec, gpu: &Gpu) -> u32 {
    let fits = |n: u32| memory_for(job, spec, n).0.total_gib <= gpu.usable_memory_gib();
    if !fits(job.batch) {
        return 0;
    }
    // Memory falls as n grows (smaller share); binary search the smallest n in 1..=batch that fits.
    let (mut lo, mut hi) = (1u32, job.batch);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}
