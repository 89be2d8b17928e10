//! Candidate generation, filtering, ranking, reasons and why-not notes for [`super::recommend`].
//!
//! Per card, the cheap checks come first (region, licence, NVLink, a price for the mode, a TDP
//! when a watt limit is set), then one `gpus_needed` call gives the smallest count that can hold
//! the job, and only counts from there up are looked at. Costs rise with the count, so the first
//! count over the budget or the watt limit ends the card's loop before anything is estimated.
//! Candidates are numbers only; reasons and "how this was computed" strings are built for the
//! rows returned and the why-not notes, never for the whole catalog.

use super::cost::{self, CostFigures, HostKind, PriceSource, GPUS_PER_NODE};
use super::{
    Budget, Explain, Job, Mode, Objective, OptionRow, Point, RateKind, RecommendInput, Recommendation,
};
use crate::catalog::{Gpu, Segment, Vendor};
use crate::i18n::{num, t, tf, Lang};
use crate::model::llm::{self, parallel, throughput::scaling_efficiency};
use crate::model::{Band, Estimate, EstimateError, Throughput};

/// Cards that get a why-not note when they are not among the options. China-only cards are only
/// mentioned when the region is `cn`.
pub const POPULAR_GPUS: [&str; 12] = [
    "rtx-4090",
    "rtx-5090",
    "rtx-3090",
    "h100-sxm",
    "h100-pcie",
    "a100-80gb-sxm",
    "l40s",
    "rtx-a6000",
    "rtx-6000-ada",
    "mi300x",
    "rtx-4090d",
    "h20",
];

/// Largest count considered for multi-node datacenter builds.
pub const MAX_MULTI_NODE_GPUS: u32 = 512;

/// Cards a scale-up fabric joins all-to-all: the catalog's `scale_up_max_gpus` (2 for NVLink
/// bridges on PCIe cards, 4 for the H200 NVL, 8 for HGX/OAM boards), else 2.
pub fn nvlink_bridge_size(gpu: &Gpu) -> u32 {
    gpu.scale_up_max_gpus.unwrap_or(2).max(2)
}

/// Why a card has no option.
#[derive(Debug, Clone, PartialEq)]
enum Exclusion {
    Region,
    Licence,
    NoNvlink,
    NoPrice,
    NoTdp,
    NeverFits,
    TooMany { needed: u32, limit: u32, bridge: bool },
    NoFit { count: u32, per_gpu_gib: f64, capacity_gib: f64 },
    Headroom { count: u32, headroom: f64 },
    Watts { count: u32, watts: f64 },
    OverBudget { count: u32, cost_usd: f64 },
    Engine(String),
}

/// One accepted (card, count): numbers only.
struct Cand {
    gi: usize,
    count: u32,
    est: Estimate,
    capacity_gib: f64,
    headroom: f64,
    cost: CostFigures,
    tco_usd: f64,
    effective_hourly_usd: Option<f64>,
    rate: Option<(Band, RateKind)>,
    usd_per_million: Option<f64>,
    training_hours: Option<f64>,
    score: f64,
}

/// The headline rate of an estimate: training tokens for LLM training, serving (else decode)
/// tokens for inference, images/s for generation, samples/s for media training.
pub fn primary_rate(job: &Job, t: &Throughput) -> Option<(Band, RateKind)> {
    if job.is_llm() {
        if job.is_training() {
            return t.train_tokens_per_s.map(|b| (b, RateKind::TrainTokens));
        }
        return t
            .serving_tokens_per_s
            .map(|b| (b, RateKind::ServingTokens))
            .or(t.decode_tokens_per_s.map(|b| (b, RateKind::DecodeTokens)));
    }
    if let Some(b) = t.train_samples_per_s {
        return Some((b, RateKind::Samples));
    }
    t.seconds_per_image.filter(|b| b.low > 0.0).map(|b| (b.recip(), RateKind::Images))
}

/// The cost the budget and the cheapest objective look at, in the chosen mode (TCO over the
/// period), and the budget figure to compare with the budget amount.
fn budget_figure(input: &RecommendInput, c: &CostFigures) -> Option<(f64, f64)> {
    let s = &input.cost;
    let hours = s.hours_total();
    let months = s.months.max(0.0);
    let tco = match input.mode {
        Mode::Buy => c.buy_tco_usd?,
        Mode::Rent => c.rent_tco_usd?,
    };
    let figure = match input.budget {
        Budget::Unlimited => 0.0,
        Budget::PurchaseUsd(_) => match input.mode {
            Mode::Buy => c.purchase.map(|p| p.total_usd)?,
            Mode::Rent => tco,
        },
        Budget::HourlyUsd(_) => match input.mode {
            Mode::Rent => c.rent_hourly_usd?,
            Mode::Buy => {
                if hours > 0.0 {
                    tco / hours
                } else {
                    f64::INFINITY
                }
            }
        },
        Budget::MonthlyUsd(_) => {
            if months > 0.0 {
                tco / months
            } else {
                tco
            }
        }
    };
    Some((tco, figure))
}

