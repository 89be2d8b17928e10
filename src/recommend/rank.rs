//! Ranking for [`super::recommend`]: the candidates ([`super::candidates`]) sorted by the
//! objective, one per card unless asked otherwise, the chart's points with the Pareto front, and
//! each shown option's facts ([`super::facts`]) and the why-not facts of popular cards left out.
//! Facts are built only for the rows returned, never for the whole catalog; sentences are the
//! presentation layer's ([`crate::present`]).

use super::candidates::{self, effective_objective, nvlink_bridge_size, Cand};
use super::cost::{self, HostKind, PriceSource, GPUS_PER_NODE};
use super::facts::{Exclusion, Fact, LayoutFact, Link, PowerNeed, RecNote, WhyNot};
use super::{
    Job, Mode, OptionRow, Pick, PickRole, PickRow, Point, RecommendInput, Recommendation,
    ServingFigures,
};
use crate::catalog::{Gpu, Segment, Vendor};
use crate::model::llm::{self, parallel, throughput::scaling_efficiency};
use crate::model::EstimateError;

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

fn gpu_id(gpus: &[Gpu], gi: usize) -> &str {
    gpus.get(gi).map_or("", |g| g.id.as_str())
}

/// A ranking under way over a list of cards (the input already validated): the cards evaluated so
/// far. [`super::Ranking`] drives it, one card per step.
pub(crate) struct Partial {
    obj: super::Objective,
    notes: Vec<RecNote>,
    // Boxed: the sort in `finish` moves pointers, not estimates.
    #[allow(clippy::vec_box)]
    cands: Vec<Box<Cand>>,
    exclusions: Vec<Option<Exclusion>>,
    estimates: usize,
}

impl Partial {
    /// Starts a ranking of `input` (already validated) over `cards` cards.
    pub(crate) fn start(input: &RecommendInput, cards: usize) -> Result<Partial, EstimateError> {
        let obj = effective_objective(input);
        let mut notes = Vec::new();
        if obj != input.objective {
            notes.push(RecNote::ObjectiveFallback { objective: input.objective.as_str() });
        }
        let c = &input.cost;
        if c.currency != cost::Currency::Usd {
            let per_usd = c.rate_per_usd.unwrap_or_else(|| c.currency.default_per_usd());
            notes.push(RecNote::Currency { code: c.currency.as_str(), per_usd, bundled: c.rate_per_usd.is_none() });
        }
        if let Job::Llm(job) = &input.job {
            job.validate()?;
        }
        Ok(Partial { obj, notes, cands: Vec::with_capacity(cards * 4), exclusions: Vec::with_capacity(cards), estimates: 0 })
    }

    /// A finished ranking's place holder (nothing evaluated, nothing to rank).
    pub(crate) fn empty() -> Partial {
        Partial { obj: super::Objective::default(), notes: Vec::new(), cands: Vec::new(), exclusions: Vec::new(), estimates: 0 }
    }

    /// Evaluates the next card of `gpus` (every count of it); false once every card is done.
    pub(crate) fn step(&mut self, input: &RecommendInput, gpus: &[Gpu]) -> bool {
        let gi = self.exclusions.len();
        let Some(gpu) = gpus.get(gi) else { return false };
        let x = candidates::eval_card(input, self.obj, gi, gpu, &mut self.cands, &mut self.estimates);
        self.exclusions.push(x);
        true
    }

    /// Ranks what the evaluated cards gave.
    pub(crate) fn finish(self, input: &RecommendInput, gpus: &[Gpu]) -> Result<Recommendation, EstimateError> {
        finish(input, gpus, self)
    }
}

