//! `gpu-advisor recommend`: ranks cards and counts for one job under a budget and prints a table
//! or, with `--json`, an array best first (a contract: `gpu`, `count`, `fits`, `per_gpu_gib`,
//! `purchase_usd`, `hourly_usd`, `throughput`, `reasons`, plus extra keys; add, don't rename).
//!
//! The sizing flags are the `estimate` command's, turned into a job by [`super::job`] as there.
//! Bad input is one line and exit code 2.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use super::flags::{SizingArgs, choices, count_value, engine_error, number, real, unknown, value};
use super::{job, write_str, CliError};
use crate::catalog;
use crate::i18n::Lang;
use crate::present::{self, Money};
use crate::model::{Band, Throughput};
use crate::recommend::{
    self, Budget, Currency, Job, MediaJob, Mode, Objective, OptionRow, PriceBasis, PriceOverrides, RecommendInput,
    RentBasis,
};
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;

const HELP: &str = "\
gpu-advisor recommend: which cards, how many, and why, for one job under a budget.

USAGE:
  gpu-advisor recommend
    (--model <preset-id> | --params <e.g. 70b> | --config <config.json>) [--workload …]
    [every sizing flag of `gpu-advisor estimate`, and --train-tokens N for time to train]
    (--budget-usd N | --budget-usd-per-hour N | --budget-usd-per-month N)
    [--mode buy|rent] [--objective cheapest|fastest|value|cost-per-token|time-to-train]
    [--max-gpus N] [--require-nvlink] [--datacenter-only] [--max-watts W] [--region global|cn]
    [--deadline-days D] (training: finish --train-tokens within D days; datacenter cards add nodes)
    [--headroom PERCENT] [--top N] [--all-counts] [--json]
    [--users N] [--target-tokens-per-s-per-user X] [--max-ttft-s Y] [--arrival-rate R]
    [--prefix-hit P] [--spec-decode off|draft|eagle|mtp] [--spec-accept A] [--arrivals random|in-step] [--cuda-graphs on|off] [--moe-layout auto|tp|ep|dep] [--disagg auto|on|off] [--api-price USD]
    [--ram-gib N] [--ram-gb-s BW] [--offload auto|none|layers|experts] [--gpu-share-gib N]
    [--images N] [--image-resolution WxH] (vision-language models) [--backend cuda|rocm|vulkan|metal|sycl|mlx]
    [--owned ID:COUNT,...] (cards you have, at no cost: the answer is what to add)
  Cost settings:
    [--months N] [--hours-per-day H] [--usd-per-kwh X] [--utilisation 0..1] [--pue X]
    [--price-basis street|launch] [--complete-machine | --no-host] [--rent-basis cheapest|median|<provider name>]
    [--prices 'rtx-4090:buy=1800;hour=0.5,h100-sxm:hour=2.1'] [--currency usd|cny|rub|eur] [--rate N]

DEFAULTS:
  no budget; --mode buy with --budget-usd, rent with --budget-usd-per-hour; --objective cheapest;
  --headroom 10; --top 5; --months 24; --hours-per-day 8; --usd-per-kwh 0.15; --utilisation 0.7;
  PUE 1.0 for desktops and 1.3 for servers (--pue sets both); --price-basis street;
  a purchase is the cards alone, for a PC or server you have (--complete-machine adds an estimated
  host PC or server to each card option; Macs, Strix Halo and DGX Spark are whole machines either way);
  --rent-basis cheapest; --currency usd at a June 2025 rate.

