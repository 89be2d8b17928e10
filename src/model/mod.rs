//! The sizing engine: memory, GPU count and throughput for a job on a card.
//!
//! Pure Rust, no web dependencies. Every formula and constant is written down, with its source,
//! in `docs/MODEL.md`. Submodules:
//! - [`types`]: the result types (`Estimate`, `Band`, …) and the error type;
//! - [`precision`]: weight and KV-cache number formats and their real bits per weight;
//! - [`llm`]: transformer LLM sizing (inference, training, fine-tuning);
//! - [`media`]: the rate model and constants that image, video and classic sizing share;
//! - [`media_job`]: the typed image, video and classic job: its kind, its workload and its inputs;
//! - [`diffusion`]: image generation; [`video`]: video generation; [`classic`]: vision/NLP/speech training and inference;
//! - [`media_preset`]: a media preset and the shared inputs turned into one of those jobs, and sized.

pub mod bands;
pub mod classic;
pub mod diffusion;
pub mod fabric;
pub mod llm;
pub mod media;
pub mod media_job;
pub mod media_preset;
pub mod numeric;
pub mod precision;
pub mod types;
pub mod video;

pub use types::{Arg, Band, Estimate, EstimateError, MemoryBreakdown, Note, Throughput, Translate, GIB};
