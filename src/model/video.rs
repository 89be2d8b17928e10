//! Video-generation sizing: memory and seconds per clip for a video DiT pipeline (Wan, HunyuanVideo,
//! LTX-Video) on a card, with diffusers' CPU-offload modes.
//!
//! The presets are `[[diffusion]]` entries of `data/diffusion.toml` with a `[diffusion.video]`
//! table. Latent tokens follow each model's 3D VAE and patching: `(1 + (frames - 1) / t) / patch_t x
//! (H / s / patch_hw) x (W / s / patch_hw)`. One denoiser pass costs `2 x dit_token_params x tokens`
//! in matmuls plus `4 x layers x width x (tokens^2 + tokens x text)` in attention (cross-attention;
//! `(tokens + text)^2` for joint attention), timed as the tensor work at the card's 16-bit
//! FP32-accumulate peak slowed by the non-tensor SM work that goes with it
//! ([`VideoFit::sm_overhead_sm_per_tflops`]; FlashAttention-2 on Hopper capped at its published
//! 35% of an H100, FlashAttention-3 there at its published 75%) plus a memory term for the element-wise traffic of each block
//! ([`VideoFit::traffic_bytes_per_token_channel`]). Memory is the resident weights (by offload
//! mode) plus the larger of the denoising working set ([`VideoFit::live_bytes_per_token_channel`])
//! and the VAE decode. Every constant and its source is in `docs/MODEL.md`, "Video generation".

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{DiffusionSpec, Gpu, VideoSpec};
use crate::model::diffusion::{CONTEXT_GIB, CPU_TFLOPS, FRAGMENTATION, VAE_DECODE_LIVE_CHANNELS};
use crate::model::media::{self, band_half_width, effective_rate_with, offload_peak, KernelMix, Math, MediaFit, OffloadMode, Phase, StackGain};
use crate::model::precision::Precision;
use crate::model::types::{check_count, Band, Estimate, EstimateError, MemoryBreakdown, Note, Throughput, GIB};

/// The two constants of the video engine fitted to the published tables
/// (`tests/data/calibration/video.csv`; `tests/video_calibration.rs` refits them on every fold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoFit {
    /// Bytes live per video token and DiT channel while the denoiser runs (one pass at a time).
    pub live_bytes_per_token_channel: f64,
    /// Bytes of element-wise DRAM traffic per video token, channel and block (norms, modulation,
    /// RoPE, residual adds in FP32) on top of the matmuls and attention.
    pub traffic_bytes_per_token_channel: f64,
    /// Non-tensor SM work per tensor FLOP (softmax exponentials, scaling, epilogues, address
    /// arithmetic), which runs at a rate set by the SM count, not by the tensor peak: tensor work
    /// takes `F / peak x (1 + k x peak / SMs)` with the peak in TFLOPS. A card whose tensor peak per
    /// SM is high (H100: 7.5 TFLOPS per SM) loses more to it than one whose peak is capped (H20: 1.9).
    pub sm_overhead_sm_per_tflops: f64,
}

impl VideoFit {
    /// The values fitted on every row of `video.csv` (docs/MODEL.md, "Video generation").
    pub const CALIBRATED: VideoFit = VideoFit { live_bytes_per_token_channel: 87.3, traffic_bytes_per_token_channel: 344.0, sm_overhead_sm_per_tflops: 0.188 };
}

