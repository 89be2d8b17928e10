//! The typed description of an image, video or classic job: the kind of preset
//! ([`MediaKind`]), what the job does with it ([`MediaWorkload`]) and the inputs the media engines
//! take ([`MediaJob`]).
//!
//! This is the one place that says which workloads a kind of preset takes, in the order the form
//! lists them, the first being the kind's default: the advisor's parser, the form, the command line
//! and the engines' error messages all read [`MediaKind::workloads`]. A new media workload is a
//! variant here and its name in a kind's list; its engine file maps it to the engine's own setting
//! (`Finetune::for_workload` in `diffusion.rs`, `ClassicMode::for_workload` in `classic.rs`).

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog;
use crate::model::media::OffloadMode;
use crate::model::numeric::Fp32Math;
use crate::model::precision::Precision;

/// What a preset that is not a language model makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    /// A text-to-image diffusion pipeline.
    Image,
    /// A text-to-video diffusion pipeline.
    Video,
    /// A classic vision, NLP or speech network.
    Classic,
}

impl MediaKind {
    /// The kind of preset `id`; None for a language model (an NLP preset that the LLM engine sizes
    /// included) and for an unknown id.
    pub fn of_preset(id: &str) -> Option<MediaKind> {
        if let Some(d) = catalog::diffusion(id) {
            return Some(MediaKind::of_diffusion(d));
        }
        if catalog::llm(id).is_some() {
            return None;
        }
        catalog::classic(id).map(|_| MediaKind::Classic)
    }

    /// The kind of diffusion pipeline `spec`: video when it has a video table.
    pub fn of_diffusion(spec: &catalog::DiffusionSpec) -> MediaKind {
        if spec.video.is_some() { MediaKind::Video } else { MediaKind::Image }
    }

    /// The workloads this kind takes, in the form's order; the first is the default.
    pub fn workloads(self) -> &'static [MediaWorkload] {
        use MediaWorkload as W;
        match self {
            MediaKind::Image => &[W::ImageGeneration, W::FinetuneFull, W::DreamBooth, W::Lora],
            MediaKind::Video => &[W::VideoGeneration],
            MediaKind::Classic => &[W::Inference, W::Training],
        }
    }

    /// The workload a preset of this kind runs unless told otherwise.
    pub fn default_workload(self) -> MediaWorkload {
        self.workloads().first().copied().unwrap_or(MediaWorkload::Inference)
    }
}

/// What a media job does with its preset: generate (an image or a clip), fine-tune a diffusion
/// model, or train or run a classic network. Which of these a preset takes is
/// [`MediaKind::workloads`]; the names are the CLI's and the URL's `workload` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaWorkload {
    /// Text to image (a diffusion preset).
    ImageGeneration,
    /// Text to video (a video preset).
    VideoGeneration,
    /// A classic network's forward pass; generation for a diffusion or video preset.
    Inference,
    /// A classic network's training; a full fine-tune for a diffusion preset.
    Training,
    /// Every weight of a diffusion model trained.
    FinetuneFull,
    /// DreamBooth: a full fine-tune with prior-preservation images in each batch.
    DreamBooth,
    /// LoRA adapters on the denoiser.
    Lora,
}

impl MediaWorkload {
    /// Every workload, in the order the CLI lists them.
    pub const ALL: [MediaWorkload; 7] = [
        MediaWorkload::ImageGeneration, MediaWorkload::VideoGeneration, MediaWorkload::Inference, MediaWorkload::Training,
        MediaWorkload::FinetuneFull, MediaWorkload::DreamBooth, MediaWorkload::Lora,
    ];

    /// The CLI and URL value.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaWorkload::ImageGeneration => "image-generation",
            MediaWorkload::VideoGeneration => "video-generation",
            MediaWorkload::Inference => "inference",
            MediaWorkload::Training => "training",
            MediaWorkload::FinetuneFull => "finetune-full",
            MediaWorkload::DreamBooth => "dreambooth",
            MediaWorkload::Lora => "lora",
        }
    }

    /// The workload with this CLI/URL value (`full` is `finetune-full`).
    pub fn parse(s: &str) -> Option<MediaWorkload> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("full") {
            return Some(MediaWorkload::FinetuneFull);
        }
        MediaWorkload::ALL.into_iter().find(|w| w.as_str().eq_ignore_ascii_case(s))
    }

    /// Whether the job trains (its figure is time per step, not per image or clip).
    pub fn is_training(self) -> bool {
        !matches!(self, MediaWorkload::ImageGeneration | MediaWorkload::VideoGeneration | MediaWorkload::Inference)
    }

    /// What this workload asks of a preset of `kind`: itself when the kind lists it; for the
    /// generic names, the kind's first workload of the same sort (generation, or training: a full
    /// fine-tune is training), so `inference` on an image model generates images and `training`
    /// on it is a full fine-tune; None for a workload the kind cannot run (LoRA on a classic
    /// network).
    pub fn on(self, kind: MediaKind) -> Option<MediaWorkload> {
        let listed = kind.workloads();
        if listed.contains(&self) {
            return Some(self);
        }
        match self {
            MediaWorkload::Inference | MediaWorkload::ImageGeneration | MediaWorkload::VideoGeneration => listed.iter().copied().find(|w| !w.is_training()),
            MediaWorkload::Training | MediaWorkload::FinetuneFull => listed.iter().copied().find(|w| w.is_training()),
            MediaWorkload::DreamBooth | MediaWorkload::Lora => None,
        }
    }

    /// The workload a typed value asks of a preset of `kind`, never failing: [`MediaWorkload::on`]
    /// when the value names a media workload, else the kind's default (a language-model workload
    /// left over from another model, a value from an old link).
    pub fn read(kind: MediaKind, text: &str) -> MediaWorkload {
        MediaWorkload::parse(text).and_then(|w| w.on(kind)).unwrap_or_else(|| kind.default_workload())
    }
}

/// The inputs of an image, video or classic job, as
/// [`crate::model::media_preset::estimate_media_with`] takes them (None: the preset's default).
#[derive(Debug, Clone, PartialEq)]
pub struct MediaJob {
    pub model_id: String,
    pub workload: MediaWorkload,
    pub precision: Option<Precision>,
    pub resolution: Option<(u32, u32)>,
    pub steps: Option<u32>,
    pub batch: Option<u32>,
    /// What "fp32" runs on cards with TF32 tensor cores.
    pub fp32_math: Fp32Math,
    /// Frames per clip (video presets).
    pub frames: Option<u32>,
    /// CPU offload (image and video generation).
    pub offload_mode: Option<OffloadMode>,
}
