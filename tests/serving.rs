#![cfg(not(target_arch = "wasm32"))]
//! The serving model (`llm::serving`): per-user speed, total rate and time to first
//! token at a concurrency, the frontier, the users that meet a target, arrivals and speculative
//! decoding. Properties hold for any job (proptest); the formulas are checked by hand.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::serving::{analyze, erlang_c, ServingTargets, SpecDecode};
use gpu_advisor::model::llm::{estimate_llm, Engine, LlmJob};
use gpu_advisor::model::precision::Precision;
use proptest::prelude::*;

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("{id}"))
}

fn job(preset: &str) -> LlmJob {
    LlmJob::for_preset(catalog::llm(preset).unwrap_or_else(|| panic!("{preset}")))
}

/// `preset` served by vLLM.
fn vllm_job(preset: &str) -> LlmJob {
    let mut j = job(preset);
    j.engine = Some(Engine::Vllm);
    j
}

/// With one user, per-user speed is the single-sequence decode speed and the total equals it.
#[test]
fn one_user_gets_the_decode_speed() {
    for (m, g, n) in [("llama-3.1-8b", "h100-sxm", 1), ("llama-3.1-8b", "rtx-3060-12gb", 2), ("llama-3.1-70b", "a100-80gb-sxm", 4)] {
        let j = job(m);
        let decode = estimate_llm(&j, gpu(g), n).expect("estimate").throughput.decode_tokens_per_s.expect("decode");
        let r = analyze(&j, gpu(g), n, &ServingTargets::default()).expect("serving");
        assert!((r.per_user_tokens_per_s.mid / decode.mid - 1.0).abs() < 1e-9, "{m} on {g}: {} vs {}", r.per_user_tokens_per_s.mid, decode.mid);
        assert!((r.aggregate_tokens_per_s.mid - r.per_user_tokens_per_s.mid).abs() < 1e-9);
        assert_eq!(r.users, 1.0);
    }
}

/// Llama 3.1 8B in BF16 on 2 × RTX 3060 serves one user at about 31
/// tokens/s (16 GB of weights streamed over two 360 GB/s cards in tensor parallel), not the
/// 226 tokens/s of a full KV pool.
#[test]
fn two_rtx_3060s_serve_one_user_at_about_31_tokens_per_s() {
    let mut j = job("llama-3.1-8b");
    j.precision = Precision::Bf16;
    let r = analyze(&j, gpu("rtx-3060-12gb"), 2, &ServingTargets::default()).expect("serving");
    assert!((25.0..=38.0).contains(&r.per_user_tokens_per_s.mid), "{}", r.per_user_tokens_per_s.mid);
}

/// Erlang C by hand: c = 2 servers at offered load a = 1: Σ_{k<2} a^k/k! = 2, a^c/c! · c/(c − a)
/// = 1, so P(wait) = 1/3. One server (M/M/1) waits with probability ρ.
#[test]
fn erlang_c_by_hand() {
    assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
    assert!((erlang_c(1, 0.6) - 0.6).abs() < 1e-12);
    assert_eq!(erlang_c(4, 4.0), 1.0);
}

/// Speculative decoding (Leviathan et al. 2023, eq. 1): MTP with one drafted token accepted 85%
/// of the time yields 1 + 0.85 = 1.85 tokens per verification step, so one user is faster than
/// without it, by less than 1.85× (the verification step reads the weights with two tokens and
/// the MTP layer costs one layer).
#[test]
fn speculative_decoding_speeds_up_one_user() {
    let j = job("llama-3.1-8b");
    let off = analyze(&j, gpu("h100-sxm"), 1, &ServingTargets::default()).expect("off");
    let mtp = analyze(&j, gpu("h100-sxm"), 1, &ServingTargets { spec: SpecDecode::Mtp, ..ServingTargets::default() }).expect("mtp");
    let gain = mtp.per_user_tokens_per_s.mid / off.per_user_tokens_per_s.mid;
    assert!(gain > 1.5 && gain < 1.85, "{gain}");
    // Every draft rejected: one token per step, and the draft's cost on top: slower.
    let none = ServingTargets { spec: SpecDecode::Eagle, spec_accept: Some(0.0), ..ServingTargets::default() };
    assert!(analyze(&j, gpu("h100-sxm"), 1, &none).expect("eagle").per_user_tokens_per_s.mid < off.per_user_tokens_per_s.mid);
}

/// The most users meeting 20 tokens/s each within 2 s to the first token: every count up to it
/// meets both targets and the next one misses one.
#[test]
fn max_users_meet_the_targets_and_one_more_does_not() {
    let mut j = job("llama-3.1-8b");
    j.engine = Some(Engine::Vllm);
    let t = ServingTargets { tokens_per_s_per_user: Some(20.0), max_ttft_s: Some(2.0), ..ServingTargets::default() };
    let r = analyze(&j, gpu("l40s"), 1, &t).expect("serving");
    let m = r.max_users.expect("a target gives a count");
    assert!(m >= 1 && m < r.capacity, "{m} of {}", r.capacity);
    let at = |u: u32| {
        let mut k = j.clone();
        k.batch = u;
        analyze(&k, gpu("l40s"), 1, &ServingTargets::default()).expect("serving")
    };
    let ok = at(m);
    assert!(ok.per_user_tokens_per_s.mid >= 20.0 && ok.ttft_s.expect("ttft").mid <= 2.0);
    let over = at(m + 1);
    assert!(over.per_user_tokens_per_s.mid < 20.0 || over.ttft_s.expect("ttft").mid > 2.0);
}

