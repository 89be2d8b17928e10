//! The presentation layer: turns the engine's facts into sentences in en/zh/ru.
//!
//! The engine ([`crate::model`], [`crate::recommend`]) returns numbers, facts and notes (English
//! templates with their values) and writes no sentence in any language; this is the one place
//! that writes them out, for the web page (any language) and the command line (English). It sits
//! above `recommend` and below `state`, `cli` and `ui`:
//! - this file: the recommender's facts ([`crate::recommend::facts`]) as an option's reasons and
//!   its "how this was computed" lines, the why-not notes and the notes about the input;
//! - [`money`]: amounts in the display currency and the reader's number format, and the currency a
//!   reader of each language is shown by default;
//! - [`note`]: an engine note ([`crate::model::Note`]) in the interface language.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod money;
pub mod note;

pub use money::{currency_for_lang, format_money, format_money_in, Money};
pub use note::InLang;

use crate::i18n::{num, t, tf, Lang};
use crate::model::{Arg, Note};
use crate::recommend::cost::{host_estimate, CostSettings, HostKind, RATES_AS_OF};
use crate::recommend::facts::{Exclusion, Fact, Link, PowerNeed, RecNote, WhyNot};
use crate::recommend::owned::{Addition, Pairing};
use crate::recommend::{Explain, Job, Mode, OptionRow, RateKind, RecommendInput, Recommendation};

fn gib(lang: Lang, v: f64) -> String {
    num(lang, v, if v >= 100.0 { 0 } else { 1 })
}

fn watts(lang: Lang, w: f64) -> String {
    format!("{} W", num(lang, w, 0))
}

/// A speed with sensible decimals: 2 under 10, 1 under 100, else none.
pub fn speed(lang: Lang, v: f64) -> String {
    num(lang, v, if v < 10.0 { 2 } else if v < 100.0 { 1 } else { 0 })
}

/// An option's speed in one phrase: per user and in total for LLM serving (one user's speed
/// alone when it serves one), seconds per image or video, else its rate and unit; empty when it
/// has no rate.
pub fn headline_speed(lang: Lang, o: &OptionRow) -> String {
    match (&o.serving, o.rate) {
        (Some(s), _) if s.report.users <= 1.0 => tf(
            lang,
            "{speed} tokens/s for one user",
            &[("speed", &speed(lang, s.report.per_user_tokens_per_s.mid))],
        ),
        (Some(s), _) => tf(
            lang,
            "{per_user} tokens/s per user, {total} in total",
            &[
                ("per_user", &speed(lang, s.report.per_user_tokens_per_s.mid)),
                ("total", &speed(lang, s.report.aggregate_tokens_per_s.mid)),
            ],
        ),
        (None, Some((b, kind))) if b.mid > 0.0 && kind.per_item().is_some() => {
            format!(
                "{} {} {}",
                num(lang, 1.0 / b.mid, 1),
                t(lang, "s"),
                t(lang, kind.per_item().unwrap_or_default())
            )
        }
        (None, Some((b, kind))) => format!("{} {}", speed(lang, b.mid), t(lang, kind.unit())),
        (None, None) => String::new(),
    }
}

/// An option's price in one phrase: to buy, or per hour to rent.
pub fn headline_price(lang: Lang, o: &OptionRow, input: &RecommendInput) -> Option<String> {
    let money = |usd: f64| input.cost.money_in(lang, usd);
    match input.mode {
        Mode::Buy => o
            .purchase_usd()
            .map(|p| tf(lang, "{price} to buy", &[("price", &money(p))])),
        Mode::Rent => o
            .hourly_usd()
            .map(|h| tf(lang, "{price}/h to rent", &[("price", &money(h))])),
    }
}

/// Seconds, with 2 decimals under 10 s.
pub fn seconds(lang: Lang, v: f64) -> String {
    num(lang, v, if v < 10.0 { 2 } else { 0 })
}

