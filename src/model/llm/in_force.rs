//! The LLM engine's fitted constants in force, and the engine figures read through them.
//!
//! The engine reads its fitted constants ([`super::fit::LlmFit`]) through [`with`], which is the
//! shipped calibration ([`super::calibrated::CALIBRATED`]) unless the accuracy harness has put
//! another fit in place for the duration of a call ([`scoped`]): that is how cross-validation
//! refits every constant inside each fold without a second engine. The figures here are the
//! engine's that take a fitted constant: an engine's efficiency factors on a GPU family
//! ([`efficiency`]), the loads in flight per SM ([`inflight_bw_cap_gb_s`]), GEMMs without matrix
//! units ([`prefill_gemm_shares`]) and bitsandbytes LLM.int8() ([`quant_stream_factor`]). The
//! constants' sources and fits are listed in `docs/MODEL.md` ("Efficiency factors") and their
//! held-out errors in `docs/ACCURACY.md`.

use super::calibrated::CALIBRATED;
use super::engines::{dp4a_tops, standing, Efficiency, Engine, GpuFamily, Standing};
use super::fit::LlmFit;
use crate::catalog::Gpu;
use crate::model::precision::Precision;
use std::cell::RefCell;

thread_local! {
    static ACTIVE: RefCell<LlmFit> = const { RefCell::new(CALIBRATED) };
}

/// Runs `f` on the constants in force: [`CALIBRATED`], or the fit [`scoped`] put in place.
pub fn with<R>(f: impl FnOnce(&LlmFit) -> R) -> R {
    ACTIVE.with_borrow(f)
}

/// Runs `f` with `fit` in force instead of the shipped constants, and restores them after (also
/// when `f` unwinds). Only the accuracy harness calls it, to predict held-out rows with the
/// constants refitted without them.
pub fn scoped<R>(fit: &LlmFit, f: impl FnOnce() -> R) -> R {
    struct Restore(LlmFit);
    impl Drop for Restore {
        fn drop(&mut self) {
            ACTIVE.with_borrow_mut(|a| *a = self.0);
        }
    }
    let previous = ACTIVE.with_borrow_mut(|a| std::mem::replace(a, *fit));
    let _restore = Restore(previous);
    f()
}

/// Share of the FMA peak a prefill GEMM reaches on a GPU without matrix units (Apple M-series:
/// the GEMM runs on the same FP32/FP16 SIMD lanes as everything else): a fitted constant
/// ([`LlmFit::simt_gemm_mfu`]), determined by llama.cpp's Apple rows.
pub fn simt_gemm_mfu() -> f64 {
    with(|f| f.simt_gemm_mfu)
}

/// (GEMM MFU, multiplier for quantized weights) of a prefill on `gpu`. With matrix units (or
/// llama.cpp's dp4a path on Pascal), the engine's `prefill_mfu`, and its `quant_prefill` for
/// quantized weights: the multiply units outpace the ALUs that dequantize the weight tiles.
/// Without them the GEMM runs at [`simt_gemm_mfu`] of the FMA peak and dequantization costs
/// nothing measurable: a weight tile is dequantized once into threadgroup memory and reused for
/// every token of the tile (32–64), so its few ALU operations per weight are a few per cent of
/// the FMAs on the same lanes (llama.cpp Metal q4_0/q8_0 prefill equals F16 prefill to 3% on
/// M3 Max, M3 Ultra and M4 Max, `llm_inference_more.csv`).
pub fn prefill_gemm_shares(gpu: &Gpu, engine: Engine, matrix_units: bool, quantized: bool, eff: &Efficiency) -> (f64, f64) {
    let fast_multiply = matrix_units || (quantized && dp4a_tops(gpu, engine).is_some());
    if fast_multiply {
        (eff.prefill_mfu, if quantized { eff.quant_prefill } else { 1.0 })
    } else {
        (simt_gemm_mfu(), 1.0)
    }
}

