//! The recommender's reasons as data: what it found about each option (fit, link and layout,
//! power, cost terms, serving figures, targets met or missed), why popular cards were left out,
//! and notes about the input. Numbers only, in USD and SI units; [`crate::present`] turns them
//! into sentences in the interface language, and `recommend --json` prints them as `facts`
//! (objects with a `kind` and their numbers).

use super::RateKind;
use crate::model::llm::parallel::Layout;
use serde::{Serialize, Serializer};

/// How the cards of a build talk to each other.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Link {
    /// NVLink/NVSwitch between all GPUs of a node (HGX/DGX boards).
    NvlinkNode,
    /// Another baseboard fabric (Infinity Fabric, Gaudi RoCE), named.
    BoardFabric { fabric: Option<String> },
    /// An NVLink bridge joins the cards.
    Bridge { cards: u32 },
    /// NVLink bridges join `cards` at a time; the rest talk over PCIe.
    PartialBridge { cards: u32 },
    /// PCIe without peer-to-peer (GeForce): through host memory.
    PcieViaHost,
    /// PCIe.
    Pcie,
}

/// A multi-GPU layout, serialised as its English description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutFact(pub Layout);

impl Serialize for LayoutFact {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.describe())
    }
}

/// What the power draw asks of the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PowerNeed {
    /// A desktop or workstation: a PSU of `psu_w`.
    Psu,
    /// A server with rack power and cooling.
    Rack,
    /// Renting, or a computer with the GPU built in: nothing to plan.
    None,
}

/// One fact about an option.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fact {
    /// The job fits with this headroom on the busiest card.
    Fit { headroom: f64, per_gpu_gib: f64, usable_gib: f64, asked_headroom: f64 },
    /// The cards' link and the layout the engine runs on it.
    Link {
        link: Link,
        layout: Option<LayoutFact>,
        /// Training: the share of linear scaling kept.
        scaling_efficiency: Option<f64>,
        /// Inference in layer split: extra cards add memory, not speed (unless `pipelined`).
        layer_split: bool,
        /// The engine pipelines requests over the split: the total grows with users, one user's
        /// speed does not.
        pipelined: bool,
        /// Media jobs: each card holds the model and takes a share of the batch.
        data_parallel_media: bool,
    },
    /// A multi-node build.
    Nodes { nodes: u32, gpus_per_node: u32, network_usd_per_node: f64 },
    /// GPU power and what it needs.
    Power { gpu_watts: f64, need: PowerNeed, psu_w: Option<f64>, nodes: u32 },
    /// The catalog has no TDP: energy is not counted.
    NoTdp,
    /// More than four GeForce cards bought for one build: the driver licence forbids datacenters.
    GeforceLicence,
    /// Buying: cards (and host) and the total.
    Purchase {
        count: u32,
        unit_usd: f64,
        /// `street`, `launch`, `your price`… (the price source's label).
        source: &'static str,
        price_date: Option<String>,
        /// The host computer, when it is counted.
        host_usd: Option<f64>,
        host: Option<&'static str>,
        total_usd: f64,
        /// True when the purchase is the figure of the chosen mode (buying).
        chosen: bool,
    },
    /// Renting: per GPU-hour and for the build.
    Rent { count: u32, usd_per_gpu_hour: f64, provider: Option<String>, price_date: Option<String>, usd_per_hour: f64, chosen: bool },
    /// Energy per month (buying).
    Energy { usd_per_month: f64, hours_per_day: f64 },
    /// Total cost over the period.
    Tco { months: f64, tco_usd: f64, monthly_usd: f64 },
    /// Buying pays off against renting after `months` (`period_months`: the horizon).
    BreakEven { months: f64, period_months: f64 },
    /// Renting costs less per month than owning's electricity.
    NeverPaysOff,
    /// How the build serves its users.
    Serving {
        users: f64,
        per_user_tokens_per_s: f64,
        aggregate_tokens_per_s: f64,
        ttft_s: Option<f64>,
        replicas: u32,
        gpus_per_replica: u32,
        capacity: u32,
        /// Prefill-only replicas among `replicas` (0: none), and the KV transfer to a decode replica.
        prefill_replicas: u32,
        kv_transfer_s: f64,
    },
    /// The serving target and whether the build meets it.
    Target { met: bool, users: u32, max_users: u32, tokens_per_s_per_user: Option<f64>, max_ttft_s: Option<f64> },
    /// Cost per million units at the mid rate.
    UnitCost { usd_per_million: f64, rate: f64, rate_kind: RateKind },
    /// Self-hosting against an API price: the monthly output at which both cost the same, and
    /// the most the build can produce in the month's hours.
    ApiBreakEven { api_usd_per_million: f64, break_even_m_tokens_per_month: f64, capacity_m_tokens_per_month: f64 },
    /// One training run.
    TrainingRun { tokens: f64, hours: f64, usd: Option<f64> },
}

/// Why a card has no option.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Exclusion {
    Region,
    Licence,
    NoScaleUpFabric,
    /// "NVLink required", and the card's scale-up fabric is another kind (named).
    OtherFabric { fabric: String },
    NoPrice,
    NoTdp,
    NeverFits,
    /// More cards needed than allowed; `at_limit`: (count, GiB needed per card, GiB usable).
    TooMany { needed: u32, limit: u32, bridge: bool, at_limit: Option<(u32, f64, f64)> },
    NoFit { count: u32, per_gpu_gib: f64, capacity_gib: f64 },
    Headroom { count: u32, headroom: f64 },
    Watts { count: u32, watts: f64 },
    OverBudget { count: u32, over_usd: f64 },
    /// The serving target is missed at every count within the limits: the best build serves
    /// `max_users` of the `users` asked.
    Target { count: u32, max_users: u32, users: u32, tokens_per_s_per_user: Option<f64>, max_ttft_s: Option<f64> },
    /// The training run takes `hours` at the largest count looked at, over the deadline.
    Deadline { count: u32, hours: f64 },
    Engine { message: crate::model::Note },
}

/// A popular card that is not among the options, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WhyNot {
    pub gpu: String,
    pub gpu_name: String,
    /// Ranked below the options shown (fits and is within budget).
    pub rank: Option<usize>,
    pub exclusion: Option<Exclusion>,
}

/// A note about the input as a whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecNote {
    /// The objective applies to LLM training only; ranked by throughput instead.
    ObjectiveFallback { objective: &'static str },
    /// Nothing fit the budget with a host computer added; the options count the cards alone.
    CardsOnly { budget_usd: f64 },
    /// Money is shown in another currency than USD: at `per_usd` units per dollar, the bundled
    /// rate of its date or the user's own.
    Currency { code: &'static str, per_usd: f64, bundled: bool },
}
