//! The sizing flags as a job: the one path from the flags `estimate` and `recommend` share to a
//! language-model job (the model, the defaults of `estimate --help`, the serving, image, back-end
//! and training settings), and the checks on flags that apply to one kind of model only.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use super::flags::{self, choices, engine_error, parse_enum, unknown, SizingArgs};
use super::CliError;
use crate::catalog;
use crate::model::llm::{config_json, custom, LlmJob, ModelArch, Workload};
use crate::model::media_job::{MediaKind, MediaWorkload};
use crate::model::precision::Precision;
use crate::recommend::Job;
use crate::state::advisor::{AdvisorInputs, Field, FieldError};

/// Exactly one of `--model`, `--params` and `--config`.
pub(crate) fn one_model_source(s: &SizingArgs) -> Result<(), CliError> {
    let sources = [s.model.is_some(), s.params.is_some(), s.config.is_some()].iter().filter(|x| **x).count();
    if sources == 1 {
        Ok(())
    } else {
        Err(CliError("give exactly one of --model, --params or --config".into()))
    }
}

/// `--precision`, when given.
pub(crate) fn precision(s: &SizingArgs) -> Result<Option<Precision>, CliError> {
    parse_enum("precision", &s.precision, Precision::parse, choices(&Precision::ALL, Precision::as_str))
}

/// The preset `--model` names when it is a diffusion or classic preset (not a language model).
pub(crate) fn media_preset(s: &SizingArgs) -> Option<&str> {
    s.model.as_deref().filter(|id| catalog::llm(id).is_none())
}

/// Flags of language models given for the diffusion or classic preset `id`: images, and
/// `--mix` (when `mix`) or `--backend`.
pub(crate) fn check_media_flags(s: &SizingArgs, id: &str, mix: bool) -> Result<(), CliError> {
    if s.images.is_some_and(|n| n > 0) || s.image_resolution.is_some() {
        return Err(CliError(format!("--images: {id} is not a vision-language model (e.g. qwen2.5-vl-7b)")));
    }
    if mix || s.backend.is_some() {
        let flag = if mix { "--mix" } else { "--backend" };
        return Err(CliError(format!("{flag}: applies to language-model presets, not {id}")));
    }
    Ok(())
}

/// The workload of `--workload` for the image, video or classic preset `id` (default: the
/// kind's, generating an image or a clip, or a classic network's inference).
pub(crate) fn media_workload(s: &SizingArgs, id: &str) -> Result<MediaWorkload, CliError> {
    let default = MediaKind::of_preset(id).map_or(MediaWorkload::Inference, MediaKind::default_workload);
    let all = flags::choices(&MediaWorkload::ALL, MediaWorkload::as_str);
    Ok(flags::parse_enum("workload", &s.workload, MediaWorkload::parse, all)?.unwrap_or(default))
}

/// Flags of image, video and classic presets given for a language model.
fn check_llm_flags(s: &SizingArgs) -> Result<(), CliError> {
    if s.resolution.is_some() || s.steps.is_some() {
        return Err(CliError("--resolution and --steps apply to image-generation and classic presets only".into()));
    }
    if s.frames.is_some() || s.offload_mode.is_some() {
        return Err(CliError("--frames and --offload-mode apply to image and video generation presets only".into()));
    }
    if s.image_resolution.is_some() && s.images.is_none() {
        return Err(CliError("--image-resolution needs --images N".into()));
    }
    Ok(())
}