/// More users offered than the build holds wait for a slot: TTFT jumps, per-user speed stays at
/// the build's full-load figure.
#[test]
fn users_beyond_capacity_queue() {
    let j = job("llama-3.1-8b");
    let cap = analyze(&j, gpu("rtx-4090"), 1, &ServingTargets::default()).expect("serving").capacity;
    let at = |u: u32| {
        let mut k = j.clone();
        k.batch = u;
        analyze(&k, gpu("rtx-4090"), 1, &ServingTargets::default()).expect("serving")
    };
    let full = at(cap);
    let over = at(cap * 2);
    assert_eq!(over.users, f64::from(cap));
    assert!((over.per_user_tokens_per_s.mid - full.per_user_tokens_per_s.mid).abs() < 1e-9);
    assert!(over.ttft_s.expect("ttft").mid > 2.0 * full.ttft_s.expect("ttft").mid);
}

/// Arrivals faster than the build serves leave the wait unbounded.
#[test]
fn saturating_arrivals_have_no_ttft() {
    let mut j = job("llama-3.1-70b");
    j.precision = Precision::Fp8;
    let t = ServingTargets { arrival_rate_rps: Some(1000.0), ..ServingTargets::default() };
    let r = analyze(&j, gpu("h100-sxm"), 1, &t).expect("serving");
    assert!(r.ttft_s.is_none());
    let calm = ServingTargets { arrival_rate_rps: Some(0.01), ..ServingTargets::default() };
    assert!(analyze(&j, gpu("h100-sxm"), 1, &calm).expect("serving").ttft_s.is_some());
}

/// Bad targets are errors that name the field.
#[test]
fn bad_targets_name_their_field() {
    let j = job("llama-3.1-8b");
    let g = gpu("h100-sxm");
    let field = |t: ServingTargets| analyze(&j, g, 1, &t).expect_err("rejected").field().to_string();
    assert_eq!(field(ServingTargets { prefix_hit: 1.5, ..ServingTargets::default() }), "prefix_hit");
    assert_eq!(field(ServingTargets { spec_accept: Some(-0.1), ..ServingTargets::default() }), "spec_accept");
    assert_eq!(field(ServingTargets { tokens_per_s_per_user: Some(0.0), ..ServingTargets::default() }), "target_tokens_per_s_per_user");
    assert_eq!(field(ServingTargets { max_ttft_s: Some(f64::NAN), ..ServingTargets::default() }), "max_ttft_s");
}