OUTPUT:
  A table, or with --json an array best first; each item has gpu, count, fits, per_gpu_gib,
  purchase_usd, hourly_usd (null without a price), throughput (as `estimate --json`), reasons[],
  and gpu_name, nodes, headroom, tco_usd, monthly_usd, energy_usd_per_month,
  usd_per_million_tokens, training_hours, usd_per_training_run, break_even_month, and for LLM
  inference per_user_tokens_per_s, aggregate_tokens_per_s, ttft_s (bands at --users) and max_users
  (the most users meeting --target-tokens-per-s-per-user / --max-ttft-s; null without a target),
  replicas and gpus_per_replica (how the build serves: replicas of tensor-parallel groups),
  prefill_replicas (how many of them only prefill, 0 without prefill/decode disaggregation), and
  facts[] (what the reasons say, as objects with a `kind` and their numbers).
  With a per-user speed or TTFT target, only builds that serve --users within it are options;
  the why-not notes give the gap (e.g. serves 38 users at 20 tokens/s each, not 50).
  --api-price: an API's USD per million output tokens; each option then says at what monthly
  volume self-hosting breaks even with it.
  Budgets and all *_usd keys are in USD whatever --currency is; reasons use --currency.
";

#[derive(Default)]
struct Args {
    s: SizingArgs,
    train_tokens: Option<f64>,
    budgets: Vec<Budget>,
    mode: Option<Mode>,
    objective: Option<Objective>,
    max_gpus: Option<u32>,
    require_nvlink: bool,
    datacenter_only: bool,
    max_watts: Option<f64>,
    deadline_days: Option<f64>,
    region: Option<String>,
    headroom_pct: Option<f64>,
    top: Option<u32>,
    all_counts: bool,
    months: Option<f64>,
    hours_per_day: Option<f64>,
    usd_per_kwh: Option<f64>,
    utilisation: Option<f64>,
    pue: Option<f64>,
    price_basis: Option<PriceBasis>,
    no_host: bool,
    complete_machine: bool,
    rent_basis: Option<RentBasis>,
    prices: Option<PriceOverrides>,
    currency: Option<Currency>,
    rate: Option<f64>,
    api_price: Option<f64>,
    /// `--owned ID:COUNT,...`: cards owned at zero cost; the answer is what to add.
    owned: Option<String>,
    json: bool,
}


fn parse_args(args: Vec<OsString>, out: &mut dyn Write) -> Result<Option<Args>, CliError> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args);
    let mut a = Args::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long(flag) if SizingArgs::FLAGS.contains(&flag) => {
                let flag = flag.to_owned();
                a.s.take(&flag, &mut p)?;
            }
            Long("help") | Short('h') => {
                write_str(out, HELP)?;
                return Ok(None);
            }
            Long("json") => a.json = true,
            Long("owned") => a.owned = Some(value(&mut p, "owned")?),
            Long("train-tokens") => a.train_tokens = Some(count_value(&mut p, "train-tokens")?),
            Long("budget-usd") => a.budgets.push(Budget::PurchaseUsd(real(&mut p, "budget-usd", 0.0, 1e12)?)),
            Long("budget-usd-per-hour") => {
                a.budgets.push(Budget::HourlyUsd(real(&mut p, "budget-usd-per-hour", 0.0, 1e9)?))
            }
            Long("budget-usd-per-month") => {
                a.budgets.push(Budget::MonthlyUsd(real(&mut p, "budget-usd-per-month", 0.0, 1e11)?))
            }
            Long("mode") => {
                let s = value(&mut p, "mode")?;
                a.mode = Some(Mode::parse(&s).ok_or_else(|| CliError(format!("--mode: unknown `{s}` (expected buy|rent)")))?);
            }
            Long("objective") => {
                let s = value(&mut p, "objective")?;
                a.objective = Some(Objective::parse(&s).ok_or_else(|| {
                    CliError(format!("--objective: unknown `{s}` (expected {})", choices(&Objective::ALL, Objective::as_str)))
                })?);
            }
            Long("max-gpus") => a.max_gpus = Some(number(&mut p, "max-gpus")?),
            Long("require-nvlink") => a.require_nvlink = true,
            Long("datacenter-only") => a.datacenter_only = true,
            Long("max-watts") => a.max_watts = Some(real(&mut p, "max-watts", 1.0, 1e9)?),
            Long("deadline-days") => a.deadline_days = Some(real(&mut p, "deadline-days", 0.001, 36_500.0)?),
            Long("region") => {
                let s = value(&mut p, "region")?.trim().to_ascii_lowercase();
                if s != "global" && s != "cn" {
                    return Err(CliError(format!("--region: unknown `{s}` (expected global|cn)")));
                }
                a.region = Some(s);
            }
            Long("headroom") => a.headroom_pct = Some(real(&mut p, "headroom", 0.0, 90.0)?),
            Long("top") => a.top = Some(number(&mut p, "top")?),
            Long("all-counts") => a.all_counts = true,
            Long(flag) if COST_FLAGS.contains(&flag) => {
                let flag = flag.to_owned();
                take_cost(&mut a, &flag, &mut p)?;
            }
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(Some(a))
}




