#![cfg(not(target_arch = "wasm32"))]
//! The cost model: purchase with host, rent, energy, TCO, break-even, $ per million
//! tokens, currencies and price overrides. Every expected number is a hand calculation written
//! next to it, from the catalog values it reads (data/gpus.toml, quoted in the comment).

use gpu_advisor::catalog::{self, Gpu};
use gpu_advisor::present::{format_money, Money};
use gpu_advisor::recommend::cost::{
    self, break_even_month, card_price_usd, cost_figures, energy_usd, host_estimate, hourly_price, usd_per_million,
    CostSettings, Currency, EnergySettings, HostKind, PriceBasis, PriceOverride, PriceOverrides, PriceSource,
    RentBasis,
};
use proptest::prelude::*;

#[track_caller]
fn gpu(id: &str) -> &'static Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("catalog has {id}"))
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!((got - want).abs() <= 1e-6 * want.abs().max(1.0), "got {got}, want {want}");
}

/// Seed 000 (RTX A5000 vs RTX 4090) argues the A5000's 230 W is cheaper to run than the 4090's
/// 450 W. At 8 h/day, 0.7 utilisation, $0.15/kWh, PUE 1.0 (a desktop):
/// hours/month = 8 × 365.25 / 12 = 243.5;
/// A5000: 230 W × 0.7 × 243.5 h / 1000 = 39.2035 kWh × 0.15 = $5.880525;
/// 4090: 450 W × 0.7 × 243.5 h / 1000 = 76.7025 kWh × 0.15 = $11.505375.
#[test]
fn seed_000_a5000_costs_less_to_run_than_4090() {
    let s = CostSettings::default();
    let a5000 = cost_figures(gpu("rtx-a5000"), 1, &s);
    let r4090 = cost_figures(gpu("rtx-4090"), 1, &s);
    close(s.hours_per_month(), 243.5);
    close(a5000.energy_usd_per_month, 5.880525);
    close(r4090.energy_usd_per_month, 11.505375);
    assert!(a5000.energy_usd_per_month < r4090.energy_usd_per_month);
    // The same holds at any fixed hours and price: energy is linear in TDP.
    for (hours, kwh) in [(1.0, 0.05), (24.0, 0.30), (12.0, 0.12)] {
        let e = EnergySettings { usd_per_kwh: kwh, ..EnergySettings::default() };
        assert!(energy_usd(230.0, hours, 1.0, &e) < energy_usd(450.0, hours, 1.0, &e));
    }
}

/// `kWh = W × utilisation × h × PUE / 1000`: 700 W × 0.5 × 100 h × 1.3 / 1000 = 45.5 kWh;
/// × $0.2 = $9.10.
#[test]
fn energy_formula_by_hand() {
    close(cost::energy_kwh(700.0, 0.5, 100.0, 1.3), 45.5);
    let e = EnergySettings { utilisation: 0.5, usd_per_kwh: 0.2, ..EnergySettings::default() };
    close(energy_usd(700.0, 100.0, 1.3, &e), 9.1);
}

#[test]
fn host_depends_on_count_and_card_kind() {
    let r4090 = gpu("rtx-4090");
    assert_eq!(host_estimate(r4090, 1).kind, HostKind::Desktop);
    assert_eq!(host_estimate(r4090, 2).kind, HostKind::Desktop);
    assert_eq!(host_estimate(r4090, 4).kind, HostKind::Workstation);
    assert_eq!(host_estimate(r4090, 8).kind, HostKind::PcieServer);
    close(host_estimate(r4090, 1).usd, 2_500.0);
    close(host_estimate(r4090, 3).usd, 7_000.0);
    close(host_estimate(r4090, 8).usd, 15_000.0);
    // SXM: one HGX node up to 8 GPUs; 16 GPUs = 2 nodes × ($40,000 + $10,000 network) = $100,000.
    let h100 = gpu("h100-sxm");
    assert_eq!(host_estimate(h100, 1).kind, HostKind::BaseboardServer);
    close(host_estimate(h100, 8).usd, 40_000.0);
    let two = host_estimate(h100, 16);
    assert_eq!(two.nodes, 2);
    close(two.usd, 100_000.0);
    // Datacenter PCIe card: a server even for one (passive cooling).
    assert_eq!(host_estimate(gpu("l40s"), 1).kind, HostKind::PcieServer);
    close(host_estimate(gpu("l40s"), 4).usd, 8_000.0);
    // Apple: the price is the computer.
    close(host_estimate(gpu("apple-m3-ultra"), 1).usd, 0.0);
}

