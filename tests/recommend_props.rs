#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the recommender: raising the budget never removes an
//! option; every option shown fits (with the headroom asked) and is within budget; the ranking is
//! deterministic and ties are broken by card id, then count.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{LlmJob, Workload};
use gpu_advisor::model::precision::Precision;
use gpu_advisor::recommend::{recommend, Budget, Job, Mode, Objective, RecommendInput, Recommendation};
use proptest::prelude::*;
use std::collections::BTreeSet;

const MODELS: [&str; 5] = ["llama-3.2-1b", "llama-3-8b", "qwen2.5-14b", "llama-2-70b", "qwen3-30b-a3b"];
const WORKLOADS: [Workload; 3] = [Workload::Inference, Workload::Lora, Workload::FinetuneFull];
const PRECISIONS: [Precision; 3] = [Precision::Fp16, Precision::Int8, Precision::Q4KM];

fn input(model: usize, workload: usize, precision: usize, batch: u32, mode: bool, objective: usize, headroom: f64) -> RecommendInput {
    let spec = MODELS.get(model).and_then(|id| catalog::llm(id)).expect("preset");
    let workload = *WORKLOADS.get(workload).expect("workload");
    let precision = if workload == Workload::Inference { *PRECISIONS.get(precision).expect("p") } else { Precision::Bf16 };
    let job = LlmJob { workload, precision, batch, ..LlmJob::for_preset(spec) };
    let mut i = RecommendInput::new(Job::Llm(Box::new(job)));
    i.mode = if mode { Mode::Buy } else { Mode::Rent };
    i.objective = *Objective::ALL.get(objective).expect("objective");
    i.headroom = headroom;
    i.top = usize::MAX;
    i.one_per_card = false;
    i
}

fn budget(kind: usize, amount: f64) -> Budget {
    match kind {
        0 => Budget::PurchaseUsd(amount),
        1 => Budget::HourlyUsd(amount / 10_000.0),
        _ => Budget::MonthlyUsd(amount / 10.0),
    }
}

fn pairs(rec: &Recommendation) -> BTreeSet<(String, u32)> {
    rec.feasible.iter().map(|p| (p.gpu.clone(), p.count)).collect()
}

fn within(rec_input: &RecommendInput, o: &gpu_advisor::recommend::OptionRow) -> bool {
    let s = &rec_input.cost;
    let hours = s.hours_total();
    let eps = 1e-9;
    match rec_input.budget {
        Budget::Unlimited => true,
        Budget::PurchaseUsd(b) => match rec_input.mode {
            Mode::Buy => o.purchase_usd().is_some_and(|p| p <= b + eps),
            Mode::Rent => o.tco_usd <= b + eps,
        },
        Budget::HourlyUsd(b) => match rec_input.mode {
            Mode::Rent => o.hourly_usd().is_some_and(|h| h <= b + eps),
            Mode::Buy => o.tco_usd / hours <= b + eps,
        },
        Budget::MonthlyUsd(b) => o.tco_usd / s.months <= b + eps,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn raising_the_budget_never_removes_an_option(
        model in 0..5usize, workload in 0..3usize, precision in 0..3usize, batch in 1..32u32,
        mode: bool, objective in 0..5usize, kind in 0..3usize,
        low in 1_000.0f64..200_000.0, extra in 0.0f64..200_000.0,
    ) {
        let mut a = input(model, workload, precision, batch, mode, objective, 0.1);
        a.budget = budget(kind, low);
        let mut b = a.clone();
        b.budget = budget(kind, low + extra);
        let (ra, mut rb) = (recommend(&a).expect("a"), recommend(&b).expect("b"));
        // Nothing fitting the low budget with a host, the options count the cards alone;
        // the higher budget is then compared on the same footing, cards alone.
        let cards_only = |r: &Recommendation| r.notes.iter().any(|n| matches!(n, gpu_advisor::recommend::facts::RecNote::CardsOnly { .. }));
        if cards_only(&ra) && !cards_only(&rb) {
            b.cost.include_host = false;
            rb = recommend(&b).expect("b, cards only");
        }
        let (pa, pb) = (pairs(&ra), pairs(&rb));
        prop_assert!(pa.is_subset(&pb), "lost {:?}", pa.difference(&pb).collect::<Vec<_>>());
        // With every row returned, the options are the feasible set.
        prop_assert_eq!(ra.options.len(), ra.feasible.len());
        let cards_a: BTreeSet<&str> = ra.options.iter().map(|o| o.gpu.as_str()).collect();
        let cards_b: BTreeSet<&str> = rb.options.iter().map(|o| o.gpu.as_str()).collect();
        prop_assert!(cards_a.is_subset(&cards_b));
    }

    #[test]
    fn every_option_fits_and_is_within_budget(
        model in 0..5usize, workload in 0..3usize, precision in 0..3usize, batch in 1..32u32,
        mode: bool, objective in 0..5usize, kind in 0..3usize, amount in 500.0f64..400_000.0,
        headroom in 0.0f64..0.5,
    ) {
        let mut i = input(model, workload, precision, batch, mode, objective, headroom);
        i.budget = budget(kind, amount);
        let rec = recommend(&i).expect("recommend");
        for o in &rec.options {
            prop_assert!(o.estimate.fits, "{} ×{}", o.gpu, o.count);
            prop_assert!(o.estimate.per_gpu_gib <= o.capacity_gib * (1.0 - headroom) + 1e-9);
            prop_assert!(within(&i, o), "{} ×{} over {:?}", o.gpu, o.count, i.budget);
            prop_assert!(o.tco_usd.is_finite() && o.tco_usd >= 0.0);
        }
    }

    #[test]
    fn the_ranking_is_deterministic_and_sorted(
        model in 0..5usize, workload in 0..3usize, precision in 0..3usize, batch in 1..32u32,
        mode: bool, objective in 0..5usize,
    ) {
        let i = input(model, workload, precision, batch, mode, objective, 0.1);
        let a = recommend(&i).expect("a");
        let b = recommend(&i).expect("b");
        prop_assert_eq!(&a, &b);
        for w in a.options.windows(2) {
            let (x, y) = (&w[0], &w[1]);
            prop_assert!(x.score < y.score || (x.score == y.score && (x.gpu.as_str(), x.count) < (y.gpu.as_str(), y.count)),
                "{} ×{} ({}) before {} ×{} ({})", x.gpu, x.count, x.score, y.gpu, y.count, y.score);
        }
    }
}
