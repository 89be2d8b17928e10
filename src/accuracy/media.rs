//! The image-generation, classic-training and video-generation engines as one accuracy
//! [`Domain`]: their published rows, the engine's prediction of each, and the refit of every
//! fitted constant ([`MediaFit`], shared by the three engines, and [`VideoFit`], the video
//! engine's own) on any subset of rows.
//!
//! # The rows
//!
//! - [`Set::Image`]: `diffusion.csv` and `diffusion_more.csv`, seconds per image (the denoising
//!   loop where the source timed it alone, else the whole pipeline);
//! - [`Set::Classic`]: the ResNet, ViT and BERT rows of `training.csv` and
//!   `classic_training_more.csv`, training samples/s per GPU (the MPT rows are the LLM domain's);
//! - [`Set::VideoTime`] and [`Set::VideoMemory`]: `video.csv` and `video_multi_gpu.csv`, seconds
//!   per clip and peak GiB on the busiest card, each row with its parallel mode.
//!
//! Rows whose notes start with `EXCLUDED` are left out and listed (the notes say why).
//!
//! # The fit
//!
//! [`MediaFit`]: every constant at once, by coordinate descent on multiplicative steps (1.25,
//! 1.1, 1.03, 1.01) from its physics default, minimising the mean |ln(model / measured)| of the
//! generation rows (image and timed video rows pooled, one weight per row) plus that of the
//! classic rows, inside each constant's physical bounds. [`VideoFit`]: least squares of the log
//! error, the live bytes on the memory rows, the two time constants on the time rows by
//! alternating golden-section searches. The video fit reads the shared rates and the shared fit
//! reads the video rows, so a refit runs video, shared, video. A constant with fewer than
//! [`MIN_ROWS`] rows of its kind keeps its default and the fold says so.

use super::folds::{Domain, Refit};
use super::llm::MIN_ROWS;
use super::row::{family_of, generation_of, gpu, source_key, Csv, Row, Set};
use crate::catalog::Gpu;
use crate::model::classic::{self, classic_samples_per_s_with, ClassicJob, ClassicMode, ClassicPrecision};
use crate::model::diffusion::{image_timing_with, ImageJob};
use crate::model::media::{self, MediaFit, OffloadMode};
use crate::model::numeric::Fp32Math;
use crate::model::precision::Precision;
use crate::model::video::{video_memory_with, video_timing_with_media, AttentionKernel, VideoFit, VideoJob, VideoParallel};
use crate::model::Band;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

type R<T> = Result<T, String>;

/// What a media row carries: the job, and which engine output it is compared with.
#[derive(Debug, Clone)]
pub enum MediaCase {
    /// Seconds per image: of the denoising loop alone (`denoise_only`) or of the whole pipeline.
    Image { job: ImageJob, denoise_only: bool },
    /// Training samples/s per GPU.
    Classic { job: ClassicJob },
    /// Seconds per clip.
    VideoTime { job: VideoJob },
    /// Peak GiB on the busiest card.
    VideoMemory { job: VideoJob },
}

/// The fitted constants of the three engines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MediaFits {
    /// Shared by the image, classic and video engines.
    pub media: MediaFit,
    /// The video engine's time and memory constants.
    pub video: VideoFit,
}

impl MediaFits {
    /// What the app ships.
    pub const CALIBRATED: MediaFits = MediaFits { media: MediaFit::CALIBRATED, video: VideoFit::CALIBRATED };
}

/// The rows, and the ones left out.
#[derive(Default)]
pub struct Inventory {
    pub rows: Vec<Row<MediaCase>>,
    /// Rows left out, with the reason.
    pub skipped: Vec<String>,
    /// Data rows read, over every file (the LLM rows of `training.csv` are not counted here).
    pub read: usize,
}

/// The files this module reads, in order.
pub const FILES: [&str; 9] = [
    "diffusion.csv",
    "diffusion_more.csv",
    "diffusion_new_sources.csv",
    "training.csv",
    "classic_training_more.csv",
    "classic_new_sources.csv",
    "video.csv",
    "video_multi_gpu.csv",
    "video_new_sources.csv",
];

fn num<T: std::str::FromStr>(s: &str, what: &str) -> R<T> {
    s.trim().parse().map_err(|_| format!("{what}: `{s}` is not a number"))
}