fn effective_hourly(input: &RecommendInput, c: &CostFigures, tco: f64) -> Option<f64> {
    match input.mode {
        Mode::Rent => c.rent_hourly_usd,
        Mode::Buy => {
            let h = input.cost.hours_total();
            (h > 0.0).then(|| tco / h)
        }
    }
}

/// The objective actually used: time-to-train falls back to fastest for jobs without a token
/// count to train on.
fn effective_objective(input: &RecommendInput) -> Objective {
    match input.objective {
        Objective::TimeToTrain if input.job.train_tokens().is_none() => Objective::Fastest,
        o => o,
    }
}

fn score(obj: Objective, tco: f64, rate_mid: f64, usd_per_million: Option<f64>, hours: Option<f64>) -> f64 {
    match obj {
        Objective::Cheapest => tco,
        Objective::Fastest => -rate_mid,
        Objective::Value => {
            if tco > 0.0 {
                -(rate_mid / tco)
            } else {
                -rate_mid * 1e12
            }
        }
        Objective::CostPerToken => usd_per_million.unwrap_or(f64::INFINITY),
        Objective::TimeToTrain => hours.unwrap_or(f64::INFINITY),
    }
}

/// The counts looked at for a card, from `needed` up to `limit`: every count up to one node, then
/// whole nodes (×1, ×2, ×4 of the smallest node multiple that holds the job) for multi-node.
fn counts(needed: u32, limit: u32) -> impl Iterator<Item = u32> {
    let single = needed..=limit.min(GPUS_PER_NODE);
    let n0 = needed.div_ceil(GPUS_PER_NODE) * GPUS_PER_NODE;
    let multi = [n0, n0 * 2, n0 * 4].into_iter().filter(move |&n| needed > GPUS_PER_NODE && n <= limit);
    single.chain(multi)
}

/// The largest count a card may have: Apple SoCs 1, non-datacenter cards one node, datacenter
/// cards several nodes (when allowed); capped by `max_gpus` and, with NVLink required, by the
/// bridge size of bridged cards. Returns (limit, true when the bridge was the binding cap).
fn count_limit(input: &RecommendInput, gpu: &Gpu) -> (u32, bool) {
    let c = &input.constraints;
    let mut limit = if gpu.vendor == Vendor::Apple {
        1
    } else if gpu.segment == Segment::Datacenter && c.allow_multi_node {
        MAX_MULTI_NODE_GPUS
    } else {
        GPUS_PER_NODE
    };
    if let Some(m) = c.max_gpus {
        limit = limit.min(m.max(1));
    }
    let mut bridge = false;
    if c.require_nvlink && !cost::is_baseboard(gpu) {
        let b = nvlink_bridge_size(gpu);
        if b < limit {
            limit = b;
            bridge = true;
        }
    }
    (limit, bridge)
}

/// Checks that need no estimate and no count.
fn static_exclusion(input: &RecommendInput, gpu: &Gpu) -> Option<Exclusion> {
    let c = &input.constraints;
    if let Some(r) = &c.region {
        if !gpu.available_in(r) {
            return Some(Exclusion::Region);
        }
    }
    if c.datacenter_only && !gpu.datacenter_licence() {
        return Some(Exclusion::Licence);
    }
    // "NVLink required" means a scale-up fabric: NVLink, AMD Infinity Fabric or Gaudi's RoCE.
    if c.require_nvlink && gpu.scale_up_gb_s.is_none() {
        return Some(Exclusion::NoNvlink);
    }
    if c.max_watts.is_some() && gpu.tdp_w.is_none() {
        return Some(Exclusion::NoTdp);
    }
    None
}

