//! The advisor's inputs as the user typed them, and their translation into an engine job.
//!
//! Inputs are kept as text, exactly as typed, so that a half-typed number never loses what the
//! user wrote and the URL round trip is exact. [`AdvisorInputs::job`] parses them and returns
//! either a [`Job`] or one [`FieldError`] per bad field, each naming the field, so the UI can show
//! the message beside it and keep the last good result on screen.

use crate::i18n::Lang;
use crate::model::{Arg, Note};
use crate::present::InLang;
use crate::catalog::{self, ModelKind};
use crate::model::llm::{self, custom, Checkpointing, LlmJob, Optimizer, Workload};
use crate::model::precision::{KvPrecision, Precision};
use crate::model::llm::engines::Engine;
use crate::model::media_job::{MediaKind, MediaWorkload};
pub use crate::recommend::{Job, MediaJob};

/// Every advisor input, by its URL key. The order is the URL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Model,
    Params,
    Workload,
    Precision,
    KvPrecision,
    Engine,
    Context,
    PromptTokens,
    OutputTokens,
    Batch,
    SeqLen,
    Optimizer,
    GradCkpt,
    LoraRank,
    Zero,
    Resolution,
    Steps,
    TrainTokens,
    HoursPerDay,
    Months,
    Budget,
    Mode,
    Currency,
    Rate,
    Objective,
    MaxGpus,
    MaxWatts,
    Region,
    Headroom,
    KwhPrice,
    Prices,
    PriceBasis,
    RentBasis,
    Utilisation,
    Pue,
    Host,
    Fp32Math,
    Users,
    TpsUser,
    Ttft,
    RateRps,
    PrefixHit,
    Spec,
    SpecAccept,
    ApiPrice,
    Ram,
    RamBw,
    Offload,
    GpuShare,
    Frames,
    OffloadMode,
    Images,
    ImageRes,
    Backend,
    Mix,
    Owned,
    Framework,
    DeadlineDays,
    GradAccum,
    MasterWeights,
    OptimizerInBackward,
    Tp,
    Cp,
    Pp,
    Vp,
    GlobalBatch,
    NicGbitS,
    Arrivals,
    CudaGraphs,
    MoeLayout,
    Ep,
    Disagg,
}

impl Field {
    /// Every field, in URL order.
    pub const ALL: [Field; 72] = [
        Field::Model, Field::Params, Field::Workload, Field::Precision, Field::KvPrecision, Field::Engine, Field::Context,
        Field::PromptTokens, Field::OutputTokens, Field::Batch, Field::SeqLen, Field::Optimizer, Field::GradCkpt,
        Field::LoraRank, Field::Zero, Field::Resolution, Field::Steps, Field::TrainTokens, Field::HoursPerDay,
        Field::Months, Field::Budget, Field::Mode, Field::Currency, Field::Rate, Field::Objective, Field::MaxGpus,
        Field::MaxWatts, Field::Region, Field::Headroom, Field::KwhPrice, Field::Prices, Field::PriceBasis,
        Field::RentBasis, Field::Utilisation, Field::Pue, Field::Host, Field::Fp32Math, Field::Users, Field::TpsUser,
        Field::Ttft, Field::RateRps, Field::PrefixHit, Field::Spec, Field::SpecAccept, Field::ApiPrice, Field::Ram,
        Field::RamBw, Field::Offload, Field::GpuShare, Field::Frames, Field::OffloadMode, Field::Images, Field::ImageRes, Field::Backend, Field::Mix, Field::Owned, Field::Framework, Field::DeadlineDays,
        Field::GradAccum, Field::MasterWeights, Field::OptimizerInBackward, Field::Tp, Field::Cp, Field::Pp, Field::Vp,
        Field::GlobalBatch, Field::NicGbitS, Field::Arrivals, Field::CudaGraphs, Field::MoeLayout, Field::Ep, Field::Disagg,
    ];

