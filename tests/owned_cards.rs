#![cfg(not(target_arch = "wasm32"))]
//! "I already have": owned cards cost nothing and the recommender answers what to add, as in
//! "I have a 3090. Should I add a 4090 or a second 3090?"
//! A second 3090 runs as any two 3090s do; a 4090 beside it is a llama.cpp layer split in
//! proportion to memory (`tests/mixed_cards.rs` checks that split by hand). Prices are the
//! catalog's street prices of the added cards alone.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{self, mixed, LlmJob, Workload};
use gpu_advisor::model::precision::Precision;
use gpu_advisor::recommend::owned::{what_to_add, Pairing};
use gpu_advisor::recommend::{Job, Objective, RecommendInput};

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("gpu {id}"))
}

fn input(model: &str, precision: Precision) -> RecommendInput {
    let mut j = LlmJob::for_preset(catalog::llm(model).unwrap_or_else(|| panic!("preset {model}")));
    j.precision = precision;
    let mut i = RecommendInput::new(Job::Llm(Box::new(j)));
    i.top = 200;
    i
}

fn job(i: &RecommendInput) -> &LlmJob {
    match &i.job {
        Job::Llm(j) => j,
        Job::Media(_) => panic!("an LLM job"),
    }
}

#[test]
fn a_3090_owner_adds_a_4090_or_a_second_3090() {
    // Llama 3 70B at Q4_K_M (about 40 GiB of weights) does not fit one 24 GB card.
    let i = input("llama-3-70b", Precision::Q4KM);
    let owned = [(gpu("rtx-3090"), 1)];
    let options = what_to_add(&i, &owned, catalog::gpus()).expect("options");
    assert!(options.iter().all(|a| a.pairing != Pairing::OwnedOnly), "one 3090 cannot hold it");
    let second = options.iter().find(|a| a.add_gpu.as_deref() == Some("rtx-3090")).expect("a second 3090");
    assert_eq!((second.add_count, second.pairing), (1, Pairing::SameCard));
    assert_eq!(second.estimate, llm::estimate_llm(job(&i), gpu("rtx-3090"), 2).expect("2 x 3090"));
    assert_eq!(Some(second.purchase_usd), gpu("rtx-3090").street_price_usd, "only the added card is paid for");
    let a4090 = options.iter().find(|a| a.add_gpu.as_deref() == Some("rtx-4090")).expect("a 4090");
    assert_eq!((a4090.add_count, a4090.pairing), (1, Pairing::LayerSplit));
    let mix = mixed::estimate_mixed(job(&i), &[(gpu("rtx-3090"), 1), (gpu("rtx-4090"), 1)]).expect("mix");
    assert_eq!(a4090.estimate, mix);
    assert_eq!(Some(a4090.purchase_usd), gpu("rtx-4090").street_price_usd);
    // Cheapest first: prices never go down the list.
    assert!(options.windows(2).all(|w| w.first().map(|a| a.purchase_usd) <= w.get(1).map(|b| b.purchase_usd)));
    // Only cards that go in the same PCIe machine: no SXM modules or whole systems.
    assert!(options.iter().all(|a| a.add_gpu.as_deref().and_then(catalog::gpu).is_some_and(|g| g.form_factor.as_deref().is_some_and(|f| f.starts_with("PCIe")))));
    // Fastest first reorders by decode speed.
    let mut fastest = i.clone();
    fastest.objective = Objective::Fastest;
    let f = what_to_add(&fastest, &owned, catalog::gpus()).expect("fastest");
    assert!(f.windows(2).all(|w| w.first().map(|a| a.decode_tokens_per_s()) >= w.get(1).map(|b| b.decode_tokens_per_s())));
}

#[test]
fn nothing_to_buy_when_the_owned_cards_hold_the_job() {
    // Llama 3 8B at Q4_K_M (about 4.6 GiB) fits one 3090: the first answer costs $0.
    let i = input("llama-3-8b", Precision::Q4KM);
    let options = what_to_add(&i, &[(gpu("rtx-3090"), 1)], catalog::gpus()).expect("options");
    let first = options.first().expect("an option");
    assert_eq!((first.pairing, first.add_gpu.as_deref(), first.purchase_usd), (Pairing::OwnedOnly, None, 0.0));
}

#[test]
fn training_with_owned_cards_names_the_field() {
    let mut i = input("llama-3-8b", Precision::Bf16);
    if let Job::Llm(j) = &mut i.job {
        j.workload = Workload::Lora;
    }
    let e = what_to_add(&i, &[(gpu("rtx-3090"), 1)], catalog::gpus()).expect_err("training");
    assert_eq!(e.field(), "owned");
}

#[test]
fn cli_owned_flag() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpu-advisor")).args(args).output().expect("run");
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, out, err) = run(&["recommend", "--model", "llama-3-70b", "--precision", "q4_k_m", "--owned", "rtx-3090:1", "--top", "3", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 3);
    for k in ["gpu", "count", "fits", "per_gpu_gib", "purchase_usd", "hourly_usd", "throughput", "reasons", "owned", "build", "pairing"] {
        assert!(rows.iter().all(|r| r.get(k).is_some()), "missing {k}");
    }
    let (code, _, err) = run(&["recommend", "--model", "llama-3-8b", "--owned", "rtx-3090:1,rtx-0000:1"]);
    assert_eq!(code, 2);
    assert!(err.contains("--owned"), "{err}");
}