/// `1e9` → `1B`, `2.5e12` → `2.5T`.
fn count(lang: Lang, v: f64) -> String {
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

fn hours(lang: Lang, h: f64) -> String {
    if h < 48.0 {
        tf(lang, "{n} h", &[("n", &num(lang, h, 1))])
    } else {
        tf(lang, "{n} days", &[("n", &num(lang, h / 24.0, 1))])
    }
}

/// The option's reasons, one sentence per fact, in `lang` and the display currency.
pub fn reasons(row: &OptionRow, input: &RecommendInput, lang: Lang) -> Vec<String> {
    row.facts.iter().filter_map(|f| reason(f, &input.cost, lang)).collect()
}

/// One fact as a sentence (`None` for facts that are not reasons, e.g. the unchosen price).
pub fn reason(f: &Fact, s: &CostSettings, lang: Lang) -> Option<String> {
    let money = |usd: f64| s.money_in(lang, usd);
    Some(match f {
        Fact::Fit { headroom, per_gpu_gib, usable_gib, .. } => tf(
            lang,
            "fits with {pct}% headroom ({used} of {usable} GiB usable per GPU)",
            &[("pct", &crate::decimal::fixed((headroom * 100.0).max(0.0), 0)), ("used", &gib(lang, *per_gpu_gib)), ("usable", &gib(lang, *usable_gib))],
        ),
        Fact::Link { .. } => link(f, lang)?,
        Fact::Nodes { nodes, gpus_per_node, network_usd_per_node } => tf(
            lang,
            "{nodes} nodes of {per_node}: InfiniBand or RoCE between nodes (+{cost} per node assumed)",
            &[("nodes", &nodes.to_string()), ("per_node", &gpus_per_node.to_string()), ("cost", &money(*network_usd_per_node))],
        ),
        Fact::Power { gpu_watts, need, psu_w, nodes } => match need {
            PowerNeed::Psu => tf(lang, "{watts} of GPU power: needs a {psu}+ PSU", &[("watts", &watts(lang, *gpu_watts)), ("psu", &watts(lang, psu_w.unwrap_or(0.0)))]),
            PowerNeed::Rack if *nodes > 1 => tf(
                lang,
                "{watts} of GPU power ({per_node} per node): a server with rack power and cooling",
                &[("watts", &watts(lang, *gpu_watts)), ("per_node", &watts(lang, gpu_watts / f64::from(*nodes)))],
            ),
            PowerNeed::Rack => tf(lang, "{watts} of GPU power: a server with rack power and cooling", &[("watts", &watts(lang, *gpu_watts))]),
            PowerNeed::None => return None,
        },
        Fact::NoTdp => t(lang, "no TDP in the catalog: energy not counted").into(),
        Fact::GeforceLicence => t(lang, "GeForce: NVIDIA's driver licence does not allow datacenter deployment").into(),
        Fact::Purchase { chosen: true, .. } => tf(lang, "buy: {text}", &[("text", &purchase_text(f, s, lang)?)]),
        Fact::Rent { chosen: true, .. } => tf(lang, "rent: {text}", &[("text", &rent_text(f, s, lang)?)]),
        Fact::Purchase { .. } | Fact::Rent { .. } => return None,
        Fact::Energy { usd_per_month, hours_per_day } => tf(
            lang,
            "energy: {cost}/month at {hours} h/day",
            &[("cost", &money(*usd_per_month)), ("hours", &crate::decimal::fixed(*hours_per_day, 0))],
        ),
        Fact::Tco { months, tco_usd, monthly_usd } => tf(
            lang,
            "{months}-month TCO {tco} ({monthly}/month)",
            &[("months", &crate::decimal::fixed(*months, 0)), ("tco", &money(*tco_usd)), ("monthly", &money(*monthly_usd))],
        ),
        Fact::BreakEven { months, period_months } if months <= period_months => {
            tf(lang, "buying pays off after {m} months against renting", &[("m", &num(lang, *months, 1))])
        }
        Fact::BreakEven { months, period_months } => tf(
            lang,
            "buying pays off only after {m} months against renting (period {months})",
            &[("m", &crate::decimal::fixed(*months, 0)), ("months", &crate::decimal::fixed(*period_months, 0))],
        ),
        Fact::NeverPaysOff => t(lang, "renting costs less per month than the electricity of owning: buying never pays off").into(),
        Fact::Serving { .. } => serving(f, lang)?,
        Fact::Target { .. } => target(f, lang)?,
        Fact::UnitCost { usd_per_million, rate, rate_kind } => unit_cost(*usd_per_million, *rate, *rate_kind, s, lang),
        Fact::ApiBreakEven { .. } => api(f, s, lang)?,
        Fact::TrainingRun { tokens, hours: h, usd } => {
            let took = tf(lang, "training {tokens} tokens takes {time}", &[("tokens", &count(lang, *tokens)), ("time", &hours(lang, *h))]);
            format!("{took}{}", usd.map_or(String::new(), |v| format!(", {}", money(v))))
        }
    })
}

fn purchase_text(f: &Fact, s: &CostSettings, lang: Lang) -> Option<String> {
    let Fact::Purchase { count, unit_usd, source, price_date, host_usd, host, total_usd, .. } = f else { return None };
    let src = if *source == "street" {
        format!("{}, {}", t(lang, "street"), price_date.as_deref().unwrap_or_else(|| t(lang, "undated")))
    } else {
        t(lang, source).to_string()
    };
    Some(match (host_usd, host) {
        (Some(h), Some(label)) => format!(
            "{count} × {} ({src}) + {} {} = {}",
            s.money_in(lang, *unit_usd),
            s.money_in(lang, *h),
            t(lang, label),
            s.money_in(lang, *total_usd)
        ),
        (None, Some(label)) => format!("{count} × {} ({src}), {} = {}", s.money_in(lang, *unit_usd), t(lang, label), s.money_in(lang, *total_usd)),
        _ => format!("{count} × {} ({src}) = {}", s.money_in(lang, *unit_usd), s.money_in(lang, *total_usd)),
    })
}

fn rent_text(f: &Fact, s: &CostSettings, lang: Lang) -> Option<String> {
    let Fact::Rent { count, usd_per_gpu_hour, provider, price_date, usd_per_hour, .. } = f else { return None };
    let who = match (provider, price_date) {
        (Some(p), Some(d)) => format!(" ({p}, {d})"),
        (Some(p), None) => format!(" ({p})"),
        _ => String::new(),
    };
    let (count, price, total) = (count.to_string(), s.money_in(lang, *usd_per_gpu_hour), s.money_in(lang, *usd_per_hour));
    Some(tf(lang, "{count} × {price}/GPU-hour{who} = {total}/h", &[("count", &count), ("price", &price), ("who", &who), ("total", &total)]))
}

fn link(f: &Fact, lang: Lang) -> Option<String> {
    let Fact::Link { link, layout, scaling_efficiency, layer_split, pipelined, data_parallel_media } = f else { return None };
    let l = match link {
        Link::NvlinkNode => t(lang, "NVLink/NVSwitch between all GPUs of a node").to_string(),
        Link::BoardFabric { fabric } => {
            tf(lang, "{fabric} between the GPUs of a node", &[("fabric", fabric.as_deref().unwrap_or_else(|| t(lang, "the baseboard fabric")))])
        }
        Link::Bridge { cards } => tf(lang, "NVLink bridge joins the {count} cards", &[("count", &cards.to_string())]),
        Link::PartialBridge { cards } => tf(lang, "NVLink bridges join {n} cards at a time; the rest talk over PCIe", &[("n", &cards.to_string())]),
        Link::PcieViaHost => t(lang, "PCIe only, without peer-to-peer (GeForce): traffic goes through host memory").to_string(),
        Link::Pcie => t(lang, "PCIe only").to_string(),
    };
    if *data_parallel_media {
        return Some(tf(lang, "{link}: each card holds the whole model and takes a share of the batch", &[("link", &l)]));
    }
    let Some(layout) = layout else { return Some(l) };
    let described = layout.0.describe().in_lang(lang);
    Some(match (scaling_efficiency, layer_split) {
        (None, true) if *pipelined => tf(
            lang,
            "{link}: {layout} — requests are pipelined across the cards, so the total grows with users while one user's speed does not",
            &[("link", &l), ("layout", &described)],
        ),
        (Some(e), _) => tf(
            lang,
            "{link}: {layout} at about {pct}% scaling efficiency",
            &[("link", &l), ("layout", &described), ("pct", &crate::decimal::fixed(e * 100.0, 0))],
        ),
        (None, true) => tf(
            lang,
            "{link}: {layout} — cards run one after another, so extra cards add memory, not speed",
            &[("link", &l), ("layout", &described)],
        ),
        (None, false) => format!("{l}: {described}"),
    })
}

fn serving(f: &Fact, lang: Lang) -> Option<String> {
    let Fact::Serving { users, per_user_tokens_per_s, aggregate_tokens_per_s, ttft_s, replicas, gpus_per_replica, capacity, prefill_replicas, kv_transfer_s } = f else {
        return None;
    };
    let ttft = ttft_s.map_or_else(|| t(lang, "unbounded (requests arrive faster than they are served)").to_string(), |v| seconds(lang, v));
    let mut text = if *users <= 1.0 {
        tf(lang, "one user: {speed} tokens/s, first token in {ttft} s", &[("speed", &speed(lang, *per_user_tokens_per_s)), ("ttft", &ttft)])
    } else {
        tf(
            lang,
            "{users}: {per_user} tokens/s each, {total} tokens/s in total, first token in {ttft} s",
            &[
                ("users", &crate::i18n::users(lang, users.round().max(0.0) as u64)),
                ("per_user", &speed(lang, *per_user_tokens_per_s)),
                ("total", &speed(lang, *aggregate_tokens_per_s)),
                ("ttft", &ttft),
            ],
        )
    };
    let (m, capacity) = (gpus_per_replica.to_string(), capacity.to_string());
    if *prefill_replicas > 0 {
        text.push_str("; ");
        text.push_str(&tf(
            lang,
            "{p} prefill and {d} decode replicas of {m} cards each, a prompt's KV cache moved in {ms} ms, up to {capacity} requests in flight",
            &[("p", &prefill_replicas.to_string()), ("d", &replicas.saturating_sub(*prefill_replicas).to_string()), ("m", &m), ("ms", &num(lang, kv_transfer_s * 1e3, 1)), ("capacity", &capacity)],
        ));
    } else if *replicas > 1 {
        text.push_str("; ");
        text.push_str(&tf(lang, "{k} replicas of {m} cards each, up to {capacity} requests in flight", &[("k", &replicas.to_string()), ("m", &m), ("capacity", &capacity)]));
    }
    Some(text)
}

/// A target as the user typed it: whole numbers without decimals.
pub fn typed(lang: Lang, v: f64) -> String {
    num(lang, v, if v.fract() == 0.0 { 0 } else if (v * 10.0).fract() == 0.0 { 1 } else { 2 })
}

/// "at 20 tokens/s each", "with the first token within 2 s", or both.
fn target_terms(lang: Lang, tps: Option<f64>, ttft: Option<f64>) -> String {
    let speed_part = tps.map(|v| tf(lang, "at {tps} tokens/s each", &[("tps", &typed(lang, v))]));
    let ttft_part = ttft.map(|v| tf(lang, "with the first token within {ttft} s", &[("ttft", &typed(lang, v))]));
    match (speed_part, ttft_part) {
        (Some(a), Some(b)) => format!("{a} {b}"),
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => String::new(),
    }
}

fn target(f: &Fact, lang: Lang) -> Option<String> {
    let Fact::Target { users, max_users, tokens_per_s_per_user, max_ttft_s, .. } = f else { return None };
    Some(tf(
        lang,
        "meets the target: {users} {terms} (up to {max})",
        &[("users", &crate::i18n::users(lang, u64::from(*users))), ("terms", &target_terms(lang, *tokens_per_s_per_user, *max_ttft_s)), ("max", &max_users.to_string())],
    ))
}

fn unit_cost(per_m: f64, rate: f64, kind: RateKind, s: &CostSettings, lang: Lang) -> String {
    // Images are counted per thousand, at seconds per image, as people price them.
    if kind == RateKind::Images && rate > 0.0 {
        return tf(
            lang,
            "{cost} per 1,000 images at {seconds} s per image (mid)",
            &[("cost", &s.money_in(lang, per_m / 1000.0)), ("seconds", &num(lang, 1.0 / rate, 1))],
        );
    }
    if kind == RateKind::Videos && rate > 0.0 {
        return tf(
            lang,
            "{cost} per 1,000 videos at {seconds} s per video (mid)",
            &[("cost", &s.money_in(lang, per_m / 1000.0)), ("seconds", &num(lang, 1.0 / rate, 0))],
        );
    }
    tf(
        lang,
        "{cost} per million {noun} at {rate} {unit} (mid)",
        &[
            ("cost", &s.money_in(lang, per_m)),
            ("noun", t(lang, kind.noun())),
            ("rate", &num(lang, rate, if rate < 10.0 { 2 } else { 0 })),
            ("unit", t(lang, kind.unit())),
        ],
    )
}

fn api(f: &Fact, s: &CostSettings, lang: Lang) -> Option<String> {
    let Fact::ApiBreakEven { api_usd_per_million, break_even_m_tokens_per_month, capacity_m_tokens_per_month } = f else { return None };
    let args = [
        ("price", s.money_in(lang, *api_usd_per_million)),
        ("volume", num(lang, *break_even_m_tokens_per_month, if *break_even_m_tokens_per_month < 10.0 { 1 } else { 0 })),
        ("capacity", num(lang, *capacity_m_tokens_per_month, if *capacity_m_tokens_per_month < 10.0 { 1 } else { 0 })),
    ];
    let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Some(if break_even_m_tokens_per_month <= capacity_m_tokens_per_month {
        tf(lang, "against an API at {price} per million tokens: self-hosting breaks even at {volume}M output tokens a month (this build makes up to {capacity}M)", &args)
    } else {
        tf(lang, "against an API at {price} per million tokens: the API is cheaper at any volume this build can make ({volume}M a month to break even, {capacity}M possible)", &args)
    })
}

/// "How this was computed": one formula per number, with its values (English, display currency).
pub fn explain(row: &OptionRow, input: &RecommendInput) -> Vec<Explain> {
    let s = &input.cost;
    let months = s.months.max(0.0);
    let mut out = Vec::with_capacity(8);
    out.push(Explain {
        label: "headroom",
        formula: format!(
            "1 − {} GiB per GPU / {} GiB usable = {}% (asked for at least {}%)",
            crate::decimal::fixed(row.estimate.per_gpu_gib, 2),
            crate::decimal::fixed(row.capacity_gib, 2),
            crate::decimal::fixed(row.headroom * 100.0, 1),
            crate::decimal::fixed(input.headroom * 100.0, 0)
        ),
    });
    for f in &row.facts {
        match f {
            Fact::Purchase { .. } => out.push(Explain { label: "purchase", formula: purchase_text(f, s, Lang::En).unwrap_or_default() }),
            Fact::Rent { .. } => out.push(Explain { label: "hourly", formula: rent_text(f, s, Lang::En).unwrap_or_default() }),
            Fact::Energy { usd_per_month, .. } => out.push(energy_line(row, s, *usd_per_month)),
            _ => {}
        }
    }
    let c = &row.cost;
    let tco = match input.mode {
        Mode::Buy => format!(
            "{} purchase + {} energy/month × {} months = {}",
            s.money(c.purchase.map_or(0.0, |p| p.total_usd)),
            s.money(c.energy_usd_per_month),
            crate::decimal::fixed(months, 0),
            s.money(row.tco_usd)
        ),
        Mode::Rent => format!(
            "{}/h × {} h/month × {} months = {}",
            s.money(c.rent_hourly_usd.unwrap_or(0.0)),
            crate::decimal::fixed(s.hours_per_month(), 0),
            crate::decimal::fixed(months, 0),
            s.money(row.tco_usd)
        ),
    };
    out.push(Explain { label: "tco", formula: tco });
    out.extend(derived_lines(row, input));
    out
}

fn energy_line(row: &OptionRow, s: &CostSettings, usd_per_month: f64) -> Explain {
    let e = &s.energy;
    Explain {
        label: "energy",
        formula: format!(
            "{} W × {} utilisation × {} h/month × PUE {} × {}/kWh = {}/month",
            crate::decimal::fixed(row.cost.watts.unwrap_or(0.0), 0),
            crate::decimal::fixed(e.utilisation, 2),
            crate::decimal::fixed(s.hours_per_month(), 0),
            crate::decimal::fixed(row.cost.pue, 2),
            s.money(e.usd_per_kwh),
            s.money(usd_per_month)
        ),
    }
}

/// Break-even, cost per unit, API break-even and training-run lines.
fn derived_lines(row: &OptionRow, input: &RecommendInput) -> Vec<Explain> {
    let s = &input.cost;
    let c = &row.cost;
    let mut out = Vec::new();
    for f in &row.facts {
        match f {
            Fact::BreakEven { months, .. } => out.push(Explain {
                label: "break_even",
                formula: format!(
                    "{} purchase / ({}/h × {} h/month − {} energy/month) = {} months",
                    s.money(c.purchase.map_or(0.0, |p| p.total_usd)),
                    s.money(c.rent_hourly_usd.unwrap_or(0.0)),
                    crate::decimal::fixed(s.hours_per_month(), 0),
                    s.money(c.energy_usd_per_month),
                    crate::decimal::fixed(*months, 1)
                ),
            }),
            Fact::UnitCost { usd_per_million, rate, rate_kind } => out.push(Explain {
                label: "usd_per_million",
                formula: format!(
                    "{}/h / ({} {} × 3600 s) × 1,000,000 = {}",
                    s.money(row.effective_hourly_usd.unwrap_or(0.0)),
                    crate::decimal::fixed(*rate, 3),
                    rate_kind.unit(),
                    s.money(*usd_per_million)
                ),
            }),
            Fact::ApiBreakEven { api_usd_per_million, break_even_m_tokens_per_month, capacity_m_tokens_per_month } => out.push(Explain {
                label: "api_break_even",
                formula: format!(
                    "{}/month / {} per M tokens = {} M tokens/month; capacity {} tokens/s × 3600 × {} h/month = {} M",
                    s.money(row.monthly_usd),
                    s.money(*api_usd_per_million),
                    crate::decimal::fixed(*break_even_m_tokens_per_month, 1),
                    crate::decimal::fixed(row.rate.map_or(0.0, |(b, _)| b.mid), 1),
                    crate::decimal::fixed(s.hours_per_month(), 0),
                    crate::decimal::fixed(*capacity_m_tokens_per_month, 1)
                ),
            }),
            Fact::TrainingRun { tokens, hours: h, usd } => out.push(Explain {
                label: "training_run",
                formula: format!(
                    "{} tokens / {} tokens/s / 3600 = {} h; × {}/h = {}",
                    crate::decimal::sci(*tokens, 3),
                    crate::decimal::fixed(row.rate.map_or(0.0, |(b, _)| b.mid), 1),
                    crate::decimal::fixed(*h, 2),
                    s.money(row.effective_hourly_usd.unwrap_or(0.0)),
                    s.money(usd.unwrap_or(0.0))
                ),
            }),
            _ => {}
        }
    }
    out
}

/// The host a purchase of `count` of the why-not card counts (a complete machine of cards that
/// need one), by its label; `None` for the cards alone or a whole machine.
fn counted_host(w: &WhyNot, input: &RecommendInput, count: u32) -> Option<&'static str> {
    if input.mode != Mode::Buy || !input.cost.include_host {
        return None;
    }
    let host = host_estimate(crate::catalog::gpu(&w.gpu)?, count);
    (host.kind != HostKind::Integrated).then(|| host.label())
}