    /// The URL key (a contract: links in blog posts depend on it).
    pub fn key(self) -> &'static str {
        match self {
            Field::Model => "model",
            Field::Params => "params",
            Field::Workload => "workload",
            Field::Precision => "precision",
            Field::KvPrecision => "kv",
            Field::Engine => "engine",
            Field::Context => "context",
            Field::PromptTokens => "prompt",
            Field::OutputTokens => "output",
            Field::Batch => "batch",
            Field::SeqLen => "seq_len",
            Field::Optimizer => "optimizer",
            Field::GradCkpt => "ckpt",
            Field::LoraRank => "lora_rank",
            Field::Zero => "zero",
            Field::Resolution => "resolution",
            Field::Steps => "steps",
            Field::TrainTokens => "train_tokens",
            Field::HoursPerDay => "hours",
            Field::Months => "months",
            Field::Budget => "budget",
            Field::Mode => "mode",
            Field::Currency => "currency",
            Field::Rate => "rate",
            Field::Objective => "objective",
            Field::MaxGpus => "max_gpus",
            Field::MaxWatts => "max_w",
            Field::Region => "region",
            Field::Headroom => "headroom",
            Field::KwhPrice => "kwh",
            Field::Prices => "prices",
            Field::PriceBasis => "price_basis",
            Field::RentBasis => "rent",
            Field::Utilisation => "util",
            Field::Pue => "pue",
            Field::Host => "host",
            Field::Fp32Math => "fp32_math",
            Field::Users => "users",
            Field::TpsUser => "tps_user",
            Field::Ttft => "ttft",
            Field::RateRps => "rate_rps",
            Field::PrefixHit => "prefix_hit",
            Field::Spec => "spec",
            Field::SpecAccept => "spec_accept",
            Field::ApiPrice => "api_price",
            Field::Ram => "ram",
            Field::RamBw => "ram_bw",
            Field::Offload => "offload",
            Field::GpuShare => "gpu_share",
            Field::Frames => "frames",
            Field::OffloadMode => "offload_mode",
            Field::Images => "images",
            Field::ImageRes => "image_res",
            Field::Backend => "backend",
            Field::Mix => "mix",
            Field::Owned => "owned",
            Field::Framework => "framework",
            Field::DeadlineDays => "deadline_days",
            Field::GradAccum => "grad_accum",
            Field::MasterWeights => "master_weights",
            Field::OptimizerInBackward => "opt_in_backward",
            Field::Tp => "tp",
            Field::Cp => "cp",
            Field::Pp => "pp",
            Field::Vp => "vp",
            Field::GlobalBatch => "global_batch",
            Field::NicGbitS => "nic_gbit_s",
            Field::Arrivals => "arrivals",
            Field::CudaGraphs => "cuda_graphs",
            Field::MoeLayout => "moe_layout",
            Field::Ep => "ep",
            Field::Disagg => "disagg",
        }
    }

    /// The field with this URL key.
    pub fn from_key(key: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.key() == key)
    }

    /// The default text of this field.
    pub fn default_value(self) -> &'static str {
        match self {
            Field::Model => "llama-3.1-8b",
            Field::Params => "",
            Field::Workload => "inference",
            Field::Precision => "bf16",
            Field::KvPrecision => "fp16",
            Field::Engine => "",
            Field::Context => "8192",
            Field::PromptTokens => "1024",
            Field::OutputTokens => "256",
            Field::Batch => "1",
            Field::SeqLen => "2048",
            Field::Optimizer => "auto",
            Field::GradCkpt => "auto",
            Field::LoraRank => "16",
            Field::Zero => "auto",
            Field::Resolution => "",
            Field::Steps => "",
            Field::TrainTokens => "1b",
            Field::HoursPerDay => "8",
            Field::Months => "24",
            Field::Budget => "",
            Field::Mode => "buy",
            Field::Currency => "auto",
            Field::Rate => "",
            Field::Objective => "cheapest",
            Field::MaxGpus => "8",
            Field::MaxWatts => "",
            Field::Region => "global",
            Field::Headroom => "10",
            Field::KwhPrice => "0.15",
            Field::Prices => "",
            Field::PriceBasis => "street",
            Field::RentBasis => "cheapest",
            Field::Utilisation => "70",
            Field::Pue => "",
            Field::Host => "none",
            Field::Fp32Math => "pytorch",
            Field::Users => "1",
            Field::TpsUser => "",
            Field::Ttft => "",
            Field::RateRps => "",
            Field::PrefixHit => "0",
            Field::Spec => "off",
            Field::SpecAccept => "",
            Field::ApiPrice => "",
            Field::Ram => "",
            Field::RamBw => "",
            Field::Offload => "auto",
            Field::GpuShare => "",
            Field::Frames => "",
            Field::OffloadMode => "none",
            Field::Images => "0",
            Field::ImageRes => "1024x1024",
            Field::Backend | Field::Mix | Field::Owned => "",
            Field::Framework | Field::MasterWeights | Field::OptimizerInBackward | Field::CudaGraphs | Field::MoeLayout | Field::Disagg => "auto",
            Field::DeadlineDays | Field::Tp | Field::Cp | Field::Pp | Field::Vp | Field::Ep | Field::GlobalBatch | Field::NicGbitS => "",
            Field::GradAccum => "1",
            Field::Arrivals => "random",
        }
    }
}

/// The advisor inputs: one text per [`Field`], plus a pasted `config.json` (kept out of the URL).
#[derive(Debug, Clone, PartialEq)]
pub struct AdvisorInputs {
    values: [String; Field::ALL.len()],
    /// A pasted Hugging Face `config.json`; when non-empty and `model` is `custom`, it wins over
    /// `params`.
    pub config_json: String,
    /// Constraint: NVLink required.
    pub need_nvlink: bool,
    /// Constraint: cards whose licence allows datacenter use only.
    pub datacenter_only: bool,
    /// The reader's language, which picks the currency while `currency` is `auto` (not part of
    /// the link or the saved inputs: the app sets it from the interface language).
    pub reader_lang: crate::i18n::Lang,
}

impl Default for AdvisorInputs {
    fn default() -> Self {
        AdvisorInputs {
            values: Field::ALL.map(|f| f.default_value().to_string()),
            config_json: String::new(),
            need_nvlink: false,
            reader_lang: crate::i18n::Lang::En,
            datacenter_only: false,
        }
    }
}

/// A field the user must fix, with a message they can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: Field,
    /// The message in English (URL notes, the command line, tests).
    pub message: String,
    /// The message as a translatable note (the engine's errors are notes too).
    note: Note,
}

impl FieldError {
    /// An error whose message is `template` (an entry of `data/i18n.toml`) with its placeholders
    /// filled from `args`.
    pub fn new(field: Field, template: &'static str, args: &[(&'static str, String)]) -> FieldError {
        FieldError::from_note(field, Note::new(template, args.iter().map(|(k, v)| (*k, Arg::from(v.clone()))).collect()))
    }

    /// An error whose message is `note`.
    pub fn from_note(field: Field, note: Note) -> FieldError {
        FieldError { field, message: note.to_string(), note }
    }

    /// The message in `lang`.
    pub fn message_in(&self, lang: Lang) -> String {
        self.note.in_lang(lang)
    }
}

