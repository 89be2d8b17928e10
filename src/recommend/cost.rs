//! The cost model: what a (card, count) build costs to buy, to rent and to run, in USD, and the
//! figures derived from it (TCO over N months, $ per million tokens, $ per training run, the
//! break-even month between buying and renting), plus currencies and vendor price overrides.
//!
//! Everything here is plain arithmetic on catalog prices and [`CostSettings`]; no estimate is
//! needed, so the recommender can apply a budget before it sizes anything. Every assumption (host
//! prices, default utilisation, PUE, exchange rates) is a named constant with its reasoning, and
//! is repeated in `docs/MODEL.md` ("Cost model and recommender"). Amounts are written out (in
//! the display currency and the reader's number format) by the presentation layer,
//! [`crate::present::money`].

use crate::catalog::{schema::is_kebab_id, Gpu, Segment};
use std::collections::BTreeMap;
use std::fmt;

/// Average hours in a month: 365.25 days / 12 months × 24 h = 730.5 h (Gregorian calendar).
pub const HOURS_PER_MONTH_AT_24H: f64 = 365.25 / 12.0 * 24.0;
/// Days in an average month (365.25 / 12).
pub const DAYS_PER_MONTH: f64 = 365.25 / 12.0;

/// Largest number of cards in one node (one chassis). HGX/OAM baseboards hold 8; 4U PCIe GPU
/// servers hold 8 double-width cards (e.g. Supermicro SYS-421GE-TNRT: 8–10 PCIe GPUs).
pub const GPUS_PER_NODE: u32 = 8;

/// Which purchase price a card is bought at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PriceBasis {
    /// The catalog's street price where it has one, else the launch (MSRP) price.
    #[default]
    Street,
    /// The launch (MSRP) price where the catalog has one, else the street price.
    Launch,
}

impl PriceBasis {
    /// CLI / URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            PriceBasis::Street => "street",
            PriceBasis::Launch => "launch",
        }
    }

    /// Parses a CLI / URL name.
    pub fn parse(s: &str) -> Option<PriceBasis> {
        match s.trim().to_ascii_lowercase().as_str() {
            "street" => Some(PriceBasis::Street),
            "launch" | "msrp" => Some(PriceBasis::Launch),
            _ => None,
        }
    }
}

/// Which of the bundled cloud prices a rental is priced at.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum RentBasis {
    /// The lowest on-demand $/GPU-hour in the catalog (often a marketplace such as Vast.ai).
    #[default]
    Cheapest,
    /// The median of the card's bundled prices (the mean of the middle two for an even count).
    Median,
    /// The first provider whose name contains this text (case-insensitive), e.g. `lambda`.
    Provider(String),
}

/// Energy-cost factors: `kWh = TDP × count × utilisation × hours × PUE / 1000`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergySettings {
    /// Average fraction of TDP drawn while the job runs. Default 0.7: LLM decode is memory-bound and
    /// draws well under TDP, training sits near it; 0.7 is a middle value, not a measurement.
    pub utilisation: f64,
    /// Electricity price, USD per kWh. Default 0.15, about the 2024 US residential average of
    /// 16.5 ¢/kWh rounded down (US EIA, Electric Power Monthly, table 5.6.A).
    pub usd_per_kwh: f64,
    /// Power usage effectiveness for desktop and workstation builds (a room at home or in an
    /// office: no cooling overhead counted). Default 1.0.
    pub pue_desk: f64,
    /// Power usage effectiveness for server builds (rack, cooling). Default 1.3, a little better
    /// than the 1.56 industry average of the Uptime Institute Global Data Center Survey 2024 for
    /// a modern colocation hall.
    pub pue_server: f64,
}

impl Default for EnergySettings {
    fn default() -> Self {
        EnergySettings { utilisation: 0.7, usd_per_kwh: 0.15, pue_desk: 1.0, pue_server: 1.3 }
    }
}

/// Display currency. All internal figures are USD; this only changes what is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Currency {
    #[default]
    Usd,
    Cny,
    Rub,
    Eur,
}

/// Date of the default exchange rates (and of the catalog's prices).
pub const RATES_AS_OF: &str = "2025-06";

