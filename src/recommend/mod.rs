//! The recommender: which cards to buy or rent, how many, and why, for one job under a budget.
//!
//! [`recommend`] sizes the job on every (card, count) candidate of the catalog, drops the ones
//! that do not fit (with the user's headroom), break a constraint or exceed the budget, prices the
//! rest with the cost model ([`cost`]) and ranks them by an [`Objective`]. Every option carries
//! its reasons and "how this was computed" lines; popular cards that were left out get a why-not
//! note. The web UI calls it on every keystroke, so it estimates each card only at the counts that
//! can hold the job and pass the budget, and builds strings only for the rows it shows
//! ([`rank`] has the details). Ties are broken by card id, then count, so the output is
//! deterministic. The cost assumptions are listed in `docs/MODEL.md` ("Cost model and recommender").
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod candidates;
pub mod cost;
pub mod facts;
pub mod owned;
pub mod rank;

pub use cost::{
    CostFigures, CostSettings, Currency, EnergySettings, HostEstimate, HostKind, PriceBasis, PriceOverride,
    PriceOverrideError, PriceOverrides, Purchase, RentBasis,
};

use crate::catalog::{self, Gpu};
use crate::model::llm::serving::{ServingReport, ServingTargets};
use crate::model::llm::{self, LlmJob};
use crate::model::{Band, Estimate, EstimateError};

/// The job to size: an LLM job, or a diffusion / classic preset for the media engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    /// A transformer LLM (or encoder) job for [`crate::model::llm`].
    Llm(Box<LlmJob>),
    /// A diffusion or classic preset for [`crate::model::media_preset::estimate_media`].
    Media(MediaJob),
}

pub use crate::model::media_job::MediaJob;

impl Job {
    /// Sizes this job on `gpus` of `gpu`.
    pub fn estimate(&self, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
        match self {
            Job::Llm(job) => llm::estimate_llm(job, gpu, gpus),
            Job::Media(m) => crate::model::media_preset::estimate_media_with(
                &m.model_id,
                m.workload,
                m.precision,
                m.resolution,
                m.steps,
                m.batch,
                m.fp32_math,
                crate::model::media_preset::MediaExtras { frames: m.frames, offload_mode: m.offload_mode },
                gpu,
                gpus,
            )
            .unwrap_or_else(|| Err(EstimateError::invalid("model", crate::model::Note::new("unknown preset `{id}`", vec![("id", m.model_id.as_str().into())])))),
        }
    }

    /// [`Job::estimate`]'s figures without an LLM estimate's assumptions (left empty): what the
    /// ranking needs for every (card, count); the options shown get theirs from
    /// [`Job::estimate`].
    pub fn estimate_figures(&self, gpu: &Gpu, gpus: u32) -> Result<Estimate, EstimateError> {
        match self {
            Job::Llm(job) => llm::estimate_llm_figures(job, gpu, gpus),
            Job::Media(_) => self.estimate(gpu, gpus),
        }
    }

    /// [`Job::estimate_figures`] as the ranking needs it, given the job's [`Job::gpus_needed`] on
    /// the card (`needed`, found once per card): for an LLM inference job without its throughput
    /// (its figures all `None`), since its serving plan gives the ranking its speed.
    pub fn estimate_ranked(&self, gpu: &Gpu, gpus: u32, needed: u32) -> Result<Estimate, EstimateError> {
        match self {
            Job::Llm(job) => llm::estimate_llm_needing(job, gpu, gpus, needed, !self.is_served()),
            Job::Media(_) => self.estimate_figures(gpu, gpus),
        }
    }

    /// The smallest count of `gpu` that holds the job (0: none up to the engine's limit).
    pub fn gpus_needed(&self, gpu: &Gpu) -> Result<u32, EstimateError> {
        match self {
            Job::Llm(job) => llm::gpus_needed(job, gpu),
            Job::Media(_) => self.estimate(gpu, 1).map(|e| e.gpus_needed),
        }
    }