/// data/gpus.toml: rtx-4090 launch_price_usd = 1599, street_price_usd = 2000.
/// 8 × $2,000 + $15,000 (8-card PCIe server) = $31,000 as a complete machine; at launch prices
/// 8 × 1,599 + 15,000 = $27,792. By default a purchase is the cards alone: 8 × $2,000 = $16,000.
#[test]
fn purchase_is_cards_plus_host_at_the_chosen_basis() {
    let g = gpu("rtx-4090");
    close(cost::purchase(g, 8, &CostSettings::default()).expect("priced").total_usd, 16_000.0);
    let s = CostSettings { include_host: true, ..CostSettings::default() };
    let p = cost::purchase(g, 8, &s).expect("priced");
    assert_eq!(p.source, PriceSource::Street);
    close(p.total_usd, 31_000.0);
    let launch = CostSettings { price_basis: PriceBasis::Launch, include_host: true, ..CostSettings::default() };
    let p = cost::purchase(g, 8, &launch).expect("priced");
    assert_eq!(p.source, PriceSource::Launch);
    close(p.total_usd, 27_792.0);
    // No price, no purchase (the H200 NVL has none in the catalog); an override supplies one,
    // and wins over a catalog price (h100-sxm's street price is $27,500).
    assert!(cost::purchase(gpu("h200-nvl"), 8, &s).is_none());
    let mut o = PriceOverrides::new();
    o.set("h100-sxm", PriceOverride { buy_usd: Some(25_000.0), hour_usd: None });
    let s = CostSettings { overrides: o, include_host: true, ..CostSettings::default() };
    // 8 × 25,000 + 40,000 = 240,000.
    close(cost::purchase(gpu("h100-sxm"), 8, &s).expect("override").total_usd, 240_000.0);
    assert_eq!(card_price_usd(gpu("h100-sxm"), PriceBasis::Street, &s.overrides).map(|x| x.1), Some(PriceSource::Override));
}

/// data/gpus.toml, h100-sxm cloud: Lambda 3.78, RunPod 2.69, AWS 12.29, CoreWeave 4.76.
/// Cheapest 2.69 (RunPod); median of [2.69, 3.78, 4.76, 12.29] = (3.78 + 4.76) / 2 = 4.27;
/// provider "lambda" = 3.78.
#[test]
fn rent_cheapest_median_and_provider() {
    let g = gpu("h100-sxm");
    let none = PriceOverrides::new();
    let c = hourly_price(g, &RentBasis::Cheapest, &none).expect("cheapest");
    close(c.usd_per_gpu_hour, 2.69);
    assert_eq!(c.provider, "RunPod");
    close(hourly_price(g, &RentBasis::Median, &none).expect("median").usd_per_gpu_hour, 4.27);
    close(hourly_price(g, &RentBasis::Provider("lambda".into()), &none).expect("lambda").usd_per_gpu_hour, 3.78);
    assert!(hourly_price(g, &RentBasis::Provider("nobody".into()), &none).is_none());
    // A card without cloud prices cannot be rented unless overridden.
    assert!(hourly_price(gpu("rtx-a4500"), &RentBasis::Cheapest, &none).is_none());
}