/// bitsandbytes LLM.int8() (transformers `load_in_8bit`), token by token, runs at this share of
/// the 16-bit speed ([`LlmFit::llm_int8_speed`], fitted on bitsandbytes' own
/// benchmark rows): its mixed-precision decomposition quantizes each token's activations, splits
/// the outlier columns off into an fp16 matmul and dequantizes the int8 product, in kernels
/// "designed for training and not efficient for inference" (T. Dettmers, bitsandbytes issue
/// #490). Issue #1867 of bitsandbytes measures less (0.25–0.45× on an RTX 4090 D and an A800), a
/// disagreement kept in docs/MODEL.md.
pub fn llm_int8_speed() -> f64 {
    with(|f| f.llm_int8_speed)
}

/// Multiplier on the weight stream's bandwidth for quantized weights: the engine's `quant_bw`,
/// except bitsandbytes LLM.int8() under transformers, whose 8-bit weights (half the bytes)
/// stream at [`llm_int8_speed`] of the 16-bit speed: 0.45 × 8/16.
pub fn quant_stream_factor(engine: Engine, precision: Precision, eff: &Efficiency) -> f64 {
    if engine == Engine::Transformers && precision == Precision::Int8 {
        llm_int8_speed() * 8.0 / 16.0
    } else {
        eff.quant_bw
    }
}

/// Sustained DRAM read rate one SM (AMD compute unit, Intel Xe-core, Apple GPU core) reaches with
/// llama.cpp's batch-1 matrix-vector kernels, GB/s: the bytes its warps keep in flight over the
/// DRAM latency (Little's law). One fitted number for every card
/// ([`LlmFit::llama_cpp_sm_read_gb_s`]), determined by the llama.cpp decode rows of
/// cards whose datasheet bandwidth per SM is above it.
pub fn llama_cpp_sm_read_gb_s() -> f64 {
    with(|f| f.llama_cpp_sm_read_gb_s)
}

/// The most bandwidth, GB/s, `engine`'s batch-1 weight stream can draw on `gpu`: an SM keeps a
/// bounded number of loads in flight, and a memory system delivers bandwidth = bytes in flight /
/// latency (Little's law; Volkov 2016, "Understanding Latency Hiding on GPUs", ch. 4). A card
/// whose datasheet bandwidth per SM is high (HBM: H100 PCIe 17.5 GB/s per SM, A100 17.9, A30
/// 16.7, against 7.9 on an RTX 4090 and 11.4 on an RTX 3090) cannot fill its memory system with
/// kernels that keep few requests in flight per SM, as llama.cpp's mat-vec kernels (one row per
/// warp) do. `None`: no cap known (other engines' kernels, cards without an SM count).
pub fn inflight_bw_cap_gb_s(gpu: &Gpu, engine: Engine) -> Option<f64> {
    if engine != Engine::LlamaCpp {
        return None;
    }
    gpu.sm_count.map(|n| f64::from(n) * llama_cpp_sm_read_gb_s()).filter(|c| c.is_finite())
}

/// The factors `engine` gets on a GPU family that has no calibration rows of its own: what the
/// app shows for such a pair. Every engine has one set of factors for every family (the family
/// differences are physics on catalog properties), so these are that set, not marked measured.
pub fn carried_over(engine: Engine) -> Efficiency {
    Efficiency { measured: false, ..efficiency(engine, GpuFamily::Other) }
}

/// [`carried_over`] for a family held out: every engine has one set of factors for every family
/// (the family differences are physics on catalog properties), so this is [`carried_over`]. The
/// accuracy harness holds a family out by refitting every factor without its rows
/// (`src/accuracy`), not through this function.
pub fn carried_over_without(engine: Engine, _held_out: Option<GpuFamily>) -> Efficiency {
    carried_over(engine)
}

/// The efficiency of `engine` on `family` under the constants in force ([`with`]);
/// `measured` is true only for the fitted pairs ([`standing`] is [`Standing::Fitted`]).
pub fn efficiency(engine: Engine, family: GpuFamily) -> Efficiency {
    let base = with(|f| *f.engine(engine));
    Efficiency { measured: standing(engine, family) == Standing::Fitted, ..base }
}