/// What kind of preset a model id names.
pub fn model_kind(id: &str) -> Option<ModelKind> {
    if let Some(m) = catalog::llm(id) {
        Some(m.kind)
    } else if catalog::diffusion(id).is_some() {
        Some(ModelKind::Diffusion)
    } else {
        catalog::classic(id).map(|c| c.kind)
    }
}

/// Reads an `auto | on | off` input (the form's, the link's and the command line's), in any case:
/// `Some(None)` for `auto` or empty, `Some(Some(true))` for `on` (`true`, `yes`, `1`),
/// `Some(Some(false))` for `off` (`false`, `no`, `0`); `None` for anything else.
pub fn auto_on_off(text: &str) -> Option<Option<bool>> {
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "auto" => Some(None),
        "on" | "true" | "yes" | "1" => Some(Some(true)),
        "off" | "false" | "no" | "0" => Some(Some(false)),
        _ => None,
    }
}

fn parse_u32(field: Field, text: &str, lo: u32, hi: u32, errors: &mut Vec<FieldError>) -> Option<u32> {
    let t = text.trim().replace(['_', ','], "");
    let value = if let Some(k) = t.strip_suffix(['k', 'K']) {
        crate::fmath::parse_f64(k).map(|v| v * 1024.0)
    } else {
        crate::fmath::parse_f64(&t)
    };
    match value {
        Some(v) if v.is_finite() && v.fract() == 0.0 && v >= f64::from(lo) && v <= f64::from(hi) => Some(v as u32),
        Some(v) if v.is_finite() => {
            errors.push(FieldError::new(field, "must be a whole number from {lo} to {hi}", &[("lo", lo.to_string()), ("hi", hi.to_string())]));
            None
        }
        _ => {
            errors.push(FieldError::new(field, "`{text}` is not a number", &[("text", short(text))]));
            None
        }
    }
}

/// Parses a positive number within `lo..=hi`.
pub fn parse_f64(field: Field, text: &str, lo: f64, hi: f64, errors: &mut Vec<FieldError>) -> Option<f64> {
    match crate::fmath::parse_f64(&text.trim().replace(['_', ','], "")) {
        Some(v) if v.is_finite() && v >= lo && v <= hi => Some(v),
        Some(v) if v.is_finite() => {
            errors.push(FieldError::new(field, "must be between {lo} and {hi}", &[("lo", crate::decimal::plain(lo)), ("hi", crate::decimal::plain(hi))]));
            None
        }
        _ => {
            errors.push(FieldError::new(field, "`{text}` is not a number", &[("text", short(text))]));
            None
        }
    }
}

fn short(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(20).collect();
    if s.chars().count() > 20 {
        out.push('…');
    }
    out
}

/// Parses a count with an optional k/m/b/t suffix (`1.5b`, `300m`, `2t`).
pub fn parse_count(text: &str) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase().replace(['_', ','], "");
    let (num, mult) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1e3),
        'm' => (&t[..t.len() - 1], 1e6),
        'b' | 'g' => (&t[..t.len() - 1], 1e9),
        't' => (&t[..t.len() - 1], 1e12),
        _ => (t.as_str(), 1.0),
    };
    let v = crate::fmath::parse_f64(num.trim())?;
    (v.is_finite() && v >= 0.0).then_some(v * mult)
}

/// Parses `WxH` (e.g. `1024x1024`).
pub fn parse_resolution(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.trim().split_once(['x', 'X', '×'])?;
    let w: u32 = w.trim().parse().ok()?;
    let h: u32 = h.trim().parse().ok()?;
    ((64..=8192).contains(&w) && (64..=8192).contains(&h)).then_some((w, h))
}

impl AdvisorInputs {
    /// The text of `field`.
    pub fn get(&self, field: Field) -> &str {
        self.values.get(field as usize).map_or("", String::as_str)
    }

    /// Sets the text of `field`.
    pub fn set(&mut self, field: Field, value: String) {
        if let Some(slot) = self.values.get_mut(field as usize) {
            *slot = value;
        }
    }

    /// The workload as chosen, adjusted to the model kind: image presets generate images by
    /// default, classic presets train or infer.
    pub fn workload(&self) -> &str {
        self.get(Field::Workload)
    }

    /// Parses every sizing input into a job, or returns every field error.
    pub fn job(&self) -> Result<Job, Vec<FieldError>> {
        self.job_on(1)
    }

    /// [`AdvisorInputs::job`] for a run on `gpus` GPUs (a framework's single-GPU recipe differs
    /// from its multi-GPU one: torchtune's full fine-tune on one GPU).
    pub fn job_on(&self, gpus: u32) -> Result<Job, Vec<FieldError>> {
        let mut errors = Vec::new();
        let model = self.get(Field::Model).trim().to_string();
        let workload = self.workload().trim().to_string();
        if model != "custom" && model_kind(&model).is_none() {
            let near = catalog::nearest(&model, catalog::model_ids());
            errors.push(FieldError::new(
                Field::Model,
                "unknown model `{model}`; did you mean {near}?",
                &[("model", short(&model)), ("near", near.join(", "))],
            ));
            return Err(errors);
        }
        let batch = parse_u32(Field::Batch, self.get(Field::Batch), 1, 65_536, &mut errors);
        let precision_text = self.get(Field::Precision);
        let precision = Precision::parse(precision_text);
        if precision.is_none() {
            errors.push(FieldError::new(Field::Precision, "unknown precision `{text}`", &[("text", short(precision_text))]));
        }
        match MediaKind::of_preset(&model) {
            Some(media) => self.media_job(model, media, &workload, batch, precision, errors),
            None => self.llm_job(&model, &workload, (batch, precision, gpus), errors),
        }
    }

