//! The compute back-end an estimate assumes (`--backend`, URL `backend`; the back-ends are
//! [`Backend`]): which one the engine runs on a card, checked against the card's `backends` in the catalog, and the decode
//! efficiency a back-end has where published measurements show one differs from the card's
//! first (native) back-end.
//!
//! llama.cpp's decode has its own weight-stream share and time per layer on each back-end
//! ([`llama_cpp_decode`]), fitted on the rows of that back-end (`docs/MODEL.md`, "Back-ends").

use super::engines::{Backend, Engine};
use super::job::LlmJob;
use crate::catalog::Gpu;
use crate::model::types::{EstimateError, Note};

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
            Note::new(
                "{gpu} runs on {backends}, not {backend}",
                vec![("gpu", gpu.name.as_str().into()), ("backends", gpu.backends.join(", ").into()), ("backend", b.as_str().into())],
            ),
        ));
    }
    if !b.runs(engine) {
        let args = vec![("engine", engine.as_str().into()), ("backend", b.as_str().into())];
        return Err(EstimateError::invalid("backend", Note::new("{engine} does not run on {backend}", args)));
    }
    Ok(())
}

/// llama.cpp's decode weight-stream share, time per layer and KV-read share on the back-end `job` runs on
/// `gpu` (fitted per back-end: [`super::fit::LlmFit::llama_cpp_rocm`] and the others; CUDA's are
/// the engine's own factors). A decode step runs the same mat-vec kernels through each API, but
/// the dispatch cost per kernel and the code the back-end's compiler makes differ: published
/// same-machine comparisons put Vulkan's decode on an RX 7900 XTX 1.26× (ggml-org/llama.cpp#20934)
/// and 1.30× (llama.cpp#10439) ROCm's, and 1.20× on an RX 9070 XT (lmstudio-bug-tracker#574).
/// MLX figures are read as Metal's. `None` for other engines.
pub fn llama_cpp_decode(job: &LlmJob, gpu: &Gpu, engine: Engine) -> Option<super::fit::BackendDecode> {
    if engine != Engine::LlamaCpp {
        return None;
    }
    super::in_force::with(|f| match backend_for(job, gpu, engine)? {
        Backend::Cuda => None,
        Backend::Rocm => Some(f.llama_cpp_rocm),
        Backend::Vulkan => Some(f.llama_cpp_vulkan),
        Backend::Metal | Backend::Mlx => Some(f.llama_cpp_metal),
        Backend::Sycl => Some(f.llama_cpp_sycl),
    })
}

/// True when the card has matrix units ([`super::engines::has_matrix_units`]) that `engine`
/// leaves idle on the back-end `job` runs on: llama.cpp on Vulkan where the catalog says its
/// Vulkan back-end keeps cooperative matrices off (`vulkan_matrix_units`). Its GEMMs then run on
/// the FP32 lanes.
pub fn matrix_units_idle(job: &LlmJob, gpu: &Gpu, engine: Engine) -> bool {
    !gpu.vulkan_matrix_units
        && engine == Engine::LlamaCpp
        && super::engines::has_matrix_units(gpu)
        && backend_for(job, gpu, engine) == Some(Backend::Vulkan)
}

/// True when `engine`'s GEMMs run on the card's matrix units through the back-end `job` runs
/// on: the card has them and the back-end does not leave them idle ([`matrix_units_idle`]).
pub fn matrix_units_in_use(job: &LlmJob, gpu: &Gpu, engine: Engine) -> bool {
    super::engines::has_matrix_units(gpu) && !matrix_units_idle(job, gpu, engine)
}

/// The assumption note naming the back-end.
pub fn describe(job: &LlmJob, gpu: &Gpu, engine: Engine, out: &mut Vec<Note>) {
    let Some(b) = backend_for(job, gpu, engine) else { return };
    out.push(Note::new("back-end: {backend}", vec![("backend", b.as_str().into())]));
}
