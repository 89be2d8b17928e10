//! The image, video and classic workloads come from one list per kind of preset
//! (`MediaKind::workloads`): what the form offers, what a link and the command line accept and
//! what each engine runs are the same workloads. The expected values are the rules written out
//! by hand: diffusers' `train_dreambooth.py` (DreamBooth with `--with_prior_preservation`),
//! `train_text_to_image.py` (a full fine-tune) and `train_text_to_image_lora.py` (LoRA) are the
//! three ways to train a text-to-image pipeline; a text-to-video preset only generates; a classic
//! network trains or infers.
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::catalog;
use gpu_advisor::model::media_job::{MediaKind, MediaWorkload as W};
use gpu_advisor::model::media_preset::{estimate_media_with, MediaExtras};
use gpu_advisor::recommend::Job;
use gpu_advisor::state::advisor::Field;
use gpu_advisor::state::{url, Action, AppState};

const PRESETS: [(&str, MediaKind); 3] = [("sdxl", MediaKind::Image), ("wan2.1-t2v-1.3b", MediaKind::Video), ("resnet-50", MediaKind::Classic)];

fn h100() -> &'static catalog::Gpu {
    catalog::gpu("h100-sxm").expect("h100-sxm is in the catalog")
}

/// Sizes `preset` for `w` on one H100 with the preset's defaults.
fn size(preset: &str, w: W) -> Result<gpu_advisor::model::Estimate, gpu_advisor::model::EstimateError> {
    estimate_media_with(preset, w, None, None, None, None, Default::default(), MediaExtras::default(), h100(), 1).expect("a media preset")
}

#[test]
fn each_kind_lists_the_workloads_of_its_presets() {
    assert_eq!(MediaKind::Image.workloads(), &[W::ImageGeneration, W::FinetuneFull, W::DreamBooth, W::Lora]);
    assert_eq!(MediaKind::Video.workloads(), &[W::VideoGeneration]);
    assert_eq!(MediaKind::Classic.workloads(), &[W::Inference, W::Training]);
    for (preset, kind) in PRESETS {
        assert_eq!(MediaKind::of_preset(preset), Some(kind), "{preset}");
    }
    // Language models (an NLP preset the LLM engine sizes included) and unknown ids have none.
    for id in ["llama-3.1-8b", "custom", "no-such-model"] {
        assert_eq!(MediaKind::of_preset(id), None, "{id}");
    }
}

/// Every listed workload runs on its engine; a workload no kind of its sort lists is refused on
/// the workload field with the kind's own list as the suggestions.
#[test]
fn the_engines_run_what_their_kind_lists() {
    for (preset, kind) in PRESETS {
        for &w in kind.workloads() {
            let e = size(preset, w).unwrap_or_else(|e| panic!("{preset} {}: {e:?}", w.as_str()));
            assert!(e.per_gpu_gib > 0.0, "{preset} {}", w.as_str());
        }
    }
    for (preset, w) in [("resnet-50", W::Lora), ("resnet-50", W::DreamBooth), ("wan2.1-t2v-1.3b", W::Lora), ("wan2.1-t2v-1.3b", W::Training)] {
        match size(preset, w) {
            Err(gpu_advisor::model::EstimateError::Unknown { field, suggestions, .. }) => {
                assert_eq!(field, "workload");
                let kind = MediaKind::of_preset(preset).expect("a media preset");
                assert_eq!(suggestions, kind.workloads().iter().map(|w| w.as_str().to_string()).collect::<Vec<_>>());
            }
            other => panic!("{preset} {}: {other:?}", w.as_str()),
        }
    }
}

/// The generic names take the kind's own workload of the same sort.
#[test]
fn generic_names_take_the_kinds_own_workload() {
    let cases = [
        (MediaKind::Image, W::Inference, Some(W::ImageGeneration)),
        (MediaKind::Image, W::Training, Some(W::FinetuneFull)),
        (MediaKind::Image, W::VideoGeneration, Some(W::ImageGeneration)),
        (MediaKind::Video, W::Inference, Some(W::VideoGeneration)),
        (MediaKind::Video, W::ImageGeneration, Some(W::VideoGeneration)),
        (MediaKind::Video, W::FinetuneFull, None),
        (MediaKind::Classic, W::FinetuneFull, Some(W::Training)),
        (MediaKind::Classic, W::ImageGeneration, Some(W::Inference)),
        (MediaKind::Classic, W::Lora, None),
    ];
    for (kind, w, expected) in cases {
        assert_eq!(w.on(kind), expected, "{kind:?} {}", w.as_str());
    }
    // A value that names no media workload (a language model's, or an old link's) is the kind's default.
    assert_eq!(W::read(MediaKind::Image, "qlora"), W::ImageGeneration);
    assert_eq!(W::read(MediaKind::Classic, "lora"), W::Inference);
    assert_eq!(W::read(MediaKind::Image, "Full"), W::FinetuneFull);
}

/// A link asks for DreamBooth and gets it (it used to be read as a plain full fine-tune), and
/// DreamBooth with prior preservation trains on a class image beside each instance image, so at
/// the same batch its activations are twice a full fine-tune's (diffusers `train_dreambooth.py`:
/// `pixel_values = torch.cat([pixel_values, class_pixel_values])`).
#[test]
fn a_link_asks_for_dreambooth_and_gets_it() {
    let p = url::parse("?model=sdxl&workload=dreambooth");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    let Job::Media(m) = p.state.advisor.job().expect("a valid job") else { panic!("a media job") };
    assert_eq!(m.workload, W::DreamBooth);
    let activations = |w| {
        let e = size("sdxl", w).expect("sized");
        e.memory.activations_gib
    };
    let (dreambooth, full) = (activations(W::DreamBooth), activations(W::FinetuneFull));
    assert!((dreambooth / full - 2.0).abs() < 0.05, "DreamBooth {dreambooth} GiB against full {full} GiB");
}

/// Choosing a model keeps a workload its kind lists, and otherwise takes the kind's default.
#[test]
fn a_new_model_keeps_a_workload_its_kind_lists() {
    let pick = |from_model: &str, workload: &str, to_model: &str| {
        let s = AppState::default()
            .apply(Action::SetInput(Field::Model, from_model.into()))
            .apply(Action::SetInput(Field::Workload, workload.into()))
            .apply(Action::SetInput(Field::Model, to_model.into()));
        s.advisor.get(Field::Workload).to_string()
    };
    assert_eq!(pick("llama-3.1-8b", "lora", "sdxl"), "lora");
    assert_eq!(pick("llama-3.1-8b", "qlora", "sdxl"), "image-generation");
    assert_eq!(pick("sdxl", "dreambooth", "resnet-50"), "inference");
    assert_eq!(pick("resnet-50", "training", "llama-3.1-8b"), "training");
    assert_eq!(pick("sdxl", "dreambooth", "llama-3.1-8b"), "inference");
    assert_eq!(pick("sdxl", "lora", "wan2.1-t2v-1.3b"), "video-generation");
}