/// A why-not note as a sentence.
pub fn why_not(w: &WhyNot, input: &RecommendInput, lang: Lang) -> String {
    let name = w.gpu_name.as_str();
    let s = &input.cost;
    let at = |count: &u32| format!("{name} ×{count}");
    let Some(x) = &w.exclusion else {
        return tf(lang, "{name}: fits and is within budget, ranked #{rank}", &[("name", name), ("rank", &w.rank.unwrap_or(0).to_string())]);
    };
    let cn = input.constraints.region.as_deref() == Some("cn");
    match x {
        Exclusion::Region if cn => tf(lang, "{name}: not sold new in China", &[("name", name)]),
        Exclusion::Region => tf(lang, "{name}: not sold new in this region", &[("name", name)]),
        Exclusion::Licence => tf(lang, "{name}: GeForce licence does not allow datacenter use", &[("name", name)]),
        Exclusion::NoScaleUpFabric => tf(lang, "{name}: no NVLink or Infinity Fabric", &[("name", name)]),
        Exclusion::OtherFabric { fabric } => tf(lang, "{name}: its {fabric} is not NVLink or Infinity Fabric", &[("name", name), ("fabric", fabric)]),
        Exclusion::NoPrice => match input.mode {
            Mode::Buy => tf(lang, "{name}: no purchase price in the catalog (add one as `{id}:buy=USD`)", &[("name", name), ("id", &w.gpu)]),
            Mode::Rent => tf(lang, "{name}: no cloud price in the catalog (add one as `{id}:hour=USD`)", &[("name", name), ("id", &w.gpu)]),
        },
        Exclusion::NoTdp => tf(lang, "{name}: no TDP in the catalog to check the watt limit", &[("name", name)]),
        Exclusion::NeverFits => tf(lang, "{name}: no number of cards holds this job", &[("name", name)]),
        Exclusion::TooMany { needed, limit, bridge: true, .. } => tf(
            lang,
            "{name}: needs {needed} cards; an NVLink bridge joins only {limit}",
            &[("name", name), ("needed", &needed.to_string()), ("limit", &limit.to_string())],
        ),
        Exclusion::TooMany { needed, limit, at_limit, .. } => {
            let text = tf(
                lang,
                "{name}: needs {needed} cards, more than the {limit} allowed",
                &[("name", name), ("needed", &needed.to_string()), ("limit", &limit.to_string())],
            );
            let detail = match at_limit {
                Some((1, need, has)) => tf(lang, ": ×1 needs {need} GiB, has {has}", &[("need", &gib(lang, *need)), ("has", &num(lang, *has, 0))]),
                Some((at, need, has)) => tf(
                    lang,
                    ": at ×{at} each needs {need} GiB of {has} usable",
                    &[("at", &at.to_string()), ("need", &gib(lang, *need)), ("has", &gib(lang, *has))],
                ),
                None => String::new(),
            };
            format!("{text}{detail}")
        }
        Exclusion::NoFit { count, per_gpu_gib, capacity_gib } => tf(
            lang,
            "{name}: needs {need} GiB per GPU, has {has} usable",
            &[("name", &at(count)), ("need", &gib(lang, *per_gpu_gib)), ("has", &gib(lang, *capacity_gib))],
        ),
        Exclusion::Headroom { count, headroom } => tf(
            lang,
            "{name}: only {pct}% headroom, {asked}% asked",
            &[("name", &at(count)), ("pct", &num(lang, headroom.max(0.0) * 100.0, 1)), ("asked", &crate::decimal::fixed(input.headroom * 100.0, 0))],
        ),
        Exclusion::Watts { count, watts: w } => tf(
            lang,
            "{name}: {watts} of GPU power, over the {limit} limit",
            &[("name", &at(count)), ("watts", &watts(lang, *w)), ("limit", &watts(lang, input.constraints.max_watts.unwrap_or(0.0)))],
        ),
        Exclusion::OverBudget { count, over_usd } => match counted_host(w, input, *count) {
            Some(host) => tf(
                lang,
                "{name}: over budget by {amount}, with the {host} counted",
                &[("name", &at(count)), ("amount", &s.money_in(lang, *over_usd)), ("host", t(lang, host))],
            ),
            None => tf(lang, "{name}: over budget by {amount}", &[("name", &at(count)), ("amount", &s.money_in(lang, *over_usd))]),
        },
        Exclusion::Target { count, max_users, users, tokens_per_s_per_user, max_ttft_s } => tf(
            lang,
            "{name}: serves {max} {terms}, not {users}",
            &[("name", &at(count)), ("max", &crate::i18n::users(lang, u64::from(*max_users))), ("terms", &target_terms(lang, *tokens_per_s_per_user, *max_ttft_s)), ("users", &users.to_string())],
        ),
        Exclusion::Deadline { count, hours } => tf(
            lang,
            "{name}: trains in {hours} h, over the {limit} h deadline",
            &[("name", &at(count)), ("hours", &num(lang, *hours, 0)), ("limit", &num(lang, input.constraints.deadline_hours.unwrap_or(0.0), 0))],
        ),
        Exclusion::Engine { message } => format!("{name}: {}", message.in_lang(lang)),
    }
}