impl Currency {
    /// Every currency, in UI order.
    pub const ALL: [Currency; 4] = [Currency::Usd, Currency::Cny, Currency::Rub, Currency::Eur];

    /// ISO 4217 code in lowercase (CLI / URL name).
    pub fn as_str(self) -> &'static str {
        match self {
            Currency::Usd => "usd",
            Currency::Cny => "cny",
            Currency::Rub => "rub",
            Currency::Eur => "eur",
        }
    }

    /// Parses an ISO code (any case) or a symbol.
    pub fn parse(s: &str) -> Option<Currency> {
        match s.trim().to_ascii_lowercase().as_str() {
            "usd" | "$" => Some(Currency::Usd),
            "cny" | "rmb" | "¥" => Some(Currency::Cny),
            "rub" | "₽" => Some(Currency::Rub),
            "eur" | "€" => Some(Currency::Eur),
            _ => None,
        }
    }

    /// The symbol printed before (USD, CNY, EUR) or after (RUB) the amount.
    pub fn symbol(self) -> &'static str {
        match self {
            Currency::Usd => "$",
            Currency::Cny => "¥",
            Currency::Rub => "₽",
            Currency::Eur => "€",
        }
    }

    /// Default units of this currency per USD, approximate mid-market rates of June 2025
    /// ([`RATES_AS_OF`]): CNY 7.18 (PBoC central parity), RUB 78.5 (Bank of Russia official
    /// rate), EUR 0.87 (ECB reference rate of about 1.15 USD per EUR). Editable.
    pub fn default_per_usd(self) -> f64 {
        match self {
            Currency::Usd => 1.0,
            Currency::Cny => 7.18,
            Currency::Rub => 78.5,
            Currency::Eur => 0.87,
        }
    }
}

/// One vendor's prices for one card, overriding the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PriceOverride {
    /// Purchase price of one card, USD.
    pub buy_usd: Option<f64>,
    /// Rental price of one card, USD per GPU-hour.
    pub hour_usd: Option<f64>,
}

/// Price overrides by card id. The compact text form (for the URL) is
/// `rtx-4090:buy=1800;hour=0.5,h100-sxm:hour=2.1`; [`PriceOverrides::parse`] reads it and
/// [`PriceOverrides::render`] writes it back, sorted by id.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PriceOverrides(pub BTreeMap<String, PriceOverride>);

/// A part of a price-override string that could not be read. `part` is the offending piece (cut
/// to 40 characters); the message says what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("price override `{part}`: {message}")]
pub struct PriceOverrideError {
    pub part: String,
    pub message: crate::model::Note,
}

impl PriceOverrideError {
    /// The error as a translatable note.
    pub fn note(&self) -> crate::model::Note {
        crate::model::Note::new("price override `{part}`: {message}", vec![("part", self.part.as_str().into()), ("message", self.message.clone().into())])
    }
}

/// Largest purchase price accepted in an override, USD (a whole 8-GPU server is about $400,000).
pub const MAX_OVERRIDE_BUY_USD: f64 = 10_000_000.0;
/// Largest hourly price accepted in an override, USD per GPU-hour.
pub const MAX_OVERRIDE_HOUR_USD: f64 = 1_000.0;
/// Longest override string accepted (a URL parameter; 74 cards × ~40 characters fit).
pub const MAX_OVERRIDES_LEN: usize = 8_192;

