//! The sizing flags as a job: the one path from the flags `estimate` and `recommend` share to a
//! language-model job (the model, the defaults of `estimate --help`, the serving, image, back-end
//! and training settings), and the checks on flags that apply to one kind of model only.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use super::flags::{self, choices, engine_error, parse_enum, unknown, SizingArgs};
use super::CliError;
use crate::catalog;
use crate::model::llm::{config_json, custom, Checkpointing, Engine, LlmJob, ModelArch, Optimizer, Workload};
use crate::model::precision::{KvPrecision, Precision};

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

/// The language-model job of the sizing flags on `gpus` GPUs (`None`: the count is searched),
/// with `estimate --help`'s defaults for what they leave out.
pub(crate) fn llm_job(s: &SizingArgs, model: ModelArch, precision: Option<Precision>, gpus: Option<u32>) -> Result<LlmJob, CliError> {
    let workload = parse_enum("workload", &s.workload, Workload::parse, choices(&Workload::ALL, Workload::as_str))?
        .unwrap_or(Workload::Inference);
    let precision = precision.unwrap_or(match workload {
        Workload::Inference => Precision::Fp16,
        Workload::Qlora => Precision::Nf4,
        _ => Precision::Bf16,
    });
    let kv_precision = parse_enum("kv-precision", &s.kv_precision, KvPrecision::parse, choices(&KvPrecision::ALL, KvPrecision::as_str))?;
    let engine = parse_enum("engine", &s.engine, Engine::parse, choices(&Engine::ALL, Engine::as_str))?;
    let optimizer = parse_enum("optimizer", &s.optimizer, Optimizer::parse, choices(&Optimizer::ALL, Optimizer::as_str))?;
    let grad_checkpointing =
        parse_enum("grad-checkpointing", &s.grad_checkpointing, Checkpointing::parse, choices(&Checkpointing::ALL, Checkpointing::as_str))?;
    let zero = s.zero.unwrap_or(0);
    if zero > 3 {
        return Err(CliError(format!("--zero: must be 0, 1, 2 or 3, got {zero}")));
    }
    let prompt_tokens = s.prompt_tokens.unwrap_or(512);
    let output_tokens = s.output_tokens.unwrap_or(256);
    let max_context = model.max_context.max(1);
    let mut job = LlmJob {
        workload,
        precision,
        kv_precision: kv_precision.unwrap_or(KvPrecision::Fp16),
        engine,
        context_tokens: s.context.unwrap_or_else(|| 4096u32.min(max_context).max(prompt_tokens.saturating_add(output_tokens))),
        prompt_tokens,
        output_tokens,
        batch: flags::users(s)?.unwrap_or(1),
        seq_len: s.seq_len.unwrap_or_else(|| 2048u32.min(max_context)),
        optimizer: optimizer.unwrap_or(Optimizer::AdamW),
        grad_checkpointing: grad_checkpointing.unwrap_or(Checkpointing::None),
        lora_rank: s.lora_rank.unwrap_or(16),
        zero: u8::try_from(zero).unwrap_or(3),
        auto_layout: s.zero.is_none(),
        grad_accum: s.grad_accum.unwrap_or(1),
        host: flags::host(s)?,
        cuda_graphs: flags::cuda_graphs(s)?,
        model,
        ..LlmJob::default()
    };
    flags::apply_images(s, &mut job)?;
    flags::apply_backend(s, &mut job)?;
    flags::apply_training(s, &mut job, gpus)?;
    Ok(job)
}