/// The cost settings' flags, without their `--`.
const COST_FLAGS: [&str; 14] = ["months", "hours-per-day", "usd-per-kwh", "utilisation", "utilization", "pue", "no-host", "complete-machine", "api-price", "price-basis", "rent-basis", "prices", "currency", "rate"];

/// Reads the cost flag `--flag` into `a`, taking its value from `p`.
fn take_cost(a: &mut Args, flag: &str, p: &mut lexopt::Parser) -> Result<(), CliError> {
    match flag {
        "months" => a.months = Some(real(p, "months", 0.0, 600.0)?),
        "hours-per-day" => a.hours_per_day = Some(real(p, "hours-per-day", 0.0, 24.0)?),
        "usd-per-kwh" => a.usd_per_kwh = Some(real(p, "usd-per-kwh", 0.0, 100.0)?),
        "utilisation" | "utilization" => a.utilisation = Some(real(p, "utilisation", 0.0, 1.0)?),
        "pue" => a.pue = Some(real(p, "pue", 1.0, 5.0)?),
        "no-host" => a.no_host = true,
        "complete-machine" => a.complete_machine = true,
        "api-price" => a.api_price = Some(real(p, "api-price", 0.0, 1e6)?),
        "price-basis" => {
            let s = value(p, "price-basis")?;
            a.price_basis = Some(
                PriceBasis::parse(&s)
                    .ok_or_else(|| CliError(format!("--price-basis: unknown `{s}` (expected street|launch)")))?,
            );
        }
        "rent-basis" => {
            let s = value(p, "rent-basis")?;
            a.rent_basis = Some(match s.trim().to_ascii_lowercase().as_str() {
                "cheapest" => RentBasis::Cheapest,
                "median" => RentBasis::Median,
                "" => return Err(CliError("--rent-basis: empty (expected cheapest|median|<provider>)".into())),
                other => RentBasis::Provider(other.to_string()),
            });
        }
        "prices" => {
            let s = value(p, "prices")?;
            a.prices = Some(PriceOverrides::parse(&s).map_err(|e| CliError(format!("--prices: {e}")))?);
        }
        "currency" => {
            let s = value(p, "currency")?;
            a.currency = Some(
                Currency::parse(&s)
                    .ok_or_else(|| CliError(format!("--currency: unknown `{s}` (expected usd|cny|rub|eur)")))?,
            );
        }
        "rate" => a.rate = Some(real(p, "rate", 1e-6, 1e9)?),
        _ => {}
    }
    Ok(())
}

/// Builds the job from the sizing flags, with the `estimate` command's defaults.
fn job_from(a: &Args) -> Result<Job, CliError> {
    job::one_model_source(&a.s)?;
    let precision = job::precision(&a.s)?;
    if let Some(id) = job::media_preset(&a.s) {
        job::check_media_flags(&a.s, id, false)?;
        if catalog::diffusion(id).is_none() && catalog::classic(id).is_none() {
            return Err(unknown("model", id, catalog::model_ids()));
        }
        return Ok(Job::Media(MediaJob {
            model_id: id.to_string(),
            workload: job::media_workload(&a.s, id)?,
            precision,
            resolution: a.s.resolution,
            steps: a.s.steps,
            batch: a.s.batch,
            fp32_math: super::flags::fp32_math(&a.s)?,
            frames: a.s.frames,
            offload_mode: a.s.offload_mode,
        }));
    }
    job::model_arch(&a.s)?;
    let mut job = job::llm_job(&a.s, None)?;
    if let Some(t) = a.train_tokens {
        job.train_tokens = t;
    }
    job.validate().map_err(engine_error)?;
    Ok(Job::Llm(Box::new(job)))
}