    /// A language-model job (inference, training or fine-tuning) from the inputs.
    fn llm_job(&self, model: &str, workload: &str, (batch, precision, gpus): (Option<u32>, Option<Precision>, u32), mut errors: Vec<FieldError>) -> Result<Job, Vec<FieldError>> {
        let mut job = self.llm_model(model, &mut errors);
        match Workload::parse(workload) {
            Some(w) => job.workload = w,
            None => {
                let choices = Workload::ALL.map(Workload::as_str).join(", ");
                errors.push(FieldError::new(Field::Workload, "for a language model choose one of {choices}", &[("choices", choices)]));
            }
        }
        if let Some(p) = precision {
            job.precision = p;
        }
        match KvPrecision::parse(self.get(Field::KvPrecision)) {
            Some(k) => job.kv_precision = k,
            None => errors.push(FieldError::new(Field::KvPrecision, "choose fp16, fp8, q8_0 or q4_0", &[])),
        }
        let engine = self.get(Field::Engine).trim();
        if !engine.is_empty() && engine != "auto" {
            match Engine::parse(engine) {
                Some(e) => job.engine = Some(e),
                None => errors.push(FieldError::new(Field::Engine, "unknown engine `{text}`", &[("text", short(engine))])),
            }
        }
        self.llm_lengths(&mut job, batch, &mut errors);
        self.numerics(&mut job, gpus, &mut errors);
        self.layout(&mut job, &mut errors);
        if let Some(r) = parse_u32(Field::LoraRank, self.get(Field::LoraRank), 1, 4096, &mut errors) {
            job.lora_rank = r;
        }
        // "auto" (the default): the engine picks the fastest sharding that fits.
        if self.get(Field::Zero).trim().eq_ignore_ascii_case("auto") {
            job.auto_layout = true;
        } else if let Some(z) = parse_u32(Field::Zero, self.get(Field::Zero), 0, 3, &mut errors) {
            job.zero = z as u8;
            job.auto_layout = false;
        }
        match parse_count(self.get(Field::TrainTokens)) {
            Some(t) if (1e3..=1e15).contains(&t) => job.train_tokens = t,
            _ => errors.push(FieldError::new(Field::TrainTokens, "training tokens like 1b, 300m or 2t", &[])),
        }
        job.host = self.offload_host(&mut errors);
        if !job.workload.is_training() {
            self.images(&mut job, &mut errors);
        }
        match self.get(Field::Backend).trim() {
            "" | "auto" => {}
            b => match llm::engines::Backend::parse(b) {
                Some(b) => job.backend = Some(b),
                None => errors.push(FieldError::new(Field::Backend, "choose cuda, rocm, vulkan, metal, sycl or mlx", &[])),
            },
        }
        if let Err(e) = job.validate() {
            let field = Field::from_key(e.field()).unwrap_or(Field::Params);
            errors.push(FieldError::from_note(field, e.message()));
        }
        if errors.is_empty() { Ok(Job::Llm(Box::new(job))) } else { Err(errors) }
    }

    /// The language model of a preset, a parameter count or a pasted `config.json` (`custom`),
    /// as a job with the preset's defaults.
    fn llm_model(&self, model: &str, errors: &mut Vec<FieldError>) -> LlmJob {
        let mut job = LlmJob::default();
        if model == "custom" {
            if !self.config_json.trim().is_empty() {
                match llm::config_json::parse_config_json(&self.config_json) {
                    Ok(a) => job.model = a,
                    Err(problem) => errors.push(FieldError::from_note(
                        Field::Params,
                        Note::new("config.json: {problem}", vec![("problem", problem.into())]),
                    )),
                }
            } else {
                match custom::parse_param_count(self.get(Field::Params)).and_then(custom::arch_from_params) {
                    Ok(a) => job.model = a,
                    Err(e) => errors.push(FieldError::from_note(Field::Params, e.message())),
                }
            }
        } else if let Some(spec) = catalog::llm(model) {
            job = LlmJob::for_preset(spec);
        }
        job
    }