/// FlashAttention-2 on Hopper reaches only 35% of the H100's 989 TFLOPS, because it cannot use the
/// asynchronous wgmma instructions (Shah et al., FlashAttention-3, arXiv 2407.08608, abstract): a
/// ceiling of 0.35 x 989.4 = 346 TFLOPS, which binds only on the big Hopper cards.
pub const FA2_HOPPER_CEILING_TFLOPS: f64 = 346.0;
/// FlashAttention-3 overlaps its softmax with the asynchronous wgmma matmuls and reaches 75% of the
/// H100's dense BF16 peak (Shah et al., arXiv 2407.08608, abstract: "up to 740 TFLOPs/s (75%
/// utilization)"). Its non-tensor SM work therefore costs less than the rest of a DiT block's: the
/// same `peak / (1 + k x peak / SMs)` form with k set by that figure on the H100 (132 SMs,
/// 989.4 TFLOPS): k = (1 / 0.75 - 1) x 132 / 989.4 = 0.0445 SM per TFLOPS. Not fitted to any row.
pub const FA3_SM_OVERHEAD_SM_PER_TFLOPS: f64 = (1.0 / 0.75 - 1.0) * 132.0 / 989.4;
/// Layers of a T5/UMT5-XXL or Llama-3-8B text encoder (24 and 32): what sequential offload streams.
const TEXT_ENCODER_LAYERS: f64 = 24.0;

/// The attention kernel a video pipeline runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttentionKernel {
    /// FlashAttention-2 (or PyTorch SDPA's flash backend).
    Fa2,
    /// FlashAttention-3 (Hopper only).
    Fa3,
}

impl AttentionKernel {
    /// FlashAttention-3 on Hopper (Wan2.2's README deploys it there), FlashAttention-2 elsewhere.
    pub fn default_for(gpu: &Gpu) -> AttentionKernel {
        if is_hopper(gpu) {
            AttentionKernel::Fa3
        } else {
            AttentionKernel::Fa2
        }
    }
}

fn is_hopper(gpu: &Gpu) -> bool {
    gpu.vendor == crate::catalog::Vendor::Nvidia && gpu.architecture.starts_with("Hopper")
}

/// One text-to-video job.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoJob {
    pub model: String,
    /// Number format of the DiT weights (math stays 16-bit).
    pub precision: Precision,
    pub width_px: u32,
    pub height_px: u32,
    pub frames: u32,
    pub steps: u32,
    /// Clips per call (global; split over the cards, each holding the whole pipeline).
    pub batch: u32,
    /// Classifier-free guidance; `None` follows the preset.
    pub cfg: Option<bool>,
    pub offload: OffloadMode,
    /// `None`: [`AttentionKernel::default_for`] the card.
    pub attention: Option<AttentionKernel>,
    /// Run the text encoder on the CPU (Wan's `--t5_cpu`).
    pub text_encoder_on_cpu: bool,
}

impl VideoJob {
    /// The preset's defaults: native size and frames, its steps, one clip, BF16, no offload.
    pub fn for_spec(spec: &DiffusionSpec, video: &VideoSpec) -> VideoJob {
        VideoJob {
            model: spec.id.clone(),
            precision: Precision::Bf16,
            width_px: video.native_width_px,
            height_px: video.native_height_px,
            frames: video.default_frames,
            steps: spec.default_steps,
            batch: 1,
            cfg: None,
            offload: OffloadMode::None,
            attention: None,
            text_encoder_on_cpu: false,
        }
    }

    /// [`VideoJob::for_spec`] for a preset id.
    pub fn new(model_id: &str) -> Result<VideoJob, EstimateError> {
        let (spec, video) = lookup(model_id)?;
        Ok(VideoJob::for_spec(spec, video))
    }
}

/// The video preset with this id, or an error naming the model.
pub fn lookup(model_id: &str) -> Result<(&'static DiffusionSpec, &'static VideoSpec), EstimateError> {
    let videos = || crate::catalog::catalog().diffusion.iter().filter(|d| d.video.is_some()).map(|d| d.id.as_str());
    crate::catalog::diffusion(model_id).and_then(|d| d.video.as_ref().map(|v| (d, v))).ok_or_else(|| EstimateError::Unknown {
        field: "model",
        value: model_id.to_string(),
        suggestions: crate::catalog::nearest(model_id, videos()).into_iter().map(str::to_string).collect(),
    })
}