    /// Memory one GPU may use for this job, GiB: the LLM engine's usable share (e.g. vLLM's 90%),
    /// or the whole card for the media engine (`Gpu::usable_memory_gib`: less ECC where it is on).
    pub fn capacity_gib(&self, gpu: &Gpu) -> f64 {
        match self {
            Job::Llm(job) => llm::parallel::usable_gib(gpu, job.engine_for(gpu), job),
            Job::Media(_) => gpu.usable_memory_gib(),
        }
    }

    /// True for jobs whose headline speed is tokens per second.
    pub fn is_llm(&self) -> bool {
        matches!(self, Job::Llm(_))
    }

    /// True for an LLM inference job: the ranking takes its speed from its serving plan.
    pub fn is_served(&self) -> bool {
        matches!(self, Job::Llm(job) if !job.workload.is_training())
    }

    /// True for training and fine-tuning jobs (LLM or media).
    pub fn is_training(&self) -> bool {
        match self {
            Job::Llm(job) => job.workload.is_training(),
            Job::Media(m) => m.workload.is_training(),
        }
    }

    /// Tokens of one training run (LLM training jobs only).
    pub fn train_tokens(&self) -> Option<f64> {
        match self {
            Job::Llm(job) if job.workload.is_training() => Some(job.train_tokens),
            _ => None,
        }
    }
}

/// Buy the cards, or rent them by the hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    #[default]
    Buy,
    Rent,
}

impl Mode {
    /// CLI / URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Buy => "buy",
            Mode::Rent => "rent",
        }
    }

    /// Parses a CLI / URL name.
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "buy" => Some(Mode::Buy),
            "rent" => Some(Mode::Rent),
            _ => None,
        }
    }
}

/// The budget, in USD. A budget of one kind applies in either mode:
/// - `PurchaseUsd`: buying, the purchase total (cards + host); renting, the rent over the period;
/// - `HourlyUsd`: renting, the hourly price of all cards; buying, the TCO per hour of use;
/// - `MonthlyUsd`: the TCO over the period divided by its months.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Budget {
    #[default]
    Unlimited,
    PurchaseUsd(f64),
    HourlyUsd(f64),
    MonthlyUsd(f64),
}

impl Budget {
    /// The budget amount in USD (`None` when unlimited).
    pub fn amount_usd(self) -> Option<f64> {
        match self {
            Budget::Unlimited => None,
            Budget::PurchaseUsd(v) | Budget::HourlyUsd(v) | Budget::MonthlyUsd(v) => Some(v),
        }
    }
}

/// What "best" means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Objective {
    /// The lowest TCO over the period that holds the job.
    #[default]
    Cheapest,
    /// The highest throughput within the budget.
    Fastest,
    /// The most throughput per dollar of TCO.
    Value,
    /// The lowest $ per million tokens (images, samples for media jobs).
    CostPerToken,
    /// The shortest time to train `train_tokens` (LLM training; otherwise the fastest).
    TimeToTrain,
}

impl Objective {
    /// Every objective, in CLI order.
    pub const ALL: [Objective; 5] =
        [Objective::Cheapest, Objective::Fastest, Objective::Value, Objective::CostPerToken, Objective::TimeToTrain];

    /// CLI / URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            Objective::Cheapest => "cheapest",
            Objective::Fastest => "fastest",
            Objective::Value => "value",
            Objective::CostPerToken => "cost-per-token",
            Objective::TimeToTrain => "time-to-train",
        }
    }

    /// Parses a CLI / URL name.
    pub fn parse(s: &str) -> Option<Objective> {
        let lower = s.trim().to_ascii_lowercase().replace('_', "-");
        Objective::ALL.into_iter().find(|o| o.as_str() == lower)
    }
}