fn cut(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

fn bad(part: &str, message: impl Into<crate::model::Note>) -> PriceOverrideError {
    PriceOverrideError { part: cut(part), message: message.into() }
}

impl PriceOverrides {
    /// No overrides.
    pub fn new() -> Self {
        PriceOverrides::default()
    }

    /// The override for card `id`, if any.
    pub fn get(&self, id: &str) -> Option<&PriceOverride> {
        self.0.get(id)
    }

    /// True when there are no overrides.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets (or replaces) the override of card `id`.
    pub fn set(&mut self, id: &str, o: PriceOverride) {
        self.0.insert(id.to_string(), o);
    }

    /// Ids that are not in `known` (for a "unknown card in the price list" note).
    pub fn unknown_ids<'a>(&'a self, known: &'a [Gpu]) -> impl Iterator<Item = &'a str> + 'a {
        self.0.keys().map(String::as_str).filter(move |id| !known.iter().any(|g| g.id == *id))
    }

    /// Parses the compact form. Blank input is no overrides. Entries are separated by `,`, each
    /// is `id:key=value[;key=value]` with keys `buy` (USD per card) and `hour` (USD per
    /// GPU-hour). Never panics; the error names the bad part.
    pub fn parse(s: &str) -> Result<PriceOverrides, PriceOverrideError> {
        let mut out = PriceOverrides::new();
        if s.len() > MAX_OVERRIDES_LEN {
            return Err(bad(s, crate::model::Note::new("longer than {max} characters", vec![("max", MAX_OVERRIDES_LEN.to_string().into())])));
        }
        if s.trim().is_empty() {
            return Ok(out);
        }
        for entry in s.split(',') {
            let entry_t = entry.trim();
            if entry_t.is_empty() {
                return Err(bad(entry, "empty entry (two commas in a row, or a trailing comma)"));
            }
            let (id, rest) = entry_t
                .split_once(':')
                .ok_or_else(|| bad(entry_t, "expected `card-id:buy=USD;hour=USD`"))?;
            let id = id.trim();
            if !is_kebab_id(id) {
                return Err(bad(id, "a card id is lowercase kebab-case, e.g. rtx-4090"));
            }
            if out.0.contains_key(id) {
                return Err(bad(id, "this card is listed twice"));
            }
            let mut o = PriceOverride::default();
            for kv in rest.split(';') {
                let kv_t = kv.trim();
                let (key, value) =
                    kv_t.split_once('=').ok_or_else(|| bad(kv_t, "expected `buy=USD` or `hour=USD`"))?;
                let (slot, max) = match key.trim() {
                    "buy" => (&mut o.buy_usd, MAX_OVERRIDE_BUY_USD),
                    "hour" => (&mut o.hour_usd, MAX_OVERRIDE_HOUR_USD),
                    other => return Err(bad(other, "unknown key (expected `buy` or `hour`)")),
                };
                if slot.is_some() {
                    return Err(bad(kv_t, "this key is given twice for one card"));
                }
                let v = crate::fmath::parse_f64(value.trim()).ok_or_else(|| bad(kv_t, "the price is not a number"))?;
                if !v.is_finite() || v <= 0.0 || v > max {
                    return Err(bad(kv_t, crate::model::Note::new("the price must be above 0 and at most {max}", vec![("max", crate::decimal::plain(max).into())])));
                }
                *slot = Some(v);
            }
            out.0.insert(id.to_string(), o);
        }
        Ok(out)
    }

    /// The compact form, sorted by id; `parse(render(x)) == x`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for (id, o) in &self.0 {
            if o.buy_usd.is_none() && o.hour_usd.is_none() {
                continue;
            }
            if !s.is_empty() {
                s.push(',');
            }
            s.push_str(id);
            s.push(':');
            let mut first = true;
            for (key, v) in [("buy", o.buy_usd), ("hour", o.hour_usd)] {
                if let Some(v) = v {
                    if !first {
                        s.push(';');
                    }
                    first = false;
                    s.push_str(key);
                    s.push('=');
                    s.push_str(&v.to_string());
                }
            }
        }
        s
    }
}

impl std::str::FromStr for PriceOverrides {
    type Err = PriceOverrideError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PriceOverrides::parse(s)
    }
}

impl fmt::Display for PriceOverrides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Everything the cost model needs besides the card and the count.
#[derive(Debug, Clone, PartialEq)]
pub struct CostSettings {
    pub price_basis: PriceBasis,
    pub rent_basis: RentBasis,
    pub energy: EnergySettings,
    /// Display currency.
    pub currency: Currency,
    /// Units of `currency` per USD; `None` uses [`Currency::default_per_usd`].
    pub rate_per_usd: Option<f64>,
    pub overrides: PriceOverrides,
    /// Period of the TCO, months. Default 24.
    pub months: f64,
    /// Hours per day the cards run (and, when renting, are billed). Default 8.
    pub hours_per_day: f64,
    /// Count the host computer or server in a purchase (a complete machine). `false` (the
    /// default): the cards alone, for a PC or server the buyer already has; whole machines (Apple,
    /// Strix Halo, DGX Spark) are priced whole either way and say so.
    pub include_host: bool,
    /// An API's price per million output tokens, USD, to compare self-hosting with (none by
    /// default).
    pub api_usd_per_million: Option<f64>,
}