/// Checks a job's numbers, naming the first bad field.
pub fn validate(job: &VideoJob, gpus: u32) -> Result<(), EstimateError> {
    for (v, what) in [(job.width_px, "width"), (job.height_px, "height")] {
        if !(64..=4096).contains(&v) {
            return Err(EstimateError::invalid("resolution", format!("{what} must be between 64 and 4096 px, got {v}")));
        }
    }
    check_count("frames", job.frames, 1, 1025)?;
    check_count("steps", job.steps, 1, 1000)?;
    check_count("batch", job.batch, 1, 64)?;
    check_count("gpus", gpus, 1, 1024)?;
    Ok(())
}

/// Latent frames after the causal 3D VAE: the first frame alone, then one per `temporal_downscale`.
pub fn latent_frames(video: &VideoSpec, frames: u32) -> u32 {
    1 + frames.saturating_sub(1) / video.temporal_downscale.max(1)
}

/// Video tokens the DiT sees for a clip of `frames` at `width x height` px.
pub fn video_tokens(spec: &DiffusionSpec, video: &VideoSpec, width_px: u32, height_px: u32, frames: u32) -> f64 {
    let side = f64::from(spec.vae_downscale.max(1) * video.patch_hw.max(1));
    let t = f64::from(latent_frames(video, frames).div_ceil(video.patch_t.max(1)));
    t * (f64::from(height_px) / side).floor() * (f64::from(width_px) / side).floor()
}

/// FLOPs of one denoiser pass over `tokens` video tokens: (matmuls, attention), in FLOPs.
pub fn pass_flops(video: &VideoSpec, tokens: f64) -> (f64, f64) {
    let text = f64::from(video.text_tokens);
    let per_layer = 4.0 * f64::from(video.dit_layers) * f64::from(video.dit_width);
    if video.joint_attention {
        let all = tokens + text;
        (2.0 * video.dit_token_params_b * 1e9 * all, per_layer * all * all)
    } else {
        (2.0 * video.dit_token_params_b * 1e9 * tokens, per_layer * (tokens * tokens + tokens * text))
    }
}

/// The dense 16-bit tensor rate with FP32 accumulation (what PyTorch's BF16 matmuls and
/// FlashAttention run at; on GeForce cards half the FP16-accumulate headline), TFLOPS.
fn acc32_tflops(gpu: &Gpu) -> Option<f64> {
    gpu.bf16_tflops.or(gpu.fp16_tflops).or(gpu.fp32_tflops).filter(|v| v.is_finite() && *v > 0.0)
}

/// Effective tensor TFLOPS of `gpu` under `fit` ([`VideoFit::sm_overhead_sm_per_tflops`]), and
/// for attention with `kernel` (FlashAttention-2 on Hopper is capped at [`FA2_HOPPER_CEILING_TFLOPS`]).
pub fn tensor_tflops(fit: &VideoFit, gpu: &Gpu, kernel: Option<AttentionKernel>) -> Option<f64> {
    let peak = acc32_tflops(gpu)? * crate::model::numeric::sustained_tensor_factor(gpu);
    let sms = f64::from(gpu.sm_count.unwrap_or(100).max(1));
    let rate = |k: f64| peak / (1.0 + k * peak / sms);
    Some(match kernel {
        Some(AttentionKernel::Fa2) if is_hopper(gpu) => rate(fit.sm_overhead_sm_per_tflops).min(FA2_HOPPER_CEILING_TFLOPS),
        Some(AttentionKernel::Fa3) if is_hopper(gpu) => rate(FA3_SM_OVERHEAD_SM_PER_TFLOPS),
        _ => rate(fit.sm_overhead_sm_per_tflops),
    })
}

/// Seconds per clip and its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoTiming {
    /// Denoising per clip, seconds (mid).
    pub denoise_s: f64,
    /// VAE decode per clip, seconds (mid).
    pub vae_s: f64,
    /// Text encoding per clip, seconds (mid).
    pub text_s: f64,
    /// Host-to-GPU weight copies of the offload mode per clip, seconds (mid).
    pub offload_s: f64,
    /// Whole pipeline per clip as a band.
    pub total_s: Band,
    /// True when the card family has calibration rows (Ampere, Ada, Hopper).
    pub calibrated: bool,
}

