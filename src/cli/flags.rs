//! Flag-value parsing shared by `estimate` and `recommend`: every bad value becomes a one-line
//! [`CliError`] that names the flag; unknown ids suggest the nearest ones.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use super::CliError;
use crate::catalog;
use crate::model::EstimateError;

pub(crate) fn value(parser: &mut lexopt::Parser, flag: &str) -> Result<String, CliError> {
    let v = parser.value().map_err(|_| CliError(format!("--{flag} needs a value")))?;
    v.into_string().map_err(|_| CliError(format!("--{flag}: the value is not valid UTF-8")))
}

pub(crate) fn number(parser: &mut lexopt::Parser, flag: &str) -> Result<u32, CliError> {
    number_of(flag, &value(parser, flag)?)
}

/// `s` as the whole number of `--flag`.
fn number_of(flag: &str, s: &str) -> Result<u32, CliError> {
    let t = s.trim().replace('_', "");
    t.parse::<u32>().or_else(|_| {
        // Accept 1e3-style integers.
        match t.parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= f64::from(u32::MAX) => Ok(f as u32),
            Ok(f) if f.is_finite() && f > f64::from(u32::MAX) => Err(CliError(format!("--{flag}: {s} is too large"))),
            _ => Err(CliError(format!("--{flag}: `{s}` is not a whole number"))),
        }
    })
}

pub(crate) fn resolution(s: &str) -> Result<(u32, u32), CliError> {
    resolution_for("resolution", s)
}