/// Evaluates every count of one card; pushes the accepted ones and returns why none was
/// accepted (`None` when at least one was).
fn eval_card(
    input: &RecommendInput,
    obj: Objective,
    gi: usize,
    gpu: &Gpu,
    out: &mut Vec<Cand>,
    estimates: &mut usize,
) -> Option<Exclusion> {
    if let Some(x) = static_exclusion(input, gpu) {
        return Some(x);
    }
    let s = &input.cost;
    let unit = cost::card_price_usd(gpu, s.price_basis, &s.overrides);
    let per_gpu_hour = cost::hourly_price(gpu, &s.rent_basis, &s.overrides).map(|h| h.usd_per_gpu_hour);
    let priced = match input.mode {
        Mode::Buy => unit.is_some(),
        Mode::Rent => per_gpu_hour.is_some(),
    };
    if !priced {
        return Some(Exclusion::NoPrice);
    }
    let needed = match input.job.gpus_needed(gpu) {
        Ok(0) => return Some(Exclusion::NeverFits),
        Ok(n) => n,
        Err(e) => return Some(Exclusion::Engine(e.to_string())),
    };
    let (limit, bridge) = count_limit(input, gpu);
    if needed > limit {
        return Some(Exclusion::TooMany { needed, limit, bridge });
    }
    let capacity = input.job.capacity_gib(gpu);
    let allowed = capacity * (1.0 - input.headroom);
    let mut first_fail: Option<Exclusion> = None;
    let mut accepted = false;
    for count in counts(needed, limit) {
        if let (Some(max_w), Some(w)) = (input.constraints.max_watts, cost::gpus_watts(gpu, count)) {
            if w > max_w {
                first_fail.get_or_insert(Exclusion::Watts { count, watts: w });
                break;
            }
        }
        let purchase = unit.map(|(u, src)| cost::purchase_at(gpu, count, u, src, s));
        let figures = cost::cost_figures_with(gpu, count, s, purchase, per_gpu_hour);
        let Some((tco, figure)) = budget_figure(input, &figures) else {
            first_fail.get_or_insert(Exclusion::NoPrice);
            break;
        };
        if let Some(b) = input.budget.amount_usd() {
            if figure > b {
                first_fail.get_or_insert(Exclusion::OverBudget { count, cost_usd: figure });
                break;
            }
        }
        *estimates += 1;
        let est = match input.job.estimate(gpu, count) {
            Ok(e) => e,
            Err(e) => {
                first_fail.get_or_insert(Exclusion::Engine(e.to_string()));
                break;
            }
        };
        if !est.fits {
            first_fail.get_or_insert(Exclusion::NoFit { count, per_gpu_gib: est.per_gpu_gib, capacity_gib: capacity });
            continue;
        }
        if est.per_gpu_gib > allowed {
            let headroom = 1.0 - est.per_gpu_gib / capacity;
            first_fail.get_or_insert(Exclusion::Headroom { count, headroom });
            continue;
        }
        let rate = primary_rate(&input.job, &est.throughput);
        let rate_mid = rate.map_or(0.0, |(b, _)| b.mid);
        let eff_hourly = effective_hourly(input, &figures, tco);
        let usd_per_million = eff_hourly.and_then(|h| cost::usd_per_million(h, rate_mid));
        let training_hours = match (input.job.train_tokens(), rate) {
            (Some(tokens), Some((b, RateKind::TrainTokens))) => cost::hours_for(tokens, b.mid),
            _ => None,
        };
        let score = score(obj, tco, rate_mid, usd_per_million, training_hours);
        out.push(Cand {
            gi,
            count,
            headroom: 1.0 - est.per_gpu_gib / capacity,
            est,
            capacity_gib: capacity,
            cost: figures,
            tco_usd: tco,
            effective_hourly_usd: eff_hourly,
            rate,
            usd_per_million,
            training_hours,
            score,
        });
        accepted = true;
    }
    if accepted {
        None
    } else {
        Some(first_fail.unwrap_or(Exclusion::NeverFits))
    }
}

fn gpu_id(gpus: &[Gpu], gi: usize) -> &str {
    gpus.get(gi).map_or("", |g| g.id.as_str())
}

