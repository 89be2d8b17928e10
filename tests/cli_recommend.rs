#![cfg(not(target_arch = "wasm32"))]
//! `gpu-advisor recommend` end to end: the JSON contract (an array best first, each
//! with `gpu`, `count`, `fits`, `per_gpu_gib`, `purchase_usd`, `hourly_usd`, `throughput`,
//! `reasons`), the seed 003 scenario from the command line, and exit code 2 with one line for
//! bad input.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-advisor")).args(args).output().expect("run binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Vec<serde_json::Value> {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "stderr: {err}");
    serde_json::from_str(&out).expect("a JSON array")
}

/// Seed 003 (a 70B model in fp16 with about 40 GB of KV cache: 8 × RTX 4090 or 3 × H100);
/// the KV arithmetic is in tests/recommend_scenarios.rs.
/// The seed article prices whole machines, so its purchases count the host (`--complete-machine`).
const SEED_003: [&str; 11] =
    ["recommend", "--model", "llama-2-70b", "--context", "4096", "--batch", "30", "--engine", "llama.cpp", "--complete-machine", "--json"];

#[test]
fn json_items_have_the_contract_keys() {
    let mut args = SEED_003.to_vec();
    args.extend(["--budget-usd", "150000", "--headroom", "5", "--top", "50"]);
    let rows = json(&args);
    assert!(!rows.is_empty());
    for r in &rows {
        for k in ["gpu", "count", "fits", "per_gpu_gib", "purchase_usd", "hourly_usd", "throughput", "reasons"] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        assert!(r["gpu"].is_string() && r["count"].is_u64() && r["fits"] == true);
        assert!(r["purchase_usd"].is_number(), "buy mode: every option has a purchase price");
        assert!(r["hourly_usd"].is_number() || r["hourly_usd"].is_null());
        for k in ["decode_tokens_per_s", "prefill_tokens_per_s", "serving_tokens_per_s", "train_tokens_per_s", "seconds_per_image", "train_samples_per_s"] {
            assert!(r["throughput"].get(k).is_some(), "throughput.{k}");
        }
        assert!(r["reasons"].as_array().is_some_and(|a| !a.is_empty()));
    }
    // Seed 003: both builds are listed; the 4090 one is cheaper and ranked first of the two.
    let pos = |gpu: &str, count: u64| rows.iter().position(|r| r["gpu"] == gpu && r["count"] == count);
    let (a, b) = (pos("rtx-4090", 8).expect("8 × 4090"), pos("h100-pcie", 3).expect("3 × H100"));
    assert!(a < b);
    assert_eq!(rows[a]["purchase_usd"], 31_000.0);
}

#[test]
fn require_nvlink_in_rent_mode_offers_only_nvlink_cards() {
    let mut args = SEED_003.to_vec();
    args.extend(["--budget-usd-per-hour", "50", "--require-nvlink", "--headroom", "5", "--top", "50"]);
    let rows = json(&args);
    assert!(rows.iter().any(|r| r["gpu"] == "h100-sxm" && r["count"] == 3), "{rows:?}");
    assert!(rows.iter().all(|r| r["purchase_usd"].is_null() || r["purchase_usd"].is_number()));
    for r in &rows {
        let id = r["gpu"].as_str().expect("id");
        assert!(!id.starts_with("rtx-40"), "{id}");
        assert!(r["hourly_usd"].as_f64().is_some_and(|h| h <= 50.0));
    }
}

