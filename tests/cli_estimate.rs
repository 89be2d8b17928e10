#![cfg(not(target_arch = "wasm32"))]
//! `gpu-advisor estimate` end to end: the JSON contract of `estimate --json`, exit code 2 with one line
//! for bad input, and nearest-id suggestions.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-advisor")).args(args).output().expect("run binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "stderr: {err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn json_has_exactly_the_contract_keys() {
    let v = json(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--precision", "q4_k_m", "--json"]);
    let keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    for k in ["model", "gpu", "gpus", "memory", "per_gpu_gib", "gpus_needed", "fits", "throughput", "assumptions"] {
        assert!(keys.contains(&k), "missing {k}");
    }
    for k in ["weights_gib", "kv_cache_gib", "activations_gib", "gradients_gib", "optimizer_gib", "overhead_gib", "total_gib"] {
        assert!(v["memory"][k].is_number(), "memory.{k}");
    }
    for k in ["decode_tokens_per_s", "prefill_tokens_per_s", "serving_tokens_per_s", "train_tokens_per_s", "seconds_per_image", "train_samples_per_s"] {
        let t = &v["throughput"][k];
        assert!(t.is_null() || (t["low"].is_number() && t["mid"].is_number() && t["high"].is_number()), "throughput.{k} = {t}");
    }
    assert_eq!(v["model"], "llama-3-8b");
    assert_eq!(v["gpu"], "rtx-4090");
    assert_eq!(v["gpus"], 1);
    assert_eq!(v["fits"], true);
    assert!(v["throughput"]["decode_tokens_per_s"]["mid"].as_f64().expect("decode") > 50.0);
    assert!(v["throughput"]["train_tokens_per_s"].is_null());
    assert!(!v["assumptions"].as_array().expect("array").is_empty());
    // Inference has no memory band (no measured peaks held out); training has one.
    assert!(v["memory"]["per_gpu_band_gib"].is_null() && v["memory"]["total_band_gib"].is_null());
    let t = json(&["estimate", "--gpu", "h100-sxm", "--model", "llama-3-8b", "--workload", "lora", "--json"]);
    let b = &t["memory"]["per_gpu_band_gib"];
    let mid = t["per_gpu_gib"].as_f64().expect("per gpu");
    assert_eq!(b["mid"].as_f64(), Some(mid));
    // The band is the memory set's held-out band (`bands::MEMORY`, written by `make accuracy`).
    let (low, high) = gpu_advisor::model::bands::MEMORY.fitted;
    assert!((b["low"].as_f64().expect("low") - low * mid).abs() < 1e-9, "{b}");
    assert!((b["high"].as_f64().expect("high") - high * mid).abs() < 1e-9, "{b}");
    assert!(t["memory"]["total_band_gib"]["mid"].is_number());
}

#[test]
fn seed_003_on_the_command_line() {
    // 30 × 4096 tokens of Llama 2 70B KV in fp16 = 40.27 GB (see tests/llm_memory.rs).
    let v = json(&[
        "estimate", "--gpu", "rtx-4090", "--model", "llama-2-70b", "--precision", "fp16", "--context", "4096",
        "--batch", "30", "--engine", "llama.cpp", "--json",
    ]);
    assert_eq!(v["gpus_needed"], 8);
    assert_eq!(v["fits"], false);
}

#[test]
fn training_reports_train_tokens() {
    let v = json(&[
        "estimate", "--gpu", "h100-sxm", "--gpus", "8", "--params", "13b", "--workload", "training", "--zero", "3",
        "--grad-checkpointing", "full", "--json",
    ]);
    assert!(v["throughput"]["train_tokens_per_s"]["mid"].as_f64().expect("train") > 1000.0);
    assert!(v["throughput"]["decode_tokens_per_s"].is_null());
    assert_eq!(v["model"], "custom");
}

