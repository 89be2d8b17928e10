//! The engine's shared result types: a low/mid/high band, the memory breakdown, throughput, an LLM
//! job's RAM offload plan and one [`Estimate`], whose serde form is the `gpu-advisor estimate
//! --json` contract, plus the engine's error type, which always names the offending field.

use serde::Serialize;

/// A low / mid / high band around an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    pub low: f64,
    pub mid: f64,
    pub high: f64,
}

impl Band {
    /// A band of `mid` scaled by `low_factor` and `high_factor` (e.g. 0.75 and 1.25).
    pub fn around(mid: f64, low_factor: f64, high_factor: f64) -> Band {
        Band { low: mid * low_factor, mid, high: mid * high_factor }
    }

    /// Every bound multiplied by `k`.
    pub fn scale(self, k: f64) -> Band {
        Band { low: self.low * k, mid: self.mid * k, high: self.high * k }
    }

    /// `1 / band`, with low and high swapped (for turning a rate into a time).
    pub fn recip(self) -> Band {
        Band { low: 1.0 / self.high, mid: 1.0 / self.mid, high: 1.0 / self.low }
    }

    /// True when every bound is finite and `low <= mid <= high`.
    pub fn is_sane(&self) -> bool {
        self.low.is_finite() && self.mid.is_finite() && self.high.is_finite() && self.low <= self.mid && self.mid <= self.high
    }
}

/// Memory by term, in GiB, summed over all GPUs of the job (`total_gib`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MemoryBreakdown {
    pub weights_gib: f64,
    pub kv_cache_gib: f64,
    pub activations_gib: f64,
    pub gradients_gib: f64,
    pub optimizer_gib: f64,
    pub overhead_gib: f64,
    pub total_gib: f64,
    /// `total_gib` as a band: the spread of measured peaks around the model (LLM training and
    /// fine-tuning; null where no held-out measurements set one, docs/MODEL.md).
    pub total_band_gib: Option<Band>,
    /// The busiest GPU's memory (`per_gpu_gib`) as a band, on the same footing.
    pub per_gpu_band_gib: Option<Band>,
    /// Weights (and, with layer offload, their KV cache) held in system RAM, GiB; 0 without
    /// offload. Not part of `total_gib`'s GPU share: the job fits only if both fit.
    pub offloaded_gib: f64,
}

impl MemoryBreakdown {
    /// One card's memory, held on each of `gpus` identical cards: every GiB term times `gpus`
    /// (data parallel image, video and classic jobs; the bands and RAM offload stay as they are).
    pub fn across(&self, gpus: u32) -> MemoryBreakdown {
        let k = f64::from(gpus);
        MemoryBreakdown {
            weights_gib: self.weights_gib * k,
            kv_cache_gib: self.kv_cache_gib * k,
            activations_gib: self.activations_gib * k,
            gradients_gib: self.gradients_gib * k,
            optimizer_gib: self.optimizer_gib * k,
            overhead_gib: self.overhead_gib * k,
            total_gib: self.total_gib * k,
            ..*self
        }
    }
}

/// Throughput figures; each is `None` (JSON null) where it does not apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Throughput {
    pub decode_tokens_per_s: Option<Band>,
    pub prefill_tokens_per_s: Option<Band>,
    pub serving_tokens_per_s: Option<Band>,
    pub train_tokens_per_s: Option<Band>,
    pub seconds_per_image: Option<Band>,
    pub train_samples_per_s: Option<Band>,
    /// Video generation: seconds per clip (the JSON key `throughput.seconds_per_video`).
    pub seconds_per_video: Option<Band>,
}