/// The language model of `--model`, `--params` or `--config`, with the notes the `config.json`
/// reader left (what it assumed or ignored). The image-only flags are checked first.
pub(crate) fn model_arch(s: &SizingArgs) -> Result<(ModelArch, Vec<String>), CliError> {
    check_llm_flags(s)?;
    if let Some(id) = &s.model {
        let spec = catalog::llm(id).ok_or_else(|| unknown("model", id, catalog::model_ids()))?;
        Ok((ModelArch::from_spec(spec), Vec::new()))
    } else if let Some(p) = &s.params {
        let n = custom::parse_param_count(p).map_err(engine_error)?;
        Ok((custom::arch_from_params(n).map_err(engine_error)?, Vec::new()))
    } else if let Some(path) = &s.config {
        let text = std::fs::read_to_string(path).map_err(|e| CliError(format!("--config: cannot read {path}: {e}")))?;
        let (m, notes) = config_json::parse_config_json_with_notes(&text)
            .map_err(|n| engine_error(crate::model::types::EstimateError::invalid("config", n)))?;
        Ok((m, notes.iter().map(ToString::to_string).collect()))
    } else {
        Err(CliError("give exactly one of --model, --params or --config".into()))
    }
}

/// The language-model job of the sizing flags on `gpus` GPUs (`None`: the count is searched).
///
/// The flags fill the advisor's inputs by their URL keys (`cli::keys`), and the advisor's one
/// parser makes the job: a command and a link with the same values get the same job, the same
/// defaults and the same checks. What the command line adds: `--batch` as the alias of `--users`
/// (and `--users` as the micro-batch when training), NF4 as QLoRA's default precision, and a fixed
/// count's check that the mesh divides it.
pub(crate) fn llm_job(s: &SizingArgs, gpus: Option<u32>) -> Result<LlmJob, CliError> {
    let inputs = advisor_inputs(s)?;
    let job = match inputs.job_on(gpus.unwrap_or(1)) {
        Ok(Job::Llm(job)) => *job,
        Ok(Job::Media(m)) => return Err(CliError(format!("--model: {} is not a language model", m.model_id))),
        Err(errors) => return Err(field_error(s, &errors)),
    };
    if let (Some(spec), Some(gpus)) = (job.mesh, gpus) {
        if !crate::model::llm::parallel::spec_divides(spec, gpus) {
            return Err(CliError(format!("--tp × --cp × --pp = {} must divide --gpus {gpus}", spec.replica())));
        }
    }
    Ok(job)
}

/// The advisor's inputs that the sizing flags `s` set, each by its URL key.
fn advisor_inputs(s: &SizingArgs) -> Result<AdvisorInputs, CliError> {
    let mut inputs = AdvisorInputs::default();
    if let Some(path) = &s.config {
        inputs.config_json = std::fs::read_to_string(path).map_err(|e| CliError(format!("--config: cannot read {path}: {e}")))?;
        inputs.set(Field::Model, "custom".into());
    } else if s.params.is_some() {
        inputs.set(Field::Model, "custom".into());
    }
    for (flag, text) in &s.typed {
        if let Some(field) = field_of(flag) {
            inputs.set(field, text.clone());
        }
    }
    let workload = Workload::parse(inputs.workload()).unwrap_or(Workload::Inference);
    if let Some(n) = flags::users(s)? {
        inputs.set(if workload.is_training() { Field::Batch } else { Field::Users }, n.to_string());
    }
    if s.precision.is_none() && workload == Workload::Qlora {
        inputs.set(Field::Precision, Precision::Nf4.as_str().into());
    }
    Ok(inputs)
}

/// The advisor input `--flag` sets, if it sets one.
fn field_of(flag: &str) -> Option<Field> {
    let key = super::keys::FLAG_URL_KEYS.iter().find(|(f, _)| *f == flag).and_then(|(_, k)| *k)?;
    Field::from_key(key)
}

/// The first of the advisor's `errors` as a command-line error naming its flag.
fn field_error(s: &SizingArgs, errors: &[FieldError]) -> CliError {
    let Some(e) = errors.first() else { return CliError("the sizing flags do not make a job".into()) };
    let key = e.field.key();
    let flag = match e.field {
        Field::Params if s.config.is_some() => "config",
        Field::Users if s.users.is_none() => "batch",
        _ => super::keys::FLAG_URL_KEYS.iter().find(|(_, k)| *k == Some(key)).map_or(key, |(f, _)| *f),
    };
    CliError(format!("--{flag}: {}", e.message))
}