const PRESETS: [&str; 6] = ["llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "llama-3.1-70b", "mixtral-8x7b", "gemma-2-9b"];
const CARDS: [&str; 6] = ["rtx-4090", "h100-sxm", "a100-80gb-sxm", "l40s", "rtx-3090", "mi300x"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// As users rise, per-user speed never rises and TTFT never falls; along the frontier
    /// per-user speed falls while the total rises.
    #[test]
    fn more_users_never_help_one_user(m in 0..PRESETS.len(), c in 0..CARDS.len(), gpus in 1u32..5, prompt in 1u32..8192, out in 1u32..2048, hit in 0.0f64..1.0) {
        let mut j = job(PRESETS[m]);
        j.prompt_tokens = prompt;
        j.output_tokens = out;
        j.context_tokens = prompt + out;
        let g = gpu(CARDS[c]);
        let t = ServingTargets { prefix_hit: hit, ..ServingTargets::default() };
        let Ok(r) = analyze(&j, g, gpus, &t) else { return Ok(()) };
        let mut last = (f64::INFINITY, 0.0);
        for u in [1u32, 2, 3, 5, 8, 13, 21, 34, 55, 89] {
            j.batch = u;
            let p = analyze(&j, g, gpus, &t).expect("serving");
            let ttft = p.ttft_s.expect("ttft").mid;
            prop_assert!(p.per_user_tokens_per_s.mid <= last.0 * (1.0 + 1e-9), "{u}: {} after {}", p.per_user_tokens_per_s.mid, last.0);
            prop_assert!(ttft >= last.1 * (1.0 - 1e-9), "{u}: ttft {ttft} after {}", last.1);
            last = (p.per_user_tokens_per_s.mid, ttft);
        }
        for w in r.curve.windows(2) {
            prop_assert!(w[1].users > w[0].users);
            prop_assert!(w[1].per_user_tokens_per_s <= w[0].per_user_tokens_per_s * (1.0 + 1e-9));
            prop_assert!(w[1].aggregate_tokens_per_s > w[0].aggregate_tokens_per_s);
            prop_assert!(w[1].ttft_s >= w[0].ttft_s * (1.0 - 1e-9));
        }
    }
}

/// TensorRT-LLM's engine runtime launches a decode step without CUDA graphs by default, so each
/// layer pays the host launch time xLLM measured with and without graphs: (4.20 − 2.72) ms over
/// Qwen3-0.6B's 28 layers = 0.0529 ms. With the same efficiency factors, a decode step of Llama 3
/// 8B (32 layers) on TensorRT-LLM is 32 × 0.0529 = 1.691 ms longer than on vLLM, which replays
/// CUDA graphs; at full batch the same 1.7 ms is a few per cent of a step.
#[test]
fn tensorrt_llm_pays_its_kernel_launches_per_layer() {
    use gpu_advisor::model::llm::{engines, in_force};
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::decode_step_s;
    let g = gpu("h100-sxm");
    let mut j = job("llama-3-8b");
    assert_eq!(j.model.layers, 32);
    j.efficiency = Some(in_force::efficiency(Engine::Vllm, engines::GpuFamily::NvidiaHbm));
    let step = |e: Engine, batch: f64| decode_step_s(&j, g, e, &Layout::Single, batch, 700.0);
    for batch in [1.0, 5.0, 250.0] {
        let extra_ms = (step(Engine::TrtLlm, batch) - step(Engine::Vllm, batch)) * 1e3;
        assert!((extra_ms - 32.0 * (4.20 - 2.72) / 28.0).abs() < 1e-9, "batch {batch}: {extra_ms} ms");
    }
    assert_eq!(Engine::Vllm.eager_launch_layer_ms(), 0.0);
    assert_eq!(Engine::Sglang.eager_launch_layer_ms(), 0.0);
}

/// NVIDIA NIM's TensorRT-LLM (the NIM DLI sweep, `llm_serving_more.csv`): Llama 3 8B FP16 on one
/// H100 SXM at 5 users, 200/1,000 tokens, 8.08 ms per output token. By hand, with TensorRT-LLM's
/// factors (`calibrated::CALIBRATED.trt_llm`: e_w, e_attn, τ, the prefill MFU m): the weights and LM
/// head, 15.01 GB, at e_w × 3,350 GB/s (5.6 ms at 0.80); the KV cache of 5 × 700 tokens × 131,072
/// B = 0.46 GB at e_attn of the bandwidth (0.2 ms at 0.7); 5 × 2 × 7.5e9 FLOPs at m of 989.4
/// TFLOPS (under 0.1 ms); 32 layers × (τ + 0.053 ms of kernel launches without CUDA graphs) (3.3
/// ms at τ = 0.05): 9.2 ms at today's factors. The other users' prompts mixed into the steps
/// add 4/1,000 of a 200-token prefill riding the steps' weight stream (0.02 ms). The measured
/// 8.08 ms lies inside the per-user band (`bands::PER_USER`) of the mid.
#[test]
fn nim_tensorrt_llm_at_five_users_by_hand() {
    use gpu_advisor::model::llm::engines::EAGER_LAUNCH_LAYER_MS;
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    let t = CALIBRATED.trt_llm;
    let mut j = job("llama-3-8b");
    j.engine = Some(Engine::TrtLlm);
    j.precision = Precision::Fp16;
    j.prompt_tokens = 200;
    j.output_tokens = 1000;
    j.batch = 5;
    let r = analyze(&j, gpu("h100-sxm"), 1, &ServingTargets::default()).expect("serving");
    let tpot_ms = 1e3 / r.per_user_tokens_per_s.mid;
    let hand_ms = 15.01e9 / (t.weight_bw * 3350e9) * 1e3
        + 5.0 * 700.0 * 131_072.0 / (t.attention_bw * 3350e9) * 1e3
        + 5.0 * 2.0 * 7.5e9 / (t.prefill_mfu * 989.4e12) * 1e3
        + 32.0 * (t.layer_ms + EAGER_LAUNCH_LAYER_MS);
    assert!(tpot_ms > hand_ms && tpot_ms / hand_ms - 1.0 < 0.01, "{tpot_ms} ms, by hand {hand_ms} ms");
    let measured = 1e3 / 8.08;
    let b = r.per_user_tokens_per_s;
    let (low, high) = gpu_advisor::model::bands::PER_USER.fitted;
    assert!((b.low / b.mid - low).abs() < 1e-12 && (b.high / b.mid - high).abs() < 1e-12, "{b:?}");
    assert!(b.low <= measured && measured <= b.high, "{b:?} vs {measured}");
}

/// Users whose prompts arrive together share the prefill's forward passes: 5 prompts of 200
/// tokens fit one iteration of vLLM's 8,192-token budget on an H100, so every user waits for
/// that one batched pass (the TTFT band's high end). By hand, with vLLM's prefill MFU m, its
/// attention share a and its time per layer per pass τ_p (`calibrated::CALIBRATED.vllm`:
/// `prefill_mfu`, `attention_flops`, `prefill_layer_ms`) on the H100's 989.4 TFLOPS: the GEMMs
/// of 1,000 tokens, 2 × 7.505e9 × 1,000 / (989.4e12 × m) (32.2 ms at m = 0.47), above the
/// weight stream of 15.01 GB at e_w × 3,350 GB/s (5.1 ms); attention within each 200-token
/// prompt, 2 × 32 × 1,000 × 200 × 4,096 / (989.4e12 × m × a) (0.2 ms); 32 × τ_p (1.0 ms): 33.4
/// ms at today's factors, against 5 × 7.4 ms for the prompts one after another (each pays the
/// per-layer time again).
#[test]
fn prompts_in_step_are_prefilled_together() {
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::{prefill_batch_s, prefill_s};
    let v = CALIBRATED.vllm;
    let g = gpu("h100-sxm");
    let mut j = vllm_job("llama-3-8b");
    j.prompt_tokens = 200;
    j.output_tokens = 1000;
    j.batch = 5;
    let r = analyze(&j, g, 1, &ServingTargets::default()).expect("serving");
    let batched = prefill_batch_s(&j, g, Engine::Vllm, &Layout::Single, 5.0, 200.0, true);
    let gemm = 2.0 * 7.505e9 * 1000.0 / (989.4e12 * v.prefill_mfu);
    assert!(gemm > 15.01e9 / (v.weight_bw * 3350e9), "the GEMMs outlast the weight stream");
    let hand = gemm + 2.0 * 32.0 * 1000.0 * 200.0 * 4096.0 / (989.4e12 * v.prefill_mfu * v.attention_flops) + 32.0 * v.prefill_layer_ms * 1e-3;
    assert!((batched / hand - 1.0).abs() < 0.005, "{} ms, by hand {} ms", batched * 1e3, hand * 1e3);
    let high = r.ttft_s.expect("ttft").high;
    assert!(high >= batched - 1e-12, "{high} vs {batched}");
    let one = prefill_s(&j, g, Engine::Vllm, &Layout::Single, 200.0, true);
    assert!(batched > one && batched < 5.0 * one, "batched {batched}, one {one}");
    // One 1,000-token prompt attends over all its tokens: more attention than the batch.
    let long = prefill_batch_s(&j, g, Engine::Vllm, &Layout::Single, 1.0, 1000.0, true);
    assert!(long > batched);
}

/// With other users in flight a prompt's chunks ride their decode iterations, which stream
/// every weight anyway (Sarathi-Serve, Agrawal et al. 2024, §4: a prefill chunk piggybacks on
/// the decode batch's weight fetch), so the build's time per prompt drops the prefill's floor
/// of one weight stream. By hand, Llama 3 8B FP16 on vLLM on one H100, a 16-token prompt: its
/// GEMMs, 2 × 7.505e9 × 16 / (989.4e12 × m) (0.25 ms at m = 0.48), lie far under the weight
/// stream, 15.01 GB at e_w × 3,350 GB/s (5.0 ms at e_w = 0.89), so a lone prefill takes the
/// stream and a prompt among 8 users the GEMMs: the difference is stream − GEMMs, the
/// attention, fixed time and communication being the same in both. A 4,096-token prompt's
/// GEMMs (64 ms) outlast the stream, and the two are the same.
#[test]
fn a_prompt_among_other_users_rides_their_weight_stream() {
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::{prefill_s, prefill_share_s};
    let v = CALIBRATED.vllm;
    let g = gpu("h100-sxm");
    let mut j = vllm_job("llama-3-8b");
    j.precision = Precision::Fp16;
    let gemm = 2.0 * 7.505e9 * 16.0 / (989.4e12 * v.prefill_mfu);
    let stream = 15.01e9 / (v.weight_bw * 3350e9);
    let alone = prefill_s(&j, g, Engine::Vllm, &Layout::Single, 16.0, true);
    let among = prefill_share_s(&j, g, Engine::Vllm, &Layout::Single, 16.0, 8.0);
    let hand = stream - gemm;
    assert!(((alone - among) / hand - 1.0).abs() < 0.01, "{} ms, by hand {} ms", (alone - among) * 1e3, hand * 1e3);
    // One user: nobody else streams the weights for it.
    assert_eq!(prefill_share_s(&j, g, Engine::Vllm, &Layout::Single, 16.0, 1.0), alone);
    let long_alone = prefill_s(&j, g, Engine::Vllm, &Layout::Single, 4096.0, true);
    let long_among = prefill_share_s(&j, g, Engine::Vllm, &Layout::Single, 4096.0, 8.0);
    assert!((long_alone / long_among - 1.0).abs() < 1e-12, "{long_alone} vs {long_among}");
}

/// Requests recorded as arriving together (`Arrivals::InStep`: a closed loop of fixed-length
/// requests, as GenAI-Perf at a fixed concurrency or `bench_serving --random-range-ratio 1` run)
/// take the in-step figure as the TTFT's mid, with the in-step band (`bands::TTFT_IN_STEP`). By
/// hand, Llama 3 8B FP16 on vLLM on one H100 (989.4 TFLOPS dense; vLLM's prefill MFU m,
/// attention share a, time per layer per pass τ_p and fixed time per request r_s, from
/// `calibrated::CALIBRATED`), a pass over x prompt tokens in c iterations taking
/// t(x) = 2 × 7.505e9 × x / (989.4e12 × m) + 2 × 32 × x × 200 × 4,096 / (989.4e12 × m × a) + c × 32 τ_p:
/// - 5 users of 200 tokens fit one 8,192-token iteration: every user waits for the one batched
///   pass of 1,000 tokens and the request's own time, t(1,000) + r_s (33.4 + 10.1 ms at today's
///   factors; see `prompts_in_step_are_prefilled_together`);
/// - 100 users of 200 tokens (20,000 tokens, 3 iterations): the first user's prompt ends with the
///   first iteration of 8,192 tokens, the last with all 20,000; the mean is their mean,
///   (t(8,192) + t(20,000)) / 2 + r_s (266.8 and 651.8 ms: 469 ms at today's factors).
///
/// The per-user speed does not depend on the arrival pattern.
#[test]
fn in_step_arrivals_take_the_batched_prefill_as_mid() {
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::serving::Arrivals;
    const IN_STEP_TTFT_BAND: (f64, f64) = gpu_advisor::model::bands::TTFT_IN_STEP.fitted;
    let f = CALIBRATED;
    let v = f.vllm;
    let pass = |tokens: f64, iterations: f64| {
        2.0 * 7.505e9 * tokens / (989.4e12 * v.prefill_mfu)
            + 2.0 * 32.0 * tokens * 200.0 * 4096.0 / (989.4e12 * v.prefill_mfu * v.attention_flops)
            + iterations * 32.0 * v.prefill_layer_ms * 1e-3
    };
    let request = f.serving_request_ms * 1e-3;
    let g = gpu("h100-sxm");
    let mut j = vllm_job("llama-3-8b");
    j.prompt_tokens = 200;
    j.output_tokens = 1000;
    let in_step = ServingTargets { arrivals: Arrivals::InStep, ..ServingTargets::default() };
    for (users, hand) in [(5, pass(1000.0, 1.0) + request), (100, (pass(8192.0, 1.0) + pass(20_000.0, 3.0)) / 2.0 + request)] {
        j.batch = users;
        let r = analyze(&j, g, 1, &in_step).expect("serving");
        let t = r.ttft_s.expect("ttft");
        assert!((t.mid / hand - 1.0).abs() < 0.005, "{users} users: {} ms, by hand {} ms", t.mid * 1e3, hand * 1e3);
        assert!((t.low / t.mid - IN_STEP_TTFT_BAND.0).abs() < 1e-9 && (t.high / t.mid - IN_STEP_TTFT_BAND.1).abs() < 1e-9);
        let random = analyze(&j, g, 1, &ServingTargets::default()).expect("serving");
        assert_eq!(random.per_user_tokens_per_s, r.per_user_tokens_per_s);
        assert!(random.ttft_s.expect("ttft").mid < t.mid, "{users} users: random arrivals wait less");
    }
    assert_eq!(Arrivals::parse("in-step"), Some(Arrivals::InStep));
    assert_eq!(Arrivals::parse("Random"), Some(Arrivals::Random));
    assert_eq!(Arrivals::parse("burst"), None);
}

/// A vLLM build run with `--enforce-eager` launches every kernel from the host, as TensorRT-LLM's
/// runtime does by default: each layer pays `EAGER_LAUNCH_LAYER_MS`, (4.20 − 2.72)/28 = 0.0529
/// ms (xLLM; vLLM's own graph/no-graph measurement, pull request #1440, gives (1.20 − 1.05) s /
/// 100 tokens / 32 layers = 0.047 ms). By hand, Llama 3 8B (32 layers): 1.691 ms more per step;
/// Llama 3.1 405B (126 layers): 6.66 ms. With graphs asked of TensorRT-LLM (`cuda_graph_mode`)
/// its step loses the same 1.691 ms.
#[test]
fn enforce_eager_pays_the_launches_per_layer() {
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::decode_step_s;
    let g = gpu("h100-sxm");
    for (preset, layers, hand_ms) in [("llama-3-8b", 32, 1.691), ("llama-3.1-405b", 126, 6.660)] {
        let mut j = job(preset);
        assert_eq!(j.model.layers, layers);
        let graphs = decode_step_s(&j, g, Engine::Vllm, &Layout::Tensor(8), 4.0, 2000.0);
        j.cuda_graphs = Some(false);
        let eager = decode_step_s(&j, g, Engine::Vllm, &Layout::Tensor(8), 4.0, 2000.0);
        assert!(((eager - graphs) * 1e3 - hand_ms).abs() < 0.001, "{preset}: {} ms", (eager - graphs) * 1e3);
    }
    let mut j = job("llama-3-8b");
    let trt = decode_step_s(&j, g, Engine::TrtLlm, &Layout::Single, 4.0, 700.0);
    j.cuda_graphs = Some(true);
    let trt_graphs = decode_step_s(&j, g, Engine::TrtLlm, &Layout::Single, 4.0, 700.0);
    assert!(((trt - trt_graphs) * 1e3 - 1.691).abs() < 0.001);
    // llama.cpp's fixed time holds its launches already: the flag changes nothing there.
    j.cuda_graphs = Some(false);
    let cpp = decode_step_s(&j, g, Engine::LlamaCpp, &Layout::Single, 1.0, 700.0);
    j.cuda_graphs = None;
    assert_eq!(cpp, decode_step_s(&j, g, Engine::LlamaCpp, &Layout::Single, 1.0, 700.0));
}

/// A continuous-batching engine runs a decode batch through the prefill's GEMMs (under chunked
/// prefill, in the same GEMM as the prompt chunk: Sarathi-Serve §4), so the decode FLOPs run at
/// the prefill's MFU m (vLLM's `prefill_mfu`, `calibrated::CALIBRATED.vllm`), not at a decode MFU of
/// its own. By hand, Llama 3 8B FP16 on vLLM on one H100 SXM (989.4 TFLOPS dense), at one token
/// of context so the KV cache is negligible and every weight is read at both batches: 1,024
/// sequences take 2 × 7.505e9 × 512 / (989.4e12 × m) more per step than 512 (16.5 ms at
/// m = 0.47).
#[test]
fn batched_decode_runs_at_the_prefill_gemm_rate() {
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::decode_step_s;
    let v = CALIBRATED.vllm;
    let g = gpu("h100-sxm");
    let j = job("llama-3-8b");
    let step = |b: f64| decode_step_s(&j, g, Engine::Vllm, &Layout::Single, b, 1.0);
    let extra_ms = (step(1024.0) - step(512.0)) * 1e3;
    let hand_ms = 2.0 * 7.505e9 * 512.0 / (989.4e12 * v.prefill_mfu) * 1e3;
    assert!((extra_ms / hand_ms - 1.0).abs() < 0.01, "{extra_ms} ms, by hand {hand_ms} ms");
    // At the engine's decode MFU it would differ wherever the two factors do.
    if (v.decode_mfu - v.prefill_mfu).abs() > 0.01 {
        let at_decode_mfu = hand_ms * v.prefill_mfu / v.decode_mfu;
        assert!((extra_ms / at_decode_mfu - 1.0).abs() > 0.01, "{extra_ms} ms");
    }
}

/// FP8 weights with a 16-bit KV cache run their attention at the 16-bit rate (vLLM's FP8 method
/// quantizes the linear layers only; FlashAttention and FlashInfer run a BF16 cache in BF16). By
/// hand, Llama 3 8B on vLLM on one H100 SXM, a 4,096-token prompt: causal attention 2 × 32 layers
/// × 4,096² × 4,096 = 4.398e12 FLOPs at m × a of the peak (vLLM's prefill MFU and attention
/// share, `calibrated::CALIBRATED.vllm`), at the FP8 rate (1,978.9 TFLOPS) with an FP8 cache and at
/// the 16-bit rate (989.4) with an FP16 one: the FP16 cache costs 4.398e12 / (m × a) ×
/// (1/989.4e12 − 1/1,978.9e12) more (9.4 ms at m = 0.47, a = 0.5), and nothing else in a
/// prefill depends on the cache's format.
#[test]
fn fp8_weights_attend_at_the_cache_precision() {
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::prefill_s;
    use gpu_advisor::model::precision::KvPrecision;
    let v = CALIBRATED.vllm;
    let g = gpu("h100-sxm");
    assert_eq!((g.fp16_tflops, g.fp8_tflops), (Some(989.4), Some(1978.9)));
    let mut j = job("llama-3-8b");
    j.precision = Precision::Fp8;
    j.kv_precision = KvPrecision::Fp16;
    let bf16_cache = prefill_s(&j, g, Engine::Vllm, &Layout::Single, 4096.0, false);
    j.kv_precision = KvPrecision::Fp8;
    let fp8_cache = prefill_s(&j, g, Engine::Vllm, &Layout::Single, 4096.0, false);
    let extra_ms = (bf16_cache - fp8_cache) * 1e3;
    let attention = 2.0 * 32.0 * 4096.0 * 4096.0 * 4096.0;
    let hand_ms = attention / (v.prefill_mfu * v.attention_flops) * (1.0 / 989.4e12 - 1.0 / 1978.9e12) * 1e3;
    assert!((extra_ms / hand_ms - 1.0).abs() < 0.01, "{extra_ms} ms, by hand {hand_ms} ms");
}

/// vLLM's and SGLang's fused-MoE kernels cost a fixed time per MoE layer per forward pass beyond
/// their expert bytes: t = t0 + bytes/b through vLLM's `benchmark_moe.py` on an H100 (pull request
/// #24700; Qwen3-30B-A3B FP8, 128 experts of 4.72 MB, top 8): 40.44 µs for 8 experts (37.7 MB)
/// and 247.67 µs for all 128 (604 MB) give b = 566.3 MB / 207.23 µs = 2.733 TB/s and t0 = 40.44 −
/// 13.79 = 26.65 µs. The same line at batch 4 (128·(1 − (120/128)^4) = 29.2 experts, 137.8 MB):
/// 26.65 + 50.4 = 77.1 µs, measured 78.10; at batch 16 (82.5 experts, 389 MB): 169.0 µs, measured
/// 164.64. DeepSeek-R1 has 61 layers, the first 3 dense: 58 × 26.65 µs = 1.546 ms per pass.
#[test]
fn fused_moe_pays_a_fixed_time_per_moe_layer() {
    use gpu_advisor::model::llm::engines::FUSED_MOE_LAYER_MS;
    use gpu_advisor::model::llm::throughput::fused_moe_fixed_s;
    assert!((FUSED_MOE_LAYER_MS * 1e3 - 26.65).abs() < 0.05, "{} µs", FUSED_MOE_LAYER_MS * 1e3);
    let line = |mb: f64| FUSED_MOE_LAYER_MS * 1e3 + mb / 2.733;
    assert!((line(137.8) / 78.10 - 1.0).abs() < 0.03 && (line(389.0) / 164.64 - 1.0).abs() < 0.04);
    let ds = job("deepseek-r1");
    assert_eq!((ds.model.layers, ds.model.dense_layers), (61, 3));
    let h100 = gpu("h100-sxm");
    assert!((fused_moe_fixed_s(&ds, h100, Engine::Vllm) * 1e3 - 1.546).abs() < 0.003);
    assert_eq!(fused_moe_fixed_s(&ds, h100, Engine::Sglang), fused_moe_fixed_s(&ds, h100, Engine::Vllm));
    assert_eq!(fused_moe_fixed_s(&ds, h100, Engine::TrtLlm), 0.0);
    assert_eq!(fused_moe_fixed_s(&job("llama-3-8b"), h100, Engine::Vllm), 0.0);
}

/// SGLang serves a DeepSeek-V3-architecture model (latent attention, routed experts) on an SM100
/// card (B200, B300) in FP8 or NVFP4 with TensorRT-LLM's fused MoE: its server arguments set
/// `moe_runner_backend = "flashinfer_trtllm"` for `DeepseekV3ForCausalLM` on SM100 when the
/// quantization is `fp8`, `modelopt_fp8` or `modelopt_fp4` and no all-to-all back end is asked for
/// (sgl-project/sglang python/sglang/srt/server_args.py). Those kernels are TensorRT-LLM's, which
/// carry no Triton fixed time: 0 where the Triton path pays 58 × 26.65 µs = 1.546 ms. On Hopper,
/// in BF16, on a workstation Blackwell (compute capability 12.x) and for an MoE without latent
/// attention the Triton path stays, and so does vLLM's.
#[test]
fn sglang_runs_tensorrt_llm_moe_kernels_for_deepseek_on_sm100() {
    use gpu_advisor::model::llm::throughput::fused_moe_fixed_s;
    let triton = 58.0 * 26.65e-6;
    let mut ds = job("deepseek-r1");
    for (g, p, want) in [
        ("b200", Precision::Fp8, 0.0),
        ("b300", Precision::Nvfp4, 0.0),
        ("h200-sxm", Precision::Fp8, triton),
        ("b200", Precision::Bf16, triton),
        ("rtx-pro-6000-blackwell", Precision::Nvfp4, triton),
    ] {
        ds.precision = p;
        let t = fused_moe_fixed_s(&ds, gpu(g), Engine::Sglang);
        assert!((t - want).abs() < 2e-6, "{g} {p:?}: {t} s, by hand {want} s");
    }
    ds.precision = Precision::Fp8;
    assert!((fused_moe_fixed_s(&ds, gpu("b200"), Engine::Vllm) - triton).abs() < 2e-6);
    let mut qwen = job("qwen3-235b-a22b");
    qwen.precision = Precision::Fp8;
    assert!(fused_moe_fixed_s(&qwen, gpu("b200"), Engine::Sglang) > 0.0);
}

/// A DeepSeek-style MoE (routed experts, latent attention) shows its serving figures with the bands
/// its published sweeps call for (`bands::SERVING_MLA_MOE` for the total, `PER_USER_MLA_MOE` for
/// one user's speed: the 10th–90th percentile of measured / model over the held-out DeepSeek-R1
/// rows of dstack and GPUStack, docs/ACCURACY.md), reaching lower than the dense bands (those
/// sweeps run well below the physics), and says why; a dense model keeps the dense bands
/// (`SERVING`, `PER_USER`).
#[test]
fn deepseek_style_moe_serving_band_is_widened_and_says_so() {
    use gpu_advisor::decimal::fixed;
    use gpu_advisor::model::bands::{PER_USER, PER_USER_MLA_MOE, SERVING, SERVING_MLA_MOE};
    assert!(SERVING_MLA_MOE.fitted.0 < SERVING.fitted.0);
    assert!(PER_USER_MLA_MOE.fitted.0 < PER_USER.fitted.0);
    let around = |b: gpu_advisor::model::Band, (low, high): (f64, f64)| (b.low / b.mid - low).abs() < 1e-9 && (b.high / b.mid - high).abs() < 1e-9;
    let mut ds = job("deepseek-r1");
    ds.engine = Some(Engine::Sglang);
    ds.precision = Precision::Fp8;
    ds.batch = 64;
    let r = analyze(&ds, gpu("h200-sxm"), 8, &ServingTargets::default()).expect("serving");
    assert!(r.users > 1.0, "{}", r.users);
    assert!(around(r.aggregate_tokens_per_s, SERVING_MLA_MOE.fitted), "{:?}", r.aggregate_tokens_per_s);
    assert!(around(r.per_user_tokens_per_s, PER_USER_MLA_MOE.fitted), "{:?}", r.per_user_tokens_per_s);
    let est = estimate_llm(&ds, gpu("h200-sxm"), 8).expect("estimate");
    let said = format!("published serving sweeps of other sources measure {}–{} × this estimate", fixed(SERVING_MLA_MOE.fitted.0, 2), fixed(SERVING_MLA_MOE.fitted.1, 2));
    assert!(est.assumptions.iter().any(|n| n.text().contains(&said)), "{said}: {:?}", est.assumptions);
    // One band per estimate: the dense band it does not use is not named.
    assert!(!est.assumptions.iter().any(|n| n.text().starts_with("serving totals: band")), "{:?}", est.assumptions);
    let mut dense = job("llama-3.1-70b");
    dense.engine = Some(Engine::Vllm);
    dense.batch = 64;
    let r = analyze(&dense, gpu("h100-sxm"), 4, &ServingTargets::default()).expect("serving");
    assert!(around(r.aggregate_tokens_per_s, SERVING.fitted), "{:?}", r.aggregate_tokens_per_s);
    assert!(around(r.per_user_tokens_per_s, PER_USER.fitted), "{:?}", r.per_user_tokens_per_s);
    let est = estimate_llm(&dense, gpu("h100-sxm"), 4).expect("estimate");
    let said = format!("serving totals: band {}–{} × the mid", fixed(SERVING.fitted.0, 2), fixed(SERVING.fitted.1, 2));
    assert!(est.assumptions.iter().any(|n| n.text().starts_with(&said)), "{said}: {:?}", est.assumptions);
}

/// A DeepSeek-style MoE's time to first token takes the band of its own published rows
/// (`bands::TTFT_MLA_MOE`: the 10th–90th percentile of measured / model over the held-out
/// DeepSeek-R1 TTFT rows, dstackai/benchmarks `Deepseek-R1/raw_data/online_results.csv` @7f37e669
/// on 8 × H200 and 8 × MI300X at 4–128 users, GPUStack on 8 × H200 at 4 users), whatever the
/// arrivals, and the estimate names it: those rows run above the physics, which is a best case
/// (DeepSeek's own system prefills about 73.7k tokens/s per 8-GPU H800 node, its "Day 6"
/// inference-system overview), so the band reaches well above its mid (over 2 ×). A dense
/// model keeps the bands of its arrival pattern (`TTFT_IN_STEP`, `TTFT`).
#[test]
fn deepseek_style_moe_ttft_band_is_its_own_and_says_so() {
    use gpu_advisor::decimal::fixed;
    use gpu_advisor::model::bands::{TTFT, TTFT_IN_STEP, TTFT_MLA_MOE};
    use gpu_advisor::model::llm::serving::Arrivals;
    let (low, high) = TTFT_MLA_MOE.fitted;
    assert!(low <= 1.0 && high > 2.0, "{low}–{high}");
    let mut ds = job("deepseek-r1");
    ds.engine = Some(Engine::Vllm);
    ds.precision = Precision::Fp8;
    ds.batch = 16;
    ds.prompt_tokens = 3200;
    ds.output_tokens = 800;
    for arrivals in [Arrivals::InStep, Arrivals::Random] {
        let t = ServingTargets { arrivals, ..ServingTargets::default() };
        let b = analyze(&ds, gpu("h200-sxm"), 8, &t).expect("serving").ttft_s.expect("ttft");
        assert!((b.low / b.mid - low).abs() < 1e-9 && (b.high / b.mid - high).abs() < 1e-9, "{arrivals:?}: {b:?}");
    }
    let est = estimate_llm(&ds, gpu("h200-sxm"), 8).expect("estimate");
    let said = format!("published sweeps of other sources time its first token at {}–{} × this estimate", fixed(low, 1), fixed(high, 1));
    assert!(est.assumptions.iter().any(|n| n.text().contains(&said)), "{said}: {:?}", est.assumptions);
    let mut dense = job("llama-3.1-70b");
    dense.engine = Some(Engine::Vllm);
    dense.batch = 16;
    for (arrivals, (low, high)) in [(Arrivals::InStep, TTFT_IN_STEP.fitted), (Arrivals::Random, TTFT.fitted)] {
        let t = ServingTargets { arrivals, ..ServingTargets::default() };
        let b = analyze(&dense, gpu("h100-sxm"), 4, &t).expect("serving").ttft_s.expect("ttft");
        assert!((b.low / b.mid - low).abs() < 1e-9 && (b.high / b.mid - high).abs() < 1e-9, "{arrivals:?}: {b:?}");
    }
    let est = estimate_llm(&dense, gpu("h100-sxm"), 4).expect("estimate");
    assert!(!est.assumptions.iter().any(|n| n.text().contains("time its first token")), "{:?}", est.assumptions);
}

/// A verification pass reads each sequence's KV cache once for all its k + 1 query tokens.
/// Llama 3.1 8B in fp16 keeps 2 (K and V) · 8 KV heads · 128 · 2 B · 32 layers = 131,072 B of
/// cache per token; 16 sequences add 2.1 MB per token of context, about 0.6 µs at an H100's
/// 3.35 TB/s, while the attention FLOPs of 16 · 5 = 80 query tokens add 80 · 4 · 32 · 4,096 =
/// 42 MFLOP per context token, well under 0.1 µs. So a 5-token verify pass grows with context
/// about as a 1-token step does: the ratio of their slopes stays under 1.5 (reading the cache
/// once per query token would make it about 5).
#[test]
fn a_verify_pass_reads_the_cache_once() {
    use gpu_advisor::model::llm::parallel::Layout;
    use gpu_advisor::model::llm::throughput::{decode_step_s, verify_step_s};
    let mut j = job("llama-3.1-8b");
    j.engine = Some(Engine::Vllm);
    let h100 = gpu("h100-sxm");
    let (c1, c2) = (2048.0, 16_384.0);
    let verify = |c: f64| verify_step_s(&j, h100, Engine::Vllm, &Layout::Single, 16.0, 5.0, c);
    let step = |c: f64| decode_step_s(&j, h100, Engine::Vllm, &Layout::Single, 16.0, c);
    let ratio = (verify(c2) - verify(c1)) / (step(c2) - step(c1));
    assert!(ratio > 1.0 && ratio < 1.5, "{ratio}");
}

/// A drafter takes memory: its weights (a draft model a tenth of the target: 0.1 · 16.06 GB for
/// Llama 3.1 8B in bf16) come out of the KV pool and each request keeps its cache too (a tenth
/// of the target's). With a pool of C requests of 768 tokens (512 prompt + 256 output) at
/// 131,072 B a token, the build holds floor((C · 768 · 131,072 − 0.1 · W) / (768 · 131,072 ·
/// 1.1)) requests with the drafter.
#[test]
fn a_drafter_takes_its_share_of_the_pool() {
    use gpu_advisor::model::llm::memory::weight_bytes;
    use gpu_advisor::model::llm::serving::capacity_with_drafter;
    let j = job("llama-3.1-8b");
    let (b, e, h) = weight_bytes(&j);
    let w = b + e + h;
    assert!((w / 16.06e9 - 1.0).abs() < 0.01, "{w}");
    let per = 768.0 * 131_072.0;
    for c in [40u32, 200, 1000] {
        let hand = ((f64::from(c) * per - 0.1 * w) / (per * 1.1)).floor().max(0.0) as u32;
        assert_eq!(capacity_with_drafter(&j, c, 0.1), hand, "{c}");
    }
    assert_eq!(capacity_with_drafter(&j, 200, 0.0), 200);
    let off = analyze(&j, gpu("h100-sxm"), 1, &ServingTargets::default()).expect("off");
    let draft = analyze(&j, gpu("h100-sxm"), 1, &ServingTargets { spec: SpecDecode::Draft, ..ServingTargets::default() }).expect("draft");
    assert!(draft.capacity < off.capacity, "{} against {}", draft.capacity, off.capacity);
}