/// Break-even: $31,000 purchase, renting 8 × $0.34/h for 243.5 h/month = $662.32/month, energy
/// $50/month: 31,000 / (662.32 − 50) = 50.6273... months. Renting cheaper than energy: never.
#[test]
fn break_even_by_hand() {
    let rent = 8.0 * 0.34 * 243.5;
    close(rent, 662.32);
    close(break_even_month(31_000.0, rent, 50.0).expect("pays off"), 31_000.0 / 612.32);
    assert_eq!(break_even_month(31_000.0, 40.0, 50.0), None);
}

/// TCO: rent 3 × $2.69/h (h100-sxm cheapest) × 243.5 h/month × 24 months = $47,151.34.
#[test]
fn tco_rent_by_hand() {
    let f = cost_figures(gpu("h100-sxm"), 3, &CostSettings::default());
    close(f.rent_hourly_usd.expect("hourly"), 8.07);
    close(f.rent_tco_usd.expect("tco"), 8.07 * 243.5 * 24.0);
    // a100-40gb-sxm has cloud prices but no purchase price in the catalog: rent only.
    let f = cost_figures(gpu("a100-40gb-sxm"), 1, &CostSettings::default());
    assert!(f.rent_hourly_usd.is_some() && f.buy_tco_usd.is_none());
}

/// $2/h at 1,000 tokens/s: 2 / 3,600,000 tokens × 1e6 = $0.5555...; zero throughput: none.
#[test]
fn usd_per_million_by_hand() {
    close(usd_per_million(2.0, 1000.0).expect("rate"), 2.0 / 3.6);
    assert_eq!(usd_per_million(2.0, 0.0), None);
    close(cost::hours_for(1e9, 10_000.0).expect("hours"), 1e9 / 10_000.0 / 3600.0);
}

/// $21,000 at the default rates: × 7.18 = ¥150,780; × 78.5 = 1,648,500 ₽; × 0.87 = €18,270.
#[test]
fn currencies_at_default_and_edited_rates() {
    let mut s = CostSettings::default();
    assert_eq!(s.money(21_000.0), "$21,000");
    assert_eq!(s.money(0.5), "$0.50");
    s.currency = Currency::Cny;
    assert_eq!(s.money(21_000.0), "¥150,780");
    s.currency = Currency::Rub;
    assert_eq!(s.money(21_000.0), "1,648,500 ₽");
    s.currency = Currency::Eur;
    assert_eq!(s.money(21_000.0), "€18,270");
    s.rate_per_usd = Some(0.9);
    assert_eq!(s.money(21_000.0), "€18,900");
    assert_eq!(format_money(-1234.0, Currency::Usd), "-$1,234");
    for c in Currency::ALL {
        assert_eq!(Currency::parse(c.as_str()), Some(c));
    }
}

#[test]
fn overrides_parse_and_render() {
    let o = PriceOverrides::parse("rtx-4090:buy=1800;hour=0.5,h100-sxm:hour=2.1").expect("valid");
    assert_eq!(o.get("rtx-4090"), Some(&PriceOverride { buy_usd: Some(1800.0), hour_usd: Some(0.5) }));
    assert_eq!(o.get("h100-sxm"), Some(&PriceOverride { buy_usd: None, hour_usd: Some(2.1) }));
    // Rendered sorted by id.
    assert_eq!(o.render(), "h100-sxm:hour=2.1,rtx-4090:buy=1800;hour=0.5");
    assert_eq!(PriceOverrides::parse(&o.render()), Ok(o));
    assert_eq!(PriceOverrides::parse("  "), Ok(PriceOverrides::new()));
    assert_eq!(PriceOverrides::parse(" rtx-4090 : buy = 1800 ").map(|o| o.render()), Ok("rtx-4090:buy=1800".into()));
}

