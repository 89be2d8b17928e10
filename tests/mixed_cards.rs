#![cfg(not(target_arch = "wasm32"))]
//! Mixed cards and the compute back-end.
//!
//! The split rule is llama.cpp's (`src/llama-model.cpp`, `llama_model::load_tensors`): the
//! `--tensor-split` proportions (by default each device's memory) are normalised into cumulative
//! shares, and layer `i` of `L` goes to the device `std::upper_bound(splits, i / L)` picks, the
//! first whose cumulative share exceeds `i / L`. Layers run one device after another, so a decode
//! step is Σ (layers on the card / L) × that card's time for the whole model, plus a hand-off
//! per boundary. llama.cpp's decode has its own weight-stream share and time per layer on each
//! back-end (`backend::llama_cpp_decode`), fitted on that back-end's rows (`docs/MODEL.md`,
//! "Back-ends").

use gpu_advisor::catalog;
use gpu_advisor::model::llm::engines::Backend;
use gpu_advisor::model::llm::mixed::{self, layers_by_memory};
use gpu_advisor::model::llm::{self, Efficiency, Engine, LlmJob};
use gpu_advisor::model::precision::Precision;

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("gpu {id}"))
}

fn job(id: &str, precision: Precision) -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm(id).unwrap_or_else(|| panic!("preset {id}")));
    j.precision = precision;
    j
}

fn decode_mid(e: &gpu_advisor::model::Estimate) -> f64 {
    e.throughput.decode_tokens_per_s.expect("decode").mid
}

#[test]
fn layers_follow_memory_as_llama_cpp_splits_them() {
    // 24 + 12 GB: shares 2/3 and 1/3. Layer i is on the first card while i / 32 < 0.6667, i.e.
    // i = 0..=21: 22 layers, then 10.
    assert_eq!(layers_by_memory(32, &[24.0, 12.0]), vec![22, 10]);
    // 24 + 24: 40 and 40 of Llama 3 70B's 80.
    assert_eq!(layers_by_memory(80, &[24.0, 24.0]), vec![40, 40]);
    // 24 + 24 + 12: cumulative 0.4, 0.8, 1.0 → i < 32, i < 64, the rest: 32, 32, 16.
    assert_eq!(layers_by_memory(80, &[24.0, 24.0, 12.0]), vec![32, 32, 16]);
}

#[test]
fn the_busiest_card_holds_its_layers_share() {
    // Llama 3 8B (32 layers) in fp16 on an RTX 4090 (24 GB) + RTX 3060 12 GB: 22 and 10 layers.
    // Two RTX 4090s split 16/16 hold (W + KV) × 16/32 + buffers + context + slack/2 each, so the
    // 4090 of the mix holds that plus (W + KV) × (22 − 16)/32, and is the busiest card.
    let j = job("llama-3-8b", Precision::Fp16);
    let cards = [(gpu("rtx-4090"), 1), (gpu("rtx-3060-12gb"), 1)];
    let s = mixed::split(&j, &cards).expect("split");
    assert_eq!(s.devices.iter().map(|d| d.layers).collect::<Vec<_>>(), vec![22, 10]);
    let mut even = j.clone();
    even.engine = Some(Engine::LlamaCpp);
    let pair = llm::estimate_llm(&even, gpu("rtx-4090"), 2).expect("2 x 4090");
    let expected = pair.per_gpu_gib + (pair.memory.weights_gib + pair.memory.kv_cache_gib) * 6.0 / 32.0;
    let e = mixed::estimate_mixed(&j, &cards).expect("estimate");
    assert!((e.per_gpu_gib - expected).abs() < 1e-9, "{} vs {expected}", e.per_gpu_gib);
    assert!(e.per_gpu_gib > s.devices.get(1).expect("3060").per_gpu_gib);
    assert_eq!((e.gpus, e.fits), (2, true));
}

#[test]
fn decode_runs_each_card_for_its_share() {
    // Llama 3 8B Q4_K_M on an RTX 4090 + RTX 3090 (24 + 24 GB: 16 layers each), both on CUDA:
    // a token takes half the 4090's time for the whole model, half the 3090's, and one hand-off
    // (llama.cpp's fitted `hop_ms`).
    let j = job("llama-3-8b", Precision::Q4KM);
    let one = |id: &str| decode_mid(&llm::estimate_llm(&j, gpu(id), 1).expect("one card"));
    let hop_s = llm::calibrated::CALIBRATED.llama_cpp.hop_ms * 1e-3;
    let expected = 1.0 / (0.5 / one("rtx-4090") + 0.5 / one("rtx-3090") + hop_s);
    let s = mixed::split(&j, &[(gpu("rtx-4090"), 1), (gpu("rtx-3090"), 1)]).expect("split");
    assert_eq!((s.engine, s.backend), (Engine::LlamaCpp, Backend::Cuda));
    let e = mixed::estimate_mixed(&j, &[(gpu("rtx-4090"), 1), (gpu("rtx-3090"), 1)]).expect("mix");
    assert!((decode_mid(&e) / expected - 1.0).abs() < 1e-9, "{} vs {expected}", decode_mid(&e));
    // One card type is an ordinary estimate on that many cards.
    let same = mixed::estimate_mixed(&j, &[(gpu("rtx-3090"), 2)]).expect("same");
    assert_eq!(same, llm::estimate_llm(&j, gpu("rtx-3090"), 2).expect("2 x 3090"));
}