fn params_of(spec: &DiffusionSpec, role: &str) -> f64 {
    spec.component.iter().filter(|c| c.role == role).map(|c| c.params_b * 1e9).sum()
}

fn cfg_passes(job: &VideoJob, spec: &DiffusionSpec) -> f64 {
    if job.cfg.unwrap_or(spec.cfg) {
        2.0
    } else {
        1.0
    }
}

/// Timing of `job` on `gpus` cards of `gpu` with the calibrated constants.
pub fn video_timing(job: &VideoJob, gpu: &Gpu, gpus: u32) -> Result<VideoTiming, EstimateError> {
    video_timing_with(&VideoFit::CALIBRATED, job, gpu, gpus)
}

/// [`video_timing`] with the fitted constants `fit` (for cross-validation).
pub fn video_timing_with(fit: &VideoFit, job: &VideoJob, gpu: &Gpu, gpus: u32) -> Result<VideoTiming, EstimateError> {
    video_timing_with_media(fit, &MediaFit::CALIBRATED, job, gpu, gpus)
}

/// [`video_timing_with`] under the image engine's shared constants `media` (its large-L2 factor,
/// and the rates of the VAE and the text encoders): `tests/media_calibration.rs` fits those shared
/// constants on the video rows too.
pub fn video_timing_with_media(fit: &VideoFit, media: &MediaFit, job: &VideoJob, gpu: &Gpu, gpus: u32) -> Result<VideoTiming, EstimateError> {
    let (spec, video) = lookup(&job.model)?;
    validate(job, gpus)?;
    media::check_gpu(gpu)?;
    let m = *media;
    let no_rate = || EstimateError::invalid("gpu", "the card has no 16-bit or FP32 rate in the catalog");
    let kernel = job.attention.unwrap_or_else(|| AttentionKernel::default_for(gpu));
    let attn_tflops = tensor_tflops(fit, gpu, Some(kernel)).ok_or_else(no_rate)?;
    let matmul_tflops = tensor_tflops(fit, gpu, None).ok_or_else(no_rate)?;
    let tokens = video_tokens(spec, video, job.width_px, job.height_px, job.frames);
    let (lin, attn) = pass_flops(video, tokens);
    let traffic = fit.traffic_bytes_per_token_channel * tokens * f64::from(video.dit_width) * f64::from(video.dit_layers);
    // Large-L2 cards (Ada, GeForce Blackwell) serve part of the traffic from L2, as in the image engine.
    let l2 = if media::large_l2(gpu) { m.large_l2_bandwidth_factor } else { 1.0 };
    let slow = if job.precision.is_quantized() && job.precision != Precision::Fp8 { 1.3 } else { 1.0 };
    let pass_s = slow * lin / (matmul_tflops * 1e12) + attn / (attn_tflops * 1e12) + traffic / (gpu.memory_bandwidth_gb_s * 1e9 * l2);
    let per_gpu_batch = f64::from(job.batch.div_ceil(gpus.max(1)));
    let passes = f64::from(job.steps) * cfg_passes(job, spec) * per_gpu_batch;
    let denoise_call_s = passes * pass_s;

    let vae_rate = effective_rate_with(&m, gpu, Math::Half, KernelMix::Diffusion, StackGain::EAGER)?;
    let pixel_frames = f64::from(job.width_px) * f64::from(job.height_px) * f64::from(job.frames);
    let vae_call_s = per_gpu_batch * video.vae_decode_gflops_per_px * 1e9 * pixel_frames / (vae_rate.tflops * 1e12);
    let text_rate = effective_rate_with(&m, gpu, Math::Half, KernelMix::Transformer, StackGain::EAGER)?;
    let text_tflop = spec.text_encoder_gflops / 1000.0 * cfg_passes(job, spec) * per_gpu_batch;
    let text_call_s = if job.text_encoder_on_cpu { text_tflop / CPU_TFLOPS } else { text_tflop / text_rate.tflops };
    let offload_call_s = offload_bytes(job, spec, video, passes) / media::host_copy_bytes_per_s(gpu);

    let clips_per_call = per_gpu_batch * f64::from(gpus);
    let (denoise_s, vae_s, text_s, offload_s) =
        (denoise_call_s / clips_per_call, vae_call_s / clips_per_call, text_call_s / clips_per_call, offload_call_s / clips_per_call);
    let calibrated = gpu.vendor == crate::catalog::Vendor::Nvidia && matches!(gpu.architecture.as_str(), "Ampere" | "Ada Lovelace" | "Hopper");
    let w = band_half_width(calibrated);
    let total = denoise_s + vae_s + text_s + offload_s;
    Ok(VideoTiming { denoise_s, vae_s, text_s, offload_s, total_s: Band::around(total, 1.0 - w, 1.0 + w), calibrated })
}

