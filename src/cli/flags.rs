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
    let s = value(parser, flag)?;
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
    let s = value(parser, flag)?;
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
    pub model: Option<String>,
    pub params: Option<String>,
    pub config: Option<String>,
    pub workload: Option<String>,
    pub precision: Option<String>,
    pub kv_precision: Option<String>,
    pub engine: Option<String>,
    pub context: Option<u32>,
    pub prompt_tokens: Option<u32>,
    pub output_tokens: Option<u32>,
    pub batch: Option<u32>,
    pub seq_len: Option<u32>,
    pub optimizer: Option<String>,
    pub grad_checkpointing: Option<String>,
    pub lora_rank: Option<u32>,
    pub zero: Option<u32>,
    pub grad_accum: Option<u32>,
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
    /// `--cuda-graphs on|off`: whether the serving engine's decode step replays CUDA graphs
    /// (off: vLLM `--enforce-eager`, SGLang `--disable-cuda-graph`); default the engine's own.
    pub cuda_graphs: Option<String>,
    pub resolution: Option<(u32, u32)>,
    pub steps: Option<u32>,
    /// RAM offload and unified memory: system RAM (GiB), its bandwidth (GB/s), the offload
    /// placement, and a unified-memory machine's GPU share (GiB). Kept as typed to name the flag in
    /// errors.
    pub ram_gib: Option<String>,
    pub ram_gb_s: Option<String>,
    pub offload: Option<String>,
    pub gpu_share_gib: Option<String>,
    /// Video generation: frames per clip.
    pub frames: Option<u32>,
    /// Image and video generation: diffusers' CPU offload.
    pub offload_mode: Option<crate::model::media::OffloadMode>,
    /// Vision-language inference: images per request and their size.
    pub images: Option<u32>,
    pub image_resolution: Option<(u32, u32)>,
    /// `--backend`: the compute back-end the estimate assumes.
    pub backend: Option<String>,
    /// Training numerics and layout: `--framework`, `--master-weights on|off`,
    /// `--optimizer-in-backward on|off`, a fixed mesh (`--tp`, `--cp`, `--pp`, `--vp`),
    /// `--global-batch` (sequences per step) and `--nic-gbit-s` (each GPU's node port).
    pub framework: Option<String>,
    pub master_weights: Option<String>,
    pub optimizer_in_backward: Option<String>,
    pub tp: Option<u32>,
    pub cp: Option<u32>,
    pub pp: Option<u32>,
    pub vp: Option<u32>,
    pub global_batch: Option<u32>,
    pub nic_gbit_s: Option<f64>,
    /// `--moe-layout auto|tp|ep|dep`: how a served MoE model spreads its experts.
    pub moe_layout: Option<String>,
}

impl SizingArgs {
    /// Every sizing flag, without its `--`.
    pub(crate) const FLAGS: [&'static str; 48] = ["moe-layout", "framework", "master-weights", "optimizer-in-backward", "tp", "cp", "pp", "vp", "global-batch", "nic-gbit-s", "images", "arrivals", "cuda-graphs", "image-resolution", "backend",
        "ram-gib", "ram-gb-s", "offload", "gpu-share-gib",
        "users", "target-tokens-per-s-per-user", "max-ttft-s", "arrival-rate", "prefix-hit", "spec-decode", "spec-accept",
        "fp32-math", "model", "params", "config", "workload", "precision", "kv-precision", "engine", "context", "prompt-tokens", "output-tokens", "batch", "seq-len", "optimizer", "grad-checkpointing", "lora-rank", "zero", "grad-accum", "resolution", "steps", "frames", "offload-mode"];