/// Runs the recommender over `gpus` (the input is already validated).
pub(crate) fn run(input: &RecommendInput, gpus: &[Gpu]) -> Result<Recommendation, EstimateError> {
    let obj = effective_objective(input);
    let mut notes = Vec::new();
    if obj != input.objective {
        let lang = input.lang;
        notes.push(tf(
            lang,
            "{objective} applies to LLM training jobs; ranked by throughput instead",
            &[("objective", input.objective.as_str())],
        ));
    }
    if let Job::Llm(job) = &input.job {
        job.validate()?;
    }
    let mut cands: Vec<Cand> = Vec::with_capacity(gpus.len() * 4);
    let mut exclusions: Vec<Option<Exclusion>> = Vec::with_capacity(gpus.len());
    let mut estimates = 0usize;
    for (gi, gpu) in gpus.iter().enumerate() {
        exclusions.push(eval_card(input, obj, gi, gpu, &mut cands, &mut estimates));
    }
    // A job the engine rejects on every card it tried is an input error, not "nothing fits".
    if cands.is_empty() {
        let mut engine_msg = None;
        let mut other_failure = false;
        for x in &exclusions {
            match x {
                Some(Exclusion::Engine(msg)) => engine_msg = engine_msg.or(Some(msg)),
                Some(Exclusion::Region | Exclusion::Licence | Exclusion::NoNvlink | Exclusion::NoPrice | Exclusion::NoTdp) => {}
                _ => other_failure = true,
            }
        }
        if let (Some(msg), false) = (engine_msg, other_failure) {
            return Err(EstimateError::invalid("job", msg.clone()));
        }
    }

    crate::sort::sort_by(&mut cands, |a, b| {
        a.score
            .total_cmp(&b.score)
            .then_with(|| gpu_id(gpus, a.gi).cmp(gpu_id(gpus, b.gi)))
            .then_with(|| a.count.cmp(&b.count))
    });

    let rate_kind = cands.iter().find_map(|c| c.rate.map(|(_, k)| k));
    let feasible = feasible_points(gpus, &cands);

    // Options: best first, one per card unless asked otherwise.
    let mut shown = vec![false; gpus.len()];
    let mut rank_of_card: Vec<Option<usize>> = vec![None; gpus.len()];
    let mut options = Vec::with_capacity(input.top.min(cands.len()));
    let mut position = 0usize;
    for c in cands {
        let first_of_card = match shown.get_mut(c.gi) {
            Some(seen) if *seen => false,
            Some(seen) => {
                *seen = true;
                true
            }
            None => false,
        };
        if input.one_per_card && !first_of_card {
            continue;
        }
        position += 1;
        if first_of_card {
            if let Some(r) = rank_of_card.get_mut(c.gi) {
                *r = Some(position);
            }
        }
        if options.len() < input.top {
            if let Some(gpu) = gpus.get(c.gi) {
                options.push(build_row(input, gpu, c));
            }
        }
    }

    let why_not = why_not(input, gpus, &exclusions, &rank_of_card, &options);
    Ok(Recommendation { options, why_not, feasible, notes, rate_kind, estimates_run: estimates })
}

/// Every candidate as a chart point, sorted by cost then throughput (descending), with the Pareto
/// front marked: a point is on it when every cheaper-or-equal point is slower.
fn feasible_points(gpus: &[Gpu], cands: &[Cand]) -> Vec<Point> {
    let mut pts: Vec<Point> = cands
        .iter()
        .map(|c| Point {
            gpu: gpu_id(gpus, c.gi).to_string(),
            count: c.count,
            throughput_mid: c.rate.map_or(0.0, |(b, _)| b.mid),
            cost_usd: c.tco_usd,
            pareto: false,
        })
        .collect();
    crate::sort::sort_by(&mut pts, |a, b| {
        a.cost_usd
            .total_cmp(&b.cost_usd)
            .then_with(|| b.throughput_mid.total_cmp(&a.throughput_mid))
            .then_with(|| a.gpu.cmp(&b.gpu))
            .then_with(|| a.count.cmp(&b.count))
    });
    let mut best = f64::NEG_INFINITY;
    for p in &mut pts {
        if p.throughput_mid > best {
            p.pareto = true;
            best = p.throughput_mid;
        }
    }
    pts
}

fn gib(lang: Lang, v: f64) -> String {
    num(lang, v, if v >= 100.0 { 0 } else { 1 })
}

fn watts_text(lang: Lang, w: f64) -> String {
    format!("{} W", num(lang, w, 0))
}

/// PSU rating for a desktop/workstation build: (GPU watts + 250 W for CPU, board and drives) /
/// 0.8, keeping the PSU at or under 80% load (a common sizing rule), rounded up to 100 W.
pub fn psu_watts(gpu_watts: f64) -> f64 {
    ((gpu_watts + 250.0) / 0.8 / 100.0).ceil() * 100.0
}