/// Parses the `recommend` flags in `args` into the job they describe, without ranking anything
/// (what the job-parser fuzz target drives). `None` for `--help`.
pub fn parse_job(args: Vec<OsString>) -> Result<Option<Job>, CliError> {
    let Some(a) = parse_args(args, &mut std::io::sink())? else { return Ok(None) };
    job_from(&a).map(Some)
}

/// Builds the recommender input from the parsed flags.
fn input_from(a: &Args, job: Job) -> Result<RecommendInput, CliError> {
    let budget = match a.budgets.as_slice() {
        [] => Budget::Unlimited,
        [b] => *b,
        _ => return Err(CliError("give at most one of --budget-usd, --budget-usd-per-hour, --budget-usd-per-month".into())),
    };
    let mode = a.mode.unwrap_or(match budget {
        Budget::HourlyUsd(_) => Mode::Rent,
        _ => Mode::Buy,
    });
    let mut input = RecommendInput::new(job);
    input.budget = budget;
    input.mode = mode;
    input.objective = a.objective.unwrap_or_default();
    input.constraints.max_gpus = match a.max_gpus {
        Some(0) => return Err(CliError("--max-gpus: must be at least 1".into())),
        other => other,
    };
    input.constraints.require_nvlink = a.require_nvlink;
    input.constraints.datacenter_only = a.datacenter_only;
    input.constraints.max_watts = a.max_watts;
    input.constraints.deadline_hours = a.deadline_days.map(|d| d * 24.0);
    input.constraints.region = a.region.clone();
    input.headroom = a.headroom_pct.map_or(0.10, |p| p / 100.0);
    input.top = a.top.map_or(5, |t| t.max(1) as usize);
    input.one_per_card = !a.all_counts;
    let c = &mut input.cost;
    if let Some(v) = a.months {
        c.months = v;
    }
    if let Some(v) = a.hours_per_day {
        c.hours_per_day = v;
    }
    if let Some(v) = a.usd_per_kwh {
        c.energy.usd_per_kwh = v;
    }
    if let Some(v) = a.utilisation {
        c.energy.utilisation = v;
    }
    if let Some(v) = a.pue {
        c.energy.pue_desk = v;
        c.energy.pue_server = v;
    }
    if let Some(v) = a.price_basis {
        c.price_basis = v;
    }
    c.include_host = a.complete_machine && !a.no_host;
    if let Some(v) = &a.rent_basis {
        c.rent_basis = v.clone();
    }
    if let Some(v) = &a.prices {
        if let Some(id) = v.unknown_ids(catalog::gpus()).next() {
            return Err(unknown("prices", id, catalog::gpus().iter().map(|g| g.id.as_str())));
        }
        c.overrides = v.clone();
    }
    if let Some(v) = a.currency {
        c.currency = v;
    }
    c.rate_per_usd = a.rate;
    c.api_usd_per_million = a.api_price;
    input.serving = super::flags::serving_targets(&a.s)?;
    Ok(input)
}