impl Default for CostSettings {
    fn default() -> Self {
        CostSettings {
            price_basis: PriceBasis::Street,
            rent_basis: RentBasis::Cheapest,
            energy: EnergySettings::default(),
            currency: Currency::Usd,
            rate_per_usd: None,
            overrides: PriceOverrides::new(),
            months: 24.0,
            hours_per_day: 8.0,
            include_host: false,
            api_usd_per_million: None,
        }
    }
}

impl CostSettings {
    /// Units of the display currency per USD.
    pub fn rate(&self) -> f64 {
        match self.rate_per_usd {
            Some(r) if r.is_finite() && r > 0.0 => r,
            _ => self.currency.default_per_usd(),
        }
    }

    /// Hours of use per month: `hours_per_day × 365.25 / 12`.
    pub fn hours_per_month(&self) -> f64 {
        self.hours_per_day.clamp(0.0, 24.0) * DAYS_PER_MONTH
    }

    /// Hours of use over the whole TCO period.
    pub fn hours_total(&self) -> f64 {
        self.hours_per_month() * self.months.max(0.0)
    }
}

/// Where a price came from, for the "how this was computed" text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    /// A vendor override.
    Override,
    /// The catalog's street price (with its date).
    Street,
    /// The catalog's launch (MSRP) price.
    Launch,
}

impl PriceSource {
    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            PriceSource::Override => "override",
            PriceSource::Street => "street",
            PriceSource::Launch => "launch",
        }
    }
}

/// The purchase price of one card, USD, and where it came from; `None` when the catalog has no
/// price and there is no override.
pub fn card_price_usd(gpu: &Gpu, basis: PriceBasis, overrides: &PriceOverrides) -> Option<(f64, PriceSource)> {
    if let Some(v) = overrides.get(&gpu.id).and_then(|o| o.buy_usd) {
        return Some((v, PriceSource::Override));
    }
    let street = gpu.street_price_usd.map(|v| (v, PriceSource::Street));
    let launch = gpu.launch_price_usd.map(|v| (v, PriceSource::Launch));
    match basis {
        PriceBasis::Street => street.or(launch),
        PriceBasis::Launch => launch.or(street),
    }
}

/// The kind of machine the cards go in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// Apple SoC: the price is the whole computer.
    Integrated,
    /// A desktop PC for 1–2 cards.
    Desktop,
    /// A workstation for 3–4 cards (Threadripper / Xeon W class).
    Workstation,
    /// A 2U–4U PCIe GPU server, up to 8 cards per node.
    PcieServer,
    /// An 8-GPU SXM/OAM baseboard server (HGX, OAM UBB), per node.
    BaseboardServer,
}

/// Non-GPU cost of a 1–2 card desktop: CPU, board, 64–128 GB RAM, 1,600 W PSU, case, SSD. An
/// assumption: a parts list at mid-2025 retail prices comes to about this.
pub const HOST_DESKTOP_USD: f64 = 2_500.0;
/// Non-GPU cost of a 3–4 card workstation (Threadripper/Xeon W board with four x16 slots,
/// 256 GB RAM, 2,000 W+ power). An assumption in the middle of the $6,000–8,000 range.
pub const HOST_WORKSTATION_USD: f64 = 7_000.0;
/// Non-GPU cost of a 1–4 card PCIe server (2U, dual CPU, passive cooling for datacenter cards).
pub const HOST_PCIE_SERVER_SMALL_USD: f64 = 8_000.0;
/// Non-GPU cost of an 8-card 4U PCIe server node (dual EPYC/Xeon, 1 TB RAM, 4 × 2 kW PSUs).
pub const HOST_PCIE_SERVER_8_USD: f64 = 15_000.0;
/// Non-GPU part of one 8-GPU SXM/OAM baseboard server node (CPUs, 2 TB RAM, NICs, NVMe, 6 × 3 kW
/// PSUs, NVSwitch baseboard share). An assumption: the low end of what integrators quote above the
/// GPUs themselves; real quotes vary widely.
pub const HOST_BASEBOARD_NODE_USD: f64 = 40_000.0;
/// Extra cost per node of a multi-node build: 400 Gb/s InfiniBand or RoCE NICs, cables and a share
/// of the switch. An assumption.
pub const MULTI_NODE_NETWORK_PER_NODE_USD: f64 = 10_000.0;