/// A row of `set` on `gpus` × `g`, with its fold keys from the card and the `source` column.
#[allow(clippy::too_many_arguments)]
pub(crate) fn keyed_row<P>(set: Set, file: &'static str, label: String, g: &'static Gpu, gpus: u32, measured: f64, source: &str, engine: &str, payload: P) -> Row<P> {
    let (family, generation, engine) = (family_of(g).to_string(), generation_of(g), engine.to_string());
    Row { set, file, label, gpu: g, gpus, measured, source: source_key(source), citation: source.trim().to_string(), family, generation, engine, payload }
}

/// Every row of [`FILES`].
pub fn inventory(dir: &Path) -> R<Inventory> {
    let mut inv = Inventory::default();
    for file in ["diffusion.csv", "diffusion_more.csv", "diffusion_new_sources.csv"] {
        image_rows(dir, file, &mut inv)?;
    }
    for file in ["training.csv", "classic_training_more.csv", "classic_new_sources.csv"] {
        classic_rows(dir, file, false, &mut inv)?;
    }
    for file in ["video.csv", "video_multi_gpu.csv", "video_new_sources.csv"] {
        video_rows(dir, file, &mut inv)?;
    }
    Ok(inv)
}

/// The classic rows whose notes say `EXCLUDED` (and why), as the engine would score them.
pub fn excluded_classic_rows(dir: &Path) -> R<Vec<Row<MediaCase>>> {
    let mut inv = Inventory::default();
    for file in ["training.csv", "classic_training_more.csv", "classic_new_sources.csv"] {
        classic_rows(dir, file, true, &mut inv)?;
    }
    Ok(inv.rows)
}

fn image_rows(dir: &Path, file: &'static str, inv: &mut Inventory) -> R<()> {
    let csv = Csv::read(dir, file)?;
    for r in &csv.rows {
        let c = |k: &str| csv.get(r, k);
        inv.read += 1;
        let named = format!("{file}: {} {} batch {}", c("gpu"), c("model"), c("batch"));
        if c("notes").starts_with("EXCLUDED") {
            inv.skipped.push(format!("{named}: excluded (the row's notes say why)"));
            continue;
        }
        // The diffusers page names SD 1.5 in words; the other files hold preset ids.
        let model = if c("model") == "SD v1.5" { "sd-1.5" } else { c("model") };
        let g = gpu(c("gpu"))?;
        let mut job = ImageJob::new(model).map_err(|e| format!("{named}: {e}"))?;
        let (w, h) = c("resolution").split_once('x').ok_or_else(|| format!("{named}: resolution `{}`", c("resolution")))?;
        job.width_px = num(w, &named)?;
        job.height_px = num(h, &named)?;
        job.steps = num(c("steps"), &named)?;
        job.batch = num(c("batch"), &named)?;
        let p = c("precision");
        (job.precision, job.fp32_math) = match p {
            "fp16" => (Precision::Fp16, Fp32Math::PytorchDefault),
            "bf16" => (Precision::Bf16, Fp32Math::PytorchDefault),
            "fp32 tf32-ngc" => (Precision::Fp32, Fp32Math::Tf32),
            "fp32 strict" => (Precision::Fp32, Fp32Math::Strict),
            other => return Err(format!("{named}: precision `{other}`")),
        };
        let denoise_only = match c("metric") {
            "pipeline_it_s" => true,
            "pipeline_latency_s" => false,
            other => return Err(format!("{named}: metric `{other}`")),
        };
        let label = format!("{} {} b{} {} {}", g.id, model, job.batch, p, if denoise_only { "denoise" } else { "pipeline" });
        let measured = num(c("sec_per_image"), &named)?;
        let gpus = num(c("num_gpus"), &named)?;
        inv.rows.push(keyed_row(Set::Image, file, label, g, gpus, measured, c("source"), "diffusers", MediaCase::Image { job, denoise_only }));
    }
    Ok(())
}