/// Hard constraints on the candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraints {
    /// At most this many cards in total.
    pub max_gpus: Option<u32>,
    /// Every option must link its cards by NVLink: SXM baseboards at any count, NVLink-bridge
    /// cards (RTX 3090, RTX A6000, H100 PCIe, …) only as a bridged pair (4 for the H200 NVL).
    pub require_nvlink: bool,
    /// Only cards whose licence allows datacenter deployment (no GeForce).
    pub datacenter_only: bool,
    /// At most this many watts of GPU board power in total.
    pub max_watts: Option<f64>,
    /// Only cards sold new in this region (`global` or `cn`).
    pub region: Option<String>,
    /// Datacenter cards may span several 8-GPU nodes when one node cannot hold the job.
    pub allow_multi_node: bool,
    /// LLM training: the run of `train_tokens` must finish within this many hours; datacenter
    /// cards then scale out by whole nodes (doubling, up to [`crate::model::llm::MAX_GPUS`]) until
    /// one count meets it.
    pub deadline_hours: Option<f64>,
}

impl Default for Constraints {
    fn default() -> Self {
        Constraints {
            max_gpus: None,
            require_nvlink: false,
            datacenter_only: false,
            max_watts: None,
            region: None,
            allow_multi_node: true,
            deadline_hours: None,
        }
    }
}

/// Everything [`recommend`] needs.
#[derive(Debug, Clone, PartialEq)]
pub struct RecommendInput {
    pub job: Job,
    pub budget: Budget,
    pub mode: Mode,
    pub objective: Objective,
    pub constraints: Constraints,
    pub cost: CostSettings,
    /// Memory left free on each GPU, as a fraction of what it may use (0.10 = 10%).
    pub headroom: f64,
    /// How many options to return.
    pub top: usize,
    /// Show each card once, at its best count (the chart still gets every count).
    pub one_per_card: bool,
    /// LLM serving: per-user speed and TTFT targets, arrival rate, prefix cache, speculative
    /// decoding. With a target, only builds that serve the job's users within it are options.
    pub serving: ServingTargets,
    /// Cards the user owns (catalog id, count): the answer is what to add ([`owned`]).
    pub owned: Vec<(String, u32)>,
    /// A mixed build to size beside the ranking (catalog id, count; [`crate::model::llm::mixed`]).
    pub mix: Vec<(String, u32)>,
}

impl RecommendInput {
    /// An input for `job` with every other setting at its default: buy, no budget, cheapest,
    /// 10% headroom, top 10, one row per card.
    pub fn new(job: Job) -> RecommendInput {
        RecommendInput {
            job,
            budget: Budget::Unlimited,
            mode: Mode::Buy,
            objective: Objective::Cheapest,
            constraints: Constraints::default(),
            cost: CostSettings::default(),
            headroom: 0.10,
            top: 10,
            one_per_card: true,
            serving: ServingTargets::default(),
            owned: Vec::new(),
            mix: Vec::new(),
        }
    }
}

/// What a throughput figure counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateKind {
    /// Output tokens per second of a serving deployment (all sequences).
    ServingTokens,
    /// Decode tokens per second (when no serving figure exists).
    DecodeTokens,
    /// Training tokens per second.
    TrainTokens,
    /// Images per second.
    Images,
    /// Training samples per second.
    Samples,
    /// Video clips per second (shown as seconds per video).
    Videos,
}

impl RateKind {
    /// Unit label, e.g. `output tokens/s`.
    pub fn unit(self) -> &'static str {
        match self {
            RateKind::ServingTokens => "output tokens/s",
            RateKind::DecodeTokens => "tokens/s",
            RateKind::TrainTokens => "training tokens/s",
            RateKind::Images => "images/s",
            RateKind::Samples => "samples/s",
            RateKind::Videos => "videos/s",
        }
    }

    /// What one unit is, for "$ per million …".
    pub fn noun(self) -> &'static str {
        match self {
            RateKind::ServingTokens => "output tokens",
            RateKind::DecodeTokens | RateKind::TrainTokens => "tokens",
            RateKind::Images => "images",
            RateKind::Samples => "samples",
            RateKind::Videos => "videos",
        }
    }

    /// For rates people read as seconds per item (images, videos): "per image" or "per video".
    pub fn per_item(self) -> Option<&'static str> {
        match self {
            RateKind::Images => Some("per image"),
            RateKind::Videos => Some("per video"),
            _ => None,
        }
    }

    /// True for token rates.
    pub fn is_tokens(self) -> bool {
        matches!(self, RateKind::ServingTokens | RateKind::DecodeTokens | RateKind::TrainTokens)
    }
}

