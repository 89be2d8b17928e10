//! The compare view's advisor-dependent figures: prices in the chosen currency, and
//! the "for your job" rows. Expected values are hand calculations from the catalog's own figures.
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::catalog;
use gpu_advisor::compare::{cost_settings, job_row};
use gpu_advisor::present::Money;
use gpu_advisor::recommend::cost::Currency;
use gpu_advisor::recommend::RateKind;
use gpu_advisor::state::advisor::{AdvisorInputs, Field};

fn inputs(pairs: &[(Field, &str)]) -> AdvisorInputs {
    let mut a = AdvisorInputs::default();
    for (f, v) in pairs {
        a.set(*f, (*v).to_string());
    }
    a
}

#[test]
fn compare_prices_follow_the_advisor_currency_and_rate() {
    // RTX 5070 launch price $549 at 100 RUB per USD = 54,900 RUB.
    let c = cost_settings(&inputs(&[(Field::Currency, "rub"), (Field::Rate, "100")]));
    assert_eq!(c.currency, Currency::Rub);
    let launch = catalog::gpu("rtx-5070").unwrap().launch_price_usd.unwrap();
    assert_eq!(c.money(launch), "54,900 ₽");
    // Without a rate, the currency's default rate applies (not USD).
    let c = cost_settings(&inputs(&[(Field::Currency, "eur")]));
    assert_eq!(c.money(1000.0), format!("€{}", gpu_advisor::i18n::num(gpu_advisor::i18n::Lang::En, 1000.0 * Currency::Eur.default_per_usd(), 0)));
}

#[test]
fn compare_prices_keep_the_currency_when_another_input_is_invalid() {
    // A broken months field makes the recommender input fail; the currency must still apply.
    let a = inputs(&[(Field::Currency, "rub"), (Field::Rate, "90"), (Field::Months, "abc")]);
    assert!(a.recommend_input().is_err());
    let c = cost_settings(&a);
    assert_eq!((c.currency, c.rate_per_usd), (Currency::Rub, Some(90.0)));
    assert_eq!(c.money(2.0), "180 ₽", "2 USD x 90 = 180 RUB");
}

#[test]
fn job_rows_say_which_cards_hold_the_job_and_at_what_cost() {
    // Llama 3.1 8B in bf16 (the advisor default): 16 GB of weights. An 8 GB card needs more than
    // one (or none), a 32 GB card holds it alone.
    let input = inputs(&[(Field::Mode, "rent")]).recommend_input().unwrap();
    let big = catalog::gpu("rtx-5090").unwrap();
    let small = catalog::gpu("rtx-5060-ti-8gb").unwrap();
    let r = job_row(&input, big);
    assert_eq!(r.gpus, Some(1));
    let per_user = r.tokens_per_s_per_user.expect("one user's decode speed");
    // One user reads all 16 GB of weights per token: the speed cannot beat bandwidth / weights.
    assert!(per_user > 20.0 && per_user < big.memory_bandwidth_gb_s / 16.0, "{per_user}");
    assert_eq!(r.kind, Some(RateKind::ServingTokens));
    // Rent: $/M = hourly price x cards / (tokens/s x 3600) x 1e6, with the cheapest listed price.
    let hourly = big.cloud.iter().map(|c| c.usd_per_hour).fold(f64::INFINITY, f64::min);
    let rate = input.job.estimate(big, 1).unwrap().throughput.serving_tokens_per_s.unwrap().mid;
    let expected = hourly / (rate * 3600.0) * 1e6;
    assert!((r.usd_per_million.unwrap() - expected).abs() < 1e-9 * expected, "{:?} vs {expected}", r.usd_per_million);
    let s = job_row(&input, small);
    assert_ne!(s.gpus, Some(1), "16 GB of weights do not fit one 8 GB card");
    // No cloud price for the 8 GB card: no rental cost, but the row still says what fits.
    assert_eq!(s.usd_per_million, None);
}
