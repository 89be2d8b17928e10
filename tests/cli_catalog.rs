//! The `gpus` and `models` commands: their JSON contracts, and one-line errors.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-advisor")).args(args).output().expect("run gpu-advisor");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn gpus_json_has_exactly_the_contract_keys() {
    let (code, out, _) = run(&["gpus", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let arr = v.as_array().unwrap();
    assert!(arr.len() >= 60, "at least 60 cards, got {}", arr.len());
    let expected = [
        "id", "name", "vendor", "segment", "memory_gib", "memory_bandwidth_gb_s", "fp32_tflops", "fp16_tflops",
        "bf16_tflops", "fp8_tflops", "int8_tops", "tdp_w", "nvlink", "launch_price_usd",
    ];
    for item in arr {
        let obj = item.as_object().unwrap();
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut want = expected.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want);
    }
    let ids: Vec<&str> = arr.iter().map(|g| g["id"].as_str().unwrap()).collect();
    for id in ["rtx-a5000", "rtx-4090", "h100-sxm", "quadro-p6000", "rtx-4000-sff-ada"] {
        assert!(ids.contains(&id), "{id} missing");
    }
    // Seeds README trap 1: the H100 SXM's FP16 is 989 dense, never the 1,979 sparse figure.
    let h100 = arr.iter().find(|g| g["id"] == "h100-sxm").unwrap();
    assert!((h100["fp16_tflops"].as_f64().unwrap() - 989.4).abs() < 1.0);
    // Trap 7: the P6000 has no tensor cores, so its tensor fields are null, not 0.
    let p6000 = arr.iter().find(|g| g["id"] == "quadro-p6000").unwrap();
    assert!(p6000["fp16_tflops"].is_null() && p6000["bf16_tflops"].is_null());
}

#[test]
fn gpus_without_json_prints_a_table() {
    let (code, out, _) = run(&["gpus"]);
    assert_eq!(code, 0);
    assert!(out.lines().next().unwrap().starts_with("id"));
    assert!(out.contains("rtx-4090"));
}

#[test]
fn unknown_flags_exit_2_with_one_line() {
    for args in [&["gpus", "--bogus"][..], &["models", "--nope"], &["frobnicate"]] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "one line, got {err:?}");
    }
}

#[test]
fn models_json_lists_every_kind() {
    let (code, out, _) = run(&["models", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let arr = v.as_array().unwrap();
    for key in ["id", "name", "kind", "params_total_b", "params_active_b"] {
        assert!(arr.iter().all(|m| m.get(key).is_some()), "{key}");
    }
    for kind in ["llm", "diffusion", "vision", "nlp", "speech"] {
        assert!(arr.iter().any(|m| m["kind"] == kind), "no {kind} preset");
    }
    // Mixtral 8x7B: 46.7B total, 12.9B active (mistral.ai announcement, Dec 2023).
    let mix = arr.iter().find(|m| m["id"] == "mixtral-8x7b").unwrap();
    assert!((mix["params_total_b"].as_f64().unwrap() - 46.7).abs() < 0.3);
    assert!((mix["params_active_b"].as_f64().unwrap() - 12.9).abs() < 0.3);
}