#[test]
fn override_errors_name_the_bad_part() {
    for (input, part) in [
        ("rtx-4090", "rtx-4090"),
        ("rtx-4090:buy=abc", "buy=abc"),
        ("rtx-4090:rent=1", "rent"),
        ("RTX 4090:buy=1", "RTX 4090"),
        ("rtx-4090:buy=1;buy=2", "buy=2"),
        ("rtx-4090:buy=-5", "buy=-5"),
        ("rtx-4090:buy=NaN", "buy=NaN"),
        ("rtx-4090:hour=inf", "hour=inf"),
        ("rtx-4090:buy=1,,a100:hour=1", ""),
        ("rtx-4090:buy=1,rtx-4090:hour=1", "rtx-4090"),
        ("rtx-4090:", ""),
    ] {
        let e = PriceOverrides::parse(input).expect_err(input);
        assert_eq!(e.part, part, "{input}: {e}");
        assert!(e.to_string().starts_with("price override `"), "{e}");
    }
}

proptest! {
    /// Any string: parse never panics; whatever parses renders and parses back to itself.
    #[test]
    fn override_parser_is_fuzz_safe(s in "\\PC{0,80}") {
        if let Ok(o) = PriceOverrides::parse(&s) {
            prop_assert_eq!(PriceOverrides::parse(&o.render()), Ok(o));
        }
    }

    /// Strings made of the grammar's own pieces: same properties, many more valid inputs.
    #[test]
    fn override_parser_on_near_valid_input(s in "([a-z0-9-]{1,8}:(buy|hour|x)=[0-9.e-]{1,6}(;(buy|hour)=[0-9.]{1,5})?,?){0,4}") {
        if let Ok(o) = PriceOverrides::parse(&s) {
            prop_assert_eq!(PriceOverrides::parse(&o.render()), Ok(o));
        }
    }

    /// Every map of valid prices round-trips exactly through the text form.
    #[test]
    fn overrides_round_trip(entries in prop::collection::btree_map("[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4})?", (prop::option::of(1.0f64..1e6), prop::option::of(0.01f64..100.0)), 0..6)) {
        let mut o = PriceOverrides::new();
        for (id, (buy, hour)) in entries {
            if buy.is_some() || hour.is_some() {
                o.set(&id, PriceOverride { buy_usd: buy, hour_usd: hour });
            }
        }
        prop_assert_eq!(PriceOverrides::parse(&o.render()), Ok(o));
    }
}

/// Money follows the interface language's number format: Russian groups thousands with a
/// no-break space and writes decimals with a comma, so "$2,000" can never be read as two dollars
/// (hand-written expectations; English is unchanged).
#[test]
fn money_in_the_interface_language() {
    use gpu_advisor::i18n::Lang;
    use gpu_advisor::present::format_money_in;
    assert_eq!(format_money_in(17_400.0, Currency::Usd, Lang::En), "$17,400");
    assert_eq!(format_money_in(17_400.0, Currency::Usd, Lang::Ru), "$17\u{a0}400");
    assert_eq!(format_money_in(14.04, Currency::Usd, Lang::Ru), "$14,04");
    assert_eq!(format_money_in(123_456.0, Currency::Rub, Lang::Ru), "123\u{a0}456 ₽");
    assert_eq!(format_money_in(14.04, Currency::Cny, Lang::Zh), "¥14.04");
    assert_eq!(format_money_in(-2_500.0, Currency::Eur, Lang::En), "-€2,500");
}

/// "Cards only": 8 × RTX 4090 at the $2,000 street price (data/gpus.toml) = $16,000, no server;
/// the host's kind (an 8-card PCIe server) is still known for the PUE.
#[test]
fn cards_only_leaves_the_host_out() {
    let s = CostSettings { include_host: false, ..CostSettings::default() };
    let p = cost::purchase(gpu("rtx-4090"), 8, &s).expect("priced");
    close(p.total_usd, 16_000.0);
    close(p.host.usd, 0.0);
    assert!(p.host.is_server());
}