/// The classic rows of `file`: the rows whose notes say `EXCLUDED` when `excluded`, the others
/// otherwise.
fn classic_rows(dir: &Path, file: &'static str, excluded: bool, inv: &mut Inventory) -> R<()> {
    let csv = Csv::read(dir, file)?;
    for r in &csv.rows {
        let c = |k: &str| csv.get(r, k);
        let (id, seq) = match c("model") {
            "ResNet-50" => ("resnet-50", None),
            "ResNet-152" => ("resnet-152", None),
            "ViT-B/16" => ("vit-b-16", None),
            "ViT-L/16" => ("vit-l-16", None),
            "BERT-large SQuAD fine-tune" => ("bert-large", None),
            "BERT-base SQuAD fine-tune" => ("bert-base", None),
            "BERT-large pre-training seq 128" => ("bert-large", Some(128)),
            "BERT-large pre-training seq 512" => ("bert-large", Some(512)),
            _ => continue, // the MPT rows are the LLM domain's
        };
        inv.read += 1;
        let named = format!("{file}: {} {} {}", c("gpu"), c("model"), c("precision"));
        if c("notes").starts_with("EXCLUDED") != excluded {
            if !excluded {
                inv.skipped.push(format!("{named}: excluded (the row's notes say why)"));
            }
            continue;
        }
        // The classic engine times PyTorch's eager kernels: another framework's graph compiler
        // (TensorFlow's XLA, MXNet, PaddlePaddle, MindSpore, OneFlow) runs other kernels.
        if !c("framework").contains("PyTorch") {
            inv.skipped.push(format!("{named}: run on {}, not PyTorch", c("framework")));
            continue;
        }
        let g = gpu(c("gpu"))?;
        let mut job = ClassicJob::new(id, ClassicMode::Train).map_err(|e| format!("{named}: {e}"))?;
        job.batch = Some(num(c("batch_per_gpu"), &named)?);
        job.seq_len = seq;
        // The memory format the source ran (its notes say so): NCHW, PyTorch's default, else.
        job.channels_last = c("notes").contains("memory_format nhwc");
        let p = c("precision");
        (job.precision, job.fp32_math) = if p.starts_with("AMP") {
            (ClassicPrecision::Amp, Fp32Math::PytorchDefault)
        } else if p == "TF32" || p.starts_with("fp32 (TF32") {
            // NGC containers: TF32 for convolutions and matmuls where the card has it.
            (ClassicPrecision::Fp32, Fp32Math::Tf32)
        } else if p.starts_with("fp32 (strict") {
            (ClassicPrecision::Fp32, Fp32Math::Strict)
        } else {
            return Err(format!("{named}: precision `{p}`"));
        };
        let tag = match (job.precision, job.fp32_math) {
            (ClassicPrecision::Amp, _) => "amp",
            (_, Fp32Math::Strict) => "fp32",
            _ => "tf32",
        };
        let old = c("source").contains("@fe450482");
        let label = format!(
            "{} {}{} {}{}{}",
            g.id,
            id,
            seq.map(|s| format!("@{s}")).unwrap_or_default(),
            tag,
            if job.channels_last { " nhwc" } else { "" },
            if old { " (2022)" } else { "" }
        );
        // The run's whole throughput: the engine's figure for `num_gpus` cards is the total.
        let measured = num(c("value"), &named)?;
        let gpus = num(c("num_gpus"), &named)?;
        inv.rows.push(keyed_row(Set::Classic, file, label, g, gpus, measured, c("source"), "pytorch", MediaCase::Classic { job }));
    }
    Ok(())
}

/// The parallel mode of a video row's `parallel` column: empty or `none` on one card; a
/// [`VideoParallel`] name with its degree (`fsdp+ulysses8`, `ulysses4`, `ring8`) as written;
/// where the value says part of the setup is "not stated", that part follows the Wan READMEs'
/// multi-GPU recipe (`--dit_fsdp --t5_fsdp --ulysses_size N`): `usp2 (split not stated)` runs
/// Ulysses with FSDP, `ring8 (FSDP not stated)` ring attention with FSDP.
fn parallel_of(value: &str) -> R<Option<VideoParallel>> {
    let (mode, qualifier) = match value.split_once('(') {
        Some((m, q)) => (m.trim(), q),
        None => (value.trim(), ""),
    };
    if mode.is_empty() || mode == "none" {
        return Ok(None);
    }
    let unstated = qualifier.contains("not stated");
    let recipe = VideoParallel::PUBLISHED;
    let parsed = match mode.trim_end_matches(|c: char| c.is_ascii_digit()) {
        "usp" if unstated => recipe,
        "ring" if unstated => VideoParallel::Ring { fsdp: true },
        _ => VideoParallel::parse(mode).ok_or_else(|| format!("parallel mode `{value}`"))?,
    };
    Ok(Some(parsed))
}