/// `WxH` for `--flag`, each side 1..=16384 px.
pub(crate) fn resolution_for(flag: &str, s: &str) -> Result<(u32, u32), CliError> {
    let bad = || CliError(format!("--{flag}: `{s}` is not WxH (e.g. 1024x1024)"));
    let lower = s.trim().to_ascii_lowercase();
    let (w, h) = lower.split_once(['x', '×']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if w == 0 || h == 0 || w > 16_384 || h > 16_384 {
        return Err(CliError(format!("--{flag}: {w}x{h} is out of range (1..=16384 per side)")));
    }
    Ok((w, h))
}

pub(crate) fn choices<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> String {
    all.iter().map(|x| name(*x)).collect::<Vec<_>>().join("|")
}

pub(crate) fn unknown(flag: &str, value: &str, ids: impl Iterator<Item = &'static str>) -> CliError {
    let near = catalog::nearest(value, ids);
    if near.is_empty() {
        CliError(format!("--{flag}: unknown `{value}`"))
    } else {
        CliError(format!("--{flag}: unknown `{value}` (did you mean {}?)", near.join(", ")))
    }
}

pub(crate) fn engine_error(e: EstimateError) -> CliError {
    let field = e.field().replace('_', "-");
    match e {
        EstimateError::Invalid { message, .. } => CliError(format!("--{field}: {message}")),
        other => CliError(other.to_string()),
    }
}

pub(crate) fn real(parser: &mut lexopt::Parser, flag: &str, lo: f64, hi: f64) -> Result<f64, CliError> {
    real_of(flag, &value(parser, flag)?, lo, hi)
}

/// `s` as the number of `--flag`, within `lo..=hi`.
fn real_of(flag: &str, s: &str, lo: f64, hi: f64) -> Result<f64, CliError> {
    let v: f64 = s
        .trim()
        .replace([',', '_'], "")
        .parse()
        .map_err(|_| CliError(format!("--{flag}: `{s}` is not a number")))?;
    if !v.is_finite() || v < lo || v > hi {
        return Err(CliError(format!("--{flag}: must be between {lo} and {hi}, got {s}")));
    }
    Ok(v)
}

/// `1e9`, `1b`, `500m`, `2t` → a count.
pub(crate) fn count_value(parser: &mut lexopt::Parser, flag: &str) -> Result<f64, CliError> {
    let s = value(parser, flag)?;
    let t = s.trim().to_ascii_lowercase().replace('_', "");
    let (num, mult) = match t.chars().last() {
        Some('t') => (t.trim_end_matches('t'), 1e12),
        Some('b') => (t.trim_end_matches('b'), 1e9),
        Some('m') => (t.trim_end_matches('m'), 1e6),
        Some('k') => (t.trim_end_matches('k'), 1e3),
        _ => (t.as_str(), 1.0),
    };
    let v: f64 = num.parse().map_err(|_| CliError(format!("--{flag}: `{s}` is not a count (try 1e9 or 2b)")))?;
    let v = v * mult;
    if !v.is_finite() || !(1.0..=1e16).contains(&v) {
        return Err(CliError(format!("--{flag}: must be between 1 and 1e16, got {s}")));
    }
    Ok(v)
}

pub(crate) fn parse_enum<T>(flag: &str, v: &Option<String>, parse: fn(&str) -> Option<T>, expected: String) -> Result<Option<T>, CliError> {
    match v {
        Some(s) => parse(s).map(Some).ok_or_else(|| CliError(format!("--{flag}: unknown `{s}` (expected {expected})"))),
        None => Ok(None),
    }
}

/// The sizing flags `estimate` and `recommend` share (the job; not the card or the budget).
#[derive(Default)]
pub(crate) struct SizingArgs {
    /// The model: a preset, a parameter count or a `config.json`'s path.
    pub model: Option<String>,
    pub params: Option<String>,
    pub config: Option<String>,
    /// What the command line reads itself: the workload, precision and shape of an image, video
    /// or classic preset, which flags apply to which kind of model, and the serving targets.
    /// Everything a language-model job takes is read from `typed` by the advisor's parser.
    pub workload: Option<String>,
    pub precision: Option<String>,
    pub batch: Option<u32>,
    pub fp32_math: Option<String>,
    /// Serving: `--users` is the concurrency (`--batch` is its alias).
    pub users: Option<u32>,
    pub target_tps_user: Option<f64>,
    pub max_ttft_s: Option<f64>,
    pub arrival_rate: Option<f64>,
    pub prefix_hit: Option<f64>,
    pub spec_decode: Option<String>,
    pub spec_accept: Option<f64>,
    /// `--arrivals random|in-step`: how requests arrive (the TTFT's mid).
    pub arrivals: Option<String>,
    /// `--disagg auto|on|off`: prefill/decode disaggregation.
    pub disagg: Option<String>,
    pub resolution: Option<(u32, u32)>,
    pub steps: Option<u32>,
    /// Video generation: frames per clip.
    pub frames: Option<u32>,
    /// Image and video generation: diffusers' CPU offload.
    pub offload_mode: Option<crate::model::media::OffloadMode>,
    /// Vision-language inference: images per request and their size.
    pub images: Option<u32>,
    pub image_resolution: Option<(u32, u32)>,
    /// `--backend`: the compute back-end the estimate assumes.
    pub backend: Option<String>,
    /// Every sizing flag given, with its text as typed, in order.
    pub typed: Vec<(String, String)>,
}

impl SizingArgs {
    /// Every sizing flag, without its `--`.
    pub(crate) const FLAGS: [&'static str; 50] = ["disagg", "moe-layout", "framework", "master-weights", "optimizer-in-backward", "tp", "cp", "pp", "vp", "ep", "global-batch", "nic-gbit-s", "images", "arrivals", "cuda-graphs", "image-resolution", "backend",
        "ram-gib", "ram-gb-s", "offload", "gpu-share-gib",
        "users", "target-tokens-per-s-per-user", "max-ttft-s", "arrival-rate", "prefix-hit", "spec-decode", "spec-accept",
        "fp32-math", "model", "params", "config", "workload", "precision", "kv-precision", "engine", "context", "prompt-tokens", "output-tokens", "batch", "seq-len", "optimizer", "grad-checkpointing", "lora-rank", "zero", "grad-accum", "resolution", "steps", "frames", "offload-mode"];

    /// Reads the sizing flag `--flag`, taking its value from `p`; false when it is not one. The
    /// text is kept as typed (see [`SizingArgs::typed`]) for the advisor's inputs.
    pub(crate) fn take(&mut self, flag: &str, p: &mut lexopt::Parser) -> Result<bool, CliError> {
        if !Self::FLAGS.contains(&flag) {
            return Ok(false);
        }
        let v = value(p, flag)?;
        self.read(flag, &v)?;
        self.typed.push((flag.to_string(), v));
        Ok(true)
    }

    /// Reads `v` as the value of the sizing flag `--flag`.
    fn read(&mut self, flag: &str, v: &str) -> Result<(), CliError> {
        let p = v;
        match flag {
            "model" => self.model = Some(p.to_string()),
            "params" => self.params = Some(p.to_string()),
            "config" => self.config = Some(p.to_string()),
            "workload" => self.workload = Some(p.to_string()),
            "precision" => self.precision = Some(p.to_string()),
            "batch" => self.batch = Some(number_of("batch", p)?),
            "fp32-math" => self.fp32_math = Some(p.to_string()),
            "users" => self.users = Some(number_of("users", p)?),
            "target-tokens-per-s-per-user" => self.target_tps_user = Some(real_of("target-tokens-per-s-per-user", p, 0.0, 1e9)?),
            "max-ttft-s" => self.max_ttft_s = Some(real_of("max-ttft-s", p, 0.0, 1e6)?),
            "arrival-rate" => self.arrival_rate = Some(real_of("arrival-rate", p, 0.0, 1e9)?),
            "prefix-hit" => self.prefix_hit = Some(real_of("prefix-hit", p, 0.0, 1.0)?),
            "spec-decode" => self.spec_decode = Some(p.to_string()),
            "spec-accept" => self.spec_accept = Some(real_of("spec-accept", p, 0.0, 1.0)?),
            "arrivals" => self.arrivals = Some(p.to_string()),
            "disagg" => self.disagg = Some(p.to_string()),
            "resolution" => self.resolution = Some(resolution(p)?),
            "steps" => self.steps = Some(number_of("steps", p)?),
            "frames" => self.frames = Some(number_of("frames", p)?),
            "offload-mode" => {
                use crate::model::media::OffloadMode;
                let mode = OffloadMode::parse(v).ok_or_else(|| CliError(format!("--offload-mode: unknown `{v}` (expected {})", choices(&OffloadMode::ALL, OffloadMode::as_str))))?;
                self.offload_mode = Some(mode);
            }
            "images" => self.images = Some(number_of("images", p)?),
            "backend" => self.backend = Some(p.to_string()),
            "image-resolution" => self.image_resolution = Some(resolution_for("image-resolution", p)?),
            _ => {}
        }
        Ok(())
    }
}

/// The media engine's extra inputs of `--frames` and `--offload-mode`.
pub(crate) fn media_extras(a: &SizingArgs) -> crate::model::media_preset::MediaExtras {
    crate::model::media_preset::MediaExtras { frames: a.frames, offload_mode: a.offload_mode }
}

/// Parses `--fp32-math` (default: PyTorch's own defaults).
pub(crate) fn fp32_math(a: &SizingArgs) -> Result<crate::model::numeric::Fp32Math, CliError> {
    use crate::model::numeric::Fp32Math;
    match &a.fp32_math {
        None => Ok(Fp32Math::PytorchDefault),
        Some(s) => Fp32Math::parse(s).ok_or_else(|| CliError(format!("--fp32-math: expected pytorch, tf32 or strict, got `{s}`"))),
    }
}

/// The concurrency: `--users`, or its alias `--batch` (they must agree when both are given).
pub(crate) fn users(a: &SizingArgs) -> Result<Option<u32>, CliError> {
    match (a.users, a.batch) {
        (Some(u), Some(b)) if u != b => Err(CliError(format!("--users {u} and --batch {b} disagree (--batch is an alias of --users)"))),
        (Some(u), _) | (None, Some(u)) => Ok(Some(u)),
        (None, None) => Ok(None),
    }
}

/// The serving targets of `--target-tokens-per-s-per-user`, `--max-ttft-s`, `--arrival-rate`,
/// `--prefix-hit`, `--spec-decode`, `--spec-accept`, `--arrivals` and `--disagg`, each checked here so the error
/// names the flag.
pub(crate) fn serving_targets(a: &SizingArgs) -> Result<crate::model::llm::serving::ServingTargets, CliError> {
    use crate::model::llm::serving::{Arrivals, ServingTargets, SpecDecode};
    let positive = |flag: &str, v: Option<f64>| match v {
        Some(x) if x <= 0.0 => Err(CliError(format!("--{flag}: must be above 0, got {x}"))),
        _ => Ok(v),
    };
    let share = |flag: &str, v: Option<f64>| match v {
        Some(x) if !(0.0..=1.0).contains(&x) => Err(CliError(format!("--{flag}: must be between 0 and 1, got {x}"))),
        _ => Ok(v),
    };
    let spec = match &a.spec_decode {
        None => SpecDecode::Off,
        Some(s) => SpecDecode::parse(s)
            .ok_or_else(|| CliError(format!("--spec-decode: unknown `{s}` (expected {})", choices(&SpecDecode::ALL, SpecDecode::as_str))))?,
    };
    let arrivals = match &a.arrivals {
        None => Arrivals::Random,
        Some(s) => Arrivals::parse(s)
            .ok_or_else(|| CliError(format!("--arrivals: unknown `{s}` (expected {})", choices(&Arrivals::ALL, Arrivals::as_str))))?,
    };
    let disaggregate = match a.disagg.as_deref() {
        None => None,
        Some(s) => crate::state::advisor::auto_on_off(s).ok_or_else(|| CliError(format!("--disagg: unknown `{s}` (expected auto, on or off)")))?,
    };
    Ok(ServingTargets {
        arrivals,
        disaggregate,
        tokens_per_s_per_user: positive("target-tokens-per-s-per-user", a.target_tps_user)?,
        max_ttft_s: positive("max-ttft-s", a.max_ttft_s)?,
        arrival_rate_rps: positive("arrival-rate", a.arrival_rate)?,
        prefix_hit: share("prefix-hit", a.prefix_hit)?.unwrap_or(0.0),
        spec,
        spec_accept: share("spec-accept", a.spec_accept)?,
    })
}

/// Parses `ID:COUNT,ID:COUNT` (`--mix`, `--owned`) into catalog cards; an unknown id, a missing
/// or zero count, or an id given twice is an error naming `--flag`.
pub(crate) fn card_counts(flag: &str, s: &str) -> Result<Vec<(&'static catalog::Gpu, u32)>, CliError> {
    let mut out: Vec<(&'static catalog::Gpu, u32)> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (id, count) = part.split_once(':').map_or((part, "1"), |(i, c)| (i.trim(), c.trim()));
        let gpu = catalog::gpu(id).ok_or_else(|| unknown(flag, id, catalog::gpus().iter().map(|g| g.id.as_str())))?;
        let n: u32 = count.parse().ok().filter(|n| *n >= 1 && *n <= 64).ok_or_else(|| CliError(format!("--{flag}: `{part}` needs a count from 1 to 64 (ID:COUNT)")))?;
        if out.iter().any(|(g, _)| g.id == gpu.id) {
            return Err(CliError(format!("--{flag}: {id} is listed twice")));
        }
        out.push((gpu, n));
    }
    if out.is_empty() {
        return Err(CliError(format!("--{flag}: give cards as ID:COUNT,ID:COUNT")));
    }
    Ok(out)
}

