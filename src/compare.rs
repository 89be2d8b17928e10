//! The compare view's figures that depend on the advisor: the money settings its
//! prices are shown in, and the "for your job" rows (each compared card sized on the advisor's
//! current job). Pure, so native tests check what the view shows.

use crate::catalog::Gpu;
use crate::recommend::candidates::primary_rate;
use crate::recommend::cost::{cost_figures, usd_per_million, CostSettings, Currency};
use crate::recommend::{Mode, RateKind, RecommendInput};
use crate::state::advisor::{AdvisorInputs, Field};

/// The advisor's money settings (currency, rate, price basis …). When some other advisor input is
/// invalid, the currency and rate alone still apply, so prices never fall back to USD silently.
pub fn cost_settings(inputs: &AdvisorInputs) -> CostSettings {
    inputs.recommend_input().map(|i| i.cost).unwrap_or_else(|_| CostSettings {
        currency: Currency::parse(inputs.get(Field::Currency)).unwrap_or(Currency::Usd),
        rate_per_usd: crate::fmath::parse_f64(inputs.get(Field::Rate).trim()).filter(|r| r.is_finite() && *r > 0.0),
        ..CostSettings::default()
    })
}

/// One compared card on the advisor's job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub gpu: String,
    /// Cards needed to hold the job; `None`: no count up to the engine's limit holds it.
    pub gpus: Option<u32>,
    /// LLM inference: one user's decode speed at the job's concurrency, tokens/s (mid).
    pub tokens_per_s_per_user: Option<f64>,
    /// Image generation: seconds per image (mid).
    pub seconds_per_image: Option<f64>,
    /// USD per million units of `kind` at the build's hourly cost (rent: the rental price; buy:
    /// TCO over the period / hours of use), as the recommender computes it.
    pub usd_per_million: Option<f64>,
    pub kind: Option<RateKind>,
}

/// Sizes `input`'s job on `gpu` at the smallest count that holds it.
pub fn job_row(input: &RecommendInput, gpu: &Gpu) -> JobRow {
    let mut row = JobRow { gpu: gpu.id.clone(), gpus: None, tokens_per_s_per_user: None, seconds_per_image: None, usd_per_million: None, kind: None };
    let Some(n) = input.job.gpus_needed(gpu).ok().filter(|n| *n > 0) else { return row };
    let Some(est) = input.job.estimate(gpu, n).ok().filter(|e| e.fits) else { return row };
    row.gpus = Some(n);
    let t = est.throughput;
    if input.job.is_served() {
        row.tokens_per_s_per_user = t.decode_tokens_per_s.map(|b| b.mid);
    }
    row.seconds_per_image = t.seconds_per_image.map(|b| b.mid);
    let rate = primary_rate(&input.job, &t);
    row.kind = rate.map(|(_, k)| k);
    let c = cost_figures(gpu, n, &input.cost);
    let hourly = match input.mode {
        Mode::Rent => c.rent_hourly_usd,
        Mode::Buy => c.buy_tco_usd.filter(|_| input.cost.hours_total() > 0.0).map(|t| t / input.cost.hours_total()),
    };
    row.usd_per_million = match (hourly, rate) {
        (Some(h), Some((b, _))) => usd_per_million(h, b.mid),
        _ => None,
    };
    row
}