    /// The lengths and the concurrency: context, prompt and output tokens, the users in flight
    /// (inference) or the micro-batch per GPU (training), and the training sequence length.
    fn llm_lengths(&self, job: &mut LlmJob, batch: Option<u32>, errors: &mut Vec<FieldError>) {
        if let Some(c) = parse_u32(Field::Context, self.get(Field::Context), 1, 10_485_760, errors) {
            job.context_tokens = c;
        }
        if let Some(p) = parse_u32(Field::PromptTokens, self.get(Field::PromptTokens), 1, 10_485_760, errors) {
            job.prompt_tokens = p;
        }
        if let Some(o) = parse_u32(Field::OutputTokens, self.get(Field::OutputTokens), 1, 1_048_576, errors) {
            job.output_tokens = o;
        }
        // Inference: the users in flight; training: the micro-batch per GPU.
        if job.workload.is_training() {
            if let Some(b) = batch {
                job.batch = b;
            }
        } else if let Some(u) = parse_u32(Field::Users, self.get(Field::Users), 1, 65_536, errors) {
            job.batch = u;
        }
        if let Some(s) = parse_u32(Field::SeqLen, self.get(Field::SeqLen), 1, 1_048_576, errors) {
            job.seq_len = s;
        }
        // The cache holds at most the model's window (vLLM refuses a `max_model_len` above the
        // config's `max_position_embeddings`: `_get_and_verify_max_len` in vllm/config.py), and at
        // least one request's prompt and output; a training sample fits the window too. A bare
        // parameter count has no window of its own (its `CUSTOM_CONTEXT` is a placeholder).
        let bare = self.get(Field::Model).trim() == "custom" && self.config_json.trim().is_empty();
        let window = if bare { u32::MAX } else { job.model.max_context.max(1) };
        let request = job.prompt_tokens.saturating_add(job.output_tokens);
        job.context_tokens = job.context_tokens.min(window).max(request);
        job.seq_len = job.seq_len.min(window);
    }

    /// An image, video or classic job from the inputs: the workload as [`MediaWorkload::read`]
    /// takes it for the preset's kind, frames for a video preset, CPU offload for generation.
    fn media_job(&self, model: String, kind: MediaKind, workload: &str, batch: Option<u32>, precision: Option<Precision>, mut errors: Vec<FieldError>) -> Result<Job, Vec<FieldError>> {
        let resolution = match self.get(Field::Resolution).trim() {
            "" => None,
            t => match parse_resolution(t) {
                Some(r) => Some(r),
                None => {
                    errors.push(FieldError::new(Field::Resolution, "width×height from 64 to 8192, e.g. 1024x1024", &[]));
                    None
                }
            },
        };
        let steps = match self.get(Field::Steps).trim() {
            "" => None,
            t => parse_u32(Field::Steps, t, 1, 1000, &mut errors),
        };
        let video = kind == MediaKind::Video;
        let frames = match self.get(Field::Frames).trim() {
            "" => None,
            t if video => parse_u32(Field::Frames, t, 1, 1025, &mut errors),
            _ => None,
        };
        let offload_mode = match crate::model::media::OffloadMode::parse(self.get(Field::OffloadMode)) {
            Some(m) if kind != MediaKind::Classic => Some(m),
            Some(_) => None,
            None => {
                errors.push(FieldError::new(Field::OffloadMode, "choose none, model or sequential", &[]));
                None
            }
        };
        let media_workload = MediaWorkload::read(kind, workload);
        let precision = precision.filter(|p| matches!(p, Precision::Fp32 | Precision::Tf32 | Precision::Fp16 | Precision::Bf16 | Precision::Fp8));
        let fp32_math = match crate::model::numeric::Fp32Math::parse(self.get(Field::Fp32Math)) {
            Some(m) => m,
            None => {
                errors.push(FieldError::new(Field::Fp32Math, "choose pytorch, tf32 or strict", &[]));
                crate::model::numeric::Fp32Math::PytorchDefault
            }
        };
        if errors.is_empty() {
            let offload_mode = offload_mode.filter(|_| !media_workload.is_training());
            Ok(Job::Media(MediaJob { model_id: model, workload: media_workload, precision, resolution, steps, batch, fp32_math, frames, offload_mode }))
        } else {
            Err(errors)
        }
    }
}

impl AdvisorInputs {
    /// Vision-language inference: images per request (0 is fine) and their `WxH`, each side 1 to
    /// 16384 px; images on a model without a vision tower are an error on the images field.
    fn images(&self, job: &mut LlmJob, errors: &mut Vec<FieldError>) {
        let Some(n) = parse_u32(Field::Images, self.get(Field::Images), 0, 1024, errors) else { return };
        if n == 0 {
            return;
        }
        if job.model.vision.is_none() {
            errors.push(FieldError::new(Field::Images, "this model takes no images; choose a vision-language model", &[]));
            return;
        }
        let size = self.get(Field::ImageRes).trim().split_once(['x', 'X', '×']).and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
        match size.filter(|(w, h)| (1..=16_384).contains(w) && (1..=16_384).contains(h)) {
            Some((w, h)) => (job.images, job.image_width_px, job.image_height_px) = (n, w, h),
            None => errors.push(FieldError::new(Field::ImageRes, "width×height from 1 to 16384, e.g. 1024x1024", &[])),
        }
    }