/// One job on one card type: the `estimate --json` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Model preset id (or `custom`).
    pub model: String,
    /// GPU id.
    pub gpu: String,
    /// GPUs the estimate was computed for.
    pub gpus: u32,
    pub memory: MemoryBreakdown,
    /// Memory each GPU holds at `gpus` GPUs.
    pub per_gpu_gib: f64,
    /// The smallest number of this card that holds the job.
    pub gpus_needed: u32,
    /// True when the job fits on `gpus` of this card.
    pub fits: bool,
    pub throughput: Throughput,
    /// Where the weights that do not fit the GPUs go (LLM inference with llama.cpp and
    /// `--ram-gib`); null when everything is on the GPUs.
    pub offload: Option<OffloadPlan>,
    pub assumptions: Vec<Note>,
}

/// Where the weights that do not fit go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Whole layers in RAM (`-ngl`).
    Layers,
    /// Routed experts in RAM (`--n-cpu-moe`).
    Experts,
}

impl Placement {
    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Layers => "layers",
            Placement::Experts => "experts",
        }
    }
}

/// A placement of one job: the `offload` object of `estimate --json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OffloadPlan {
    pub placement: Placement,
    /// Layers wholly on the GPU (experts: layers whose experts stay on the GPU).
    pub layers_on_gpu: u32,
    pub layers_total: u32,
    /// RAM the weights (and, with layers, their KV cache) take, GiB.
    pub ram_gib_used: f64,
    /// GPU memory over all GPUs, GiB.
    #[serde(skip)]
    pub gpu_gib: f64,
    /// True when the GPUs and the RAM (after what the operating system keeps) both hold their parts.
    #[serde(skip)]
    pub fits: bool,
}

/// One assumption line: an English template with `{name}` placeholders (the template is also the
/// key its translations are looked up by) and the values that fill them. It reads as its English
/// text (it derefs to `str`, and its serde form, part of the `estimate --json` contract, is that
/// text); the presentation layer ([`crate::present`]) writes it in the interface language. Values
/// (numbers, ids) stay as written; a value that is itself a phrase (a multi-GPU layout) is a
/// nested note and is translated too.
///
/// The English text is rendered on first use: the recommender estimates hundreds of candidates a
/// keystroke and reads the notes of the few it shows.
#[derive(Debug, Clone)]
pub struct Note {
    template: &'static str,
    args: Vec<(&'static str, Arg)>,
    text: std::sync::OnceLock<String>,
}

impl PartialEq for Note {
    fn eq(&self, other: &Note) -> bool {
        self.template == other.template && self.args == other.args
    }
}

impl Eq for Note {}

/// A value in a [`Note`]: plain text, or a phrase that is translated in turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Text(String),
    Note(Box<Note>),
}

impl From<String> for Arg {
    fn from(s: String) -> Arg {
        Arg::Text(s)
    }
}

impl From<&str> for Arg {
    fn from(s: &str) -> Arg {
        Arg::Text(s.to_string())
    }
}

impl From<&'static str> for Note {
    /// A note without placeholders.
    fn from(template: &'static str) -> Note {
        Note::plain(template)
    }
}

impl From<Note> for Arg {
    fn from(n: Note) -> Arg {
        Arg::Note(Box::new(n))
    }
}

impl Note {
    /// `template` with its placeholders filled from `args`.
    pub fn new(template: &'static str, args: Vec<(&'static str, Arg)>) -> Note {
        Note { template, args, text: std::sync::OnceLock::new() }
    }

    /// A note without placeholders.
    pub fn plain(template: &'static str) -> Note {
        Note::new(template, Vec::new())
    }

    /// The template: the note's English text with `{name}` placeholders (and its key in the
    /// translation table).
    pub fn template(&self) -> &'static str {
        self.template
    }

    /// The note in English, the template filled with its values (a nested note with its own
    /// English text): the text of `estimate --json`.
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| self.render(None))
    }

    /// The note with its template, and each nested note's, in the language of `to` (English
    /// without one), filled with its values.
    pub fn render(&self, to: Option<&dyn Translate>) -> String {
        use std::borrow::Cow;
        let values: Vec<(&str, Cow<'_, str>)> = self
            .args
            .iter()
            .map(|(k, v)| match v {
                Arg::Text(t) => (*k, Cow::Borrowed(t.as_str())),
                Arg::Note(n) => (*k, Cow::Owned(n.render(to))),
            })
            .collect();
        let pairs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_ref())).collect();
        let template = to.map_or(self.template, |to| to.translate(self.template));
        crate::template::fill(template, &pairs)
    }
}