/// One "how this was computed" line: which number, and its formula with the values used.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    /// The number explained, e.g. `purchase`.
    pub label: &'static str,
    /// The formula with its values, e.g. `8 × $2,000 (street, 2025-06) + $15,000 host = $31,000`.
    pub formula: String,
}

/// One recommended build.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionRow {
    /// Card id.
    pub gpu: String,
    /// Card name.
    pub gpu_name: String,
    /// Cards in total.
    pub count: u32,
    /// Chassis (nodes) of the build.
    pub nodes: u32,
    /// The engine's estimate at `count` cards (memory breakdown, per-GPU memory, throughput).
    pub estimate: Estimate,
    /// Memory one GPU may use, GiB.
    pub capacity_gib: f64,
    /// Fraction of `capacity_gib` left free on the busiest GPU.
    pub headroom: f64,
    /// The headline throughput and what it counts.
    pub rate: Option<(Band, RateKind)>,
    /// Every cost figure, USD.
    pub cost: CostFigures,
    /// TCO over the period in the chosen mode, USD.
    pub tco_usd: f64,
    /// `tco_usd / months`.
    pub monthly_usd: f64,
    /// TCO per hour of use, USD (renting: the hourly price).
    pub effective_hourly_usd: Option<f64>,
    /// USD per million units of `rate` (tokens for LLMs) at the mid throughput.
    pub usd_per_million: Option<f64>,
    /// Hours to train `train_tokens` (LLM training).
    pub training_hours: Option<f64>,
    /// USD of one training run: `training_hours × effective_hourly_usd`.
    pub usd_per_training_run: Option<f64>,
    /// Sort key of the objective (lower is better).
    pub score: f64,
    /// LLM inference: how the build serves its users (replicas, per-user and total speed, TTFT,
    /// the frontier).
    pub serving: Option<ServingFigures>,
    /// What the recommender found, as data ([`crate::present::reasons`] writes the sentences).
    pub facts: Vec<facts::Fact>,
}

/// How an LLM inference build serves its users: `replicas` servers of `gpus_per_replica` cards,
/// with the whole build's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingFigures {
    pub replicas: u32,
    pub gpus_per_replica: u32,
    pub report: ServingReport,
}

impl OptionRow {
    /// The build's purchase total, USD, where the card has a price.
    pub fn purchase_usd(&self) -> Option<f64> {
        self.cost.purchase.map(|p| p.total_usd)
    }

    /// The build's rental price, USD per hour, where the card has one.
    pub fn hourly_usd(&self) -> Option<f64> {
        self.cost.rent_hourly_usd
    }
}

/// One feasible (card, count), for the throughput-against-cost chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub gpu: String,
    pub count: u32,
    /// Mid throughput in the unit of the job's [`RateKind`] (0 when the engine gives none).
    pub throughput_mid: f64,
    /// TCO over the period in the chosen mode, USD.
    pub cost_usd: f64,
    /// True when no other point is both cheaper (or as cheap) and faster (or as fast).
    pub pareto: bool,
}

/// What a pick is the best at, among every feasible build within the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickRole {
    /// The lowest TCO that holds the job and meets its targets (the `cheapest` objective).
    Cheapest,
    /// The most throughput per dollar of TCO (the `value` objective).
    Value,
    /// The highest throughput within the budget (the `fastest` objective).
    Fastest,
}

impl PickRole {
    /// Every role, in the order the picks are shown.
    pub const ALL: [PickRole; 3] = [PickRole::Cheapest, PickRole::Value, PickRole::Fastest];

