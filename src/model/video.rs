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
//! and the VAE decode. On more than one card one clip is split over all of them by default, as the
//! published multi-GPU runs do ([`VideoParallel`]): the latent tokens go N ways (DeepSpeed-Ulysses'
//! all-to-all of q, k, v and the attention output per block, or ring attention), and FSDP shards the
//! DiT's and the text encoder's weights. Every constant and its source is in `docs/MODEL.md`,
//! "Video generation".

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{DiffusionSpec, Gpu, VideoSpec};
use crate::model::media::{
    self, band_half_width, effective_rate_with, offload_peak, KernelMix, Math, MediaFit, OffloadMode, Phase, StackGain,
    CONTEXT_GIB, CPU_TFLOPS, FRAGMENTATION, VAE_DECODE_LIVE_CHANNELS,
};
use crate::model::precision::Precision;
use crate::model::types::{check_count, Band, Estimate, EstimateError, MemoryBreakdown, Note, Throughput, GIB};

/// The constants of the video engine fitted to the published tables
/// (`tests/data/calibration/video.csv`, `video_multi_gpu.csv`; the accuracy harness,
/// `src/accuracy/media.rs`, refits them inside every cross-validation fold).
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
    /// The values fitted on every video row (docs/MODEL.md, "Video generation").
    pub const CALIBRATED: VideoFit = VideoFit { live_bytes_per_token_channel: 83.6, traffic_bytes_per_token_channel: 407.1, sm_overhead_sm_per_tflops: 0.2074 };
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
/// Blocks whose gathered 16-bit weights an FSDP rank holds at once: the one computing and the next,
/// whose all-gather is prefetched (PyTorch `FullyShardedDataParallel(limit_all_gathers=True)`, the
/// default: "GPU memory usage from only two consecutive FSDP instances (the current instance running
/// computation and the next instance whose all-gather is prefetched)"). Wan wraps each DiT block
/// (`wan/distributed/fsdp.py`, `lambda_auto_wrap_policy` on `model.blocks`).
pub const FSDP_GATHERED_BLOCKS: f64 = 2.0;
/// Bytes per weight FSDP gathers: Wan's `shard_model` casts the shards to
/// `MixedPrecision(param_dtype=torch.bfloat16)` before the all-gather (`wan/distributed/fsdp.py`).
pub const FSDP_GATHER_BYTES_PER_WEIGHT: f64 = 2.0;
/// Bytes per element of the activations sequence parallelism exchanges (BF16 under Wan's and xDiT's
/// autocast).
pub const SP_BYTES_PER_ELEMENT: f64 = 2.0;
/// All-to-alls per attention block under DeepSpeed-Ulysses: q, k and v before the attention (tokens
/// split → heads split) and its output after (back): Jacobs et al., "DeepSpeed Ulysses", arXiv
/// 2309.14509, §3.1 ("the communication volume per link is 4Nh/P" for sequence N, hidden h, P GPUs).
pub const ULYSSES_ALL_TO_ALLS: f64 = 4.0;

/// How a job uses more than one card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VideoParallel {
    /// Each card holds the whole pipeline and runs its own clips: `ceil(batch / gpus)` per card.
    Clips,
    /// One clip over every card: its tokens split N ways, DeepSpeed-Ulysses' all-to-all around each
    /// attention (xDiT's USP with ring degree 1; HunyuanVideo `--ulysses-degree N`, Wan
    /// `--ulysses_size N`). `fsdp` also shards the DiT and the text encoder (Wan `--dit_fsdp
    /// --t5_fsdp`); without it every card holds every weight.
    Ulysses { fsdp: bool },
    /// One clip over every card with ring attention: tokens split N ways, each card's key and value
    /// blocks passed around the ring while the attention runs (Liu et al., "Ring Attention", arXiv
    /// 2310.01889; Wan `--ring_size N`, which its README uses where the heads do not divide by N).
    Ring { fsdp: bool },
}

impl VideoParallel {
    /// What the published multi-GPU runs do: the Wan2.1 and Wan2.2 READMEs' recipe, `torchrun
    /// --nproc_per_node=N generate.py --dit_fsdp --t5_fsdp --ulysses_size N`.
    pub const PUBLISHED: VideoParallel = VideoParallel::Ulysses { fsdp: true };

    /// Every mode, in CLI order.
    pub const ALL: [VideoParallel; 5] = [
        VideoParallel::Ulysses { fsdp: true },
        VideoParallel::Ulysses { fsdp: false },
        VideoParallel::Ring { fsdp: true },
        VideoParallel::Ring { fsdp: false },
        VideoParallel::Clips,
    ];