fn build_row(input: &RecommendInput, gpu: &Gpu, c: Cand) -> OptionRow {
    let s = &input.cost;
    let months = s.months.max(0.0);
    let monthly = if months > 0.0 { c.tco_usd / months } else { c.tco_usd };
    let usd_per_training_run = match (c.training_hours, c.effective_hourly_usd) {
        (Some(h), Some(r)) => Some(h * r),
        _ => None,
    };
    let nodes = c.count.div_ceil(GPUS_PER_NODE);
    let lang = input.lang;
    let mut reasons = Vec::with_capacity(8);
    let mut explain = Vec::with_capacity(8);

    // Fit.
    reasons.push(tf(
        lang,
        "fits with {pct}% headroom ({used} of {usable} GiB usable per GPU)",
        &[
            ("pct", &crate::decimal::fixed((c.headroom * 100.0).max(0.0), 0)),
            ("used", &gib(lang, c.est.per_gpu_gib)),
            ("usable", &gib(lang, c.capacity_gib)),
        ],
    ));
    explain.push(Explain {
        label: "headroom",
        formula: format!(
            "1 − {} GiB per GPU / {} GiB usable = {}% (asked for at least {}%)",
            crate::decimal::fixed(c.est.per_gpu_gib, 2),
            crate::decimal::fixed(c.capacity_gib, 2),
            crate::decimal::fixed(c.headroom * 100.0, 1),
            crate::decimal::fixed(input.headroom * 100.0, 0)
        ),
    });

    // Interconnect and scaling.
    if c.count > 1 {
        reasons.push(link_reason(input, gpu, c.count));
    }
    if nodes > 1 {
        reasons.push(tf(
            lang,
            "{nodes} nodes of {per_node}: InfiniBand or RoCE between nodes (+{cost} per node assumed)",
            &[
                ("nodes", &nodes.to_string()),
                ("per_node", &GPUS_PER_NODE.to_string()),
                ("cost", &s.money_in(lang, cost::MULTI_NODE_NETWORK_PER_NODE_USD)),
            ],
        ));
    }

    // Power.
    if let Some(w) = c.cost.watts {
        let host = c.cost.purchase.map_or_else(|| cost::host_estimate(gpu, c.count), |p| p.host);
        if input.mode == Mode::Buy && !host.is_server() && host.kind != HostKind::Integrated {
            reasons.push(tf(
                lang,
                "{watts} of GPU power: needs a {psu}+ PSU",
                &[("watts", &watts_text(lang, w)), ("psu", &watts_text(lang, psu_watts(w)))],
            ));
        } else if input.mode == Mode::Buy && host.is_server() && nodes > 1 {
            reasons.push(tf(
                lang,
                "{watts} of GPU power ({per_node} per node): a server with rack power and cooling",
                &[("watts", &watts_text(lang, w)), ("per_node", &watts_text(lang, w / f64::from(nodes)))],
            ));
        } else if input.mode == Mode::Buy && host.is_server() {
            reasons.push(tf(lang, "{watts} of GPU power: a server with rack power and cooling", &[("watts", &watts_text(lang, w))]));
        }
    } else {
        reasons.push(t(lang, "no TDP in the catalog: energy not counted").into());
    }

    // Licence.
    if input.mode == Mode::Buy && !gpu.datacenter_licence() && c.count > 4 {
        reasons.push(t(lang, "GeForce: NVIDIA's driver licence does not allow datacenter deployment").into());
    }

    // Costs.
    if let Some(p) = c.cost.purchase {
        let src = match p.source {
            PriceSource::Street => {
                format!("{}, {}", t(lang, "street"), gpu.street_price_date.as_deref().unwrap_or_else(|| t(lang, "undated")))
            }
            other => t(lang, other.label()).to_string(),
        };
        let text = if p.host.kind == HostKind::Integrated || !s.include_host {
            // The price is the whole computer (Apple), or the user counts cards only: no host line.
            format!("{} × {} ({src}) = {}", c.count, s.money_in(lang, p.unit_usd), s.money_in(lang, p.total_usd))
        } else {
            format!(
                "{} × {} ({src}) + {} {} = {}",
                c.count,
                s.money_in(lang, p.unit_usd),
                s.money_in(lang, p.host.usd),
                t(lang, p.host.label()),
                s.money_in(lang, p.total_usd)
            )
        };
        if input.mode == Mode::Buy {
            reasons.push(tf(lang, "buy: {text}", &[("text", &text)]));
        }
        explain.push(Explain { label: "purchase", formula: text });
    }
    if let Some(h) = c.cost.rent_hourly_usd {
        let hp = cost::hourly_price(gpu, &s.rent_basis, &s.overrides);
        let provider = hp.map_or(String::new(), |hp| {
            if hp.date.is_empty() {
                format!(" ({})", hp.provider)
            } else {
                format!(" ({}, {})", hp.provider, hp.date)
            }
        });
        let text = format!(
            "{} × {}/GPU-hour{provider} = {}/h",
            c.count,
            s.money_in(lang, c.cost.rent_per_gpu_hour_usd.unwrap_or(0.0)),
            s.money_in(lang, h)
        );
        if input.mode == Mode::Rent {
            reasons.push(tf(lang, "rent: {text}", &[("text", &text)]));
        }
        explain.push(Explain { label: "hourly", formula: text });
    }
    if input.mode == Mode::Buy {
        if let Some(w) = c.cost.watts {
            let e = &s.energy;
            explain.push(Explain {
                label: "energy",
                formula: format!(
                    "{} W × {} utilisation × {} h/month × PUE {} × {}/kWh = {}/month",
                    crate::decimal::fixed(w, 0),
                    crate::decimal::fixed(e.utilisation, 2),
                    crate::decimal::fixed(s.hours_per_month(), 0),
                    crate::decimal::fixed(c.cost.pue, 2),
                    s.money(e.usd_per_kwh),
                    s.money(c.cost.energy_usd_per_month)
                ),
            });
            reasons.push(tf(
                lang,
                "energy: {cost}/month at {hours} h/day",
                &[("cost", &s.money_in(lang, c.cost.energy_usd_per_month)), ("hours", &crate::decimal::fixed(s.hours_per_day, 0))],
            ));
        }
    }
    let tco_formula = match input.mode {
        Mode::Buy => format!(
            "{} purchase + {} energy/month × {} months = {}",
            s.money(c.cost.purchase.map_or(0.0, |p| p.total_usd)),
            s.money(c.cost.energy_usd_per_month),
            crate::decimal::fixed(months, 0),
            s.money(c.tco_usd)
        ),
        Mode::Rent => format!(
            "{}/h × {} h/month × {} months = {}",
            s.money(c.cost.rent_hourly_usd.unwrap_or(0.0)),
            crate::decimal::fixed(s.hours_per_month(), 0),
            crate::decimal::fixed(months, 0),
            s.money(c.tco_usd)
        ),
    };
    explain.push(Explain { label: "tco", formula: tco_formula });
    reasons.push(tf(
        lang,
        "{months}-month TCO {tco} ({monthly}/month)",
        &[("months", &crate::decimal::fixed(months, 0)), ("tco", &s.money_in(lang, c.tco_usd)), ("monthly", &s.money_in(lang, monthly))],
    ));

    match c.cost.break_even_month {
        Some(m) if c.cost.purchase.is_some() => {
            let verdict = if m <= months {
                tf(lang, "buying pays off after {m} months against renting", &[("m", &num(lang, m, 1))])
            } else {
                tf(
                    lang,
                    "buying pays off only after {m} months against renting (period {months})",
                    &[("m", &crate::decimal::fixed(m, 0)), ("months", &crate::decimal::fixed(months, 0))],
                )
            };
            reasons.push(verdict);
            explain.push(Explain {
                label: "break_even",
                formula: format!(
                    "{} purchase / ({}/h × {} h/month − {} energy/month) = {} months",
                    s.money(c.cost.purchase.map_or(0.0, |p| p.total_usd)),
                    s.money(c.cost.rent_hourly_usd.unwrap_or(0.0)),
                    crate::decimal::fixed(s.hours_per_month(), 0),
                    s.money(c.cost.energy_usd_per_month),
                    crate::decimal::fixed(m, 1)
                ),
            });
        }
        None if c.cost.purchase.is_some() && c.cost.rent_hourly_usd.is_some() && s.hours_per_day > 0.0 => {
            reasons.push(t(lang, "renting costs less per month than the electricity of owning: buying never pays off").into());
        }
        _ => {}
    }

    // Throughput-derived figures.
    if let (Some((band, kind)), Some(per_m)) = (c.rate, c.usd_per_million) {
        // Images are counted per thousand, at seconds per image, as people price them.
        reasons.push(if kind == RateKind::Images && band.mid > 0.0 {
            tf(
                lang,
                "{cost} per 1,000 images at {seconds} s per image (mid)",
                &[("cost", &s.money_in(lang, per_m / 1000.0)), ("seconds", &num(lang, 1.0 / band.mid, 1))],
            )
        } else {
            tf(
                lang,
                "{cost} per million {noun} at {rate} {unit} (mid)",
                &[
                    ("cost", &s.money_in(lang, per_m)),
                    ("noun", t(lang, kind.noun())),
                    ("rate", &num(lang, band.mid, if band.mid < 10.0 { 2 } else { 0 })),
                    ("unit", t(lang, kind.unit())),
                ],
            )
        });
        explain.push(Explain {
            label: "usd_per_million",
            formula: format!(
                "{}/h / ({} {} × 3600 s) × 1,000,000 = {}",
                s.money(c.effective_hourly_usd.unwrap_or(0.0)),
                crate::decimal::fixed(band.mid, 3),
                kind.unit(),
                s.money(per_m)
            ),
        });
    }
    if let (Some(h), Some(tokens)) = (c.training_hours, input.job.train_tokens()) {
        let run_cost = usd_per_training_run.map_or(String::new(), |v| format!(", {}", s.money_in(lang, v)));
        let took = tf(lang, "training {tokens} tokens takes {time}", &[("tokens", &fmt_count(lang, tokens)), ("time", &fmt_hours(lang, h))]);
        reasons.push(format!("{took}{run_cost}"));
        explain.push(Explain {
            label: "training_run",
            formula: format!(
                "{} tokens / {} tokens/s / 3600 = {} h; × {}/h = {}",
                crate::decimal::sci(tokens, 3),
                crate::decimal::fixed(c.rate.map_or(0.0, |(b, _)| b.mid), 1),
                crate::decimal::fixed(h, 2),
                s.money(c.effective_hourly_usd.unwrap_or(0.0)),
                s.money(usd_per_training_run.unwrap_or(0.0))
            ),
        });
    }

    OptionRow {
        gpu: gpu.id.clone(),
        gpu_name: gpu.name.clone(),
        count: c.count,
        nodes,
        capacity_gib: c.capacity_gib,
        headroom: c.headroom,
        rate: c.rate,
        cost: c.cost,
        tco_usd: c.tco_usd,
        monthly_usd: monthly,
        effective_hourly_usd: c.effective_hourly_usd,
        usd_per_million: c.usd_per_million,
        training_hours: c.training_hours,
        usd_per_training_run,
        score: c.score,
        estimate: c.est,
        reasons,
        explain,
    }
}