/// Every why-not note of a recommendation as sentences.
pub fn why_not_all(rec: &Recommendation, input: &RecommendInput, lang: Lang) -> Vec<String> {
    rec.why_not.iter().map(|w| why_not(w, input, lang)).collect()
}

/// A note about the input as a sentence.
pub fn note(n: &RecNote, input: &RecommendInput, lang: Lang) -> String {
    match n {
        RecNote::ObjectiveFallback { objective } => {
            tf(lang, "{objective} applies to LLM training jobs; ranked by throughput instead", &[("objective", objective)])
        }
        RecNote::Currency { code, per_usd, bundled } => {
            let source = if *bundled { tf(lang, "bundled rate of {date}", &[("date", RATES_AS_OF)]) } else { t(lang, "your rate").to_string() };
            tf(
                lang,
                "Prices in {code} at {rate} per US dollar ({source}).",
                &[("code", &code.to_ascii_uppercase()), ("rate", &crate::decimal::fixed(*per_usd, 2)), ("source", &source)],
            )
        }
        RecNote::CardsOnly { budget_usd } => tf(
            lang,
            "Nothing fits a budget of {budget} with a host computer added, so these options count the cards alone.",
            &[("budget", &input.cost.money_in(lang, *budget_usd))],
        ),
    }
}