/// A host estimate: the machine(s) around the cards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostEstimate {
    pub kind: HostKind,
    /// Number of nodes (chassis).
    pub nodes: u32,
    /// Non-GPU cost of all nodes, including the multi-node network, USD.
    pub usd: f64,
}

impl HostEstimate {
    /// One line saying what was assumed, e.g. `8-GPU PCIe server ($15,000)`.
    pub fn label(&self) -> &'static str {
        match self.kind {
            HostKind::Integrated => "no host (the price is the whole computer)",
            HostKind::Desktop => "desktop PC",
            HostKind::Workstation => "4-slot workstation",
            HostKind::PcieServer => "PCIe GPU server",
            HostKind::BaseboardServer => "8-GPU SXM/OAM baseboard server",
        }
    }

    /// True for server builds, which are charged the server PUE.
    pub fn is_server(&self) -> bool {
        matches!(self.kind, HostKind::PcieServer | HostKind::BaseboardServer)
    }
}

/// True for cards that sit on a baseboard (SXM, OAM, superchip) rather than in a PCIe slot.
pub fn is_baseboard(gpu: &Gpu) -> bool {
    let ff = gpu.form_factor.as_deref().unwrap_or("");
    ["SXM", "OAM", "Superchip", "HGX"].iter().any(|k| ff.contains(k))
}

/// The host a build of `count` × `gpu` needs. Apple: none. SXM/OAM: one 8-GPU baseboard server
/// per 8 cards. Datacenter PCIe (passively cooled): a small server up to 4 cards, an 8-card server
/// beyond. Consumer and workstation cards: a desktop up to 2, a workstation up to 4, an 8-card
/// server up to 8. More than one node adds [`MULTI_NODE_NETWORK_PER_NODE_USD`] per node.
pub fn host_estimate(gpu: &Gpu, count: u32) -> HostEstimate {
    let count = count.max(1);
    let nodes = count.div_ceil(GPUS_PER_NODE);
    // A unified-memory platform (Apple, Strix Halo, DGX Spark) is priced as the whole computer.
    let (kind, per_node) = if gpu.is_unified_computer() {
        (HostKind::Integrated, 0.0)
    } else if is_baseboard(gpu) {
        (HostKind::BaseboardServer, HOST_BASEBOARD_NODE_USD)
    } else if gpu.segment == Segment::Datacenter {
        if count <= 4 {
            (HostKind::PcieServer, HOST_PCIE_SERVER_SMALL_USD)
        } else {
            (HostKind::PcieServer, HOST_PCIE_SERVER_8_USD)
        }
    } else if count <= 2 {
        (HostKind::Desktop, HOST_DESKTOP_USD)
    } else if count <= 4 {
        (HostKind::Workstation, HOST_WORKSTATION_USD)
    } else {
        (HostKind::PcieServer, HOST_PCIE_SERVER_8_USD)
    };
    let network = if nodes > 1 { MULTI_NODE_NETWORK_PER_NODE_USD * f64::from(nodes) } else { 0.0 };
    HostEstimate { kind, nodes, usd: per_node * f64::from(nodes) + network }
}

/// What buying a build costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Purchase {
    /// One card, USD.
    pub unit_usd: f64,
    pub source: PriceSource,
    /// `count × unit_usd`.
    pub gpus_usd: f64,
    pub host: HostEstimate,
    /// `gpus_usd + host.usd`.
    pub total_usd: f64,
}

/// The purchase cost of `count` × `gpu`: cards × price + host; `None` without a price.
pub fn purchase(gpu: &Gpu, count: u32, s: &CostSettings) -> Option<Purchase> {
    let (unit_usd, source) = card_price_usd(gpu, s.price_basis, &s.overrides)?;
    Some(purchase_at(gpu, count, unit_usd, source, s))
}