    /// Reads the sizing flag `--flag`, taking its value from `p`; false when it is not one.
    pub(crate) fn take(&mut self, flag: &str, p: &mut lexopt::Parser) -> Result<bool, CliError> {
        match flag {
            "model" => self.model = Some(value(p, "model")?),
            "params" => self.params = Some(value(p, "params")?),
            "config" => self.config = Some(value(p, "config")?),
            "workload" => self.workload = Some(value(p, "workload")?),
            "precision" => self.precision = Some(value(p, "precision")?),
            "kv-precision" => self.kv_precision = Some(value(p, "kv-precision")?),
            "engine" => self.engine = Some(value(p, "engine")?),
            "context" => self.context = Some(number(p, "context")?),
            "prompt-tokens" => self.prompt_tokens = Some(number(p, "prompt-tokens")?),
            "output-tokens" => self.output_tokens = Some(number(p, "output-tokens")?),
            "batch" => self.batch = Some(number(p, "batch")?),
            "seq-len" => self.seq_len = Some(number(p, "seq-len")?),
            "optimizer" => self.optimizer = Some(value(p, "optimizer")?),
            "grad-checkpointing" => self.grad_checkpointing = Some(value(p, "grad-checkpointing")?),
            "lora-rank" => self.lora_rank = Some(number(p, "lora-rank")?),
            // `--zero auto` (the default) lets the engine choose the sharding.
            "zero" => {
                let v = value(p, "zero")?;
                self.zero = if v.trim().eq_ignore_ascii_case("auto") {
                    None
                } else {
                    Some(v.trim().parse().map_err(|_| CliError(format!("--zero: expected 0, 1, 2, 3 or auto, got `{v}`")))?)
                };
            }
            "grad-accum" => self.grad_accum = Some(number(p, "grad-accum")?),
            "fp32-math" => self.fp32_math = Some(value(p, "fp32-math")?),
            "users" => self.users = Some(number(p, "users")?),
            "target-tokens-per-s-per-user" => self.target_tps_user = Some(real(p, "target-tokens-per-s-per-user", 0.0, 1e9)?),
            "max-ttft-s" => self.max_ttft_s = Some(real(p, "max-ttft-s", 0.0, 1e6)?),
            "arrival-rate" => self.arrival_rate = Some(real(p, "arrival-rate", 0.0, 1e9)?),
            "prefix-hit" => self.prefix_hit = Some(real(p, "prefix-hit", 0.0, 1.0)?),
            "spec-decode" => self.spec_decode = Some(value(p, "spec-decode")?),
            "spec-accept" => self.spec_accept = Some(real(p, "spec-accept", 0.0, 1.0)?),
            "arrivals" => self.arrivals = Some(value(p, "arrivals")?),
            "cuda-graphs" => self.cuda_graphs = Some(value(p, "cuda-graphs")?),
            "resolution" => self.resolution = Some(resolution(&value(p, "resolution")?)?),
            "steps" => self.steps = Some(number(p, "steps")?),
            "ram-gib" => self.ram_gib = Some(value(p, "ram-gib")?),
            "ram-gb-s" => self.ram_gb_s = Some(value(p, "ram-gb-s")?),
            "offload" => self.offload = Some(value(p, "offload")?),
            "gpu-share-gib" => self.gpu_share_gib = Some(value(p, "gpu-share-gib")?),
            "frames" => self.frames = Some(number(p, "frames")?),
            "offload-mode" => {
                use crate::model::media::OffloadMode;
                let v = value(p, "offload-mode")?;
                let mode = OffloadMode::parse(&v).ok_or_else(|| CliError(format!("--offload-mode: unknown `{v}` (expected {})", choices(&OffloadMode::ALL, OffloadMode::as_str))))?;
                self.offload_mode = Some(mode);
            }
            "images" => self.images = Some(number(p, "images")?),
            "framework" => self.framework = Some(value(p, "framework")?),
            "moe-layout" => self.moe_layout = Some(value(p, "moe-layout")?),
            "master-weights" => self.master_weights = Some(value(p, "master-weights")?),
            "optimizer-in-backward" => self.optimizer_in_backward = Some(value(p, "optimizer-in-backward")?),
            "tp" => self.tp = Some(number(p, "tp")?),
            "cp" => self.cp = Some(number(p, "cp")?),
            "pp" => self.pp = Some(number(p, "pp")?),
            "vp" => self.vp = Some(number(p, "vp")?),
            "global-batch" => self.global_batch = Some(number(p, "global-batch")?),
            "nic-gbit-s" => self.nic_gbit_s = Some(real(p, "nic-gbit-s", 1.0, 100_000.0)?),
            "backend" => self.backend = Some(value(p, "backend")?),
            "image-resolution" => self.image_resolution = Some(resolution_for("image-resolution", &value(p, "image-resolution")?)?),
            _ => return Ok(false),
        }
        Ok(true)
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

/// `--cuda-graphs on|off` as `LlmJob::cuda_graphs` (`None` without the flag: the engine's default).
pub(crate) fn cuda_graphs(a: &SizingArgs) -> Result<Option<bool>, CliError> {
    match a.cuda_graphs.as_deref().map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(None),
        Some(s) if s == "on" => Ok(Some(true)),
        Some(s) if s == "off" => Ok(Some(false)),
        Some(s) => Err(CliError(format!("--cuda-graphs: expected on or off, got `{s}`"))),
    }
}

/// The serving targets of `--target-tokens-per-s-per-user`, `--max-ttft-s`, `--arrival-rate`,
/// `--prefix-hit`, `--spec-decode`, `--spec-accept` and `--arrivals`, each checked here so the error names the
/// flag.
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
    Ok(ServingTargets {
        arrivals,
        tokens_per_s_per_user: positive("target-tokens-per-s-per-user", a.target_tps_user)?,
        max_ttft_s: positive("max-ttft-s", a.max_ttft_s)?,
        arrival_rate_rps: positive("arrival-rate", a.arrival_rate)?,
        prefix_hit: share("prefix-hit", a.prefix_hit)?.unwrap_or(0.0),
        spec,
        spec_accept: share("spec-accept", a.spec_accept)?,
    })
}

/// A positive amount given as `--flag`: an error names the flag for a non-number or a value of
/// 0 or less (0 RAM is the default when the flag is absent, never a value to type).
fn positive_amount(flag: &str, v: &Option<String>) -> Result<Option<f64>, CliError> {
    let Some(s) = v else { return Ok(None) };
    let x: f64 = s.trim().replace([',', '_'], "").parse().map_err(|_| CliError(format!("--{flag}: `{s}` is not a number")))?;
    if !x.is_finite() || x <= 0.0 {
        return Err(CliError(format!("--{flag}: must be above 0, got {s} (leave the flag out for no offload)")));
    }
    Ok(Some(x))
}