#[test]
fn mixes_no_engine_can_run_name_the_field() {
    let j = job("llama-3-8b", Precision::Q4KM);
    // Tensor parallelism needs matching cards.
    let mut tp = j.clone();
    tp.engine = Some(Engine::Vllm);
    let e = mixed::estimate_mixed(&tp, &[(gpu("rtx-4090"), 1), (gpu("rtx-3090"), 1)]).expect_err("vllm");
    assert_eq!(e.field(), "mix");
    // NVIDIA + AMD share only Vulkan (catalog back-ends cuda/vulkan and rocm/vulkan) ...
    let s = mixed::split(&j, &[(gpu("rtx-4090"), 1), (gpu("rx-7900-xtx"), 1)]).expect("vulkan");
    assert_eq!(s.backend, Backend::Vulkan);
    // ... so CUDA cannot run that mix, and nothing runs Apple (metal/mlx) with NVIDIA.
    let mut cuda = j.clone();
    cuda.backend = Some(Backend::Cuda);
    assert_eq!(mixed::split(&cuda, &[(gpu("rtx-4090"), 1), (gpu("rx-7900-xtx"), 1)]).expect_err("cuda").field(), "backend");
    assert_eq!(mixed::split(&j, &[(gpu("rtx-4090"), 1), (gpu("apple-m2-ultra"), 1)]).expect_err("apple").field(), "mix");
}