/// Bytes copied from host to GPU per call by the offload mode: `model` moves each component (both
/// experts of a two-expert DiT) in once; `sequential` streams the DiT's weights on every pass.
fn offload_bytes(job: &VideoJob, spec: &DiffusionSpec, video: &VideoSpec, passes: f64) -> f64 {
    let dit = params_of(spec, "denoiser") * job.precision.bytes_per_weight();
    let text = if job.text_encoder_on_cpu { 0.0 } else { params_of(spec, "text_encoder") * 2.0 };
    let vae = params_of(spec, "vae") * 2.0;
    match job.offload {
        OffloadMode::None => 0.0,
        OffloadMode::Model => dit + text + vae,
        OffloadMode::Sequential => dit / f64::from(video.experts.max(1)) * passes + text + vae,
    }
}

/// Memory of one card for `job`, with the assumption line that explains it.
fn memory_for(fit: &VideoFit, job: &VideoJob, spec: &DiffusionSpec, video: &VideoSpec, gpus: u32) -> (MemoryBreakdown, Note) {
    let per_gpu_batch = f64::from(job.batch.div_ceil(gpus.max(1)));
    let tokens = video_tokens(spec, video, job.width_px, job.height_px, job.frames);
    let dit_all = params_of(spec, "denoiser") * job.precision.bytes_per_weight();
    let experts = f64::from(video.experts.max(1));
    // Wan runs the conditional and unconditional passes one after the other (wan/text2video.py calls
    // the model twice per step); diffusers pipelines batch them.
    let cfg_batch = if spec.family == "wan" { 1.0 } else { cfg_passes(job, spec) };
    let denoise_work = fit.live_bytes_per_token_channel * tokens * f64::from(video.dit_width) * per_gpu_batch * cfg_batch;
    let chunk = f64::from(video.vae_decode_chunk_frames.min(job.frames));
    let vae_work = VAE_DECODE_LIVE_CHANNELS * f64::from(job.width_px) * f64::from(job.height_px) * chunk * 2.0;
    let text_w = if job.text_encoder_on_cpu { 0.0 } else { params_of(spec, "text_encoder") * 2.0 };
    let vae_w = params_of(spec, "vae") * 2.0;
    // With no offload both experts stay resident; under `model` only the active one is on the GPU.
    let dit_w = if job.offload == OffloadMode::None { dit_all } else { dit_all / experts };
    let phases = [
        Phase { weights_bytes: text_w, work_bytes: 0.0, layers: TEXT_ENCODER_LAYERS },
        Phase { weights_bytes: dit_w, work_bytes: denoise_work, layers: f64::from(video.dit_layers) },
        Phase { weights_bytes: vae_w, work_bytes: vae_work, layers: 1.0 },
    ];
    let (weights, work) = offload_peak(job.offload, &phases);
    let mut m = MemoryBreakdown { weights_gib: weights / GIB, activations_gib: work / GIB, ..MemoryBreakdown::default() };
    let tensors = m.weights_gib + m.activations_gib;
    m.overhead_gib = CONTEXT_GIB + FRAGMENTATION * tensors;
    m.total_gib = tensors + m.overhead_gib;
    let note = Note::new(
        "{tokens} latent video tokens; offload {mode}: denoising holds {denoise} GiB of activations, VAE decode {vae} GiB",
        vec![
            ("tokens", crate::decimal::fixed(tokens, 0).into()),
            ("mode", job.offload.as_str().into()),
            ("denoise", crate::decimal::fixed(denoise_work / GIB, 1).into()),
            ("vae", crate::decimal::fixed(vae_work / GIB, 1).into()),
        ],
    );
    (m, note)
}