/// A note's template in another language: the presentation layer looks it up (the engine keeps
/// no translations). The text it returns has the template's `{name}` placeholders.
pub trait Translate {
    /// `template` (English) in this language.
    fn translate(&self, template: &'static str) -> &'static str;
}

impl std::ops::Deref for Note {
    type Target = str;
    fn deref(&self) -> &str {
        self.text()
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl Serialize for Note {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.text())
    }
}

/// An input the engine cannot size. The message names the field and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EstimateError {
    /// A value the engine rejects: `message` says what is allowed, as a note the presentation
    /// layer translates.
    #[error("{field}: {message}")]
    Invalid { field: &'static str, message: Note },
    #[error("{field}: unknown `{value}`{}", suggest(.suggestions))]
    Unknown { field: &'static str, value: String, suggestions: Vec<String> },
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", s.join(", "))
    }
}

impl EstimateError {
    /// The field this error is about.
    pub fn field(&self) -> &'static str {
        match self {
            EstimateError::Invalid { field, .. } | EstimateError::Unknown { field, .. } => field,
        }
    }

    /// What is wrong, without the field's name (shown beside the field), as a translatable note.
    pub fn message(&self) -> Note {
        match self {
            EstimateError::Invalid { message, .. } => message.clone(),
            EstimateError::Unknown { value, suggestions, .. } if suggestions.is_empty() => {
                Note::new("unknown `{value}`", vec![("value", value.as_str().into())])
            }
            EstimateError::Unknown { value, suggestions, .. } => {
                Note::new("unknown `{value}` (did you mean {near}?)", vec![("value", value.as_str().into()), ("near", suggestions.join(", ").into())])
            }
        }
    }

    /// The error as a translatable note that names the field: its English text is the error's.
    pub fn note(&self) -> Note {
        Note::new("{field}: {message}", vec![("field", self.field().into()), ("message", self.message().into())])
    }

    /// Shorthand for [`EstimateError::Invalid`].
    pub fn invalid(field: &'static str, message: impl Into<Note>) -> Self {
        EstimateError::Invalid { field, message: message.into() }
    }
}

/// "must be between {lo} and {hi}, got {value}".
pub fn between(lo: String, hi: String, value: String) -> Note {
    Note::new("must be between {lo} and {hi}, got {value}", vec![("lo", lo.into()), ("hi", hi.into()), ("value", value.into())])
}

/// Checks that `value` is finite and within `lo..=hi`, naming `field` otherwise. The check runs
/// dozens of times per estimate (every job input, on every card and count the ranking tries), so
/// the passing case is a pair of comparisons and the error is built out of line.
#[inline]
pub fn check_range(field: &'static str, value: f64, lo: f64, hi: f64) -> Result<f64, EstimateError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(value)
    } else {
        Err(range_error(field, value, lo, hi))
    }
}

/// The error of [`check_range`] for a value outside `lo..=hi` or not finite.
#[cold]
#[inline(never)]
fn range_error(field: &'static str, value: f64, lo: f64, hi: f64) -> EstimateError {
    if !value.is_finite() {
        return EstimateError::invalid(field, "must be a finite number");
    }
    EstimateError::invalid(field, between(crate::decimal::plain(lo), crate::decimal::plain(hi), crate::decimal::plain(value)))
}

/// Checks a whole-number input against `lo..=hi` (an error naming the field otherwise).
pub fn check_count(field: &'static str, value: u32, lo: u32, hi: u32) -> Result<u32, EstimateError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(EstimateError::invalid(field, between(lo.to_string(), hi.to_string(), value.to_string())))
    }
}

/// Bytes per GiB.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