#[test]
fn config_json_input() {
    let dir = std::env::temp_dir().join(format!("gpu-advisor-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let good = dir.join("config.json");
    std::fs::write(
        &good,
        r#"{"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_attention_heads":28,
        "num_hidden_layers":28,"num_key_value_heads":4,"vocab_size":152064,"max_position_embeddings":32768,
        "tie_word_embeddings":false,"sliding_window":131072,"use_sliding_window":false}"#,
    )
    .expect("write");
    let v = json(&["estimate", "--gpu", "rtx-4090", "--config", good.to_str().expect("path"), "--json"]);
    // Qwen2.5-7B: 7.6B parameters.
    let w = v["memory"]["weights_gib"].as_f64().expect("weights");
    assert!((13.0..15.5).contains(&w), "{w}");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":32,"intermediate_size":11008}"#).expect("write");
    let (code, _, err) = run(&["estimate", "--gpu", "rtx-4090", "--config", bad.to_str().expect("path")]);
    assert_eq!(code, 2);
    assert!(err.contains("vocab_size"), "{err}");
}

#[track_caller]
fn fails_with(args: &[&str], needle: &str) {
    let (code, out, err) = run(args);
    assert_eq!(code, 2, "stdout: {out}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{err} should mention {needle}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8"], "llama-3-8b");
    fails_with(&["estimate", "--gpu", "rtx4090", "--model", "llama-3-8b"], "rtx-4090");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--context", "0"], "--context");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--batch", "1000000000"], "--batch");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--params", "1e30"], "--params");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--precision", "q3"], "--precision");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--zero", "4"], "--zero");
    fails_with(&["estimate", "--model", "llama-3-8b"], "--gpu");
    fails_with(&["estimate", "--gpu", "rtx-4090"], "--model");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--bogus"], "bogus");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--workload", "lora", "--precision", "q4_k_m"], "--precision");
}

#[test]
fn help_lists_the_defaults() {
    let (code, out, _) = run(&["estimate", "--help"]);
    assert_eq!(code, 0);
    for d in ["--gpus 1", "--context 8192", "--prompt-tokens 1024", "--precision bf16", "--kv-precision fp16", "--optimizer adamw", "--zero auto", "--grad-accum 1", "--workload inference"] {
        assert!(out.contains(d), "help lacks {d}");
    }
}