/// One option as `recommend --json` prints it. The first eight keys are the contract.
#[derive(Debug, Serialize)]
pub struct RecommendRow<'a> {
    pub gpu: &'a str,
    pub count: u32,
    pub fits: bool,
    pub per_gpu_gib: f64,
    pub purchase_usd: Option<f64>,
    pub hourly_usd: Option<f64>,
    pub throughput: &'a Throughput,
    pub reasons: Vec<String>,
    pub gpu_name: &'a str,
    pub nodes: u32,
    pub headroom: f64,
    pub mode: &'static str,
    pub tco_usd: f64,
    pub monthly_usd: f64,
    pub energy_usd_per_month: f64,
    pub usd_per_million_tokens: Option<f64>,
    pub training_hours: Option<f64>,
    pub usd_per_training_run: Option<f64>,
    pub break_even_month: Option<f64>,
    /// The serving keys (LLM inference only; null otherwise).
    pub per_user_tokens_per_s: Option<Band>,
    pub aggregate_tokens_per_s: Option<Band>,
    pub ttft_s: Option<Band>,
    pub max_users: Option<u32>,
    pub replicas: Option<u32>,
    pub gpus_per_replica: Option<u32>,
    pub prefill_replicas: Option<u32>,
    pub facts: &'a [crate::recommend::facts::Fact],
}

impl<'a> RecommendRow<'a> {
    fn new(o: &'a OptionRow, input: &RecommendInput) -> Self {
        let serving = o.serving.as_ref().map(|s| &s.report);
        RecommendRow {
            gpu: &o.gpu,
            count: o.count,
            fits: o.estimate.fits,
            per_gpu_gib: o.estimate.per_gpu_gib,
            purchase_usd: o.purchase_usd(),
            hourly_usd: o.hourly_usd(),
            throughput: &o.estimate.throughput,
            reasons: present::reasons(o, input, Lang::En),
            gpu_name: &o.gpu_name,
            nodes: o.nodes,
            headroom: o.headroom,
            mode: input.mode.as_str(),
            tco_usd: o.tco_usd,
            monthly_usd: o.monthly_usd,
            energy_usd_per_month: o.cost.energy_usd_per_month,
            usd_per_million_tokens: o.rate.filter(|(_, k)| k.is_tokens()).and(o.usd_per_million),
            training_hours: o.training_hours,
            usd_per_training_run: o.usd_per_training_run,
            break_even_month: o.cost.break_even_month,
            per_user_tokens_per_s: serving.map(|r| r.per_user_tokens_per_s),
            aggregate_tokens_per_s: serving.map(|r| r.aggregate_tokens_per_s),
            ttft_s: serving.and_then(|r| r.ttft_s),
            max_users: serving.and_then(|r| r.max_users),
            replicas: o.serving.as_ref().map(|s| s.replicas),
            gpus_per_replica: o.serving.as_ref().map(|s| s.gpus_per_replica),
            prefill_replicas: serving.map(|r| r.prefill_replicas),
            facts: &o.facts,
        }
    }
}

/// The three picks, one line each: what the build is the best at, card and count, speed, price.
fn picks_text(rec: &recommend::Recommendation, input: &RecommendInput) -> String {
    use crate::recommend::PickRole;
    let mut t = String::new();
    if !rec.picks.is_empty() {
        t.push_str("picks:\n");
    }
    for (roles, o) in rec.picks() {
        let roles: Vec<&str> = roles
            .iter()
            .map(|r| match r {
                PickRole::Cheapest => "cheapest that fits",
                PickRole::Value => "throughput per dollar",
                PickRole::Fastest => "fastest within budget",
            })
            .collect();
        let price = present::headline_price(Lang::En, o, input).unwrap_or_default();
        t.push_str(&format!(
            "  {}: {} × {}  {}  {}\n",
            roles.join(", "),
            o.count,
            o.gpu_name,
            present::headline_speed(Lang::En, o),
            price
        ));
    }
    t
}