    /// Parses every input (sizing, budget, cost and constraints) into a recommender input, or
    /// returns every field error. Money typed in the chosen currency is converted to USD.
    pub fn recommend_input(&self) -> Result<crate::recommend::RecommendInput, Vec<FieldError>> {
        use crate::recommend::{Budget, Mode, Objective, RecommendInput};
        let job = self.job();
        let mut errors = job.as_ref().err().cloned().unwrap_or_default();
        let mode = Mode::parse(self.get(Field::Mode));
        if mode.is_none() {
            errors.push(FieldError::new(Field::Mode, "choose buy or rent", &[]));
        }
        let cost = self.cost_settings(&mut errors);
        let per_usd = cost.as_ref().map_or(1.0, crate::recommend::cost::CostSettings::rate);
        let budget_amount = match self.get(Field::Budget).trim() {
            "" => None,
            t => parse_f64(Field::Budget, &t.replace(['$', '¥', '₽', '€', ' '], ""), 0.0, 1e12, &mut errors),
        };
        let objective = Objective::parse(self.get(Field::Objective));
        if objective.is_none() {
            errors.push(FieldError::new(Field::Objective, "unknown ranking", &[]));
        }
        let headroom = parse_f64(Field::Headroom, self.get(Field::Headroom), 0.0, 90.0, &mut errors);
        let constraints = self.constraints(&mut errors);
        let serving = self.serving_targets(&mut errors);
        let (Ok(job), Some(mode), Some(cost), Some(objective), Some(headroom)) = (job, mode, cost, objective, headroom) else {
            return Err(errors);
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut input = RecommendInput::new(job);
        input.mode = mode;
        input.objective = objective;
        input.budget = match (budget_amount, mode) {
            (None, _) => Budget::Unlimited,
            (Some(b), Mode::Buy) => Budget::PurchaseUsd(b / per_usd),
            (Some(b), Mode::Rent) => Budget::HourlyUsd(b / per_usd),
        };
        input.headroom = headroom / 100.0;
        input.constraints = constraints;
        input.cost = cost;
        input.serving = serving;
        input.top = 8;
        self.cards(&mut input)?;
        Ok(input)
    }

    /// The constraints: most GPUs, most watts, a training deadline, NVLink, datacenter cards
    /// only and the region.
    fn constraints(&self, errors: &mut Vec<FieldError>) -> crate::recommend::Constraints {
        let optional = |field: Field, lo: f64, hi: f64, errors: &mut Vec<FieldError>| match self.get(field).trim() {
            "" => None,
            t => parse_f64(field, t, lo, hi, errors),
        };
        let max_gpus = match self.get(Field::MaxGpus).trim() {
            "" => None,
            t => parse_u32(Field::MaxGpus, t, 1, crate::model::llm::MAX_GPUS, errors),
        };
        let max_watts = optional(Field::MaxWatts, 10.0, 1e7, errors);
        let deadline_days = optional(Field::DeadlineDays, 0.001, 36_500.0, errors);
        let region = self.get(Field::Region).trim().to_string();
        if region != "global" && region != "cn" {
            errors.push(FieldError::new(Field::Region, "choose global or cn", &[]));
        }
        crate::recommend::Constraints {
            max_gpus,
            max_watts,
            deadline_hours: deadline_days.map(|d| d * 24.0),
            require_nvlink: self.need_nvlink,
            datacenter_only: self.datacenter_only,
            region: Some(region),
            ..crate::recommend::Constraints::default()
        }
    }

    /// The cost settings: currency and rate, hours, months, energy, price and rent bases, the
    /// host, the API price (typed in the chosen currency) and the price overrides; `None` when a
    /// setting the costs need is bad (its error is in `errors`).
    fn cost_settings(&self, errors: &mut Vec<FieldError>) -> Option<crate::recommend::cost::CostSettings> {
        use crate::recommend::cost::{CostSettings, Currency, PriceBasis, PriceOverrides, RentBasis};
        let currency = match self.get(Field::Currency).trim() {
            "" | "auto" => Some(crate::present::currency_for_lang(self.reader_lang)),
            c => Currency::parse(c),
        };
        if currency.is_none() {
            errors.push(FieldError::new(Field::Currency, "choose auto, usd, cny, rub or eur", &[]));
        }
        let rate = match self.get(Field::Rate).trim() {
            "" => None,
            t => parse_f64(Field::Rate, t, 1e-6, 1e6, errors),
        };
        let per_usd = rate.or_else(|| currency.map(Currency::default_per_usd)).unwrap_or(1.0);
        let hours = parse_f64(Field::HoursPerDay, self.get(Field::HoursPerDay), 0.0, 24.0, errors);
        let months = parse_f64(Field::Months, self.get(Field::Months), 1.0, 120.0, errors);
        let kwh = parse_f64(Field::KwhPrice, self.get(Field::KwhPrice), 0.0, 10.0, errors);
        let price_basis = PriceBasis::parse(self.get(Field::PriceBasis));
        if price_basis.is_none() {
            errors.push(FieldError::new(Field::PriceBasis, "choose street or launch", &[]));
        }
        let include_host = match self.get(Field::Host).trim() {
            "include" | "" => true,
            "none" => false,
            _ => {
                errors.push(FieldError::new(Field::Host, "choose include or none", &[]));
                true
            }
        };
        let rent_basis = match self.get(Field::RentBasis).trim().to_ascii_lowercase().as_str() {
            "" | "cheapest" => RentBasis::Cheapest,
            "median" => RentBasis::Median,
            provider => RentBasis::Provider(provider.chars().filter(|c| !c.is_control()).take(40).collect()),
        };
        let utilisation = parse_f64(Field::Utilisation, self.get(Field::Utilisation), 1.0, 100.0, errors);
        let pue = match self.get(Field::Pue).trim() {
            "" => None,
            t => parse_f64(Field::Pue, t, 1.0, 3.0, errors),
        };
        let api_price = match self.get(Field::ApiPrice).trim() {
            "" => None,
            t => parse_f64(Field::ApiPrice, &t.replace(['$', '¥', '₽', '€', ' '], ""), 0.0001, 1e6, errors),
        };
        let overrides = PriceOverrides::parse(self.get(Field::Prices)).map_err(|e| errors.push(FieldError::from_note(Field::Prices, e.note()))).ok();
        let (Some(currency), Some(hours), Some(months), Some(kwh), Some(overrides)) = (currency, hours, months, kwh, overrides) else {
            return None;
        };
        let mut cost = CostSettings { currency, rate_per_usd: rate, hours_per_day: hours, months, overrides, rent_basis, include_host, ..CostSettings::default() };
        cost.energy.usd_per_kwh = kwh;
        cost.price_basis = price_basis.unwrap_or(cost.price_basis);
        cost.api_usd_per_million = api_price.map(|p| p / per_usd);
        cost.energy.utilisation = utilisation.map_or(cost.energy.utilisation, |u| u / 100.0);
        if let Some(p) = pue {
            (cost.energy.pue_desk, cost.energy.pue_server) = (p, p);
        }
        Some(cost)
    }

    /// The owned cards and the mixed build (`ID:COUNT,...`), each checked: known ids, counts 1 to
    /// 64, LLM inference only; a mix must be one some engine can run.
    fn cards(&self, input: &mut crate::recommend::RecommendInput) -> Result<(), Vec<FieldError>> {
        let mut errors = Vec::new();
        let owned = parse_cards(Field::Owned, self.get(Field::Owned), &mut errors);
        let mix = parse_cards(Field::Mix, self.get(Field::Mix), &mut errors);
        let inference = matches!(&input.job, Job::Llm(j) if !j.workload.is_training());
        for (field, cards) in [(Field::Owned, &owned), (Field::Mix, &mix)] {
            if !cards.is_empty() && !inference {
                errors.push(FieldError::new(field, "cards you own or mix are sized for LLM inference", &[]));
            }
        }
        if let (Job::Llm(job), true, true) = (&input.job, inference, mix.len() > 1) {
            let gpus: Vec<(&catalog::Gpu, u32)> = mix.iter().filter_map(|(id, n)| catalog::gpu(id).map(|g| (g, *n))).collect();
            if let Err(e) = llm::mixed::split(job, &gpus) {
                errors.push(FieldError::from_note(Field::Mix, e.message()));
            }
        }
        (input.owned, input.mix) = (owned, mix);
        if errors.is_empty() { Ok(()) } else { Err(errors) }
    }
}

/// Parses `ID:COUNT,ID:COUNT` (a bare id counts 1) into catalog ids and counts, pushing an error
/// on `field` for the first unknown id (and stops there) or a count outside 1..=64.
fn parse_cards(field: Field, text: &str, errors: &mut Vec<FieldError>) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (id, count) = part.split_once(':').map_or((part, "1"), |(i, c)| (i.trim(), c.trim()));
        if catalog::gpu(id).is_none() {
            let near = catalog::nearest(id, catalog::gpus().iter().map(|g| g.id.as_str()));
            errors.push(FieldError::new(
                field,
                "unknown card `{id}`; did you mean {near}?",
                &[("id", short(id)), ("near", near.join(", "))],
            ));
            // One unknown card is the field's message; the rest of a pasted list waits for it.
            return out;
        }
        match count.parse::<u32>() {
            Ok(n) if (1..=64).contains(&n) && !out.iter().any(|(x, _)| x == id) => out.push((id.to_string(), n)),
            _ => errors.push(FieldError::new(field, "cards as ID:COUNT, e.g. rtx-3090:1,rtx-4090:1", &[])),
        }
    }
    out
}

