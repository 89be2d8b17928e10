//! Sizing entry point for the presets that are not LLMs: image generation, video generation and
//! classic vision/NLP/speech.
//!
//! [`estimate_media`] is what `gpu-advisor estimate` calls for such a preset: it turns the preset
//! and the shared inputs (workload, precision, resolution, steps, batch) into the job of its kind
//! and sizes it with [`crate::model::diffusion`], [`crate::model::video`] or
//! [`crate::model::classic`]. The rate model those three share is in [`crate::model::media`].

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{ClassicSpec, DiffusionSpec, Gpu};
use crate::model::classic::{estimate_classic, ClassicJob, ClassicMode, ClassicPrecision};
use crate::model::diffusion::{estimate_image, Finetune, ImageJob};
use crate::model::media::OffloadMode;
use crate::model::media_job::{MediaKind, MediaWorkload};
use crate::model::numeric::Fp32Math;
use crate::model::precision::Precision;
use crate::model::types::{Estimate, EstimateError};
use crate::model::video::{estimate_video, VideoJob};

/// The inputs of a media job beyond the shared ones: video frames and the CPU-offload mode.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MediaExtras {
    /// Frames per clip (video presets only).
    pub frames: Option<u32>,
    /// CPU offload (image and video generation only).
    pub offload_mode: Option<OffloadMode>,
}

/// The inputs every media preset takes, as the caller gave them (None: the preset's default).
struct Inputs {
    workload: MediaWorkload,
    precision: Option<Precision>,
    resolution: Option<(u32, u32)>,
    steps: Option<u32>,
    batch: Option<u32>,
    fp32_math: Fp32Math,
    extras: MediaExtras,
}

/// Sizes a diffusion or classic preset; None when model_id is neither ([`estimate_media_with`]
/// without frames or offload).
///
/// `workload`: `image-generation` (also `inference` for a diffusion preset), `finetune-full`,
/// `dreambooth`, `lora` (diffusion fine-tuning; `training` on a diffusion preset means
/// `finetune-full`), or `training` / `inference` for a classic preset. `resolution` is the image size
/// (diffusion) or the input size of a vision preset; `batch` is the global batch, split over `gpus`.
#[allow(clippy::too_many_arguments)]
pub fn estimate_media(
    model_id: &str,
    workload: &str,
    precision: Option<Precision>,
    resolution: Option<(u32, u32)>,
    steps: Option<u32>,
    batch: Option<u32>,
    fp32_math: Fp32Math,
    gpu: &Gpu,
    gpus: u32,
) -> Option<Result<Estimate, EstimateError>> {
    let Some(workload) = MediaWorkload::parse(workload) else {
        return MediaKind::of_preset(model_id).map(|kind| Err(unknown_workload(workload, kind.workloads())));
    };
    estimate_media_with(model_id, workload, precision, resolution, steps, batch, fp32_math, MediaExtras::default(), gpu, gpus)
}

/// Sizes a diffusion, video or classic preset with `extras`; None when model_id is none of them.
/// A video preset takes the workload `video-generation` (or `inference`).
#[allow(clippy::too_many_arguments)]
pub fn estimate_media_with(
    model_id: &str,
    workload: MediaWorkload,
    precision: Option<Precision>,
    resolution: Option<(u32, u32)>,
    steps: Option<u32>,
    batch: Option<u32>,
    fp32_math: Fp32Math,
    extras: MediaExtras,
    gpu: &Gpu,
    gpus: u32,
) -> Option<Result<Estimate, EstimateError>> {
    // One catalog look-up per call: the ranking sizes every (card, count).
    let diffusion = crate::catalog::diffusion(model_id);
    let classic = if diffusion.is_none() { crate::catalog::classic(model_id) } else { None };
    let kind = match (diffusion, classic) {
        (Some(d), _) => MediaKind::of_diffusion(d),
        (None, Some(_)) => MediaKind::Classic,
        (None, None) => return None,
    };
    let Some(workload) = workload.on(kind) else {
        return Some(Err(unknown_workload(workload.as_str(), kind.workloads())));
    };
    let inputs = Inputs { workload, precision, resolution, steps, batch, fp32_math, extras };
    if extras.frames.is_some() && kind != MediaKind::Video {
        return Some(Err(EstimateError::invalid("frames", "frames only apply to video presets")));
    }
    match (kind, diffusion, classic) {
        (MediaKind::Video, Some(spec), _) => Some(video_job(spec, &inputs).and_then(|j| estimate_video(&j, gpu, gpus))),
        (_, Some(spec), _) => Some(image_job(spec, &inputs).and_then(|j| estimate_image(&j, gpu, gpus))),
        (_, None, Some(spec)) => Some(classic_job(model_id, spec, &inputs).and_then(|j| estimate_classic(&j, gpu, gpus))),
        _ => None,
    }
}

