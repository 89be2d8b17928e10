//! The compute back-end an estimate assumes (`--backend`, URL `backend`): which one the engine
//! runs on a card, checked against the card's `backends` in the catalog, and the decode
//! efficiency a back-end has where published measurements show one differs from the card's
//! first (native) back-end.
//!
//! One factor is modelled, with its sources in `docs/MODEL.md` ("Back-ends"): llama.cpp's Vulkan
//! back-end on AMD Radeon cards decodes at 1.20 × the ROCm (HIP) speed, the median of five
//! published same-machine comparisons (RX 7900 XTX and RX 9070 XT). Every other pairing keeps the
//! calibrated factors (1.0): no consistent published gap.

use super::engines::Engine;
use super::LlmJob;
use crate::catalog::{Gpu, Vendor};
use crate::model::types::{EstimateError, Note};

/// A compute back-end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    Cuda,
    Rocm,
    Vulkan,
    Metal,
    Sycl,
    Mlx,
}

impl Backend {
    /// Every back-end the `--backend` flag takes, in CLI order.
    pub const ALL: [Backend; 6] = [Backend::Cuda, Backend::Rocm, Backend::Vulkan, Backend::Metal, Backend::Sycl, Backend::Mlx];

    /// CLI and catalog name.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Cuda => "cuda",
            Backend::Rocm => "rocm",
            Backend::Vulkan => "vulkan",
            Backend::Metal => "metal",
            Backend::Sycl => "sycl",
            Backend::Mlx => "mlx",
        }
    }

    /// Parses a name (`hip` is ROCm).
    pub fn parse(s: &str) -> Option<Backend> {
        let lower = s.trim().to_ascii_lowercase();
        let name = if lower == "hip" { "rocm" } else { lower.as_str() };
        Backend::ALL.into_iter().find(|b| b.as_str() == name)
    }

    /// True when `engine` runs on this back-end: llama.cpp on CUDA, ROCm, Vulkan, Metal and SYCL
    /// (its ggml back-ends); MLC also on Vulkan and Metal; vLLM, SGLang, ExLlamaV2 and
    /// transformers on CUDA and ROCm (transformers also on Metal via PyTorch MPS); TensorRT-LLM on
    /// CUDA. MLX is Apple's own framework, so no engine here runs on it but its figures are read
    /// as llama.cpp's on Metal.
    pub fn runs(self, engine: Engine) -> bool {
        use Backend::*;
        match engine {
            Engine::LlamaCpp => matches!(self, Cuda | Rocm | Vulkan | Metal | Sycl | Mlx),
            Engine::Mlc => matches!(self, Cuda | Rocm | Vulkan | Metal),
            Engine::Transformers => matches!(self, Cuda | Rocm | Metal),
            Engine::Vllm | Engine::Sglang | Engine::Exllamav2 => matches!(self, Cuda | Rocm),
            Engine::TrtLlm => self == Cuda,
        }
    }
}

/// True when the catalog lists `b` for `gpu`.
pub fn card_has(gpu: &Gpu, b: Backend) -> bool {
    gpu.backends.iter().any(|x| x == b.as_str())
}

/// The back-end `job` runs on `gpu` with `engine`: the job's, else the card's first listed one
/// that the engine runs on, else the card's first.
pub fn backend_for(job: &LlmJob, gpu: &Gpu, engine: Engine) -> Option<Backend> {
    if let Some(b) = job.backend {
        return Some(b);
    }
    let listed = || gpu.backends.iter().filter_map(|s| Backend::parse(s));
    listed().find(|b| b.runs(engine)).or_else(|| listed().next())
}

/// Checks the job's back-end against the card and the engine, naming the `backend` field.
pub fn validate(job: &LlmJob, gpu: &Gpu, engine: Engine) -> Result<(), EstimateError> {
    let Some(b) = job.backend else { return Ok(()) };
    if !card_has(gpu, b) {
        return Err(EstimateError::invalid(
            "backend",
            format!("{} runs on {}, not {}", gpu.name, gpu.backends.join(", "), b.as_str()),
        ));
    }
    if !b.runs(engine) {
        return Err(EstimateError::invalid("backend", format!("{} does not run on {}", engine.as_str(), b.as_str())));
    }
    Ok(())
}

/// Decode speed of llama.cpp on Vulkan over ROCm on the same AMD Radeon card: a fitted constant
/// ([`super::fit::LlmFit::vulkan_over_rocm`]), determined by the Vulkan rows of Radeon cards.
/// Published same-machine comparisons put it at 1.20 (the median of 1.26, ggml-org/llama.cpp#20934,
/// RX 7900 XTX; 1.30, llama.cpp#10439; 1.12 and 0.81, aguyintech.com; 1.20,
/// lmstudio-bug-tracker#574, RX 9070 XT).
pub fn vulkan_over_rocm_decode() -> f64 {
    super::fit::with(|f| f.vulkan_over_rocm)
}

/// Multiplier on the decode weight stream for `job` on `gpu` with `engine` (1 where no published
/// gap is modelled; the calibration ran on each card's native back-end).
pub fn decode_factor(job: &LlmJob, gpu: &Gpu, engine: Engine) -> f64 {
    let vulkan_on_radeon = engine == Engine::LlamaCpp
        && gpu.vendor == Vendor::Amd
        && job.backend == Some(Backend::Vulkan)
        && card_has(gpu, Backend::Rocm);
    if vulkan_on_radeon {
        vulkan_over_rocm_decode()
    } else {
        1.0
    }
}

/// The assumption note naming the back-end.
pub fn describe(job: &LlmJob, gpu: &Gpu, engine: Engine, out: &mut Vec<Note>) {
    let Some(b) = backend_for(job, gpu, engine) else { return };
    let f = decode_factor(job, gpu, engine);
    let (template, args) = if f == 1.0 {
        ("back-end: {backend}", vec![("backend", b.as_str().into())])
    } else {
        (
            "back-end: {backend}, decoding at {factor}× the native back-end's speed (median of published runs)",
            vec![("backend", b.as_str().into()), ("factor", crate::decimal::fixed(f, 2).into())],
        )
    };
    out.push(Note::new(template, args));
}
