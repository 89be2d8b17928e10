//! Candidate generation for [`super::recommend`]: which (card, count) pairs are looked at, which
//! are dropped and why, and the numbers of the ones kept.
//!
//! Per card, the cheap checks come first (region, licence, scale-up fabric, a price for the mode,
//! a TDP when a watt limit is set), then one `gpus_needed` call gives the smallest count that can
//! hold the job, and only counts from there up are looked at. Costs rise with the count, so the
//! first count over the budget or the watt limit ends the card's loop before anything is
//! estimated. LLM inference builds are then served as the best split into replicas
//! ([`crate::model::llm::deploy`]) and checked against the serving targets. Candidates are
//! numbers only.

use super::cost::{self, CostFigures, GPUS_PER_NODE};
use super::facts::Exclusion;
use super::{Budget, Job, Mode, Objective, RateKind, RecommendInput};
use crate::catalog::{Gpu, Segment};
use crate::model::llm::deploy::{self, Deployment};
use crate::model::llm::serving::ServingTargets;
use crate::model::{Band, Estimate, Throughput};
use std::ops::ControlFlow;

/// Largest count considered for multi-node datacenter builds.
pub const MAX_MULTI_NODE_GPUS: u32 = 512;

/// Cards a scale-up fabric joins all-to-all: the catalog's `scale_up_max_gpus` (2 for NVLink
/// bridges on PCIe cards, 4 for the H200 NVL, 8 for HGX/OAM boards), else 2.
pub fn nvlink_bridge_size(gpu: &Gpu) -> u32 {
    gpu.scale_up_max_gpus.unwrap_or(2).max(2)
}