    /// The objective whose first option this role picks.
    pub fn objective(self) -> Objective {
        match self {
            PickRole::Cheapest => Objective::Cheapest,
            PickRole::Value => Objective::Value,
            PickRole::Fastest => Objective::Fastest,
        }
    }
}

/// One of the three picks shown above the ranked options: a build and the roles it wins (one
/// build can be both the cheapest and the best value).
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub roles: Vec<PickRole>,
    pub row: PickRow,
}

/// Where a pick's build is: among the listed options (most often), or built for the pick alone.
#[derive(Debug, Clone, PartialEq)]
pub enum PickRow {
    /// `options[i]`.
    Listed(usize),
    Own(Box<OptionRow>),
}

/// The result of [`recommend`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Recommendation {
    /// The best options, best first (at most `top`).
    pub options: Vec<OptionRow>,
    /// The cheapest, the best value and the fastest build within the budget, whatever the
    /// objective ranks first; a build that wins two roles is listed once. Value and fastest need
    /// a throughput, so a job without one has only the cheapest.
    pub picks: Vec<Pick>,
    /// Why popular cards are not among the options.
    pub why_not: Vec<facts::WhyNot>,
    /// Every feasible (card, count), sorted by cost then throughput, with the Pareto front marked.
    pub feasible: Vec<Point>,
    /// Notes about the input (e.g. an objective that does not apply).
    pub notes: Vec<facts::RecNote>,
    /// What the throughput figures count (`None` when no option has one).
    pub rate_kind: Option<RateKind>,
    /// Number of (card, count) estimates run.
    pub estimates_run: usize,
}

impl Recommendation {
    /// The build of `pick`.
    pub fn pick_row<'a>(&'a self, pick: &'a Pick) -> Option<&'a OptionRow> {
        match &pick.row {
            PickRow::Listed(i) => self.options.get(*i),
            PickRow::Own(row) => Some(row),
        }
    }

    /// The picks with their builds, in role order.
    pub fn picks(&self) -> impl Iterator<Item = (&[PickRole], &OptionRow)> {
        self.picks
            .iter()
            .filter_map(|p| Some((p.roles.as_slice(), self.pick_row(p)?)))
    }
}

/// Checks the input's numbers, naming the first bad field.
pub fn validate(input: &RecommendInput) -> Result<(), EstimateError> {
    use crate::model::types::check_range;
    check_range("headroom", input.headroom, 0.0, 0.9)?;
    if let Some(v) = input.budget.amount_usd() {
        check_range("budget", v, 0.0, 1e12)?;
    }
    if let Some(w) = input.constraints.max_watts {
        check_range("max_watts", w, 0.0, 1e9)?;
    }
    if let Some(n) = input.constraints.max_gpus {
        check_range("max_gpus", f64::from(n), 1.0, f64::from(llm::MAX_GPUS))?;
    }
    let c = &input.cost;
    check_range("months", c.months, 0.0, 600.0)?;
    check_range("hours_per_day", c.hours_per_day, 0.0, 24.0)?;
    check_range("utilisation", c.energy.utilisation, 0.0, 1.0)?;
    check_range("usd_per_kwh", c.energy.usd_per_kwh, 0.0, 100.0)?;
    check_range("pue", c.energy.pue_desk, 1.0, 5.0)?;
    check_range("pue", c.energy.pue_server, 1.0, 5.0)?;
    if let Some(r) = c.rate_per_usd {
        check_range("rate", r, 1e-6, 1e9)?;
    }
    if let Some(p) = c.api_usd_per_million {
        check_range("api_price", p, 0.0, 1e6)?;
    }
    let t = &input.serving;
    check_range("prefix_hit", t.prefix_hit, 0.0, 1.0)?;
    if let Some(a) = t.spec_accept {
        check_range("spec_accept", a, 0.0, 1.0)?;
    }
    for (field, v) in [("target_tokens_per_s_per_user", t.tokens_per_s_per_user), ("max_ttft_s", t.max_ttft_s), ("arrival_rate", t.arrival_rate_rps)] {
        if let Some(v) = v {
            check_range(field, v, 1e-9, 1e12)?;
        }
    }
    if let Some(r) = &input.constraints.region {
        if r != "global" && r != "cn" {
            return Err(EstimateError::invalid("region", crate::model::Note::new("unknown `{value}` (expected global or cn)", vec![("value", r.as_str().into())])));
        }
    }
    Ok(())
}