fn video_rows(dir: &Path, file: &'static str, inv: &mut Inventory) -> R<()> {
    let csv = Csv::read(dir, file)?;
    for r in &csv.rows {
        let c = |k: &str| csv.get(r, k);
        inv.read += 1;
        let named = format!("{file}: {} ×{} {} {}x{}x{}", c("gpu"), c("gpus"), c("model"), c("width"), c("height"), c("frames"));
        let g = gpu(c("gpu"))?;
        let gpus: u32 = num(c("gpus"), &named)?;
        let mut job = VideoJob::new(c("model")).map_err(|e| format!("{named}: {e}"))?;
        job.width_px = num(c("width"), &named)?;
        job.height_px = num(c("height"), &named)?;
        job.frames = num(c("frames"), &named)?;
        job.steps = num(c("steps"), &named)?;
        job.offload = OffloadMode::parse(c("offload")).ok_or_else(|| format!("{named}: offload `{}`", c("offload")))?;
        job.text_encoder_on_cpu = c("text_on_cpu") == "true";
        job.attention = Some(match c("attention") {
            "fa3" => AttentionKernel::Fa3,
            // PyTorch's scaled_dot_product_attention runs its FlashAttention-2 kernel for 16-bit
            // inputs on the cards these rows ran on (PyTorch 2 `sdpa` flash back-end).
            "fa2" | "sdpa" => AttentionKernel::Fa2,
            other => return Err(format!("{named}: attention `{other}`")),
        });
        job.parallel = parallel_of(c("parallel")).map_err(|e| format!("{named}: {e}"))?;
        if job.parallel.is_some() != (gpus > 1) {
            return Err(format!("{named}: a parallel mode needs more than one GPU, and more than one GPU a mode"));
        }
        // FSDP keeps the DiT's parameters in the format it was loaded in, FP32 (Wan's
        // `WanModel.from_pretrained` builds FP32 modules; `--convert_model_dtype` "Only works
        // without FSDP", wan/text2video.py), and gathers BF16 copies to compute.
        if job.parallel.is_some_and(|p| matches!(p, VideoParallel::Ulysses { fsdp: true } | VideoParallel::Ring { fsdp: true })) {
            job.precision = Precision::Fp32;
        }
        let engine = crate::catalog::diffusion(&job.model).map_or("video", |s| s.family.as_str()).to_string();
        let label = format!(
            "{} ×{gpus} {} {}x{}x{}{}",
            g.id,
            job.model,
            job.width_px,
            job.height_px,
            job.frames,
            job.parallel.map(|p| format!(" {}", p.as_str())).unwrap_or_default()
        );
        if !c("seconds").trim().is_empty() {
            let measured = num(c("seconds"), &named)?;
            inv.rows.push(keyed_row(Set::VideoTime, file, label.clone(), g, gpus, measured, c("source"), &engine, MediaCase::VideoTime { job: job.clone() }));
        }
        if !c("peak_gib").trim().is_empty() {
            let measured = num(c("peak_gib"), &named)?;
            inv.rows.push(keyed_row(Set::VideoMemory, file, label, g, gpus, measured, c("source"), &engine, MediaCase::VideoMemory { job }));
        }
    }
    Ok(())
}

/// The engine's band for a row under `f` (NaN when the engine rejects the job).
pub fn predict_row(f: &MediaFits, r: &Row<MediaCase>) -> Band {
    let nan = Band { low: f64::NAN, mid: f64::NAN, high: f64::NAN };
    match &r.payload {
        MediaCase::Image { job, denoise_only } => {
            image_timing_with(&f.media, job, r.gpu, r.gpus).map_or(nan, |t| if *denoise_only { t.denoise_band_s } else { t.total_s })
        }
        MediaCase::Classic { job } => classic_samples_per_s_with(&f.media, job, r.gpu, r.gpus).unwrap_or(nan),
        MediaCase::VideoTime { job } => video_timing_with_media(&f.video, &f.media, job, r.gpu, r.gpus).map_or(nan, |t| t.total_s),
        MediaCase::VideoMemory { job } => {
            let w = media::band_half_width(true);
            video_memory_with(&f.video, job, r.gpus).map_or(nan, |m| Band::around(m.total_gib, 1.0 - w, 1.0 + w))
        }
    }
}

