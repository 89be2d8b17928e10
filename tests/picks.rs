#![cfg(not(target_arch = "wasm32"))]
//! The three picks above the ranked options: the cheapest build, the best value and the fastest
//! within the budget. Each is checked against its definition over every feasible build (the chart's
//! points), and against the first option of a ranking by the matching objective.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{LlmJob, Workload};
use gpu_advisor::model::precision::Precision;
use gpu_advisor::recommend::{
    recommend, Budget, Job, MediaJob, OptionRow, PickRole, RecommendInput, Recommendation,
};

fn llm_input(id: &str, precision: Precision, budget_usd: f64) -> RecommendInput {
    let job = LlmJob {
        precision,
        ..LlmJob::for_preset(catalog::llm(id).unwrap_or_else(|| panic!("preset {id}")))
    };
    let mut input = RecommendInput::new(Job::Llm(Box::new(job)));
    input.budget = Budget::PurchaseUsd(budget_usd);
    input
}

#[track_caller]
fn run(input: &RecommendInput) -> Recommendation {
    recommend(input).unwrap_or_else(|e| panic!("recommend: {e}"))
}

fn pick(rec: &Recommendation, role: PickRole) -> &OptionRow {
    rec.picks()
        .find(|(roles, _)| roles.contains(&role))
        .map(|(_, o)| o)
        .unwrap_or_else(|| panic!("no {role:?} pick in {:?}", rec.picks))
}

/// Each role's pick is the best build by that role's own measure over every feasible build.
fn check_definitions(rec: &Recommendation) {
    assert!(
        !rec.feasible.is_empty(),
        "the scenario must have feasible builds"
    );
    let cheapest = &pick(rec, PickRole::Cheapest);
    let value = &pick(rec, PickRole::Value);
    let fastest = &pick(rec, PickRole::Fastest);
    let mid = |o: &OptionRow| o.rate.map_or(0.0, |(b, _)| b.mid);
    for p in &rec.feasible {
        let name = format!("{} × {}", p.gpu, p.count);
        assert!(
            cheapest.tco_usd <= p.cost_usd + 1e-6,
            "{name} costs {} < the cheapest pick's {}",
            p.cost_usd,
            cheapest.tco_usd
        );
        assert!(
            mid(fastest) >= p.throughput_mid - 1e-9,
            "{name} runs {} > the fastest pick's {}",
            p.throughput_mid,
            mid(fastest)
        );
        let ratio = p.throughput_mid / p.cost_usd;
        assert!(
            mid(value) / value.tco_usd >= ratio - 1e-12,
            "{name} gives {ratio} per $ > the value pick's"
        );
    }
    // Every role once, in the order cheapest, value, fastest, each with its build.
    assert_eq!(
        rec.picks().count(),
        rec.picks.len(),
        "a pick without its build"
    );
    let roles: Vec<PickRole> = rec
        .picks
        .iter()
        .flat_map(|p| p.roles.iter().copied())
        .collect();
    assert_eq!(roles, PickRole::ALL.to_vec(), "{:?}", rec.picks);
}

#[test]
fn picks_for_a_home_lab_budget() {
    // A $2,000 buy budget for Llama 3.1 8B at Q4_K_M: the cards alone (no host by default).
    let input = llm_input("llama-3.1-8b", Precision::Q4KM, 2000.0);
    let rec = run(&input);
    check_definitions(&rec);
    for (_, o) in rec.picks() {
        let price = o.purchase_usd().unwrap_or(f64::INFINITY);
        assert!(
            price <= 2000.0,
            "{} × {} costs {price}, over the budget",
            o.gpu,
            o.count
        );
    }
}

#[test]
fn picks_agree_with_the_first_option_of_each_objective() {
    let mut input = llm_input("qwen2.5-32b", Precision::Fp8, 60_000.0);
    let rec = run(&input);
    check_definitions(&rec);
    for role in PickRole::ALL {
        input.objective = role.objective();
        let ranked = run(&input);
        let first = ranked.options.first().expect("an option");
        let p = pick(&rec, role);
        assert_eq!(
            (p.gpu.as_str(), p.count),
            (first.gpu.as_str(), first.count),
            "{role:?}"
        );
    }
}

#[test]
fn picks_for_training_and_images() {
    let job = LlmJob {
        workload: Workload::Lora,
        ..LlmJob::for_preset(catalog::llm("llama-3.1-8b").expect("preset"))
    };
    let rec = run(&RecommendInput::new(Job::Llm(Box::new(job))));
    check_definitions(&rec);
    let media = MediaJob {
        model_id: "sdxl".into(),
        workload: gpu_advisor::model::media_job::MediaWorkload::ImageGeneration,
        precision: None,
        resolution: None,
        steps: None,
        batch: None,
        fp32_math: Default::default(),
        frames: None,
        offload_mode: None,
    };
    let rec = run(&RecommendInput::new(Job::Media(media)));
    check_definitions(&rec);
}
