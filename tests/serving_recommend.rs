#![cfg(not(target_arch = "wasm32"))]
//! Serving in the recommender: every LLM serving option carries per-user and total speed and
//! TTFT, builds are split into replicas when that serves more, a per-user target keeps only the
//! builds that meet it (the others get the gap in a why-not note), and an API price gives the
//! monthly volume at which self-hosting breaks even. Expected values are hand calculations from
//! the serving model's own definitions, written out in each test.

use gpu_advisor::catalog;
use gpu_advisor::i18n::Lang;
use gpu_advisor::model::llm::deploy::plan;
use gpu_advisor::model::llm::serving::{analyze, ServingTargets};
use gpu_advisor::model::llm::LlmJob;
use gpu_advisor::recommend::facts::{Exclusion, Fact};
use gpu_advisor::present;
use gpu_advisor::recommend::{recommend, Job, Mode, RecommendInput};

fn job(preset: &str, users: u32) -> LlmJob {
    LlmJob { batch: users, ..LlmJob::for_preset(catalog::llm(preset).expect("preset")) }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

/// Two replicas of one H100 each serve 32 of 64 users: the build's total is twice one replica's
/// total at 32 users, its per-user speed that replica's. One replica over both cards serves all
/// 64 itself. The plan keeps whichever gives more total output at 64 users.
#[test]
fn replicas_add_up_and_the_plan_keeps_the_better_layout() {
    let g = catalog::gpu("h100-sxm").expect("h100");
    let t = ServingTargets::default();
    let j = job("llama-3.1-8b", 64);
    let two = analyze(&job("llama-3.1-8b", 32), g, 1, &t).expect("one replica");
    let one = analyze(&j, g, 2, &t).expect("tensor parallel ×2");
    let d = plan(&j, g, 2, &t, f64::INFINITY).expect("plan").expect("a layout fits");
    let two_total = 2.0 * two.aggregate_tokens_per_s.mid;
    if two_total > one.aggregate_tokens_per_s.mid {
        assert_eq!((d.replicas, d.gpus_per_replica), (2, 1));
        assert!(close(d.report.aggregate_tokens_per_s.mid, two_total));
        assert!(close(d.report.per_user_tokens_per_s.mid, two.per_user_tokens_per_s.mid));
        assert_eq!(d.report.capacity, 2 * two.capacity);
    } else {
        assert_eq!((d.replicas, d.gpus_per_replica), (1, 2));
        assert!(close(d.report.aggregate_tokens_per_s.mid, one.aggregate_tokens_per_s.mid));
    }
}

/// With one user, the per-user speed of every option is the single-sequence speed of its build
/// and the total equals it.
#[test]
fn one_user_options_show_one_speed() {
    let input = RecommendInput::new(Job::Llm(Box::new(job("llama-3.1-8b", 1))));
    let rec = recommend(&input).expect("recommend");
    assert!(!rec.options.is_empty());
    for o in &rec.options {
        let s = o.serving.as_ref().expect("serving figures");
        let r = &s.report;
        assert!(close(r.per_user_tokens_per_s.mid, r.aggregate_tokens_per_s.mid), "{} ×{}", o.gpu, o.count);
        let g = catalog::gpu(&o.gpu).expect("gpu");
        let single = analyze(&job("llama-3.1-8b", 1), g, s.gpus_per_replica, &ServingTargets::default()).expect("analyze");
        assert!(close(r.per_user_tokens_per_s.mid, single.per_user_tokens_per_s.mid), "{} ×{}", o.gpu, o.count);
        // The headline rate and $/M are at that speed, not at a full KV pool.
        assert!(close(o.rate.expect("rate").0.mid, r.aggregate_tokens_per_s.mid));
    }
}

/// "Serve 50 users at ≥ 20 tokens/s each": every option shown meets it, and a popular card that
/// misses it says by how much ("serves N users at 20 tokens/s each, not 50", N < 50).
#[test]
fn a_target_keeps_only_builds_that_meet_it() {
    let mut input = RecommendInput::new(Job::Llm(Box::new(job("llama-3.1-8b", 50))));
    input.serving.tokens_per_s_per_user = Some(20.0);
    input.top = 50;
    input.mode = Mode::Rent;
    let rec = recommend(&input).expect("recommend");
    assert!(!rec.options.is_empty());
    for o in &rec.options {
        let r = &o.serving.as_ref().expect("serving").report;
        assert!(r.max_users.expect("a target gives max_users") >= 50, "{} ×{}: {:?}", o.gpu, o.count, r.max_users);
        assert!(r.per_user_tokens_per_s.mid >= 20.0, "{} ×{}: {}", o.gpu, o.count, r.per_user_tokens_per_s.mid);
        assert!(o.facts.iter().any(|f| matches!(f, Fact::Target { met: true, users: 50, .. })));
    }
    // At 200 users and 40 tokens/s each, eight RTX 3090s fall short and say so.
    let mut input = RecommendInput::new(Job::Llm(Box::new(job("llama-3.1-8b", 200))));
    input.serving.tokens_per_s_per_user = Some(40.0);
    let rec = recommend(&input).expect("recommend");
    let w = rec.why_not.iter().find(|w| w.gpu == "rtx-3090").expect("a 3090 note");
    let Some(Exclusion::Target { max_users, users: 200, .. }) = w.exclusion else { panic!("{w:?}") };
    assert!(max_users < 200);
    let text = present::why_not(w, &input, Lang::En);
    assert_eq!(text, format!("RTX 3090 ×8: serves {max_users} users at 40 tokens/s each, not 200"));
}

/// API break-even by hand: renting one RTX 3090 at its cheapest catalog price ($0.20/h, Vast.ai
/// in data/gpus.toml) for 8 h a day is 0.20 × 8 × 365.25/12 = $48.70 a month; against an API at
/// $0.20 per million tokens that is 243.5 M tokens a month. The build makes at most its speed ×
/// 3600 × 243.5 h a month.
#[test]
fn api_break_even_by_hand() {
    let mut input = RecommendInput::new(Job::Llm(Box::new(job("llama-3.1-8b", 1))));
    input.mode = Mode::Rent;
    input.cost.api_usd_per_million = Some(0.2);
    input.top = 100;
    let rec = recommend(&input).expect("recommend");
    let o = rec.options.iter().find(|o| o.gpu == "rtx-3090" && o.count == 1).expect("3090 ×1");
    assert!((o.hourly_usd().expect("hourly") - 0.20).abs() < 1e-12);
    let Some(Fact::ApiBreakEven { break_even_m_tokens_per_month, capacity_m_tokens_per_month, .. }) =
        o.facts.iter().find(|f| matches!(f, Fact::ApiBreakEven { .. })).cloned()
    else {
        panic!("no API fact")
    };
    assert!((break_even_m_tokens_per_month - 243.5).abs() < 1e-9);
    let speed = o.rate.expect("rate").0.mid;
    assert!((capacity_m_tokens_per_month - speed * 3600.0 * 243.5 / 1e6).abs() < 1e-9);
}

/// Pipeline parallel serving: vLLM runs Llama 3 70B on 3 × A100 as a 3-stage layer
/// split (64 heads do not divide by 3), and pipelines the requests: 30 users form 3 micro-batches
/// of 10, each passing all stages in turn while the others use the other stages, so a user's time
/// per token is one pass of 10 sequences, `t_step(10)`, plus its share of the other prompts'
/// prefill, spread over the 3 stages: `29/O · t_prefill(P)/3` (GPipe, Huang et al. 2019 §2). One
/// user is not sped up: `t_step(1)`. Each micro-batch streams the weights again, so only the KV
/// reads and the FLOPs of the batch are divided: the total rises, but far less than 3× while
/// decode is bound by the weight stream.
#[test]
fn pipeline_parallel_serving_pipelines_requests() {
    use gpu_advisor::model::llm::engines::Engine;
    use gpu_advisor::model::llm::parallel::{layout, Layout};
    use gpu_advisor::model::llm::throughput::{decode_step_s, prefill_share_s};
    let g = catalog::gpu("a100-80gb-sxm").expect("a100");
    let mut j = job("llama-3-70b", 30);
    j.engine = Some(Engine::Vllm);
    j.prompt_tokens = 512;
    j.output_tokens = 256;
    j.context_tokens = 1024;
    let l = layout(&j, g, Engine::Vllm, 3);
    assert_eq!(l, Layout::LayerSplit(3));
    let ctx = 512.0 + 128.0;
    let t = ServingTargets::default();
    let r = analyze(&j, g, 3, &t).expect("serving");
    let want = decode_step_s(&j, g, Engine::Vllm, &l, 10.0, ctx) + 29.0 / 256.0 * prefill_share_s(&j, g, Engine::Vllm, &l, 512.0, 30.0) / 3.0;
    assert!(close(1.0 / r.per_user_tokens_per_s.mid, want), "{} vs {want}", 1.0 / r.per_user_tokens_per_s.mid);
    let one = analyze(&job_with(&j, 1), g, 3, &t).expect("one user");
    assert!(close(1.0 / one.per_user_tokens_per_s.mid, decode_step_s(&j, g, Engine::Vllm, &l, 1.0, ctx)));
    // The total is every user's speed; more than a split that runs one card after another.
    assert!(close(r.aggregate_tokens_per_s.mid, 30.0 / want));
    let sequential = 30.0 / (decode_step_s(&j, g, Engine::Vllm, &l, 30.0, ctx) + 29.0 / 256.0 * prefill_share_s(&j, g, Engine::Vllm, &l, 512.0, 30.0));
    assert!(r.aggregate_tokens_per_s.mid > sequential, "{} vs {sequential}", r.aggregate_tokens_per_s.mid);
}

fn job_with(j: &LlmJob, users: u32) -> LlmJob {
    LlmJob { batch: users, ..j.clone() }
}

/// A replica holds only its share of the cache, so replica sizes start from what one user needs,
/// not from what all the users need as one group. Llama 3.1 8B at 8k tokens: 128 KiB of KV per
/// token (32 layers × 8 KV heads × 128 × 2 × 2 B), so 128 users hold 128 × 8192 × 128 KiB =
/// 128 GiB of cache; with 16 GB of weights that needs three 80 GB H100s as one group, which a
/// build of four divides only as one group of four. Two replicas of 64 users need two cards
/// each (64 GiB + 16 GB > 72 GiB usable): the plan must weigh them, and keeps the one with more
/// total output.
#[test]
fn replica_sizes_start_from_one_users_needs() {
    let g = catalog::gpu("h100-sxm").expect("h100");
    let mut j = job("llama-3.1-8b", 128);
    j.context_tokens = 8192;
    j.prompt_tokens = 7168;
    j.output_tokens = 1024;
    assert_eq!(gpu_advisor::model::llm::gpus_needed(&j, g).expect("needed"), 3, "128 users need three cards as one group");
    let t = ServingTargets::default();
    let half = analyze(&job_with(&j, 64), g, 2, &t).expect("one replica of 64 users on two cards");
    let whole = analyze(&j, g, 4, &t).expect("one group of four");
    let d = plan(&j, g, 4, &t, f64::INFINITY).expect("plan").expect("a layout fits");
    let two_replicas = 2.0 * half.aggregate_tokens_per_s.mid;
    let best = two_replicas.max(whole.aggregate_tokens_per_s.mid);
    assert!(close(d.report.aggregate_tokens_per_s.mid, best), "{} vs {two_replicas} / {}", d.report.aggregate_tokens_per_s.mid, whole.aggregate_tokens_per_s.mid);
    if two_replicas > whole.aggregate_tokens_per_s.mid {
        assert_eq!((d.replicas, d.gpus_per_replica), (2, 2));
    }
}