impl AdvisorInputs {
    /// The serving targets: per-user speed, TTFT, arrival rate, prefix-cache share,
    /// speculative decoding. An empty target is no target; zero or negative ones are errors.
    /// Training numerics: the framework's defaults (`auto`: transformers, the engine's own) for
    /// the optimizer and checkpointing left at `auto`, with fp32 master weights, optimizer in
    /// backward and the loss's logits as that framework runs them (one GPU's recipe).
    fn numerics(&self, job: &mut LlmJob, gpus: u32, errors: &mut Vec<FieldError>) {
        use crate::model::llm::framework::{Chosen, Framework};
        let auto = |f: Field| matches!(self.get(f).trim(), "" | "auto");
        let mut chosen = Chosen::default();
        if !auto(Field::Optimizer) {
            match Optimizer::parse(self.get(Field::Optimizer)) {
                Some(o) => chosen.optimizer = Some(o),
                None => errors.push(FieldError::new(Field::Optimizer, "unknown optimizer", &[])),
            }
        }
        if !auto(Field::GradCkpt) {
            match Checkpointing::parse(self.get(Field::GradCkpt)) {
                Some(c) => chosen.checkpointing = Some(c),
                None => errors.push(FieldError::new(Field::GradCkpt, "choose none, selective or full", &[])),
            }
        }
        chosen.master_weights = self.on_off(Field::MasterWeights, errors);
        chosen.optimizer_in_backward = self.on_off(Field::OptimizerInBackward, errors);
        let framework = if auto(Field::Framework) {
            Framework::Transformers
        } else {
            match Framework::parse(self.get(Field::Framework)) {
                Some(f) => f,
                None => {
                    errors.push(FieldError::new(Field::Framework, "choose transformers, torchtune or megatron", &[]));
                    Framework::Transformers
                }
            }
        };
        framework.apply(job, chosen, gpus);
    }