/// The image job of a diffusion preset from the shared inputs (defaults: the preset's).
fn image_job(spec: &DiffusionSpec, inputs: &Inputs) -> Result<ImageJob, EstimateError> {
    let finetune = Finetune::for_workload(inputs.workload).ok_or_else(|| unknown_workload(inputs.workload.as_str(), MediaKind::Image.workloads()))?;
    let mut job = ImageJob::for_spec(spec);
    job.fp32_math = inputs.fp32_math;
    job.finetune = finetune;
    job.gradient_checkpointing = finetune != Finetune::None;
    if let Some(p) = inputs.precision {
        job.precision = p;
    }
    if let Some((w, h)) = inputs.resolution {
        job.width_px = w;
        job.height_px = h;
    }
    if let Some(s) = inputs.steps {
        job.steps = s;
    }
    if let Some(b) = inputs.batch {
        job.batch = b;
    }
    if let Some(m) = inputs.extras.offload_mode {
        if finetune != Finetune::None && m != OffloadMode::None {
            return Err(EstimateError::invalid("offload-mode", "CPU offload applies to generation, not fine-tuning"));
        }
        job.offload = m;
    }
    Ok(job)
}

/// The classic job of preset `model_id` from the shared inputs (defaults: the preset's).
fn classic_job(model_id: &str, spec: &ClassicSpec, inputs: &Inputs) -> Result<ClassicJob, EstimateError> {
    let mode = ClassicMode::for_workload(inputs.workload).ok_or_else(|| unknown_workload(inputs.workload.as_str(), MediaKind::Classic.workloads()))?;
    let precision = match inputs.precision {
        None => ClassicPrecision::Amp,
        Some(p) => ClassicPrecision::from_precision(p)
            .ok_or_else(|| EstimateError::invalid("precision", "classic presets run in AMP (fp16 or bf16), tf32 or fp32"))?,
    };
    let mut job = ClassicJob::for_spec(spec, mode);
    job.fp32_math = inputs.fp32_math;
    job.precision = precision;
    job.batch = inputs.batch;
    if let Some((w, h)) = inputs.resolution {
        if spec.scales_with == "pixels" {
            // A non-square input counts by its pixel count: side = sqrt(w * h).
            let side = (f64::from(w) * f64::from(h)).sqrt().round();
            job.input_px = Some(if side >= f64::from(u32::MAX) { u32::MAX } else { side as u32 });
        } else {
            return Err(EstimateError::invalid("resolution", crate::model::Note::new("`{model}` takes tokens, not pixels; it has no resolution", vec![("model", model_id.into())])));
        }
    }
    if inputs.steps.is_some() {
        return Err(EstimateError::invalid("steps", "steps only apply to image generation"));
    }
    if inputs.extras.offload_mode.is_some() {
        return Err(EstimateError::invalid("offload-mode", "CPU offload applies to image and video generation only"));
    }
    Ok(job)
}

/// The video job of a preset from the shared inputs (defaults: the preset's).
fn video_job(spec: &DiffusionSpec, inputs: &Inputs) -> Result<VideoJob, EstimateError> {
    if !MediaKind::Video.workloads().contains(&inputs.workload) {
        return Err(unknown_workload(inputs.workload.as_str(), MediaKind::Video.workloads()));
    }
    let mut job = VideoJob::new(&spec.id)?;
    if let Some(p) = inputs.precision {
        if matches!(p, Precision::Fp32 | Precision::Tf32) {
            return Err(EstimateError::invalid("precision", "video presets run in bf16, fp16 or a quantised format"));
        }
        job.precision = p;
    }
    if let Some((w, h)) = inputs.resolution {
        job.width_px = w;
        job.height_px = h;
    }
    job.steps = inputs.steps.unwrap_or(job.steps);
    job.batch = inputs.batch.unwrap_or(job.batch);
    job.frames = inputs.extras.frames.unwrap_or(job.frames);
    job.offload = inputs.extras.offload_mode.unwrap_or(job.offload);
    Ok(job)
}

fn unknown_workload(value: &str, allowed: &[MediaWorkload]) -> EstimateError {
    EstimateError::Unknown {
        field: "workload",
        value: value.to_string(),
        suggestions: allowed.iter().map(|w| w.as_str().to_string()).collect(),
    }
}
