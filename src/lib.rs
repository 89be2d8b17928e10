//! gpu-advisor: an in-browser GPU advisor.
//!
//! Dependencies flow one way: [`catalog`] (bundled GPU and model data) → [`model`] (sizing
//! formulas) → [`recommend`] (cost model and ranking) → [`present`] (the engine's facts as
//! sentences in each interface language) → [`state`] (the app's inputs and their URL form) →
//! [`compare`] (the compare view's advisor-dependent figures) → `ui` (Yew components). The engine
//! (`model`, `recommend`) never reads the interface languages ([`i18n`], used from `present` up;
//! `tests/layering.rs` holds it to that); [`template`] (placeholder filling) serves both. Everything
//! below `ui` is plain Rust, tested natively and shared with the `gpu-advisor` command line ([`cli`]).

#[cfg(not(target_arch = "wasm32"))]
pub mod accuracy;
pub mod catalog;
pub mod cli;
pub mod compare;
pub mod decimal;
pub mod fmath;
pub mod i18n;
pub mod json;
pub mod model;
pub mod packed;
pub mod present;
pub mod query;
pub mod recommend;
pub mod sort;
pub mod state;
pub mod template;
pub mod ui;