    /// `auto` (or empty): `None`, the framework's or engine's own; else `on` or `off`
    /// ([`auto_on_off`]).
    fn on_off(&self, field: Field, errors: &mut Vec<FieldError>) -> Option<bool> {
        auto_on_off(self.get(field)).unwrap_or_else(|| {
            errors.push(FieldError::new(field, "choose auto, on or off", &[]));
            None
        })
    }

    /// The layout a cluster planner fixes: a mesh (`tp`, `cp`, `pp`, `vp`, `ep`; all empty: the layout
    /// search's choice, and a part left empty is 1), gradient accumulation, the global batch and
    /// each GPU's scale-out port; and for serving, CUDA graphs and the MoE layout. The ranges are
    /// `LlmJob::validate`'s.
    fn layout(&self, job: &mut LlmJob, errors: &mut Vec<FieldError>) {
        use crate::model::llm::job::{MeshSpec, MoeLayout};
        let whole = |field: Field, hi: u32, errors: &mut Vec<FieldError>| match self.get(field).trim() {
            "" | "auto" => None,
            t => parse_u32(field, t, 1, hi, errors),
        };
        let mesh = [Field::Tp, Field::Cp, Field::Pp, Field::Vp, Field::Ep].map(|f| whole(f, crate::model::llm::MAX_GPUS, errors));
        if mesh.iter().any(Option::is_some) {
            let [tp, cp, pp, interleave, ep] = mesh.map(|x| x.unwrap_or(1));
            job.mesh = Some(MeshSpec { tp, cp, pp, interleave, ep });
        }
        if let Some(g) = whole(Field::GradAccum, 65_536, errors) {
            job.grad_accum = g;
        }
        job.global_batch = whole(Field::GlobalBatch, 16_777_216, errors);
        job.nic_gbit_s = match self.get(Field::NicGbitS).trim() {
            "" => None,
            t => parse_f64(Field::NicGbitS, t, 1.0, 100_000.0, errors),
        };
        job.cuda_graphs = self.on_off(Field::CudaGraphs, errors);
        match MoeLayout::parse(self.get(Field::MoeLayout)) {
            Some(m) => job.moe_layout = m,
            None => errors.push(FieldError::new(Field::MoeLayout, "choose auto, tp, ep or dep", &[])),
        }
    }

    /// System RAM for llama.cpp's offload and a unified-memory machine's GPU share:
    /// empty RAM is no offload; every number must be positive.
    fn offload_host(&self, errors: &mut Vec<FieldError>) -> crate::model::llm::host::Host {
        use crate::model::llm::host::{Host, OffloadMode};
        let optional = |field: Field, lo: f64, hi: f64, errors: &mut Vec<FieldError>| match self.get(field).trim() {
            "" => None,
            t => parse_f64(field, t, lo, hi, errors),
        };
        let ram_gib = optional(Field::Ram, 1.0, 65_536.0, errors).unwrap_or(0.0);
        let ram_gb_s = optional(Field::RamBw, 1.0, 100_000.0, errors);
        let unified_gpu_gib = optional(Field::GpuShare, 1.0, 65_536.0, errors);
        let mode = OffloadMode::parse(self.get(Field::Offload)).unwrap_or_else(|| {
            errors.push(FieldError::new(Field::Offload, "choose auto, none, layers or experts", &[]));
            OffloadMode::Auto
        });
        Host { ram_gib, ram_gb_s, mode, unified_gpu_gib, ..Host::default() }
    }

    fn serving_targets(&self, errors: &mut Vec<FieldError>) -> crate::model::llm::serving::ServingTargets {
        use crate::model::llm::serving::{Arrivals, ServingTargets, SpecDecode};
        let positive = |f: Field, errors: &mut Vec<FieldError>| match self.get(f).trim() {
            "" => None,
            t => match crate::fmath::parse_f64(&t.replace(['_', ','], "")) {
                Some(v) if v.is_finite() && v > 0.0 && v <= 1e9 => Some(v),
                Some(v) if v.is_finite() => {
                    errors.push(FieldError::new(f, "must be above 0", &[]));
                    None
                }
                _ => {
                    errors.push(FieldError::new(f, "`{text}` is not a number", &[("text", short(t))]));
                    None
                }
            },
        };
        let tokens_per_s_per_user = positive(Field::TpsUser, errors);
        let max_ttft_s = positive(Field::Ttft, errors);
        let arrival_rate_rps = positive(Field::RateRps, errors);
        let prefix_hit = match self.get(Field::PrefixHit).trim() {
            "" => Some(0.0),
            t => parse_f64(Field::PrefixHit, t, 0.0, 1.0, errors),
        };
        let arrivals = Arrivals::parse(self.get(Field::Arrivals)).unwrap_or_else(|| {
            errors.push(FieldError::new(Field::Arrivals, "choose random or in-step", &[]));
            Arrivals::Random
        });
        let spec = SpecDecode::parse(self.get(Field::Spec)).unwrap_or_else(|| {
            errors.push(FieldError::new(Field::Spec, "choose off, draft, eagle or mtp", &[]));
            SpecDecode::Off
        });
        let spec_accept = match self.get(Field::SpecAccept).trim() {
            "" => None,
            t => parse_f64(Field::SpecAccept, t, 0.0, 1.0, errors),
        };
        let disaggregate = self.on_off(Field::Disagg, errors);
        ServingTargets { tokens_per_s_per_user, max_ttft_s, arrival_rate_rps, prefix_hit: prefix_hit.unwrap_or(0.0), spec, spec_accept, arrivals, disaggregate }
    }
}