/// Sorts the candidates, picks the options and explains the cards left out.
fn finish(input: &RecommendInput, gpus: &[Gpu], partial: Partial) -> Result<Recommendation, EstimateError> {
    let Partial { notes, mut cands, exclusions, estimates, .. } = partial;
    // A job the engine rejects on every card it tried is an input error, not "nothing fits".
    if cands.is_empty() {
        let mut engine_msg = None;
        let mut other_failure = false;
        for x in &exclusions {
            match x {
                Some(Exclusion::Engine { message }) => engine_msg = engine_msg.or(Some(message)),
                Some(Exclusion::Region | Exclusion::Licence | Exclusion::NoScaleUpFabric | Exclusion::OtherFabric { .. } | Exclusion::NoPrice | Exclusion::NoTdp) => {}
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
    let pick_of = pick_indices(&cands);

    let (options, picks, rank_of_card) = list_options(input, gpus, cands, &pick_of);

    let why_not = why_not(input, gpus, exclusions, &rank_of_card, &options);
    Ok(Recommendation {
        options,
        picks,
        why_not,
        feasible,
        notes,
        rate_kind,
        estimates_run: estimates,
    })
}

/// The options (best first, one per card unless asked otherwise, at most `top`), the picks in
/// role order, and each card's rank among the listed builds (for the why-not notes). A row is
/// built once even when it is both an option and a pick.
#[allow(clippy::vec_box)]
fn list_options(
    input: &RecommendInput,
    gpus: &[Gpu],
    cands: Vec<Box<Cand>>,
    pick_of: &[(PickRole, usize)],
) -> (Vec<OptionRow>, Vec<Pick>, Vec<Option<usize>>) {
    let mut shown = vec![false; gpus.len()];
    let mut rank_of_card: Vec<Option<usize>> = vec![None; gpus.len()];
    let mut options = Vec::with_capacity(input.top.min(cands.len()));
    // (candidate index, where its row is) for the picked candidates, in candidate order.
    let mut picked: Vec<(usize, PickRow)> = Vec::new();
    let mut position = 0usize;
    for (i, c) in cands.into_iter().enumerate() {
        let first_of_card = shown
            .get_mut(c.gi)
            .is_some_and(|seen| !std::mem::replace(seen, true));
        let listed = first_of_card || !input.one_per_card;
        if listed {
            position += 1;
            if let (true, Some(r)) = (first_of_card, rank_of_card.get_mut(c.gi)) {
                *r = Some(position);
            }
        }
        let is_pick = pick_of.iter().any(|(_, at)| *at == i);
        let as_option = listed && options.len() < input.top;
        let Some(gpu) = gpus.get(c.gi).filter(|_| as_option || is_pick) else {
            continue;
        };
        let row = build_row(input, gpu, *c);
        if as_option {
            if is_pick {
                picked.push((i, PickRow::Listed(options.len())));
            }
            options.push(row);
        } else {
            picked.push((i, PickRow::Own(Box::new(row))));
        }
    }
    // In role order; a build that wins two roles is one pick with both.
    let mut picks: Vec<(usize, Pick)> = Vec::new();
    for &(role, at) in pick_of {
        if let Some((_, p)) = picks.iter_mut().find(|(i, _)| *i == at) {
            p.roles.push(role);
        } else if let Some(k) = picked.iter().position(|(i, _)| *i == at) {
            let (_, row) = picked.swap_remove(k);
            picks.push((
                at,
                Pick {
                    roles: vec![role],
                    row,
                },
            ));
        }
    }
    (
        options,
        picks.into_iter().map(|(_, p)| p).collect(),
        rank_of_card,
    )
}

/// For each role, the index of the candidate it picks: the first by that role's objective (ties
/// keep the candidates' order). Value and fastest only when some candidate has a throughput.
fn pick_indices(cands: &[Box<Cand>]) -> Vec<(PickRole, usize)> {
    let has_rate = cands
        .iter()
        .any(|c| c.rate.is_some_and(|(b, _)| b.mid > 0.0));
    PickRole::ALL
        .into_iter()
        .filter(|role| has_rate || *role == PickRole::Cheapest)
        .filter_map(|role| {
            let key = |c: &Cand| candidates::score_for(role.objective(), c);
            let best = cands
                .iter()
                .enumerate()
                .min_by(|(_, a), (_, b)| key(a).total_cmp(&key(b)))?;
            Some((role, best.0))
        })
        .collect()
}

/// Every candidate as a chart point, sorted by cost then throughput (descending), with the Pareto
/// front marked: a point is on it when every cheaper-or-equal point is slower.
fn feasible_points(gpus: &[Gpu], cands: &[Box<Cand>]) -> Vec<Point> {
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

/// PSU rating for a desktop/workstation build: (GPU watts + 250 W for CPU, board and drives) /
/// 0.8, keeping the PSU at or under 80% load (a common sizing rule), rounded up to 100 W.
pub fn psu_watts(gpu_watts: f64) -> f64 {
    ((gpu_watts + 250.0) / 0.8 / 100.0).ceil() * 100.0
}

/// An option shown is analysed in full: the ranking sized every LLM candidate without its
/// assumptions (`Job::estimate_figures`; a served one without its throughput too,
/// `Job::estimate_ranked`) and served it without TTFT or the frontier.
fn analyse_in_full(input: &RecommendInput, gpu: &Gpu, c: &mut Cand) {
    if let Job::Llm(job) = &input.job {
        if let Ok(full) = llm::estimate_llm(job, gpu, c.est.gpus) {
            c.est.assumptions = full.assumptions;
            if c.speed_pending {
                c.est.throughput = full.throughput;
            }
        }
    }
    if let (Some(d), Job::Llm(job)) = (c.serving.as_mut(), &input.job) {
        if let Ok(full) = llm::deploy::full_report(job, gpu, d, &input.serving) {
            d.report = full;
        }
    }
}

/// How the build serves its users, and the serving target it meets (when one was set).
fn serving_facts(input: &RecommendInput, c: &Cand, facts: &mut Vec<Fact>) {
    let Some(d) = &c.serving else { return };
    let r = &d.report;
    facts.push(Fact::Serving {
        users: r.users,
        per_user_tokens_per_s: r.per_user_tokens_per_s.mid,
        aggregate_tokens_per_s: r.aggregate_tokens_per_s.mid,
        ttft_s: r.ttft_s.map(|b| b.mid),
        replicas: d.replicas,
        gpus_per_replica: d.gpus_per_replica,
        capacity: r.capacity,
        prefill_replicas: r.prefill_replicas,
        kv_transfer_s: r.kv_transfer_s,
    });
    if candidates::has_target(&input.serving) {
        let users = match &input.job {
            Job::Llm(j) => j.batch.max(1),
            Job::Media(_) => 1,
        };
        facts.push(Fact::Target {
            met: true,
            users,
            max_users: r.max_users.unwrap_or(users),
            tokens_per_s_per_user: input.serving.tokens_per_s_per_user,
            max_ttft_s: input.serving.max_ttft_s,
        });
    }
}

/// The cost per million units of the rate and the break-even against an API's price, and what a
/// training run takes.
fn unit_cost_facts(input: &RecommendInput, c: &Cand, monthly: f64, usd_per_training_run: Option<f64>, facts: &mut Vec<Fact>) {
    let s = &input.cost;
    if let (Some((band, kind)), Some(per_m)) = (c.rate, c.usd_per_million) {
        facts.push(Fact::UnitCost { usd_per_million: per_m, rate: band.mid, rate_kind: kind });
        if let (Some(api), true) = (s.api_usd_per_million, kind.is_tokens() && !input.job.is_training()) {
            facts.push(Fact::ApiBreakEven {
                api_usd_per_million: api,
                break_even_m_tokens_per_month: if api > 0.0 { monthly / api } else { f64::INFINITY },
                capacity_m_tokens_per_month: band.mid * 3600.0 * s.hours_per_month() / 1e6,
            });
        }
    }
    if let (Some(h), Some(tokens)) = (c.training_hours, input.job.train_tokens()) {
        facts.push(Fact::TrainingRun { tokens, hours: h, usd: usd_per_training_run });
    }
}

/// One option shown: the candidate analysed in full, its figures and its facts.
fn build_row(input: &RecommendInput, gpu: &Gpu, mut c: Cand) -> OptionRow {
    analyse_in_full(input, gpu, &mut c);
    let months = input.cost.months.max(0.0);
    let monthly = if months > 0.0 { c.tco_usd / months } else { c.tco_usd };
    let usd_per_training_run = match (c.training_hours, c.effective_hourly_usd) {
        (Some(h), Some(r)) => Some(h * r),
        _ => None,
    };
    let nodes = c.count.div_ceil(GPUS_PER_NODE);
    let mut facts = Vec::with_capacity(12);
    facts.push(Fact::Fit { headroom: c.headroom, per_gpu_gib: c.est.per_gpu_gib, usable_gib: c.capacity_gib, asked_headroom: input.headroom });
    serving_facts(input, &c, &mut facts);
    if c.count > 1 {
        facts.push(link_fact(input, gpu, &c));
    }
    if nodes > 1 {
        facts.push(Fact::Nodes { nodes, gpus_per_node: GPUS_PER_NODE, network_usd_per_node: cost::MULTI_NODE_NETWORK_PER_NODE_USD });
    }
    power_facts(input, gpu, &c, nodes, &mut facts);
    cost_facts(input, gpu, &c, monthly, &mut facts);
    unit_cost_facts(input, &c, monthly, usd_per_training_run, &mut facts);
    let serving = c.serving.map(|d| ServingFigures { replicas: d.replicas, gpus_per_replica: d.gpus_per_replica, report: d.report });
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
        serving,
        facts,
    }
}

/// Power draw and what it needs, the TDP gap, and the GeForce licence.
fn power_facts(input: &RecommendInput, gpu: &Gpu, c: &Cand, nodes: u32, facts: &mut Vec<Fact>) {
    if let Some(w) = c.cost.watts {
        let host = c.cost.purchase.map_or_else(|| cost::host_estimate(gpu, c.count), |p| p.host);
        let need = match input.mode {
            Mode::Buy if host.is_server() => PowerNeed::Rack,
            Mode::Buy if host.kind != HostKind::Integrated => PowerNeed::Psu,
            _ => PowerNeed::None,
        };
        let psu_w = (need == PowerNeed::Psu).then(|| psu_watts(w));
        facts.push(Fact::Power { gpu_watts: w, need, psu_w, nodes });
    } else {
        facts.push(Fact::NoTdp);
    }
    if input.mode == Mode::Buy && !gpu.datacenter_licence() && c.count > 4 {
        facts.push(Fact::GeforceLicence);
    }
}

/// Purchase, rent, energy, TCO and break-even.
fn cost_facts(input: &RecommendInput, gpu: &Gpu, c: &Cand, monthly: f64, facts: &mut Vec<Fact>) {
    let s = &input.cost;
    let months = s.months.max(0.0);
    if let Some(p) = c.cost.purchase {
        let host = p.host.kind != HostKind::Integrated && s.include_host;
        // A whole machine says so, whatever the host setting: its price is the computer's.
        let whole = p.host.kind == HostKind::Integrated;
        facts.push(Fact::Purchase {
            count: c.count,
            unit_usd: p.unit_usd,
            source: p.source.label(),
            price_date: (p.source == PriceSource::Street).then(|| gpu.street_price_date.clone()).flatten(),
            host_usd: host.then_some(p.host.usd),
            host: (host || whole).then(|| p.host.label()),
            total_usd: p.total_usd,
            chosen: input.mode == Mode::Buy,
        });
    }
    if let Some(h) = c.cost.rent_hourly_usd {
        let hp = cost::hourly_price(gpu, &s.rent_basis, &s.overrides);
        facts.push(Fact::Rent {
            count: c.count,
            usd_per_gpu_hour: c.cost.rent_per_gpu_hour_usd.unwrap_or(0.0),
            provider: hp.as_ref().map(|hp| hp.provider.to_string()),
            price_date: hp.as_ref().map(|hp| hp.date.to_string()).filter(|d| !d.is_empty()),
            usd_per_hour: h,
            chosen: input.mode == Mode::Rent,
        });
    }
    if input.mode == Mode::Buy && c.cost.watts.is_some() {
        facts.push(Fact::Energy { usd_per_month: c.cost.energy_usd_per_month, hours_per_day: s.hours_per_day });
    }
    facts.push(Fact::Tco { months, tco_usd: c.tco_usd, monthly_usd: monthly });
    match c.cost.break_even_month {
        Some(m) if c.cost.purchase.is_some() => facts.push(Fact::BreakEven { months: m, period_months: months }),
        None if c.cost.purchase.is_some() && c.cost.rent_hourly_usd.is_some() && s.hours_per_day > 0.0 => facts.push(Fact::NeverPaysOff),
        _ => {}
    }
}

/// How the cards talk to each other, and what that costs in scaling.
fn link_fact(input: &RecommendInput, gpu: &Gpu, c: &Cand) -> Fact {
    let baseboard = cost::is_baseboard(gpu);
    let link = if gpu.nvlink && baseboard {
        Link::NvlinkNode
    } else if baseboard {
        Link::BoardFabric { fabric: gpu.scale_up_fabric.clone().or_else(|| gpu.interconnect.clone()) }
    } else if gpu.nvlink && c.count <= nvlink_bridge_size(gpu) {
        Link::Bridge { cards: c.count }
    } else if gpu.nvlink {
        Link::PartialBridge { cards: nvlink_bridge_size(gpu) }
    } else if gpu.vendor == Vendor::Nvidia && gpu.segment == Segment::Consumer {
        Link::PcieViaHost
    } else {
        Link::Pcie
    };
    let (layout, scaling_efficiency, layer_split, pipelined) = match &input.job {
        Job::Llm(job) => {
            let engine = job.engine_for(gpu);
            let per_replica = c.serving.as_ref().map_or(c.count, |d| d.gpus_per_replica);
            let terms = llm::memory::terms(job, gpu, engine);
            let layout = llm::layout_for(job, gpu, engine, &terms, per_replica);
            let eff = job.workload.is_training().then(|| scaling_efficiency(job, gpu, &terms, &layout, c.count));
            let split = !job.workload.is_training() && matches!(layout, parallel::Layout::LayerSplit(_));
            (Some(LayoutFact(layout)), eff, split, split && engine.pipelines_requests())
        }
        Job::Media(_) => (None, None, false, false),
    };
    Fact::Link { link, layout, scaling_efficiency, layer_split, pipelined, data_parallel_media: matches!(input.job, Job::Media(_)) }
}

/// Cards a buyer is shown why not beside the popular ones: the cheapest that miss.
const CHEAPEST_MISSES: usize = 3;

/// The why-not facts of the cheapest cards that miss (when buying) and of the popular cards, of
/// those that are not among the options.
fn why_not(input: &RecommendInput, gpus: &[Gpu], exclusions: Vec<Option<Exclusion>>, rank_of_card: &[Option<usize>], options: &[OptionRow]) -> Vec<WhyNot> {
    let cn = input.constraints.region.as_deref() == Some("cn");
    let mut out = Vec::new();
    let popular = POPULAR_GPUS.iter().filter(|id| cn || !matches!(**id, "rtx-4090d" | "h20")).filter_map(|id| gpus.iter().position(|g| g.id == *id));
    for gi in cheapest_misses(input, gpus, &exclusions).into_iter().chain(popular) {
        let id = gpu_id(gpus, gi);
        if options.iter().any(|o| o.gpu == id) || out.iter().any(|w: &WhyNot| w.gpu == id) {
            continue;
        }
        let (Some(gpu), Some(x)) = (gpus.get(gi), exclusions.get(gi)) else { continue };
        let rank = rank_of_card.get(gi).copied().flatten();
        if x.is_none() && rank.is_none() {
            continue;
        }
        let exclusion = match x.clone() {
            Some(Exclusion::TooMany { needed, limit, bridge: false, .. }) => {
                Some(Exclusion::TooMany { needed, limit, bridge: false, at_limit: at_limit(input, gpu, limit) })
            }
            other => other,
        };
        out.push(WhyNot { gpu: gpu.id.clone(), gpu_name: short_name(gpu).to_string(), rank, exclusion });
    }
    out
}

/// Indices of the [`CHEAPEST_MISSES`] cheapest cards (by card price) that some check excluded,
/// when buying; none when renting.
fn cheapest_misses(input: &RecommendInput, gpus: &[Gpu], exclusions: &[Option<Exclusion>]) -> Vec<usize> {
    if input.mode != super::Mode::Buy {
        return Vec::new();
    }
    let s = &input.cost;
    // The few cheapest, kept in order as the cards go by (no sort of the whole catalog).
    let mut cheapest = [(f64::INFINITY, usize::MAX); CHEAPEST_MISSES];
    for (gi, gpu) in gpus.iter().enumerate() {
        if !matches!(exclusions.get(gi), Some(Some(x)) if !matches!(x, Exclusion::Region | Exclusion::NoPrice)) {
            continue;
        }
        let Some((usd, _)) = cost::card_price_usd(gpu, s.price_basis, &s.overrides) else { continue };
        if let Some(at) = cheapest.iter().position(|c| usd < c.0) {
            cheapest.copy_within(at..CHEAPEST_MISSES - 1, at + 1);
            if let Some(slot) = cheapest.get_mut(at) {
                *slot = (usd, gi);
            }
        }
    }
    cheapest.iter().filter(|c| c.1 != usize::MAX).map(|c| c.1).collect()
}

/// Per-card memory at the count limit: (count, GiB needed, GiB usable — the card's memory at ×1).
fn at_limit(input: &RecommendInput, gpu: &Gpu, limit: u32) -> Option<(u32, f64, f64)> {
    let at = limit.clamp(1, llm::MAX_GPUS);
    let e = input.job.estimate(gpu, at).ok()?;
    let has = if at == 1 { gpu.memory_gib } else { input.job.capacity_gib(gpu) };
    Some((at, e.per_gpu_gib, has))
}

/// The card's name without the vendor prefix: "RTX 4090", "H100 SXM".
pub fn short_name(gpu: &Gpu) -> &str {
    short_name_of(&gpu.name)
}

/// [`short_name`] of a name.
pub fn short_name_of(n: &str) -> &str {
    ["NVIDIA GeForce ", "GeForce ", "NVIDIA ", "AMD Instinct ", "AMD Radeon ", "AMD ", "Intel ", "Apple "]
        .iter()
        .find_map(|p| n.strip_prefix(p))
        .unwrap_or(n)
}