/// The reasons of one "what to add" answer ([`crate::recommend::owned`]): what to buy and for how
/// much, how the owned and added cards run together, and the build's speed and busiest card.
pub fn owned_reasons(a: &Addition, input: &RecommendInput, lang: Lang) -> Vec<String> {
    let s = &input.cost;
    let mut out = Vec::with_capacity(2);
    let card = a.add_gpu.as_deref().and_then(crate::catalog::gpu).map_or_else(String::new, |g| g.name.clone());
    let (n, price) = (a.add_count.to_string(), s.money_in(lang, a.purchase_usd));
    out.push(match a.pairing {
        Pairing::OwnedOnly => t(lang, "nothing to buy: the cards you own hold the job").to_string(),
        Pairing::SameCard => tf(lang, "add {n} × {gpu} for {price}: matching cards, so the engine may split every layer (tensor parallel)", &[("n", &n), ("gpu", &card), ("price", &price)]),
        Pairing::LayerSplit => tf(lang, "add {n} × {gpu} for {price}: with different cards llama.cpp splits the layers by memory, and the cards run one after another", &[("n", &n), ("gpu", &card), ("price", &price)]),
    });
    out.push(tf(
        lang,
        "decodes at {speed} tokens/s; the busiest card holds {gib} GiB",
        &[("speed", &speed(lang, a.decode_tokens_per_s())), ("gib", &gib(lang, a.estimate.per_gpu_gib))],
    ));
    out
}