/// One fitted constant of `F`.
pub struct Knob<F> {
    pub name: &'static str,
    pub at: fn(&mut F) -> &mut f64,
    /// The physics default: where a fit starts, and what it keeps when its rows are too few.
    pub prior: f64,
    pub lo: f64,
    pub hi: f64,
    /// True for the rows that determine it.
    pub determines: fn(&Row<MediaCase>) -> bool,
}

fn knob<F>(name: &'static str, at: fn(&mut F) -> &mut f64, prior: f64, (lo, hi): (f64, f64), determines: fn(&Row<MediaCase>) -> bool) -> Knob<F> {
    Knob { name, at, prior, lo, hi, determines }
}

fn image(r: &Row<MediaCase>) -> bool {
    matches!(r.payload, MediaCase::Image { .. })
}

fn classic(r: &Row<MediaCase>) -> bool {
    matches!(r.payload, MediaCase::Classic { .. })
}

fn video_time(r: &Row<MediaCase>) -> bool {
    matches!(r.payload, MediaCase::VideoTime { .. })
}

fn video_memory(r: &Row<MediaCase>) -> bool {
    matches!(r.payload, MediaCase::VideoMemory { .. })
}

/// Rows the shared constants are fitted on: every row but the video memory rows.
fn timed(r: &Row<MediaCase>) -> bool {
    !video_memory(r)
}

fn fp32(r: &Row<MediaCase>) -> bool {
    match &r.payload {
        MediaCase::Image { job, .. } => matches!(job.precision, Precision::Fp32 | Precision::Tf32),
        MediaCase::Classic { job } => job.precision != ClassicPrecision::Amp,
        _ => false,
    }
}

fn large_l2(r: &Row<MediaCase>) -> bool {
    timed(r) && media::large_l2(r.gpu)
}

fn classic_transformer(r: &Row<MediaCase>) -> bool {
    match &r.payload {
        MediaCase::Classic { job } => crate::catalog::classic(&job.model).is_some_and(classic::is_transformer),
        _ => false,
    }
}

fn classic_convnet(r: &Row<MediaCase>) -> bool {
    classic(r) && !classic_transformer(r)
}

/// The VAE decode and the denoisers run the diffusion kernel mix.
fn diffusion_mix(r: &Row<MediaCase>) -> bool {
    image(r) || video_time(r)
}

/// The text encoders run the transformer mix.
fn transformer_mix(r: &Row<MediaCase>) -> bool {
    classic_transformer(r) || video_time(r)
}

/// The [`MediaFit`] constants, in the order the descent visits them. Bounds: eager kernels reach
/// at most 80% of the dense peak, the fixed per-step training cost stays under 10 ms (launches and
/// loss scaling; the optimizer's traffic is counted apart), the L2 factor and the FP32 intensity
/// divisor are at least 1.
pub fn media_knobs() -> Vec<Knob<MediaFit>> {
    vec![
        knob("media: 16-bit tensor efficiency", |f| &mut f.eta_tensor_16, 0.6, (0.05, 0.8), timed),
        knob("media: TF32/FP32 efficiency", |f| &mut f.eta_32, 0.6, (0.05, 0.8), fp32),
        knob("media: FP32 intensity divisor", |f| &mut f.fp32_intensity_divisor, 2.0, (1.0, 8.0), fp32),
        knob("media: large-L2 bandwidth factor", |f| &mut f.large_l2_bandwidth_factor, 1.0, (1.0, 4.0), large_l2),
        knob("media: diffusion intensity (FLOP/byte)", |f| &mut f.intensity_diffusion, 50.0, (1.0, 2000.0), diffusion_mix),
        knob("media: ConvNet intensity (FLOP/byte)", |f| &mut f.intensity_convnet, 50.0, (1.0, 2000.0), classic_convnet),
        knob("media: transformer intensity (FLOP/byte)", |f| &mut f.intensity_transformer, 50.0, (1.0, 2000.0), transformer_mix),
        knob("media: eager step latency (s)", |f| &mut f.eager_step_latency_s, 0.01, (0.0001, 0.5), image),
        knob("media: training step latency (s)", |f| &mut f.train_step_latency_s, 0.005, (0.00001, 0.01), classic),
    ]
}