/// A buyer's budget is for the cards, for a PC they have: Llama 3.1 8B at Q4_K_M (4.9 GB of
/// weights) fits a 12 GB card, and $2,000 buys several (Arc B580 $249 and RTX 3060 12GB $280 in
/// data/gpus.toml). With `--complete-machine` each card carries a desktop PC, and the whole
/// machines (priced as computers) say so.
#[test]
fn a_buy_budget_is_for_the_cards_unless_a_complete_machine_is_asked() {
    let base = ["recommend", "--model", "llama-3.1-8b", "--precision", "q4_k_m", "--budget-usd", "2000", "--json", "--top", "10"];
    let rows = json(&base);
    let discrete = rows.iter().filter(|r| r["purchase_usd"].as_f64().is_some_and(|p| p < 1000.0)).count();
    assert!(discrete >= 3, "{rows:?}");
    let (code, out, err) = run(&["recommend", "--model", "llama-3.1-8b", "--precision", "q4_k_m", "--budget-usd", "2000", "--complete-machine"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the price is the whole computer"), "{out}");
    assert!(out.contains("with the desktop PC counted"), "{out}");
}

#[test]
fn table_output_has_reasons_and_why_not() {
    let (code, out, err) = run(&["recommend", "--model", "llama-2-70b", "--budget-usd", "60000", "--top", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1. "), "{out}");
    assert!(out.contains("fits with"), "{out}");
    assert!(out.contains("why not:"), "{out}");
}

#[test]
fn currency_changes_reasons_not_json_numbers() {
    let args = ["recommend", "--model", "llama-3-8b", "--budget-usd", "5000", "--currency", "cny", "--top", "1", "--json"];
    let rows = json(&args);
    let r = &rows[0];
    assert!(r["reasons"].as_array().expect("reasons").iter().any(|s| s.as_str().is_some_and(|s| s.contains('¥'))));
    assert!(r["purchase_usd"].as_f64().is_some_and(|p| p <= 5000.0));
}

#[test]
fn price_overrides_from_the_command_line() {
    let mut args = SEED_003.to_vec();
    // Every NVLink card with a price is a candidate now: ask for all of them.
    args.extend(["--prices", "h100-sxm:buy=25000", "--require-nvlink", "--headroom", "5", "--top", "50"]);
    let rows = json(&args);
    let r = rows.iter().find(|r| r["gpu"] == "h100-sxm").expect("priced by the override");
    // 3 × 25,000 + 40,000 HGX server.
    assert_eq!(r["purchase_usd"], 115_000.0);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        vec!["recommend", "--model", "llama-3-8b", "--budget-usd", "abc"],
        vec!["recommend", "--model", "llama-3-8b", "--objective", "best"],
        vec!["recommend", "--model", "llama-3-8b", "--mode", "lease"],
        vec!["recommend", "--model", "llama-3-8b", "--budget-usd", "1", "--budget-usd-per-hour", "1"],
        vec!["recommend", "--model", "llama-3-8b", "--prices", "rtx-4090:buy=x"],
        vec!["recommend", "--model", "llama-3-8b", "--prices", "rtx-9999:buy=1"],
        vec!["recommend", "--model", "llama-3-8bb"],
        vec!["recommend", "--workload", "inference"],
        vec!["recommend", "--model", "llama-3-8b", "--max-gpus", "0"],
        vec!["recommend", "--model", "llama-3-8b", "--headroom", "95"],
        vec!["recommend", "--model", "llama-3-8b", "--region", "mars"],
        vec!["recommend", "--model", "llama-3-8b", "--bogus"],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
    }
    let (_, _, err) = run(&["recommend", "--model", "llama-3-8b", "--prices", "rtx-4090:buy=x"]);
    assert!(err.contains("buy=x"), "{err}");
}

#[test]
fn help_lists_the_flags() {
    let (code, out, _) = run(&["recommend", "--help"]);
    assert_eq!(code, 0);
    for flag in ["--budget-usd", "--budget-usd-per-hour", "--mode", "--objective", "--max-gpus", "--require-nvlink", "--datacenter-only", "--top", "--json"] {
        assert!(out.contains(flag), "{flag}");
    }
}

/// The serving keys on every LLM inference option: per-user speed, total rate and TTFT at
/// `--users`, and `max_users` under a target (null without one). With 20 users on one card the
/// total is 20 × the per-user speed.
#[test]
fn options_carry_the_serving_keys() {
    let (code, out, err) = run(&["recommend", "--model", "llama-3.1-8b", "--budget-usd-per-hour", "5", "--users", "20", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let opts = v.as_array().expect("array");
    assert!(!opts.is_empty());
    for o in opts {
        let per_user = o["per_user_tokens_per_s"]["mid"].as_f64().expect("per-user");
        let total = o["aggregate_tokens_per_s"]["mid"].as_f64().expect("total");
        assert!(o["ttft_s"]["mid"].as_f64().expect("ttft") > 0.0);
        assert!(o["max_users"].is_null());
        if o["count"] == 1 {
            assert!((total / per_user - 20.0).abs() < 1e-6, "{o}");
        }
    }
    let (_, out, _) = run(&[
        "recommend", "--model", "llama-3.1-8b", "--budget-usd-per-hour", "5", "--users", "20",
        "--target-tokens-per-s-per-user", "20", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v.as_array().expect("array").iter().all(|o| o["max_users"].is_u64()));
}

/// The `recommend --json` serving keys: `facts` (objects with a `kind`), the serving figures and
/// the replica layout; with a target, every option serves the users within it, and the API price
/// gives a break-even fact.
#[test]
fn json_has_facts_and_serving_keys() {
    let rows = json(&[
        "recommend", "--model", "llama-3.1-8b", "--users", "50", "--target-tokens-per-s-per-user", "20",
        "--mode", "rent", "--api-price", "0.5", "--top", "5", "--json",
    ]);
    assert!(!rows.is_empty());
    for r in &rows {
        let facts = r["facts"].as_array().expect("facts");
        assert!(facts.iter().all(|f| f["kind"].is_string()), "{facts:?}");
        let kinds: Vec<&str> = facts.iter().filter_map(|f| f["kind"].as_str()).collect();
        for k in ["fit", "serving", "target", "rent", "tco", "unit_cost", "api_break_even"] {
            assert!(kinds.contains(&k), "no {k} fact in {kinds:?}");
        }
        assert!(r["per_user_tokens_per_s"]["mid"].as_f64().is_some_and(|v| v >= 20.0), "{}", r["per_user_tokens_per_s"]);
        assert!(r["max_users"].as_u64().is_some_and(|m| m >= 50));
        assert!(r["replicas"].as_u64().is_some_and(|k| k >= 1) && r["gpus_per_replica"].as_u64().is_some_and(|m| m >= 1));
        // The build's cards are its replicas' cards.
        assert_eq!(r["replicas"].as_u64().unwrap_or(0) * r["gpus_per_replica"].as_u64().unwrap_or(0), r["count"].as_u64().unwrap_or(1));
    }
}

/// Video jobs rank like image jobs, by seconds per video.
#[test]
fn video_jobs_rank_by_seconds_per_video() {
    let items = json(&["recommend", "--model", "wan2.1-t2v-1.3b", "--frames", "81", "--offload-mode", "model", "--top", "3", "--json"]);
    assert!(!items.is_empty());
    for it in &items {
        let s = &it["throughput"]["seconds_per_video"];
        assert!(s["mid"].as_f64().is_some_and(|m| m > 0.0), "{it}");
    }
    let (code, _, err) = run(&["recommend", "--model", "wan2.1-t2v-1.3b", "--frames", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("--frames"), "{err}");
}
