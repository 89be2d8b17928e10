//! llama.cpp decode with weights in system RAM as an accuracy [`Domain`]: the published runs of
//! `llm_offload.csv` (each with its card, RAM bandwidth and placement), the engine's decode speed
//! for each, and the refit of the offload engine's one fitted constant ([`OffloadFit`]: the share
//! of the theoretical RAM bandwidth llama.cpp's CPU path reaches) on any subset of rows.
//!
//! A row with a published placement (`layers:N` is `-ngl N`, `experts:M` is `--n-cpu-moe M`) is
//! timed with that placement; a row without one (`auto`) with the placement the engine picks.
//! The fit: the share on a grid from 0.15 to 0.90 in steps of 0.01 with the smallest median
//! |ln(model / measured)|; fewer than [`MIN_ROWS`] rows keep the physics default.

use super::folds::{Domain, Refit};
use super::llm::MIN_ROWS;
use super::media::keyed_row;
use super::row::{gpu, median, Csv, Row, Set};
use crate::catalog;
use crate::model::llm::host::{Host, OffloadMode};
use crate::model::llm::offload::{self, OffloadFit};
use crate::model::types::{OffloadPlan, Placement};
use crate::model::llm::{custom, estimate_llm, parallel, Engine, LlmJob, ModelArch, OFFLOAD_BAND};
use crate::model::precision::Precision;
use crate::model::Band;
use std::path::Path;

type R<T> = Result<T, String>;

/// The file this module reads.
pub const FILE: &str = "llm_offload.csv";

/// The physics default of the RAM stream share (where the fit falls back): half of the
/// theoretical bandwidth.
pub const PRIOR_RAM_STREAM_FRACTION: f64 = 0.5;

/// What an offload row carries.
#[derive(Debug, Clone)]
pub struct OffloadCase {
    pub job: LlmJob,
    /// The published placement (kind, `-ngl` layers or `--n-cpu-moe` layers); `None`: the
    /// engine's own.
    pub placement: Option<(Placement, u32)>,
}

/// The rows and the data rows read.
#[derive(Default)]
pub struct Inventory {
    pub rows: Vec<Row<OffloadCase>>,
    pub read: usize,
}

fn num<T: std::str::FromStr>(s: &str, what: &str) -> R<T> {
    s.trim().parse().map_err(|_| format!("{what}: `{s}` is not a number"))
}

/// Every row of [`FILE`], as llama.cpp ran it: Q4_K_M or MXFP4 weights, a 4,096-token context,
/// 128 prompt and 256 output tokens, the host's RAM and its theoretical bandwidth.
pub fn inventory(dir: &Path) -> R<Inventory> {
    let csv = Csv::read(dir, FILE)?;
    let mut inv = Inventory::default();
    for r in &csv.rows {
        let c = |k: &str| csv.get(r, k);
        inv.read += 1;
        let (model, quant, place) = (c("model"), c("quant"), c("placement"));
        let named = format!("{FILE}: {} ×{} {model} {quant} {place}", c("gpu"), c("num_gpus"));
        let arch = match catalog::llm(model) {
            Some(spec) => ModelArch::from_spec(spec),
            // Codestral 22B has no preset: its published parameter count.
            None if model == "codestral-22b" => custom::arch_from_params(22.2e9).map_err(|e| format!("{named}: {e}"))?,
            None => return Err(format!("{named}: no preset `{model}`")),
        };
        let precision = match quant {
            "Q4_K_M" => Precision::Q4KM,
            "MXFP4" => Precision::Mxfp4,
            other => return Err(format!("{named}: quant `{other}`")),
        };
        let job = LlmJob {
            model: arch,
            precision,
            engine: Some(Engine::LlamaCpp),
            context_tokens: 4096,
            prompt_tokens: 128,
            output_tokens: 256,
            host: Host {
                ram_gib: num(c("ram_gib"), &named)?,
                ram_gb_s: Some(num(c("ram_gb_s"), &named)?),
                mode: OffloadMode::Auto,
                unified_gpu_gib: None,
                ram_stream_fraction: None,
            },
            ..LlmJob::default()
        };
        let placement = match place.split_once(':') {
            Some(("layers", n)) => Some((Placement::Layers, num(n, &named)?)),
            Some(("experts", n)) => Some((Placement::Experts, num(n, &named)?)),
            Some(_) => return Err(format!("{named}: placement `{place}`")),
            None => None,
        };
        let g = gpu(c("gpu"))?;
        let gpus = num(c("num_gpus"), &named)?;
        let measured = num(c("decode_tok_s"), &named)?;
        let label = format!("{} ×{gpus} {model} {quant} {place}", g.id);
        inv.rows.push(keyed_row(Set::Offload, FILE, label, g, gpus, measured, c("source"), Engine::LlamaCpp.as_str(), OffloadCase { job, placement }));
    }
    Ok(inv)
}