#[test]
fn image_generation_routes_to_the_media_engine() {
    let (code, out, err) = run(&[
        "estimate", "--gpu", "rtx-4090", "--model", "sd-1.5", "--workload", "image-generation", "--resolution", "512x512",
        "--steps", "50", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["throughput"]["seconds_per_image"]["mid"].is_number(), "{v}");
    fails_with(&["estimate", "--gpu", "rtx-4090", "--model", "sd-1.5", "--resolution", "512by512"], "--resolution");
}

/// The serving keys of the JSON contract: `throughput.per_user_tokens_per_s`, `aggregate_tokens_per_s` and
/// `ttft_s` (bands), `serving.max_users` (null without a target) and `serving.curve`; with one
/// user the per-user speed is the decode speed and the total equals it.
#[test]
fn serving_keys_follow_the_users() {
    let one = json(&["estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--users", "1", "--json"]);
    let t = &one["throughput"];
    let mid = |k: &str| t[k]["mid"].as_f64().unwrap_or_else(|| panic!("{k}"));
    assert!((mid("per_user_tokens_per_s") - mid("decode_tokens_per_s")).abs() < 1e-9);
    assert!((mid("aggregate_tokens_per_s") - mid("per_user_tokens_per_s")).abs() < 1e-9);
    assert!(mid("ttft_s") > 0.0);
    assert!(one["serving"]["max_users"].is_null());
    let curve = one["serving"]["curve"].as_array().expect("curve");
    assert!(curve.len() > 2);
    for k in ["users", "per_user_tokens_per_s", "aggregate_tokens_per_s", "ttft_s"] {
        assert!(curve[0][k].is_number(), "curve.{k}");
    }
    // --batch is an alias of --users; 50 users at ≥ 20 tokens/s each gives a count.
    let many = json(&[
        "estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "50",
        "--target-tokens-per-s-per-user", "20", "--max-ttft-s", "2", "--json",
    ]);
    assert_eq!(many["serving"]["users"], 50.0);
    assert!(many["serving"]["max_users"].as_u64().expect("max_users") >= 50);
    assert!(many["throughput"]["per_user_tokens_per_s"]["mid"].as_f64().expect("per-user") < mid("per_user_tokens_per_s"));
    // Training has no serving block.
    let train = json(&["estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--workload", "lora", "--json"]);
    assert!(train["serving"].is_null() && train["throughput"]["ttft_s"].is_null());
}

#[test]
fn bad_serving_flags_name_the_flag() {
    let base = ["estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b"];
    for (extra, flag) in [
        (vec!["--target-tokens-per-s-per-user", "-5"], "--target-tokens-per-s-per-user"),
        (vec!["--target-tokens-per-s-per-user", "0"], "--target-tokens-per-s-per-user"),
        (vec!["--max-ttft-s", "abc"], "--max-ttft-s"),
        (vec!["--prefix-hit", "1.5"], "--prefix-hit"),
        (vec!["--spec-accept", "-0.1"], "--spec-accept"),
        (vec!["--spec-decode", "magic"], "--spec-decode"),
        (vec!["--arrival-rate", "0"], "--arrival-rate"),
        (vec!["--users", "4", "--batch", "8"], "--users"),
    ] {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{extra:?}");
        assert!(err.contains(flag), "{extra:?}: {err}");
    }
}

/// `estimate` serves a build as the recommender does, as replicas of tensor-parallel
/// groups, and says which (`serving.replicas` × `serving.gpus_per_replica` = the cards).
#[test]
fn serving_json_names_the_replica_layout() {
    let v = json(&["estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--users", "512", "--json"]);
    let s = &v["serving"];
    let (k, m) = (s["replicas"].as_u64().expect("replicas"), s["gpus_per_replica"].as_u64().expect("gpus_per_replica"));
    assert_eq!(k * m, 8, "{s}");
    // The total counts every replica: at least the users in flight times the per-user speed.
    let per_user = v["throughput"]["per_user_tokens_per_s"]["mid"].as_f64().expect("per user");
    let total = v["throughput"]["aggregate_tokens_per_s"]["mid"].as_f64().expect("total");
    let users = s["users"].as_f64().expect("users");
    assert!((total - users * per_user).abs() <= 1e-6 * total, "{total} vs {users} × {per_user}");
}

/// Video generation: `--frames`, `--offload-mode` and `throughput.seconds_per_video`. The Wan2.2 README's
/// "Computational Efficiency" table (github Wan-Video/Wan2.2 @42bf4cfa) times T2V-A14B at 720P
/// (1280x720, 81 frames, 40 steps, `--offload_model True`) at 1041.5 s on one H100 with 59.8 GB peak.
#[test]
fn video_generation_flags_and_seconds_per_video() {
    let args = ["estimate", "--gpu", "h100-sxm", "--model", "wan2.2-t2v-a14b", "--resolution", "1280x720", "--frames", "81", "--offload-mode", "model", "--json"];
    let v = json(&args);
    let s = &v["throughput"]["seconds_per_video"];
    let mid = s["mid"].as_f64().expect("seconds_per_video.mid");
    assert!((mid / 1041.5 - 1.0).abs() <= 0.25, "{s}");
    assert!(s["low"].as_f64().unwrap() <= 1041.5 && 1041.5 <= s["high"].as_f64().unwrap(), "{s}");
    assert!((v["per_gpu_gib"].as_f64().unwrap() / 59.8 - 1.0).abs() <= 0.25, "{v}");
    assert!(v["throughput"]["seconds_per_image"].is_null());
    // More frames, more seconds; sequential offload, less memory.
    let longer = json(&["estimate", "--gpu", "h100-sxm", "--model", "wan2.2-t2v-a14b", "--frames", "121", "--offload-mode", "model", "--json"]);
    assert!(longer["throughput"]["seconds_per_video"]["mid"].as_f64().unwrap() > mid);
    let seq = json(&["estimate", "--gpu", "h100-sxm", "--model", "wan2.2-t2v-a14b", "--offload-mode", "sequential", "--json"]);
    assert!(seq["per_gpu_gib"].as_f64().unwrap() < v["per_gpu_gib"].as_f64().unwrap());
    // Image presets take --offload-mode too.
    let img = json(&["estimate", "--gpu", "rtx-4090", "--model", "qwen-image", "--offload-mode", "sequential", "--json"]);
    assert_eq!(img["fits"], true, "{img}");
    // The table names the unit.
    let (code, out, _) = run(&["estimate", "--gpu", "rtx-4090", "--model", "wan2.1-t2v-1.3b", "--resolution", "832x480"]);
    assert_eq!(code, 0);
    assert!(out.contains("s/video"), "{out}");
}

#[test]
fn bad_video_flags_name_the_flag() {
    for (args, flag) in [
        (vec!["--model", "wan2.1-t2v-1.3b", "--frames", "0"], "--frames"),
        (vec!["--model", "wan2.1-t2v-1.3b", "--frames", "many"], "--frames"),
        (vec!["--model", "wan2.1-t2v-1.3b", "--offload-mode", "disk"], "--offload-mode"),
        (vec!["--model", "sdxl", "--frames", "81"], "--frames"),
        (vec!["--model", "llama-3-8b", "--offload-mode", "model"], "--offload-mode"),
        (vec!["--model", "resnet-50", "--workload", "training", "--offload-mode", "model"], "--offload-mode"),
    ] {
        let mut all = vec!["estimate", "--gpu", "rtx-4090"];
        all.extend(args.iter());
        let (code, out, err) = run(&all);
        assert_eq!(code, 2, "{all:?}: {out}");
        assert!(err.contains(flag), "{all:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// Serving: `--arrivals in-step` takes the batched prefill of the users' prompts as the
/// TTFT's mid (per-user speed unchanged); `--cuda-graphs off` (vLLM `--enforce-eager`) pays the
/// host launches per layer, so one user decodes slower; bad values name the flag.
#[test]
fn arrivals_and_cuda_graphs_flags() {
    let base = ["estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--engine", "vllm", "--users", "100", "--json"];
    let with = |extra: &[&str]| json(&[&base[..], extra].concat());
    let mid = |v: &serde_json::Value, k: &str| v["throughput"][k]["mid"].as_f64().unwrap_or_else(|| panic!("{k}"));
    let (random, in_step) = (with(&[]), with(&["--arrivals", "in-step"]));
    assert!(mid(&in_step, "ttft_s") > mid(&random, "ttft_s"));
    assert!((mid(&in_step, "per_user_tokens_per_s") - mid(&random, "per_user_tokens_per_s")).abs() < 1e-9);
    let one = ["estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", "--engine", "vllm", "--json"];
    let eager = json(&[&one[..], &["--cuda-graphs", "off"]].concat());
    assert!(mid(&eager, "decode_tokens_per_s") < mid(&json(&one), "decode_tokens_per_s"));
    for (flag, bad) in [("--arrivals", "burst"), ("--cuda-graphs", "maybe")] {
        let (code, _, err) = run(&["estimate", "--gpu", "h100-sxm", "--model", "llama-3.1-8b", flag, bad]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(flag), "{err}");
    }
}

/// `--moe-layout dep` serves DeepSeek-V3 on 16 H100s with whole experts on each GPU and
/// data-parallel attention, and says so in the layout line; an unknown value is one line and
/// exit 2, naming the choices.
#[test]
fn moe_layout_flag_sets_the_expert_parallel_layout() {
    let args = ["estimate", "--gpu", "h100-sxm", "--gpus", "16", "--model", "deepseek-v3", "--precision", "fp8", "--engine", "sglang", "--users", "64"];
    let (code, out, err) = run(&[&args[..], &["--moe-layout", "dep"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("expert parallel ×16, attention data parallel on every GPU"), "{out}");
    let (code, _, err) = run(&[&args[..], &["--moe-layout", "sideways"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("--moe-layout") && err.contains("auto, tp, ep or dep") && err.trim().lines().count() == 1, "{err}");
}