/// llama.cpp runs the same decode kernels through each back-end's API and compiler, so its decode
/// weight-stream share and time per layer are fitted per back-end (`LlmFit::llama_cpp_rocm`,
/// `llama_cpp_vulkan`, `llama_cpp_metal`, `llama_cpp_sycl`; CUDA's are the engine's own
/// `llama_cpp` factors, and MLX is read as Metal). Published same-machine comparisons put
/// Vulkan's decode over ROCm's at 1.26 (ggml-org/llama.cpp#20934, RX 7900 XTX, Llama 7B Q4_0),
/// 1.30 (llama.cpp#10439, RX 7900 XTX, Qwen2.5-32B), 1.12 and 0.81 (aguyintech.com, RX 7900 XTX,
/// Qwen3.6-35B-A3B and Qwen3.6-27B) and 1.20 (lmstudio-bug-tracker#574, RX 9070 XT, gpt-oss-20b).
/// By hand, on an RX 7900 XTX (960 GB/s, 96 CUs: its in-flight cap, 96 × r, is above what it
/// streams) the KV reads and FLOPs are the same on both back-ends, so for Llama 3 8B Q4_K_M (W
/// bytes a step, 32 layers) step(Vulkan) − step(ROCm) = W / 960e9 · (1/e_vk − 1/e_rocm) + 32 ·
/// (τ_vk − τ_rocm); the ratio of the two speeds lies within the published runs' 0.81–1.30.
#[test]
fn llama_cpp_decodes_with_each_back_ends_own_factors() {
    use gpu_advisor::model::llm::backend::llama_cpp_decode;
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::fit::BackendDecode;
    use gpu_advisor::model::llm::in_force::{efficiency, llama_cpp_sm_read_gb_s};
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::{decode_step_s, decode_weight_bytes, job_efficiency};
    use gpu_advisor::model::llm::GpuFamily;
    let f = CALIBRATED;
    let mut j = job("llama-3-8b", Precision::Q4KM);
    j.engine = Some(Engine::LlamaCpp);
    let xtx = gpu("rx-7900-xtx");
    let rocm = llm::estimate_llm(&j, xtx, 1).expect("rocm");
    assert!(rocm.assumptions.iter().any(|a| a.to_string() == "back-end: rocm"), "{:?}", rocm.assumptions);
    // Each back-end's own factors, on the cards that list it.
    let on = |id: &str, b: Option<Backend>| llama_cpp_decode(&LlmJob { backend: b, ..j.clone() }, gpu(id), Engine::LlamaCpp);
    assert_eq!(on("rx-7900-xtx", None), Some(f.llama_cpp_rocm));
    assert_eq!(on("rx-7900-xtx", Some(Backend::Vulkan)), Some(f.llama_cpp_vulkan));
    assert_eq!(on("rtx-4090", Some(Backend::Vulkan)), Some(f.llama_cpp_vulkan));
    assert_eq!(on("apple-m4-max", None), Some(f.llama_cpp_metal));
    assert_eq!(on("apple-m4-max", Some(Backend::Mlx)), Some(f.llama_cpp_metal));
    assert_eq!(on("arc-b580", None), Some(f.llama_cpp_vulkan));
    assert_eq!(on("arc-b580", Some(Backend::Sycl)), Some(f.llama_cpp_sycl));
    assert_eq!(on("rtx-4090", None), None);
    assert_eq!(llama_cpp_decode(&j, gpu("rtx-4090"), Engine::Vllm), None);
    // CUDA runs on llama.cpp's own factors; ROCm replaces its decode share, time per layer and KV-read share only.
    let own = |g: &catalog::Gpu, job: &LlmJob| Efficiency { measured: false, ..job_efficiency(job, Engine::LlamaCpp, g) };
    assert_eq!(own(gpu("rtx-4090"), &j), Efficiency { measured: false, ..f.llama_cpp });
    let BackendDecode { weight_bw, layer_ms, attention_bw } = f.llama_cpp_rocm;
    assert_eq!(own(xtx, &j), Efficiency { weight_bw, layer_ms, attention_bw, measured: false, ..efficiency(Engine::LlamaCpp, GpuFamily::Amd) });
    // The decode steps of the two back-ends on the same card, by hand.
    assert!(96.0 * llama_cpp_sm_read_gb_s() / 960.0 > f.llama_cpp_rocm.weight_bw.max(f.llama_cpp_vulkan.weight_bw));
    let w = decode_weight_bytes(&j, 1.0);
    // The per-layer floor is quoted at the H100 SXM's 1,980 MHz; the RX 7900 XTX boosts to 2,500
    // MHz (AMD's specification), so each layer's fixed time is 1,980 / 2,500 of it.
    let stream = |b: BackendDecode| w / (960e9 * b.weight_bw * f.llama_cpp.quant_bw) + 32.0 * b.layer_ms * (1980.0 / 2500.0) * 1e-3;
    let step = |b: Backend| decode_step_s(&LlmJob { backend: Some(b), ..j.clone() }, xtx, Engine::LlamaCpp, &Layout::Single, 1.0, 512.0);
    let hand = stream(f.llama_cpp_vulkan) - stream(f.llama_cpp_rocm);
    let diff = step(Backend::Vulkan) - step(Backend::Rocm);
    assert!((diff - hand).abs() < 1e-12, "{diff} vs {hand}");
    j.backend = Some(Backend::Vulkan);
    let vulkan = llm::estimate_llm(&j, xtx, 1).expect("vulkan");
    let ratio = decode_mid(&vulkan) / decode_mid(&rocm);
    assert!((0.81..=1.30).contains(&ratio), "{ratio}");
    // The card's catalog back-ends and the engine's decide what is allowed.
    j.backend = Some(Backend::Rocm);
    assert_eq!(llm::estimate_llm(&j, gpu("rtx-4090"), 1).expect_err("rocm on NVIDIA").field(), "backend");
    j.backend = Some(Backend::Vulkan);
    j.engine = Some(Engine::Vllm);
    assert_eq!(llm::estimate_llm(&j, xtx, 1).expect_err("vLLM on Vulkan").field(), "backend");
}

#[test]
fn cli_mix_and_backend_flags() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpu-advisor")).args(args).output().expect("run");
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, out, err) = run(&["estimate", "--mix", "rtx-4090:1,rtx-3090:1", "--model", "llama-3-70b", "--precision", "q4_k_m", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["gpus"], 2);
    assert!(v["per_gpu_gib"].as_f64().expect("per_gpu") < 24.0);
    for (args, flag) in [
        (&["estimate", "--mix", "rtx-4090:1,rtx-9999:1", "--model", "llama-3-8b"][..], "--mix"),
        (&["estimate", "--mix", "rtx-4090:x", "--model", "llama-3-8b"][..], "--mix"),
        (&["estimate", "--mix", "rtx-4090:1,rtx-3090:1", "--engine", "vllm", "--model", "llama-3-8b"][..], "--mix"),
        (&["estimate", "--gpu", "rtx-4090", "--backend", "rocm", "--model", "llama-3-8b"][..], "--backend"),
        (&["estimate", "--gpu", "rtx-4090", "--backend", "opencl", "--model", "llama-3-8b"][..], "--backend"),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}