/// The [`VideoFit`] constants. Priors: a DiT block's transient tensors per token and channel
/// (q, k, v, the attention output and the FFN's 2.7× hidden in BF16, an FP32 residual: about 50
/// bytes); FP32 element-wise traffic of about 200 bytes per token, channel and block (norms,
/// modulation, RoPE, residual adds, each read and written); the non-tensor SM work of
/// FlashAttention-3 ([`crate::model::video::FA3_SM_OVERHEAD_SM_PER_TFLOPS`]).
pub fn video_knobs() -> Vec<Knob<VideoFit>> {
    use crate::model::video::FA3_SM_OVERHEAD_SM_PER_TFLOPS as FA3;
    vec![
        knob("video: live bytes per token and channel", |f| &mut f.live_bytes_per_token_channel, 50.0, (10.0, 400.0), video_memory),
        knob("video: element-wise traffic per token, channel and block (bytes)", |f| &mut f.traffic_bytes_per_token_channel, 200.0, (0.0, 3000.0), video_time),
        knob("video: non-tensor SM work (SM per TFLOPS)", |f| &mut f.sm_overhead_sm_per_tflops, FA3, (0.0, 1.0), video_time),
    ]
}

/// Every constant at its physics default.
pub fn prior_fits() -> MediaFits {
    let mut f = MediaFits::CALIBRATED;
    for k in media_knobs() {
        *(k.at)(&mut f.media) = k.prior;
    }
    for k in video_knobs() {
        *(k.at)(&mut f.video) = k.prior;
    }
    f
}

/// Mean |ln(model / measured)| of `rows` under `f` (0 for none).
fn mean_abs_log(rows: &[&Row<MediaCase>], f: &MediaFits) -> f64 {
    if rows.is_empty() {
        return 0.0;
    }
    rows.iter().map(|r| (predict_row(f, r).mid / r.measured).ln().abs()).sum::<f64>() / rows.len() as f64
}

/// Sum of squared ln(model / measured) of `rows` under `f`.
fn sum_sq_log(rows: &[&Row<MediaCase>], f: &MediaFits) -> f64 {
    rows.iter().map(|r| (predict_row(f, r).mid / r.measured).ln().powi(2)).sum()
}

/// The knobs of `knobs` with at least [`MIN_ROWS`] determining rows in `rows` (their indices),
/// and the names of the others.
fn free_knobs<F>(knobs: &[Knob<F>], rows: &[&Row<MediaCase>]) -> (Vec<usize>, Vec<&'static str>) {
    let mut free = Vec::new();
    let mut fallbacks = Vec::new();
    for (i, k) in knobs.iter().enumerate() {
        if rows.iter().filter(|r| (k.determines)(r)).count() >= MIN_ROWS {
            free.push(i);
        } else {
            fallbacks.push(k.name);
        }
    }
    (free, fallbacks)
}