/// Parses the recommend flags and prints the ranking.
pub fn cmd_recommend(args: Vec<OsString>, out: &mut dyn Write) -> Result<(), CliError> {
    let Some(a) = parse_args(args, out)? else { return Ok(()) };
    let owned = a.owned.as_deref().map(|o| super::flags::card_counts("owned", o)).transpose()?;
    let job = job_from(&a)?;
    let input = input_from(&a, job)?;
    if let Some(owned) = owned {
        return print_owned(&input, &owned, a.json, out);
    }
    let rec = recommend::recommend(&input).map_err(engine_error)?;
    if a.json {
        let rows: Vec<RecommendRow> = rec.options.iter().map(|o| RecommendRow::new(o, &input)).collect();
        let text = serde_json::to_string_pretty(&rows).map_err(|e| CliError(e.to_string()))?;
        return write_str(out, &format!("{text}\n"));
    }
    let s = &input.cost;
    let mut t = String::new();
    for n in &rec.notes {
        t.push_str(&format!("note: {}\n", present::note(n, &input, Lang::En)));
    }
    if rec.options.is_empty() {
        t.push_str("No option fits within the budget and constraints.\n");
    }
    for (i, o) in rec.options.iter().enumerate() {
        let rate = o.rate.map_or_else(|| "—".to_string(), |(b, k)| format!("{:.1} {}", b.mid, k.unit()));
        let price = match input.mode {
            Mode::Buy => o.purchase_usd().map_or_else(|| "—".into(), |v| s.money(v)),
            Mode::Rent => o.hourly_usd().map_or_else(|| "—".into(), |v| format!("{}/h", s.money(v))),
        };
        t.push_str(&format!(
            "{}. {} × {}  {}  {}  TCO {}\n",
            i + 1,
            o.count,
            o.gpu_name,
            price,
            rate,
            s.money(o.tco_usd)
        ));
        for r in present::reasons(o, &input, Lang::En) {
            t.push_str(&format!("     - {r}\n"));
        }
    }
    t.push_str(&picks_text(&rec, &input));
    if !rec.why_not.is_empty() {
        t.push_str("why not:\n");
        for w in present::why_not_all(&rec, &input, Lang::En) {
            t.push_str(&format!("  - {w}\n"));
        }
    }
    write_str(out, &t)
}

/// One "what to add" answer as `recommend --owned --json` prints it: the contract keys of a
/// recommendation (`gpu` is the card to add, `none` when nothing is needed; `count` how many),
/// then the owned cards, the whole build and how it runs.
#[derive(Debug, Serialize)]
struct OwnedRow<'a> {
    gpu: &'a str,
    count: u32,
    fits: bool,
    per_gpu_gib: f64,
    purchase_usd: Option<f64>,
    hourly_usd: Option<f64>,
    throughput: &'a Throughput,
    reasons: Vec<String>,
    owned: String,
    build: &'a str,
    pairing: crate::recommend::owned::Pairing,
}

/// Prints what to add to the `owned` cards, best first.
fn print_owned(input: &RecommendInput, owned: &[(&catalog::Gpu, u32)], json: bool, out: &mut dyn Write) -> Result<(), CliError> {
    let options = crate::recommend::owned::what_to_add(input, owned, catalog::gpus()).map_err(engine_error)?;
    let owned_text = owned.iter().map(|(g, n)| format!("{}:{n}", g.id)).collect::<Vec<_>>().join(",");
    let rows: Vec<OwnedRow> = options
        .iter()
        .map(|o| OwnedRow {
            gpu: o.add_gpu.as_deref().unwrap_or("none"),
            count: o.add_count,
            fits: o.estimate.fits,
            per_gpu_gib: o.estimate.per_gpu_gib,
            purchase_usd: Some(o.purchase_usd),
            hourly_usd: None,
            throughput: &o.estimate.throughput,
            reasons: present::owned_reasons(o, input, Lang::En),
            owned: owned_text.clone(),
            build: &o.estimate.gpu,
            pairing: o.pairing,
        })
        .collect();
    if json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| CliError(e.to_string()))?;
        return write_str(out, &format!("{text}\n"));
    }
    let mut t = format!("You own {owned_text}. What to add:\n");
    if rows.is_empty() {
        t.push_str("No addition of up to 4 cards of one kind holds the job within the budget and constraints.\n");
    }
    for (i, r) in rows.iter().enumerate() {
        t.push_str(&format!("{}. {} × {}  ({})\n", i + 1, r.count, r.gpu, r.build));
        for reason in &r.reasons {
            t.push_str(&format!("     - {reason}\n"));
        }
    }
    write_str(out, &t)
}