/// `1e9` → `1B`, `2.5e12` → `2.5T`.
fn fmt_count(lang: Lang, v: f64) -> String {
    let (d, suffix) = if v >= 1e12 {
        (1e12, "T")
    } else if v >= 1e9 {
        (1e9, "B")
    } else if v >= 1e6 {
        (1e6, "M")
    } else {
        (1.0, "")
    };
    let x = v / d;
    let decimals = if (x - x.round()).abs() < 1e-9 { 0 } else { 1 };
    format!("{}{suffix}", num(lang, x, decimals))
}

fn fmt_hours(lang: Lang, h: f64) -> String {
    if h < 48.0 {
        format!("{} h", num(lang, h, 1))
    } else {
        tf(lang, "{n} days", &[("n", &num(lang, h / 24.0, 1))])
    }
}

/// How the cards talk to each other, and what that costs in scaling.
fn link_reason(input: &RecommendInput, gpu: &Gpu, count: u32) -> String {
    let lang = input.lang;
    let baseboard = cost::is_baseboard(gpu);
    let link = if gpu.nvlink && baseboard {
        t(lang, "NVLink/NVSwitch between all GPUs of a node").to_string()
    } else if baseboard {
        let fabric = gpu.scale_up_fabric.as_deref().or(gpu.interconnect.as_deref()).unwrap_or_else(|| t(lang, "the baseboard fabric"));
        tf(lang, "{fabric} between the GPUs of a node", &[("fabric", fabric)])
    } else if gpu.nvlink && count <= nvlink_bridge_size(gpu) {
        tf(lang, "NVLink bridge joins the {count} cards", &[("count", &count.to_string())])
    } else if gpu.nvlink {
        tf(
            lang,
            "NVLink bridges join {n} cards at a time; the rest talk over PCIe",
            &[("n", &nvlink_bridge_size(gpu).to_string())],
        )
    } else if gpu.vendor == Vendor::Nvidia && gpu.segment == Segment::Consumer {
        t(lang, "PCIe only, without peer-to-peer (GeForce): traffic goes through host memory").to_string()
    } else {
        t(lang, "PCIe only").to_string()
    };
    match &input.job {
        Job::Llm(job) => {
            let engine = job.engine_for(gpu);
            let terms = llm::memory::terms(job, gpu, engine);
            let layout = llm::layout_for(job, gpu, engine, &terms, count);
            let described = layout.describe().in_lang(lang);
            if job.workload.is_training() {
                tf(
                    lang,
                    "{link}: {layout} at about {pct}% scaling efficiency",
                    &[
                        ("link", &link),
                        ("layout", &described),
                        ("pct", &crate::decimal::fixed(scaling_efficiency(job, gpu, &terms, &layout, count) * 100.0, 0)),
                    ],
                )
            } else if matches!(layout, parallel::Layout::LayerSplit(_)) {
                tf(
                    lang,
                    "{link}: {layout} — cards run one after another, so extra cards add memory, not speed",
                    &[("link", &link), ("layout", &described)],
                )
            } else {
                format!("{link}: {described}")
            }
        }
        Job::Media(_) => {
            tf(lang, "{link}: each card holds the whole model and takes a share of the batch", &[("link", &link)])
        }
    }
}