/// Memory of one card for `job` with the fitted constants `fit` (for cross-validation).
pub fn video_memory_with(fit: &VideoFit, job: &VideoJob, gpus: u32) -> Result<MemoryBreakdown, EstimateError> {
    let (spec, video) = lookup(&job.model)?;
    validate(job, gpus)?;
    Ok(memory_for(fit, job, spec, video, gpus).0)
}

/// Memory of one card for `job`.
pub fn video_memory(job: &VideoJob, gpus: u32) -> Result<MemoryBreakdown, EstimateError> {
    video_memory_with(&VideoFit::CALIBRATED, job, gpus)
}

/// Sizes one text-to-video job on `gpus` cards of `gpu` (clips spread over the cards; each holds the
/// whole pipeline). Reports `throughput.seconds_per_video`.
pub fn estimate_video(job: &VideoJob, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
    let (spec, video) = lookup(&job.model)?;
    let t = video_timing(job, gpu, gpus)?;
    let (memory, mem_note) = memory_for(&VideoFit::CALIBRATED, job, spec, video, gpus);
    let mut notes = vec![
        Note::new(
            "{frames} frames at {w}x{h} px, {steps} steps{cfg}: denoise {denoise} s + VAE {vae} s + text {text} s + offload copies {offload} s per clip",
            vec![
                ("frames", job.frames.to_string().into()),
                ("w", job.width_px.to_string().into()),
                ("h", job.height_px.to_string().into()),
                ("steps", job.steps.to_string().into()),
                ("cfg", if cfg_passes(job, spec) > 1.0 { Note::plain(" with CFG (2 denoiser passes each)").into() } else { "".into() }),
                ("denoise", crate::decimal::fixed(t.denoise_s, 0).into()),
                ("vae", crate::decimal::fixed(t.vae_s, 1).into()),
                ("text", crate::decimal::fixed(t.text_s, 1).into()),
                ("offload", crate::decimal::fixed(t.offload_s, 1).into()),
            ],
        ),
        mem_note,
    ];
    if !t.calibrated {
        notes.push(Note::plain("no calibration rows for this card family or stack: band widened to +/-35%"));
    }
    let usable = gpu.usable_memory_gib();
    let fits = memory.total_gib <= usable;
    if !fits {
        notes.push(Note::new(
            "needs {need} GiB per card, the card has {has} GiB",
            vec![("need", crate::decimal::fixed(memory.total_gib, 1).into()), ("has", crate::decimal::fixed(usable, 0).into())],
        ));
    }
    let gpus_needed = (1..=job.batch)
        .find(|&n| memory_for(&VideoFit::CALIBRATED, job, spec, video, n).0.total_gib <= usable)
        .unwrap_or(0);
    Ok(Estimate {
        model: spec.id.clone(),
        gpu: gpu.id.clone(),
        gpus,
        memory: memory.across(gpus),
        per_gpu_gib: memory.total_gib,
        gpus_needed,
        fits,
        throughput: Throughput { seconds_per_video: Some(t.total_s), ..Throughput::default() },
        assumptions: notes,
        offload: None,
    })
}