/// The host of `--ram-gib`, `--ram-gb-s`, `--offload` and `--gpu-share-gib`.
pub(crate) fn host(a: &SizingArgs) -> Result<crate::model::llm::host::Host, CliError> {
    use crate::model::llm::host::{Host, OffloadMode};
    let mode = parse_enum("offload", &a.offload, OffloadMode::parse, choices(&OffloadMode::ALL, OffloadMode::as_str))?;
    Ok(Host {
        ram_gib: positive_amount("ram-gib", &a.ram_gib)?.unwrap_or(0.0),
        ram_gb_s: positive_amount("ram-gb-s", &a.ram_gb_s)?,
        mode: mode.unwrap_or_default(),
        unified_gpu_gib: positive_amount("gpu-share-gib", &a.gpu_share_gib)?,
        ram_stream_fraction: None,
    })
}

/// Puts `--images` and `--image-resolution` on `job` (defaults: no images, 1024x1024). A
/// resolution without images, or images on a model without a vision tower, is an error naming
/// the flag.
pub(crate) fn apply_images(a: &SizingArgs, job: &mut crate::model::llm::LlmJob) -> Result<(), CliError> {
    if let Some((w, h)) = a.image_resolution {
        if a.images.is_none() {
            return Err(CliError("--image-resolution needs --images N".into()));
        }
        (job.image_width_px, job.image_height_px) = (w, h);
    }
    job.images = a.images.unwrap_or(0);
    crate::model::llm::vision::validate(job).map_err(engine_error)
}

/// Parses `--backend` onto `job` (none: the card's first listed back-end).
pub(crate) fn apply_backend(a: &SizingArgs, job: &mut crate::model::llm::LlmJob) -> Result<(), CliError> {
    use crate::model::llm::engines::Backend;
    job.backend = parse_enum("backend", &a.backend, Backend::parse, choices(&Backend::ALL, Backend::as_str))?;
    Ok(())
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

/// Parses an `on|off` flag.
fn on_off(flag: &str, v: Option<&String>) -> Result<Option<bool>, CliError> {
    match v.map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(None),
        Some(s) if matches!(s.as_str(), "on" | "true" | "yes" | "1") => Ok(Some(true)),
        Some(s) if matches!(s.as_str(), "off" | "false" | "no" | "0") => Ok(Some(false)),
        Some(s) => Err(CliError(format!("--{flag}: expected on or off, got `{s}`"))),
    }
}

/// Puts the training flags on `job` for a run on `gpus` GPUs (`None`: the count is searched): the framework's numerics for what
/// `--optimizer`, `--grad-checkpointing`, `--master-weights` and `--optimizer-in-backward` left
/// open (default framework: transformers, the engine's defaults), a fixed mesh from `--tp`,
/// `--cp`, `--pp` and `--vp` (the layout search's choice otherwise), `--global-batch` and
/// `--nic-gbit-s`.
pub(crate) fn apply_training(a: &SizingArgs, job: &mut crate::model::llm::LlmJob, gpus: Option<u32>) -> Result<(), CliError> {
    use crate::model::llm::framework::{Chosen, Framework};
    let framework = match &a.framework {
        None => Framework::Transformers,
        Some(s) => Framework::parse(s).ok_or_else(|| CliError(format!("--framework: unknown `{s}` (expected {})", choices(&Framework::ALL, Framework::as_str))))?,
    };
    let chosen = Chosen {
        optimizer: a.optimizer.as_ref().map(|_| job.optimizer),
        checkpointing: a.grad_checkpointing.as_ref().map(|_| job.grad_checkpointing),
        master_weights: on_off("master-weights", a.master_weights.as_ref())?,
        optimizer_in_backward: on_off("optimizer-in-backward", a.optimizer_in_backward.as_ref())?,
    };
    framework.apply(job, chosen, gpus.unwrap_or(1));
    if a.tp.is_some() || a.cp.is_some() || a.pp.is_some() || a.vp.is_some() {
        let spec = crate::model::llm::job::MeshSpec { tp: a.tp.unwrap_or(1), cp: a.cp.unwrap_or(1), pp: a.pp.unwrap_or(1), interleave: a.vp.unwrap_or(1) };
        if let Some(gpus) = gpus.filter(|g| spec.tp == 0 || spec.cp == 0 || spec.pp == 0 || !crate::model::llm::parallel::spec_divides(spec, *g)) {
            return Err(CliError(format!("--tp × --cp × --pp = {} must divide --gpus {gpus}", spec.replica())));
        }
        job.mesh = Some(spec);
    }
    job.global_batch = a.global_batch;
    job.nic_gbit_s = a.nic_gbit_s;
    if let Some(s) = &a.moe_layout {
        use crate::model::llm::job::MoeLayout;
        job.moe_layout = MoeLayout::parse(s).ok_or_else(|| CliError(format!("--moe-layout: unknown `{s}` (expected {})", choices(&MoeLayout::ALL, MoeLayout::as_str))))?;
    }
    Ok(())
}