fn why_not(
    input: &RecommendInput,
    gpus: &[Gpu],
    exclusions: &[Option<Exclusion>],
    rank_of_card: &[Option<usize>],
    options: &[OptionRow],
) -> Vec<String> {
    let s = &input.cost;
    let lang = input.lang;
    let cn = input.constraints.region.as_deref() == Some("cn");
    let mut out = Vec::new();
    for id in POPULAR_GPUS {
        if (id == "rtx-4090d" || id == "h20") && !cn {
            continue;
        }
        if options.iter().any(|o| o.gpu == id) {
            continue;
        }
        let Some(gi) = gpus.iter().position(|g| g.id == id) else { continue };
        let (Some(gpu), Some(x)) = (gpus.get(gi), exclusions.get(gi)) else { continue };
        let name = short_name(gpu);
        let count_text = |count: &u32| format!("{name} ×{count}");
        let text = match x {
            None => match rank_of_card.get(gi).copied().flatten() {
                Some(r) => tf(lang, "{name}: fits and is within budget, ranked #{rank}", &[("name", name), ("rank", &r.to_string())]),
                None => continue,
            },
            Some(Exclusion::Region) if cn => tf(lang, "{name}: not sold new in China", &[("name", name)]),
            Some(Exclusion::Region) => tf(lang, "{name}: not sold new in this region", &[("name", name)]),
            Some(Exclusion::Licence) => tf(lang, "{name}: GeForce licence does not allow datacenter use", &[("name", name)]),
            Some(Exclusion::NoNvlink) => tf(lang, "{name}: no NVLink or other scale-up fabric", &[("name", name)]),
            Some(Exclusion::NoPrice) => match input.mode {
                Mode::Buy => tf(
                    lang,
                    "{name}: no purchase price in the catalog (add one as `{id}:buy=USD`)",
                    &[("name", name), ("id", id)],
                ),
                Mode::Rent => tf(
                    lang,
                    "{name}: no cloud price in the catalog (add one as `{id}:hour=USD`)",
                    &[("name", name), ("id", id)],
                ),
            },
            Some(Exclusion::NoTdp) => tf(lang, "{name}: no TDP in the catalog to check the watt limit", &[("name", name)]),
            Some(Exclusion::NeverFits) => tf(lang, "{name}: no number of cards holds this job", &[("name", name)]),
            Some(Exclusion::TooMany { needed, limit, bridge: true }) => tf(
                lang,
                "{name}: needs {needed} cards; an NVLink bridge joins only {limit}",
                &[("name", name), ("needed", &needed.to_string()), ("limit", &limit.to_string())],
            ),
            Some(Exclusion::TooMany { needed, limit, .. }) => {
                let per = too_many_detail(input, gpu, *limit);
                let text = tf(
                    lang,
                    "{name}: needs {needed} cards, more than the {limit} allowed",
                    &[("name", name), ("needed", &needed.to_string()), ("limit", &limit.to_string())],
                );
                format!("{text}{per}")
            }
            Some(Exclusion::NoFit { count, per_gpu_gib, capacity_gib }) => tf(
                lang,
                "{name}: needs {need} GiB per GPU, has {has} usable",
                &[("name", &count_text(count)), ("need", &gib(lang, *per_gpu_gib)), ("has", &gib(lang, *capacity_gib))],
            ),
            Some(Exclusion::Headroom { count, headroom }) => tf(
                lang,
                "{name}: only {pct}% headroom, {asked}% asked",
                &[
                    ("name", &count_text(count)),
                    ("pct", &num(lang, headroom.max(0.0) * 100.0, 1)),
                    ("asked", &crate::decimal::fixed(input.headroom * 100.0, 0)),
                ],
            ),
            Some(Exclusion::Watts { count, watts }) => tf(
                lang,
                "{name}: {watts} of GPU power, over the {limit} limit",
                &[
                    ("name", &count_text(count)),
                    ("watts", &watts_text(lang, *watts)),
                    ("limit", &watts_text(lang, input.constraints.max_watts.unwrap_or(0.0))),
                ],
            ),
            Some(Exclusion::OverBudget { count, cost_usd }) => {
                let over = cost_usd - input.budget.amount_usd().unwrap_or(0.0);
                tf(lang, "{name}: over budget by {amount}", &[("name", &count_text(count)), ("amount", &s.money_in(lang, over))])
            }
            Some(Exclusion::Engine(msg)) => format!("{name}: {msg}"),
        };
        out.push(text);
    }
    out
}