/// The purchase of `count` cards at a known unit price: the cards plus the host, or the cards
/// alone when `s.include_host` is off.
pub fn purchase_at(gpu: &Gpu, count: u32, unit_usd: f64, source: PriceSource, s: &CostSettings) -> Purchase {
    let mut host = host_estimate(gpu, count);
    if !s.include_host {
        host.usd = 0.0;
    }
    let gpus_usd = unit_usd * f64::from(count);
    Purchase { unit_usd, source, gpus_usd, host, total_usd: gpus_usd + host.usd }
}

/// One card's rental price: USD per GPU-hour and the provider it came from (`override` for a
/// vendor override).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HourlyPrice<'a> {
    pub usd_per_gpu_hour: f64,
    /// Provider name, or `median of N` / `override`.
    pub provider: &'a str,
    /// `YYYY-MM` of the price (empty for an override or a median).
    pub date: &'a str,
}

/// The rental price of one `gpu` per hour under `basis`; `None` when the catalog has no cloud
/// price (or none from the chosen provider) and there is no override.
pub fn hourly_price<'a>(gpu: &'a Gpu, basis: &RentBasis, overrides: &PriceOverrides) -> Option<HourlyPrice<'a>> {
    if let Some(v) = overrides.get(&gpu.id).and_then(|o| o.hour_usd) {
        return Some(HourlyPrice { usd_per_gpu_hour: v, provider: "override", date: "" });
    }
    match basis {
        RentBasis::Cheapest => gpu
            .cloud
            .iter()
            .min_by(|a, b| a.usd_per_hour.total_cmp(&b.usd_per_hour).then_with(|| a.provider.cmp(&b.provider)))
            .map(|c| HourlyPrice { usd_per_gpu_hour: c.usd_per_hour, provider: &c.provider, date: &c.date }),
        RentBasis::Median => {
            let mut v: Vec<f64> = gpu.cloud.iter().map(|c| c.usd_per_hour).collect();
            crate::sort::sort_by(&mut v, f64::total_cmp);
            let n = v.len();
            let mid = if n == 0 {
                None
            } else if n % 2 == 1 {
                v.get(n / 2).copied()
            } else {
                match (v.get(n / 2 - 1), v.get(n / 2)) {
                    (Some(a), Some(b)) => Some((a + b) / 2.0),
                    _ => None,
                }
            };
            mid.map(|m| HourlyPrice { usd_per_gpu_hour: m, provider: "median of the bundled prices", date: "" })
        }
        RentBasis::Provider(p) => {
            let p = p.trim().to_ascii_lowercase();
            gpu.cloud
                .iter()
                .find(|c| !p.is_empty() && c.provider.to_ascii_lowercase().contains(&p))
                .map(|c| HourlyPrice { usd_per_gpu_hour: c.usd_per_hour, provider: &c.provider, date: &c.date })
        }
    }
}

/// Energy in kWh: `watts × utilisation × hours × pue / 1000`.
pub fn energy_kwh(watts: f64, utilisation: f64, hours: f64, pue: f64) -> f64 {
    watts * utilisation * hours * pue / 1000.0
}

/// Energy cost in USD: [`energy_kwh`] × `usd_per_kwh`.
pub fn energy_usd(watts: f64, hours: f64, pue: f64, e: &EnergySettings) -> f64 {
    energy_kwh(watts, e.utilisation, hours, pue) * e.usd_per_kwh
}

/// Total board power of `count` × `gpu`, W; `None` when the catalog has no TDP (Apple SoCs).
pub fn gpus_watts(gpu: &Gpu, count: u32) -> Option<f64> {
    gpu.tdp_w.map(|w| w * f64::from(count))
}

/// The PUE that applies to a build in `host`.
pub fn pue_for(host: &HostEstimate, e: &EnergySettings) -> f64 {
    if host.is_server() {
        e.pue_server
    } else {
        e.pue_desk
    }
}