    /// CLI and URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            VideoParallel::Clips => "clips",
            VideoParallel::Ulysses { fsdp: true } => "fsdp+ulysses",
            VideoParallel::Ulysses { fsdp: false } => "ulysses",
            VideoParallel::Ring { fsdp: true } => "fsdp+ring",
            VideoParallel::Ring { fsdp: false } => "ring",
        }
    }

    /// Parses a name of [`VideoParallel::as_str`], ignoring a trailing degree (`fsdp+ulysses8`).
    pub fn parse(s: &str) -> Option<VideoParallel> {
        let name = s.trim().to_ascii_lowercase();
        let name = name.trim_end_matches(|c: char| c.is_ascii_digit());
        VideoParallel::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The mode `job` runs with on `gpus` cards: the job's, else [`VideoParallel::PUBLISHED`]; on
    /// one card nothing is split.
    pub fn of(job: &VideoJob, gpus: u32) -> VideoParallel {
        if gpus <= 1 {
            VideoParallel::Clips
        } else {
            job.parallel.unwrap_or(VideoParallel::PUBLISHED)
        }
    }

    /// Cards one clip's tokens are split over.
    fn sequence_ways(self, gpus: u32) -> u32 {
        match self {
            VideoParallel::Clips => 1,
            _ => gpus.max(1),
        }
    }

    fn fsdp(self) -> bool {
        matches!(self, VideoParallel::Ulysses { fsdp: true } | VideoParallel::Ring { fsdp: true })
    }
}

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
    /// Clips per call: split over the cards under [`VideoParallel::Clips`], each through every card
    /// under sequence parallelism.
    pub batch: u32,
    /// Classifier-free guidance; `None` follows the preset.
    pub cfg: Option<bool>,
    pub offload: OffloadMode,
    /// `None`: [`AttentionKernel::default_for`] the card.
    pub attention: Option<AttentionKernel>,
    /// Run the text encoder on the CPU (Wan's `--t5_cpu`).
    pub text_encoder_on_cpu: bool,
    /// How more than one card is used; `None`: [`VideoParallel::PUBLISHED`].
    pub parallel: Option<VideoParallel>,
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
            parallel: None,
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
    for (v, what) in [(job.width_px, Note::plain("the width")), (job.height_px, Note::plain("the height"))] {
        if !(64..=4096).contains(&v) {
            let args = vec![("what", what.into()), ("max", "4096".into()), ("value", v.to_string().into())];
            return Err(EstimateError::invalid("resolution", Note::new("{what} must be between 64 and {max} px, got {value}", args)));
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
/// and the rates of the VAE and the text encoders): the accuracy harness fits those shared
/// constants on the video rows too (`src/accuracy/media.rs`).
///
/// On more than one card under sequence parallelism ([`VideoParallel::Ulysses`],
/// [`VideoParallel::Ring`]) every card runs a 1/N share of each pass's matmuls, attention and
/// element-wise traffic, plus the collectives: Ulysses' all-to-alls ([`ulysses_s`], in series with
/// the compute), ring attention's key/value hand-offs ([`ring_kv_s`], overlapped with the
/// attention), FSDP's all-gather of the active DiT's 16-bit weights ([`fsdp_gather_s`], prefetched
/// under the compute). Text encoding runs on every card (the same prompts), and the VAE decode on
/// one card (Wan: `if self.rank == 0: videos = self.vae.decode(x0)`), so neither shrinks with N.
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
    let par = VideoParallel::of(job, gpus);
    let ways = par.sequence_ways(gpus);
    let n = f64::from(ways);
    let link = crate::model::fabric::group_link(gpu, gpus);
    let seq = self_attention_tokens(video, tokens);
    let attn_s = attn / n / (attn_tflops * 1e12);
    let (attn_s, comm_s) = match par {
        VideoParallel::Clips => (attn_s, 0.0),
        VideoParallel::Ulysses { .. } => (attn_s, ulysses_s(video, seq, ways, &link)),
        VideoParallel::Ring { .. } => (attn_s.max(ring_kv_s(video, seq, ways, &link)), 0.0),
    };
    let compute_s = slow * lin / n / (matmul_tflops * 1e12) + attn_s + traffic / n / (gpu.memory_bandwidth_gb_s * 1e9 * l2);
    let experts = f64::from(video.experts.max(1));
    let gather_s = if par.fsdp() { fsdp_gather_s(params_of(spec, "denoiser") / experts, ways, &link) } else { 0.0 };
    let pass_s = compute_s.max(gather_s) + comm_s;
    let (per_card_batch, clips_per_call) = clips(par, job.batch, gpus);
    let passes = f64::from(job.steps) * cfg_passes(job, spec) * per_card_batch;
    let denoise_call_s = passes * pass_s;

    let vae_rate = effective_rate_with(&m, gpu, Math::Half, KernelMix::Diffusion, StackGain::EAGER)?;
    let pixel_frames = f64::from(job.width_px) * f64::from(job.height_px) * f64::from(job.frames);
    let vae_call_s = per_card_batch * video.vae_decode_gflops_per_px * 1e9 * pixel_frames / (vae_rate.tflops * 1e12);
    let text_rate = effective_rate_with(&m, gpu, Math::Half, KernelMix::Transformer, StackGain::EAGER)?;
    let text_calls = cfg_passes(job, spec) * per_card_batch;
    let text_tflop = spec.text_encoder_gflops / 1000.0 * text_calls;
    let text_gather_s = if par.fsdp() { text_calls * fsdp_gather_s(params_of(spec, "text_encoder"), ways, &link) } else { 0.0 };
    let text_call_s = if job.text_encoder_on_cpu { text_tflop / CPU_TFLOPS } else { (text_tflop / text_rate.tflops).max(text_gather_s) };
    let shard = if par.fsdp() { n } else { 1.0 };
    let offload_call_s = offload_bytes(job, spec, video, passes, shard) / media::host_copy_bytes_per_s(gpu);

    let (denoise_s, vae_s, text_s, offload_s) =
        (denoise_call_s / clips_per_call, vae_call_s / clips_per_call, text_call_s / clips_per_call, offload_call_s / clips_per_call);
    let calibrated = gpu.vendor == crate::catalog::Vendor::Nvidia && matches!(gpu.architecture.as_str(), "Ampere" | "Ada Lovelace" | "Hopper");
    let w = band_half_width(calibrated);
    let total = denoise_s + vae_s + text_s + offload_s;
    Ok(VideoTiming { denoise_s, vae_s, text_s, offload_s, total_s: Band::around(total, 1.0 - w, 1.0 + w), calibrated })
}

/// (clips each card runs per call, clips per call): `ceil(batch / gpus)` per card and that many on
/// every card under [`VideoParallel::Clips`]; every clip through every card otherwise.
fn clips(par: VideoParallel, batch: u32, gpus: u32) -> (f64, f64) {
    match par {
        VideoParallel::Clips => {
            let per_card = f64::from(batch.div_ceil(gpus.max(1)));
            (per_card, per_card * f64::from(gpus.max(1)))
        }
        _ => (f64::from(batch), f64::from(batch)),
    }
}

/// Tokens in each self-attention: the video tokens, and the text tokens too under joint attention.
pub fn self_attention_tokens(video: &VideoSpec, tokens: f64) -> f64 {
    if video.joint_attention {
        tokens + f64::from(video.text_tokens)
    } else {
        tokens
    }
}

/// Seconds of DeepSpeed-Ulysses' all-to-alls in one denoiser pass over `n` cards: per block
/// [`ULYSSES_ALL_TO_ALLS`] of the card's `seq / n` tokens × width in BF16, of which `(n - 1) / n`
/// leaves the card (Jacobs et al., arXiv 2309.14509, §3.1: per-link volume `4Nh/P`), at the link's
/// rate, plus one link latency per all-to-all:
/// `layers × (4 × (seq / n) × width × 2 B × (n − 1) / n / link + 4 × latency)`.
pub fn ulysses_s(video: &VideoSpec, seq: f64, n: u32, link: &crate::model::fabric::Link) -> f64 {
    if n <= 1 || link.gb_s <= 0.0 {
        return 0.0;
    }
    let nf = f64::from(n);
    let bytes = ULYSSES_ALL_TO_ALLS * seq / nf * f64::from(video.dit_width) * SP_BYTES_PER_ELEMENT * (nf - 1.0) / nf;
    f64::from(video.dit_layers) * (bytes / (link.gb_s * 1e9) + ULYSSES_ALL_TO_ALLS * link.latency_s)
}

/// Seconds of ring attention's key/value hand-offs in one pass over `n` cards: per block each card
/// passes its `seq / n` keys and values (2 × width in BF16) on `n − 1` times (Liu et al., arXiv
/// 2310.01889, §3): `layers × (n − 1) × (2 × (seq / n) × width × 2 B / link + latency)`. They run
/// under the blockwise attention, so a pass takes the larger of the two.
pub fn ring_kv_s(video: &VideoSpec, seq: f64, n: u32, link: &crate::model::fabric::Link) -> f64 {
    if n <= 1 || link.gb_s <= 0.0 {
        return 0.0;
    }
    let nf = f64::from(n);
    let bytes = 2.0 * seq / nf * f64::from(video.dit_width) * SP_BYTES_PER_ELEMENT;
    f64::from(video.dit_layers) * (nf - 1.0) * (bytes / (link.gb_s * 1e9) + link.latency_s)
}

/// Seconds for FSDP to all-gather `params` weights in 16 bits over `n` cards, once per pass: the
/// all-gather half of a ring all-reduce, `(n − 1) / n × params × 2 B / link`
/// ([`crate::model::fabric::allreduce_s`]). FSDP issues the next block's all-gather while the
/// current one computes, so it costs time only where it is the longer of the two.
pub fn fsdp_gather_s(params: f64, n: u32, link: &crate::model::fabric::Link) -> f64 {
    crate::model::fabric::allreduce_s(params * FSDP_GATHER_BYTES_PER_WEIGHT, n, link) / 2.0
}

/// Bytes copied from host to one GPU per call by the offload mode: `model` moves each component
/// (both experts of a two-expert DiT) in once; `sequential` streams the DiT's weights on every pass.
/// Under FSDP a card copies its `1 / shard` of the DiT and the text encoder.
fn offload_bytes(job: &VideoJob, spec: &DiffusionSpec, video: &VideoSpec, passes: f64, shard: f64) -> f64 {
    let dit = params_of(spec, "denoiser") * job.precision.bytes_per_weight() / shard;
    let text = if job.text_encoder_on_cpu { 0.0 } else { params_of(spec, "text_encoder") * 2.0 / shard };
    let vae = params_of(spec, "vae") * 2.0;
    match job.offload {
        OffloadMode::None => 0.0,
        OffloadMode::Model => dit + text + vae,
        OffloadMode::Sequential => dit / f64::from(video.experts.max(1)) * passes + text + vae,
    }
}

/// Memory of the busiest card for `job` (under sequence parallelism the one that also decodes), with
/// the assumption line that explains it.
///
/// Sequence parallelism over N cards keeps `1 / N` of each pass's tokens, so of its working set, on
/// every card; FSDP keeps `1 / N` of the DiT's and the text encoder's weights (in the job's weight
/// format) plus [`FSDP_GATHERED_BLOCKS`] gathered DiT blocks in 16 bits. The VAE decode runs whole
/// on one card.
fn memory_for(fit: &VideoFit, job: &VideoJob, spec: &DiffusionSpec, video: &VideoSpec, gpus: u32) -> (MemoryBreakdown, Note) {
    let par = VideoParallel::of(job, gpus);
    let (per_card_batch, _) = clips(par, job.batch, gpus);
    let ways = f64::from(par.sequence_ways(gpus));
    let shard = if par.fsdp() { ways } else { 1.0 };
    let tokens = video_tokens(spec, video, job.width_px, job.height_px, job.frames);
    let dit_all = params_of(spec, "denoiser") * job.precision.bytes_per_weight();
    let experts = f64::from(video.experts.max(1));
    // A pipeline that runs the conditional and unconditional passes one after the other (Wan)
    // holds one pass's working set; one that batches them (diffusers) holds both.
    let cfg_batch = if video.cfg_in_sequence { 1.0 } else { cfg_passes(job, spec) };
    let denoise_work = fit.live_bytes_per_token_channel * tokens / ways * f64::from(video.dit_width) * per_card_batch * cfg_batch;
    let chunk = f64::from(video.vae_decode_chunk_frames.min(job.frames));
    let vae_work = VAE_DECODE_LIVE_CHANNELS * f64::from(job.width_px) * f64::from(job.height_px) * chunk * 2.0;
    let text_w = if job.text_encoder_on_cpu { 0.0 } else { params_of(spec, "text_encoder") * 2.0 / shard };
    let vae_w = params_of(spec, "vae") * 2.0;
    let gathered = if par.fsdp() && ways > 1.0 {
        FSDP_GATHERED_BLOCKS * params_of(spec, "denoiser") / experts / f64::from(video.dit_layers.max(1)) * FSDP_GATHER_BYTES_PER_WEIGHT
    } else {
        0.0
    };
    // With no offload both experts stay resident; under `model` only the active one is on the GPU.
    let dit_w = if job.offload == OffloadMode::None { dit_all } else { dit_all / experts } / shard + gathered;
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

/// Sizes one text-to-video job on `gpus` cards of `gpu` (one clip split over the cards by
/// [`VideoParallel::of`] the job). Reports `throughput.seconds_per_video`.
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
    // More cards hold more clips apart, or split one clip and (FSDP) its weights: the fewest that fit,
    // up to the batch or one node of eight.
    let gpus_needed = (1..=job.batch.max(crate::model::fabric::NODE_GPUS))
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