/// Decode tokens/s of row `r` under `fit` (NaN when the engine finds no placement).
pub fn predict_row(fit: &OffloadFit, r: &Row<OffloadCase>) -> Band {
    let nan = Band { low: f64::NAN, mid: f64::NAN, high: f64::NAN };
    let job = fit.apply(&r.payload.job);
    match r.payload.placement {
        Some((kind, count)) => {
            let layers = job.model.layers;
            let on = if kind == Placement::Layers { count } else { layers.saturating_sub(count) };
            let plan = OffloadPlan { placement: kind, layers_on_gpu: on, layers_total: layers, ram_gib_used: 0.0, gpu_gib: 0.0, fits: true };
            let layout = parallel::layout(&job, r.gpu, Engine::LlamaCpp, r.gpus);
            let (b, ctx) = offload::decode_point(&job);
            let mid = 1.0 / offload::decode_step_s(&job, r.gpu, Engine::LlamaCpp, &layout, &plan, b, ctx);
            Band::around(mid, 1.0 - OFFLOAD_BAND, 1.0 + OFFLOAD_BAND)
        }
        None => match estimate_llm(&job, r.gpu, r.gpus) {
            Ok(est) if est.offload.is_some_and(|p| p.fits) => est.throughput.decode_tokens_per_s.unwrap_or(nan),
            _ => nan,
        },
    }
}

/// The share on the grid 0.15–0.90 (steps of 0.01) with the smallest median |log error| over
/// `rows`, or the default with fewer than [`MIN_ROWS`] rows.
pub fn refit_rows(rows: &[&Row<OffloadCase>]) -> Refit<OffloadFit> {
    if rows.len() < MIN_ROWS {
        return Refit { fit: OffloadFit { ram_stream_fraction: PRIOR_RAM_STREAM_FRACTION }, fallbacks: vec!["offload: RAM stream share"] };
    }
    let score = |f: f64| median(rows.iter().map(|r| (predict_row(&OffloadFit { ram_stream_fraction: f }, r).mid / r.measured).ln().abs()).collect());
    let best = (15..=90).map(|i| f64::from(i) / 100.0).min_by(|a, b| score(*a).total_cmp(&score(*b))).unwrap_or(PRIOR_RAM_STREAM_FRACTION);
    Refit { fit: OffloadFit { ram_stream_fraction: best }, fallbacks: Vec::new() }
}

/// The offload rows and their refits.
pub struct OffloadDomain {
    pub inventory: Inventory,
}

impl Domain for OffloadDomain {
    type Fit = OffloadFit;
    type Payload = OffloadCase;

    fn rows(&self) -> &[Row<OffloadCase>] {
        &self.inventory.rows
    }

    fn shipped(&self) -> OffloadFit {
        OffloadFit::CALIBRATED
    }

    fn refit(&self, train: &[usize]) -> Refit<OffloadFit> {
        let rows: Vec<&Row<OffloadCase>> = train.iter().filter_map(|&i| self.inventory.rows.get(i)).collect();
        refit_rows(&rows)
    }

    fn predict(&self, fit: &OffloadFit, i: usize) -> Band {
        self.inventory.rows.get(i).map_or(Band { low: f64::NAN, mid: f64::NAN, high: f64::NAN }, |r| predict_row(fit, r))
    }
}