/// Every cost figure of one (card, count), in USD. Figures that need a price the catalog lacks are
/// `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostFigures {
    pub purchase: Option<Purchase>,
    /// Rental price of the whole build, USD per hour (`count ×` per-GPU price).
    pub rent_hourly_usd: Option<f64>,
    /// Per-GPU rental price the above used.
    pub rent_per_gpu_hour_usd: Option<f64>,
    /// GPU board power, W (`None` without a TDP).
    pub watts: Option<f64>,
    /// PUE used for the energy.
    pub pue: f64,
    /// Energy cost per month of owning, USD (0 without a TDP).
    pub energy_usd_per_month: f64,
    /// Owning over the period: purchase + energy × months.
    pub buy_tco_usd: Option<f64>,
    /// Renting over the period: hourly × hours per month × months.
    pub rent_tco_usd: Option<f64>,
    /// Months after which buying is cheaper than renting (`None`: never within the period
    /// arithmetic, or a price is missing).
    pub break_even_month: Option<f64>,
}

/// Computes [`CostFigures`] for `count` × `gpu`.
pub fn cost_figures(gpu: &Gpu, count: u32, s: &CostSettings) -> CostFigures {
    let purchase = purchase(gpu, count, s);
    let per_gpu = hourly_price(gpu, &s.rent_basis, &s.overrides).map(|h| h.usd_per_gpu_hour);
    cost_figures_with(gpu, count, s, purchase, per_gpu)
}

/// [`cost_figures`] with the purchase and the per-GPU hourly price already looked up (the
/// recommender looks them up once per card).
pub fn cost_figures_with(
    gpu: &Gpu,
    count: u32,
    s: &CostSettings,
    purchase: Option<Purchase>,
    rent_per_gpu_hour_usd: Option<f64>,
) -> CostFigures {
    let n = f64::from(count);
    let host = purchase.map(|p| p.host).unwrap_or_else(|| host_estimate(gpu, count));
    let pue = pue_for(&host, &s.energy);
    let watts = gpus_watts(gpu, count);
    let hours_month = s.hours_per_month();
    let months = s.months.max(0.0);
    let energy_usd_per_month = watts.map_or(0.0, |w| energy_usd(w, hours_month, pue, &s.energy));
    let rent_hourly_usd = rent_per_gpu_hour_usd.map(|h| h * n);
    let buy_tco_usd = purchase.map(|p| p.total_usd + energy_usd_per_month * months);
    let rent_tco_usd = rent_hourly_usd.map(|h| h * hours_month * months);
    let break_even_month = match (purchase, rent_hourly_usd) {
        (Some(p), Some(h)) => break_even_month(p.total_usd, h * hours_month, energy_usd_per_month),
        _ => None,
    };
    CostFigures {
        purchase,
        rent_hourly_usd,
        rent_per_gpu_hour_usd,
        watts,
        pue,
        energy_usd_per_month,
        buy_tco_usd,
        rent_tco_usd,
        break_even_month,
    }
}

/// The month at which owning (`purchase + energy × m`) costs the same as renting (`rent × m`):
/// `m = purchase / (rent_per_month − energy_per_month)`; `None` when renting costs no more per
/// month than the energy of owning (buying never pays off).
pub fn break_even_month(purchase_usd: f64, rent_usd_per_month: f64, energy_usd_per_month: f64) -> Option<f64> {
    let saving = rent_usd_per_month - energy_usd_per_month;
    if saving > 0.0 && purchase_usd.is_finite() && purchase_usd >= 0.0 {
        Some(purchase_usd / saving)
    } else {
        None
    }
}

/// Dollars per million units (tokens, images, samples) at `units_per_s` for a build that costs
/// `usd_per_hour` while it runs: `usd_per_hour / (units_per_s × 3600) × 1e6`.
pub fn usd_per_million(usd_per_hour: f64, units_per_s: f64) -> Option<f64> {
    (units_per_s > 0.0 && usd_per_hour.is_finite()).then(|| usd_per_hour / (units_per_s * 3600.0) * 1e6)
}

/// Hours to process `units` at `units_per_s`.
pub fn hours_for(units: f64, units_per_s: f64) -> Option<f64> {
    (units_per_s > 0.0 && units.is_finite()).then(|| units / units_per_s / 3600.0)
}