/// The name of an accuracy set (`data/accuracy.toml`'s ids, `accuracy::row::Set`), in `lang`,
/// for the accuracy page (rendered natively at build time); an id the app does not know stays as
/// written.
#[cfg(not(target_arch = "wasm32"))]
pub fn set_name(lang: Lang, id: &str) -> &str {
    match id {
        "decode" => t(lang, "LLM decode, one request"),
        "prefill" => t(lang, "LLM prompt processing"),
        "serving" => t(lang, "LLM serving, all users"),
        "per-user" => t(lang, "LLM serving, one user's speed"),
        "ttft" => t(lang, "LLM time to first token"),
        "training" => t(lang, "LLM training and fine-tuning speed"),
        "memory" => t(lang, "LLM training memory"),
        "offload" => t(lang, "LLM decode with weights in system RAM"),
        "image" => t(lang, "Image generation"),
        "classic" => t(lang, "Classic vision/NLP training"),
        "video-time" => t(lang, "Video generation time"),
        "video-memory" => t(lang, "Video generation memory"),
        other => other,
    }
}

/// The form's name of a language-model workload, in English (its `data/i18n.toml` key): the one
/// entry a new workload adds to the presentation layer.
pub fn workload_label(w: crate::model::llm::Workload) -> &'static str {
    use crate::model::llm::Workload;
    match w {
        Workload::Inference => "Inference / serving",
        Workload::Training => "Pre-training",
        Workload::FinetuneFull => "Fine-tune (full)",
        Workload::Lora => "Fine-tune (LoRA)",
        Workload::Qlora => "Fine-tune (QLoRA)",
    }
}