/// ", at ×8 each needs 22.6 GiB of 21.6 usable" or ", ×1 needs 41 GiB, has 24" (one estimate).
fn too_many_detail(input: &RecommendInput, gpu: &Gpu, limit: u32) -> String {
    let at = limit.clamp(1, llm::MAX_GPUS);
    let lang = input.lang;
    match input.job.estimate(gpu, at) {
        Ok(e) if at == 1 => tf(
            lang,
            ": ×1 needs {need} GiB, has {has}",
            &[("need", &gib(lang, e.per_gpu_gib)), ("has", &num(lang, gpu.memory_gib, 0))],
        ),
        Ok(e) => tf(
            lang,
            ": at ×{at} each needs {need} GiB of {has} usable",
            &[("at", &at.to_string()), ("need", &gib(lang, e.per_gpu_gib)), ("has", &gib(lang, input.job.capacity_gib(gpu)))],
        ),
        Err(_) => String::new(),
    }
}

/// The card's name without the vendor prefix: "RTX 4090", "H100 SXM".
pub fn short_name(gpu: &Gpu) -> &str {
    let n = gpu.name.as_str();
    ["NVIDIA GeForce ", "GeForce ", "NVIDIA ", "AMD Instinct ", "AMD Radeon ", "AMD ", "Intel ", "Apple "]
        .iter()
        .find_map(|p| n.strip_prefix(p))
        .unwrap_or(n)
}