/// Refits every [`MediaFit`] constant on `rows` (the video constants held at `video`), from its
/// physics default: coordinate descent on multiplicative steps (see the module doc).
pub fn refit_media(rows: &[&Row<MediaCase>], video: &VideoFit) -> (MediaFit, Vec<&'static str>) {
    let knobs = media_knobs();
    let generation: Vec<&Row<MediaCase>> = rows.iter().copied().filter(|r| diffusion_mix(r)).collect();
    let classics: Vec<&Row<MediaCase>> = rows.iter().copied().filter(|r| classic(r)).collect();
    let objective = |m: &MediaFit| {
        let f = MediaFits { media: *m, video: *video };
        mean_abs_log(&generation, &f) + mean_abs_log(&classics, &f)
    };
    let mut fit = prior_fits().media;
    let (free, fallbacks) = free_knobs(&knobs, rows);
    let mut best = objective(&fit);
    for step in [1.25_f64, 1.1, 1.03, 1.01] {
        for _sweep in 0..4 {
            let mut improved = false;
            for &ki in &free {
                let k = &knobs[ki];
                for dir in [step, 1.0 / step] {
                    loop {
                        let mut trial = fit;
                        let v = (k.at)(&mut trial);
                        *v *= dir;
                        if !(k.lo..=k.hi).contains(v) {
                            break;
                        }
                        let l = objective(&trial);
                        if l < best - 1e-9 {
                            best = l;
                            fit = trial;
                            improved = true;
                        } else {
                            break;
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }
    (fit, fallbacks)
}

/// Golden-section search of the `x` in `lo..hi` that minimises `f` (one evaluation per step; 30
/// steps narrow the interval to 6e-7 of its width).
fn argmin(lo: f64, hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo, hi);
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..30 {
        if fc < fd {
            (b, d, fd) = (d, c, fc);
            c = b - g * (b - a);
            fc = f(c);
        } else {
            (a, c, fc) = (c, d, fd);
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    (a + b) / 2.0
}

/// Refits every [`VideoFit`] constant on `rows` (the shared constants held at `media`), from
/// `start`: least squares of the log error, each constant on the rows that determine it (the live
/// bytes on the memory rows, the two time constants on the time rows), by alternating
/// golden-section searches over its bounds until none moves by more than 1e-5. A constant with
/// too few rows takes its physics default.
pub fn refit_video(rows: &[&Row<MediaCase>], media: &MediaFit, start: &VideoFit) -> (VideoFit, Vec<&'static str>) {
    let knobs = video_knobs();
    let mut fit = *start;
    let (free, fallbacks) = free_knobs(&knobs, rows);
    for k in knobs.iter().filter(|k| fallbacks.contains(&k.name)) {
        *(k.at)(&mut fit) = k.prior;
    }
    let own: Vec<Vec<&Row<MediaCase>>> = knobs.iter().map(|k| rows.iter().copied().filter(|r| (k.determines)(r)).collect()).collect();
    let value = |f: &VideoFit, ki: usize| knobs.get(ki).map_or(0.0, |k| *(k.at)(&mut f.clone()));
    for _ in 0..40 {
        let before = fit;
        for &ki in &free {
            let (Some(k), Some(mine)) = (knobs.get(ki), own.get(ki)) else { continue };
            let x = argmin(k.lo, k.hi, |x| {
                let mut t = fit;
                *(k.at)(&mut t) = x;
                sum_sq_log(mine, &MediaFits { media: *media, video: t })
            });
            *(k.at)(&mut fit) = x;
        }
        if free.iter().all(|&ki| (value(&fit, ki) - value(&before, ki)).abs() <= 1e-5 * value(&before, ki).abs().max(1e-9)) {
            break;
        }
    }
    (fit, fallbacks)
}

/// Every constant of the three engines refitted on `rows`: video from the physics defaults, then
/// shared, then video again from the first video fit (each reads the other).
pub fn refit_rows(rows: &[&Row<MediaCase>]) -> Refit<MediaFits> {
    let prior = prior_fits();
    let (first_video, _) = refit_video(rows, &prior.media, &prior.video);
    let (media, mut fallbacks) = refit_media(rows, &first_video);
    let (video, video_fallbacks) = refit_video(rows, &media, &first_video);
    fallbacks.extend(video_fallbacks);
    Refit { fit: MediaFits { media, video }, fallbacks }
}

/// A refit and the constants it could not determine.
type Cached = (MediaFits, Vec<&'static str>);

/// The image, classic and video rows and their refits.
pub struct MediaDomain {
    pub inventory: Inventory,
    /// Refits by training rows (a held-out family can also be a held-out generation).
    cache: Mutex<HashMap<Vec<usize>, Cached>>,
}

impl MediaDomain {
    pub fn new(inventory: Inventory) -> MediaDomain {
        MediaDomain { inventory, cache: Mutex::new(HashMap::new()) }
    }
}

impl Domain for MediaDomain {
    type Fit = MediaFits;
    type Payload = MediaCase;

    fn rows(&self) -> &[Row<MediaCase>] {
        &self.inventory.rows
    }

    fn shipped(&self) -> MediaFits {
        MediaFits::CALIBRATED
    }

    fn refit(&self, train: &[usize]) -> Refit<MediaFits> {
        if let Some((fit, fallbacks)) = self.cache.lock().ok().and_then(|c| c.get(train).cloned()) {
            return Refit { fit, fallbacks };
        }
        let rows: Vec<&Row<MediaCase>> = train.iter().filter_map(|&i| self.inventory.rows.get(i)).collect();
        let r = refit_rows(&rows);
        if let Ok(mut c) = self.cache.lock() {
            c.insert(train.to_vec(), (r.fit, r.fallbacks.clone()));
        }
        r
    }

    fn predict(&self, fit: &MediaFits, i: usize) -> Band {
        self.inventory.rows.get(i).map_or(Band { low: f64::NAN, mid: f64::NAN, high: f64::NAN }, |r| predict_row(fit, r))
    }
}