/// Ranks every (card, count) of the bundled catalog for `input`. Errors name the bad field
/// (input numbers, or a job the engine rejects on every card).
pub fn recommend(input: &RecommendInput) -> Result<Recommendation, EstimateError> {
    recommend_in(input, catalog::gpus())
}

/// [`recommend`] over a given list of cards (tests, or a filtered catalog).
///
/// A purchase budget counts a host computer by default. When that host is the only reason
/// nothing fits (the cards alone are within the budget), the options are the cards alone, with a
/// note saying so: a buyer with $2,000 for an 8B model means the card.
pub fn recommend_in(input: &RecommendInput, gpus: &[Gpu]) -> Result<Recommendation, EstimateError> {
    let mut ranking = Ranking::new(input.clone(), gpus)?;
    loop {
        if let Some(done) = ranking.step(gpus) {
            return done;
        }
    }
}

/// [`recommend_in`] one card at a time: the web app ranks a few cards per task, between frames,
/// so that a keystroke or the page's start never waits behind a whole ranking. The
/// same steps as [`recommend_in`], which runs them in one go; `gpus` must be the same list at
/// every step.
pub struct Ranking {
    input: RecommendInput,
    partial: rank::Partial,
    /// The first pass's result while the cards-only pass runs (see [`recommend_in`]).
    with_host: Option<Recommendation>,
}

impl Ranking {
    /// Checks the input and starts its ranking over `gpus`.
    pub fn new(mut input: RecommendInput, gpus: &[Gpu]) -> Result<Ranking, EstimateError> {
        validate(&input)?;
        // A training layout leaves the headroom asked for when one can.
        if let Job::Llm(job) = &mut input.job {
            job.layout_headroom = input.headroom;
        }
        let partial = rank::Partial::start(&input, gpus.len())?;
        Ok(Ranking { input, partial, with_host: None })
    }

    /// Evaluates the next card; once every card is done, the result.
    pub fn step(&mut self, gpus: &[Gpu]) -> Option<Result<Recommendation, EstimateError>> {
        if self.partial.step(&self.input, gpus) {
            return None;
        }
        let cards = gpus.len();
        let partial = std::mem::replace(&mut self.partial, rank::Partial::empty());
        let rec = match partial.finish(&self.input, gpus) {
            Ok(rec) => rec,
            Err(e) => return Some(Err(e)),
        };
        if let Some(first) = self.with_host.take() {
            // The cards-only pass is done: its options, if any, else the first pass's answer.
            let Budget::PurchaseUsd(budget_usd) = self.input.budget else { return Some(Ok(first)) };
            if rec.options.is_empty() {
                return Some(Ok(first));
            }
            let mut alt = rec;
            alt.notes.push(facts::RecNote::CardsOnly { budget_usd });
            alt.estimates_run += first.estimates_run;
            return Some(Ok(alt));
        }
        let host_counted = self.input.mode == Mode::Buy && self.input.cost.include_host;
        if rec.options.is_empty() && host_counted && matches!(self.input.budget, Budget::PurchaseUsd(_)) {
            // A purchase budget counts a host computer by default: rank again, cards alone.
            self.input.cost.include_host = false;
            match rank::Partial::start(&self.input, cards) {
                Ok(p) => self.partial = p,
                Err(e) => return Some(Err(e)),
            }
            self.with_host = Some(rec);
            return None;
        }
        Some(Ok(rec))
    }
}