/// One accepted (card, count): numbers only. Kept boxed in the ranking's list, so sorting it moves
/// pointers, not estimates.
pub(super) struct Cand {
    pub gi: usize,
    pub count: u32,
    pub est: Estimate,
    pub capacity_gib: f64,
    pub headroom: f64,
    pub cost: CostFigures,
    pub tco_usd: f64,
    pub effective_hourly_usd: Option<f64>,
    pub rate: Option<(Band, RateKind)>,
    pub usd_per_million: Option<f64>,
    pub training_hours: Option<f64>,
    pub score: f64,
    /// LLM inference: how the build serves its users.
    pub serving: Option<Deployment>,
    /// The estimate's throughput is left for the options shown (`Job::estimate_ranked`): the
    /// serving plan gave the rate.
    pub speed_pending: bool,
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
    if let Some(b) = t.seconds_per_video.filter(|b| b.low > 0.0) {
        return Some((b.recip(), RateKind::Videos));
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
pub(super) fn effective_objective(input: &RecommendInput) -> Objective {
    match input.objective {
        Objective::TimeToTrain if input.job.train_tokens().is_none() => Objective::Fastest,
        o => o,
    }
}

/// A candidate's score under `obj` (lower is better), as the ranking computes it.
pub(super) fn score_for(obj: Objective, c: &Cand) -> f64 {
    score(
        obj,
        c.tco_usd,
        c.rate.map_or(0.0, |(b, _)| b.mid),
        c.usd_per_million,
        c.training_hours,
    )
}

fn score(
    obj: Objective,
    tco: f64,
    rate_mid: f64,
    usd_per_million: Option<f64>,
    hours: Option<f64>,
) -> f64 {
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
/// With a training deadline (`scale_out`), whole nodes double from two nodes (or the smallest
/// node multiple that holds the job) up to `limit`. With a fixed mesh of `step` GPUs per replica
/// (1 without), only its multiples: a node multiple is then a multiple of both.
fn counts(needed: u32, limit: u32, scale_out: bool, step: u32) -> impl Iterator<Item = u32> {
    let step = step.max(1);
    let single = (needed..=limit.min(GPUS_PER_NODE)).filter(move |c| c % step == 0);
    // The least common multiple of a node and a replica.
    let node = (step / gcd(step, GPUS_PER_NODE)).saturating_mul(GPUS_PER_NODE);
    let n0 = needed.div_ceil(node).saturating_mul(node);
    let multi = [n0, n0 * 2, n0 * 4].into_iter().filter(move |&n| !scale_out && needed > GPUS_PER_NODE && n <= limit);
    let first = n0.max(2 * node);
    let doubling = (0..15).map(move |k| first.saturating_mul(1 << k)).filter(move |&n| scale_out && n <= limit);
    single.chain(multi).chain(doubling)
}

/// Greatest common divisor.
fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// GPUs one replica of a training job's fixed mesh spans (`--tp × --cp × --pp`), 1 without one:
/// the ranking then looks only at counts the mesh divides.
fn mesh_step(input: &RecommendInput) -> u32 {
    match &input.job {
        crate::recommend::Job::Llm(j) if j.workload.is_training() => j.mesh.map_or(1, |m| u32::try_from(m.replica()).unwrap_or(u32::MAX)),
        _ => 1,
    }
}

/// Whether the job scales out to meet a training deadline.
fn scales_out(input: &RecommendInput) -> bool {
    input.constraints.deadline_hours.is_some() && input.job.train_tokens().is_some()
}

/// The deadline a candidate misses: its training run takes longer than the deadline.
fn deadline_miss(input: &RecommendInput, c: &Cand) -> Option<Exclusion> {
    let deadline = input.constraints.deadline_hours?;
    let hours = c.training_hours.filter(|h| h.is_finite())?;
    (hours > deadline).then_some(Exclusion::Deadline { count: c.count, hours })
}

/// The largest count a card may have: unified-memory computers 1 (or what their link joins),
/// non-datacenter cards one node, datacenter
/// cards several nodes (when allowed); capped by `max_gpus` and, with NVLink required, by the
/// bridge size of bridged cards. Returns (limit, true when the bridge was the binding cap).
fn count_limit(input: &RecommendInput, gpu: &Gpu) -> (u32, bool) {
    let c = &input.constraints;
    // A unified-memory computer is one box, or as many as its own link joins (two DGX Sparks
    // over ConnectX-7).
    let mut limit = if gpu.is_unified_computer() {
        gpu.scale_up_max_gpus.unwrap_or(1).max(1)
    } else if gpu.segment == Segment::Datacenter && c.allow_multi_node && scales_out(input) {
        crate::model::llm::MAX_GPUS
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
    // "NVLink required" means NVLink (bridges or NVSwitch) or AMD Infinity Fabric; a card with a
    // scale-up fabric of another kind (Gaudi's RoCE, Ascend's HCCS) is named as such.
    if c.require_nvlink && !gpu.nvlink_class_fabric() {
        return Some(match &gpu.scale_up_fabric {
            Some(f) => Exclusion::OtherFabric { fabric: f.clone() },
            None => Exclusion::NoScaleUpFabric,
        });
    }
    if c.max_watts.is_some() && gpu.tdp_w.is_none() {
        return Some(Exclusion::NoTdp);
    }
    None
}

/// True when the serving analysis has a target to meet.
pub fn has_target(t: &ServingTargets) -> bool {
    t.tokens_per_s_per_user.is_some() || t.max_ttft_s.is_some()
}

/// The users the build must serve at the targets, and how many it serves. Without an arrival
/// rate the users are the job's; with one, the users the rate keeps in flight (Little's law),
/// and the build meets the targets when its figures at that load do.
fn target_users(job: &Job, t: &ServingTargets, d: &Deployment) -> (u32, u32) {
    let asked = match job {
        Job::Llm(j) => j.batch.max(1),
        Job::Media(_) => 1,
    };
    let r = &d.report;
    if t.arrival_rate_rps.is_none() {
        return (asked, r.max_users.unwrap_or(u32::MAX));
    }
    let users = r.users.ceil().max(1.0) as u32;
    let speed_ok = t.tokens_per_s_per_user.is_none_or(|x| r.per_user_tokens_per_s.mid >= x);
    let ttft_ok = t.max_ttft_s.is_none_or(|x| r.ttft_s.is_some_and(|b| b.mid <= x)) && r.ttft_s.is_some();
    (users, if speed_ok && ttft_ok { users } else { r.max_users.unwrap_or(0).min(users.saturating_sub(1)) })
}

/// The serving deployment of an LLM inference candidate, or `None` for other jobs.
fn deployment(input: &RecommendInput, card: &Card, count: u32) -> Result<Option<Deployment>, crate::model::Note> {
    match &input.job {
        Job::Llm(job) if !job.workload.is_training() => {
            let needed = match card.replica_needed.get() {
                Some(n) => *n,
                None => {
                    let n = deploy::replica_needed(job, card.gpu).map_err(|e| e.note())?;
                    *card.replica_needed.get_or_init(|| n)
                }
            };
            deploy::plan_opts(job, card.gpu, count, &input.serving, card.allowed, needed).map_err(|e| e.note())
        }
        _ => Ok(None),
    }
}

/// The numbers of one accepted count: rate, cost per unit, hours to train, score.
fn accept(input: &RecommendInput, obj: Objective, gi: usize, count: u32, p: Priced, est: Estimate, mut serving: Option<Deployment>) -> Cand {
    let rate = match &serving {
        Some(d) => Some((d.report.aggregate_tokens_per_s, RateKind::ServingTokens)),
        None => primary_rate(&input.job, &est.throughput),
    };
    let rate_mid = rate.map_or(0.0, |(b, _)| b.mid);
    let eff_hourly = effective_hourly(input, &p.figures, p.tco);
    let usd_per_million = eff_hourly.and_then(|h| cost::usd_per_million(h, rate_mid));
    let training_hours = match (input.job.train_tokens(), rate) {
        (Some(tokens), Some((b, RateKind::TrainTokens))) => cost::hours_for(tokens, b.mid),
        _ => None,
    };
    // Only a served job has a plan; one that kept the estimate kept it without its throughput.
    let speed_pending = serving.as_ref().is_some_and(|d| d.estimate.is_none());
    let est = serving.as_mut().and_then(|d| d.estimate.take()).unwrap_or(est);
    Cand {
        gi,
        count,
        headroom: 1.0 - est.per_gpu_gib / p.capacity,
        est,
        capacity_gib: p.capacity,
        cost: p.figures,
        tco_usd: p.tco,
        effective_hourly_usd: eff_hourly,
        rate,
        usd_per_million,
        training_hours,
        score: score(obj, p.tco, rate_mid, usd_per_million, training_hours),
        serving,
        speed_pending,
    }
}

/// A count's cost figures, once it passed the watt limit and the budget.
struct Priced {
    figures: CostFigures,
    tco: f64,
    capacity: f64,
}

/// Prices `count` cards, or says why the card's loop ends here (watts, no price, over budget).
fn price(input: &RecommendInput, gpu: &Gpu, count: u32, unit: Option<(f64, cost::PriceSource)>, per_gpu_hour: Option<f64>) -> Result<(CostFigures, f64), Exclusion> {
    let s = &input.cost;
    if let (Some(max_w), Some(w)) = (input.constraints.max_watts, cost::gpus_watts(gpu, count)) {
        if w > max_w {
            return Err(Exclusion::Watts { count, watts: w });
        }
    }
    let purchase = unit.map(|(u, src)| cost::purchase_at(gpu, count, u, src, s));
    let figures = cost::cost_figures_with(gpu, count, s, purchase, per_gpu_hour);
    let Some((tco, figure)) = budget_figure(input, &figures) else { return Err(Exclusion::NoPrice) };
    if let Some(b) = input.budget.amount_usd() {
        if figure > b {
            return Err(Exclusion::OverBudget { count, over_usd: figure - b });
        }
    }
    Ok((figures, tco))
}

/// One card that passed the checks made before any count is looked at: its prices and memory.
struct Card<'a> {
    gi: usize,
    gpu: &'a Gpu,
    unit: Option<(f64, cost::PriceSource)>,
    per_gpu_hour: Option<f64>,
    /// The fewest of it that hold the job (before rounding to a fixed mesh).
    fewest: u32,
    /// Memory per GPU, and what the headroom leaves of it.
    capacity: f64,
    allowed: f64,
    /// The fewest cards a serving replica needs, once a count reaches the serving plan.
    replica_needed: std::cell::OnceCell<u32>,
}

/// The card's prices and memory and the counts to look at (smallest that can hold the job,
/// largest allowed), or why no count is: the cheap checks, a price for the mode, the job never
/// fitting or needing more cards than allowed.
fn plan_card<'a>(input: &RecommendInput, gi: usize, gpu: &'a Gpu) -> Result<(Card<'a>, u32, u32), Exclusion> {
    if let Some(x) = static_exclusion(input, gpu) {
        return Err(x);
    }
    let s = &input.cost;
    let unit = cost::card_price_usd(gpu, s.price_basis, &s.overrides);
    let per_gpu_hour = cost::hourly_price(gpu, &s.rent_basis, &s.overrides).map(|h| h.usd_per_gpu_hour);
    let priced = match input.mode {
        Mode::Buy => unit.is_some(),
        Mode::Rent => per_gpu_hour.is_some(),
    };
    if !priced {
        return Err(Exclusion::NoPrice);
    }
    let fewest = match input.job.gpus_needed(gpu) {
        Ok(0) => return Err(Exclusion::NeverFits),
        Ok(n) => n,
        Err(e) => return Err(Exclusion::Engine { message: e.note() }),
    };
    let needed = fewest.div_ceil(mesh_step(input)).saturating_mul(mesh_step(input));
    let (limit, bridge) = count_limit(input, gpu);
    if needed > limit {
        return Err(Exclusion::TooMany { needed, limit, bridge, at_limit: None });
    }
    let capacity = input.job.capacity_gib(gpu);
    let allowed = capacity * (1.0 - input.headroom);
    Ok((Card { gi, gpu, unit, per_gpu_hour, fewest, capacity, allowed, replica_needed: std::cell::OnceCell::new() }, needed, limit))
}

/// Evaluates `count` cards, keeping in `first_fail` why the card has no candidate so far: the
/// first failure, except that a serving-target miss replaces it unless an earlier miss served as
/// many users, and a deadline miss always replaces it. Continues with the candidate, or with
/// `None` when a larger count may still do; breaks when none will.
fn eval_count(input: &RecommendInput, obj: Objective, card: &Card, count: u32, first_fail: &mut Option<Exclusion>, estimates: &mut usize) -> ControlFlow<(), Option<Cand>> {
    let (gpu, capacity, allowed) = (card.gpu, card.capacity, card.allowed);
    let (figures, tco) = match price(input, gpu, count, card.unit, card.per_gpu_hour) {
        Ok(p) => p,
        Err(x) => {
            first_fail.get_or_insert(x);
            return ControlFlow::Break(());
        }
    };
    *estimates += 1;
    // An LLM inference build's speed is its serving plan's: its estimate is the memory alone.
    let est = match input.job.estimate_ranked(gpu, count, card.fewest) {
        Ok(e) => e,
        Err(e) => {
            first_fail.get_or_insert(Exclusion::Engine { message: e.note() });
            return ControlFlow::Break(());
        }
    };
    if !est.fits {
        first_fail.get_or_insert(Exclusion::NoFit { count, per_gpu_gib: est.per_gpu_gib, capacity_gib: capacity });
        return ControlFlow::Continue(None);
    }
    if est.per_gpu_gib > allowed {
        first_fail.get_or_insert(Exclusion::Headroom { count, headroom: 1.0 - est.per_gpu_gib / capacity });
        return ControlFlow::Continue(None);
    }
    let serving = match deployment(input, card, count) {
        Ok(d) => d,
        Err(message) => {
            first_fail.get_or_insert(Exclusion::Engine { message });
            return ControlFlow::Break(());
        }
    };
    // No serving plan (no replica fits within the headroom): the rate is the estimate's own.
    let est = match (&serving, input.job.is_served()) {
        (None, true) => match input.job.estimate_figures(gpu, count) {
            Ok(e) => e,
            Err(e) => {
                first_fail.get_or_insert(Exclusion::Engine { message: e.note() });
                return ControlFlow::Break(());
            }
        },
        _ => est,
    };
    if let (Some(d), true) = (&serving, has_target(&input.serving)) {
        let (users, served) = target_users(&input.job, &input.serving, d);
        if served < users {
            let t = &input.serving;
            let miss = Exclusion::Target { count, max_users: served, users, tokens_per_s_per_user: t.tokens_per_s_per_user, max_ttft_s: t.max_ttft_s };
            // Keep the closest miss: the count that serves the most users.
            match first_fail {
                Some(Exclusion::Target { max_users, .. }) if *max_users >= served => {}
                _ => *first_fail = Some(miss),
            }
            return ControlFlow::Continue(None);
        }
    }
    let cand = accept(input, obj, card.gi, count, Priced { figures, tco, capacity }, est, serving);
    if let Some(miss) = deadline_miss(input, &cand) {
        *first_fail = Some(miss);
        return ControlFlow::Continue(None);
    }
    ControlFlow::Continue(Some(cand))
}

/// Evaluates every count of one card; pushes the accepted ones and returns why none was
/// accepted (`None` when at least one was). The list is of boxes (see [`Cand`]).
#[allow(clippy::vec_box)]
pub(super) fn eval_card(input: &RecommendInput, obj: Objective, gi: usize, gpu: &Gpu, out: &mut Vec<Box<Cand>>, estimates: &mut usize) -> Option<Exclusion> {
    let (card, needed, limit) = match plan_card(input, gi, gpu) {
        Ok(plan) => plan,
        Err(x) => return Some(x),
    };
    let mut first_fail: Option<Exclusion> = None;
    let mut accepted = false;
    for count in counts(needed, limit, scales_out(input), mesh_step(input)) {
        match eval_count(input, obj, &card, count, &mut first_fail, estimates) {
            ControlFlow::Break(()) => break,
            ControlFlow::Continue(None) => continue,
            ControlFlow::Continue(Some(cand)) => {
                out.push(Box::new(cand));
                accepted = true;
            }
        }
        if scales_out(input) && count > GPUS_PER_NODE {
            // Past one node, more nodes only cost more: the first count that meets the deadline.
            break;
        }
    }
    if accepted {
        None
    } else {
        Some(first_fail.unwrap_or(Exclusion::NeverFits))
    }
}