/// The form's name of an image, video or classic workload, in English (its `data/i18n.toml`
/// key): the one entry a new media workload adds to the presentation layer.
pub fn media_workload_label(w: crate::model::media_job::MediaWorkload) -> &'static str {
    use crate::model::media_job::MediaWorkload;
    match w {
        MediaWorkload::ImageGeneration => "Image generation",
        MediaWorkload::VideoGeneration => "Video generation",
        MediaWorkload::Inference => "Inference",
        MediaWorkload::Training => "Training",
        MediaWorkload::FinetuneFull => "Fine-tune (full)",
        MediaWorkload::DreamBooth => "Fine-tune (DreamBooth)",
        MediaWorkload::Lora => "Fine-tune (LoRA)",
    }
}

/// How far off an LLM option's headline figure was on measurements the engine did not see, as a
/// note its "how this was computed" lists first (translated when shown): the leave-one-family-out
/// median error of the figure's set (one user: decode, or decode with weights in system RAM; more
/// users: serving throughput; training and fine-tuning: training speed) for the option's engine on
/// the card's GPU family (`catalog::accuracy`), or the set's overall figure when that pair has no
/// rows, saying so. Training rows are grouped by framework, which the app does not choose: always
/// the overall figure. The set names are `set_name`'s, in English.
pub fn held_out(o: &OptionRow, input: &RecommendInput) -> Option<Note> {
    let (Job::Llm(job), Some(gpu)) = (&input.job, crate::catalog::gpu(&o.gpu)) else { return None };
    let family = crate::catalog::accuracy::family_of(gpu);
    let (set, name, engine) = if job.workload != crate::model::llm::Workload::Inference {
        ("training", "LLM training and fine-tuning speed", None)
    } else if o.serving.as_ref().is_some_and(|s| s.report.users > 1.0) {
        ("serving", "LLM serving, all users", Some(job.engine_for(gpu).as_str()))
    } else if o.estimate.offload.is_some() {
        ("offload", "LLM decode with weights in system RAM", Some(job.engine_for(gpu).as_str()))
    } else {
        ("decode", "LLM decode, one request", Some(job.engine_for(gpu).as_str()))
    };
    let h = crate::catalog::accuracy::held_out(set, engine, family)?;
    let args = vec![
        ("set", Note::plain(name).into()),
        ("engine", engine.map_or_else(|| Note::plain("any framework").into(), Arg::from)),
        ("family", family.into()),
        ("pct", crate::decimal::fixed(h.median_error * 100.0, 0).into()),
        ("n", h.rows.to_string().into()),
    ];
    Some(if h.pair {
        Note::new("{set} — {engine} on {family}: {pct}% median error on {n} held-out rows, leave-family-out", args)
    } else {
        Note::new("{set} — {engine} on {family}: no held-out rows for this pair; the set's {pct}% median error on {n} rows, leave-family-out", args)
    })
}
