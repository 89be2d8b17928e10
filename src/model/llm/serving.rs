//! Serving under load: how fast each user is served, how long the first token takes, the total
//! output rate, and how many users a build holds at a per-user speed and time-to-first-token
//! target (the engine part of the serving model; docs/MODEL.md, "Serving under load").
//!
//! Continuous batching (vLLM, SGLang, TensorRT-LLM) runs one decode step for every request in
//! flight and mixes new prompts into the steps in chunks. With `B` requests of `P` prompt and `O`
//! output tokens in flight, a user's time per output token is the decode step of the batch plus
//! the prompts of the other users that arrive while it generates:
//! `TPOT(B) = t_step(B) + (B − 1)/O · t_prefill(P')`, where `P' = P·(1 − prefix hit)` (a cached
//! prefix is not prefilled again). Per-user speed is `1/TPOT`, the total `B/TPOT`; with one user
//! both equal the single-sequence decode speed. `t_prefill` is the prompt as the engine runs it:
//! in `ceil(P'/C)` chunks of its `max_num_batched_tokens` C, each a forward pass that pays the
//! per-layer fixed time and, under tensor parallelism, two all-reduces per layer.
//!
//! Time to first token: the prompt's chunked prefill, each chunk sharing an iteration with a
//! decode step of the other `B − 1` requests (Sarathi-Serve's stall-free batching, Agrawal et
//! al. 2024): `t_prefill(P') + ceil(P'/C) · t_step(B − 1)`, plus its wait behind the
//! other users' prompts (an M/D/1 queue on the prefill work, Pollaczek–Khinchine), plus, when
//! more users are offered than the build holds, the wait for a slot (a closed loop: Little's law).
//! That mid takes arrivals as random; requests known to arrive together ([`Arrivals::InStep`]:
//! fixed-length requests of a closed loop started at once, or a burst) take the in-step figure,
//! the prompts batched into the scheduler's iterations, as their mid (`crate::model::bands::TTFT_IN_STEP`).
//!
//! Arrivals: with a request rate λ, requests wait for a free slot as in an M/M/c queue (Erlang C,
//! Kleinrock, *Queueing Systems* vol. 1, §3.5) with `c` = the requests the build holds and the
//! request's own time as the service time; the users in flight follow from Little's law
//! (`B = λ · T_request`), solved by iteration. At or past saturation the wait is unbounded.
//!
//! Speculative decoding (Leviathan et al. 2023, "Fast Inference from Transformers via
//! Speculative Decoding", eq. 1): with `k` drafted tokens accepted with probability α each, a
//! verification step yields `(1 − α^(k+1)) / (1 − α)` tokens. The verification step is one pass
//! of the target over `B·(k + 1)` tokens that streams the weights once and reads each sequence's
//! KV cache once; drafting costs `k` steps of the drafter, taken as 1/10 of
//! the target (a draft model about a tenth of its size), one layer of it (EAGLE's one-layer head,
//! Li et al. 2024) or one layer once (DeepSeek-V3's MTP module, depth 1). Default acceptance:
//! draft 0.7 (Leviathan et al. report 0.5–0.8 for T5 drafts), EAGLE 0.8 (EAGLE-2: about 4 tokens
//! per step at 5–6 drafted), MTP 0.85 (DeepSeek-V3 report §5.4.3: the second token is accepted
//! 85–90% of the time).

use super::arch::{is_mla_moe, ModelArch};
use super::engines::Engine;
use super::parallel::Layout;
use super::throughput::{band, decode_step_s, job_efficiency, prefill_batch_s, prefill_s, prefill_share_s, serving_band, verify_step_s};
use super::job::LlmJob;
use super::{layout_for, max_concurrency, memory};
use crate::catalog::Gpu;
use crate::model::types::{Band, EstimateError};

/// Speculative decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpecDecode {
    #[default]
    Off,
    /// A separate, smaller draft model.
    Draft,
    /// An EAGLE-style one-layer draft head.
    Eagle,
    /// Multi-token prediction modules (DeepSeek-V3).
    Mtp,
}

impl SpecDecode {
    /// Every mode, in CLI order.
    pub const ALL: [SpecDecode; 4] = [SpecDecode::Off, SpecDecode::Draft, SpecDecode::Eagle, SpecDecode::Mtp];

    /// CLI / URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            SpecDecode::Off => "off",
            SpecDecode::Draft => "draft",
            SpecDecode::Eagle => "eagle",
            SpecDecode::Mtp => "mtp",
        }
    }

    /// Parses a CLI / URL name.
    pub fn parse(s: &str) -> Option<SpecDecode> {
        let lower = s.trim().to_ascii_lowercase();
        SpecDecode::ALL.into_iter().find(|m| m.as_str() == lower)
    }

    /// (drafted tokens k, default acceptance α, draft cost per drafted token as a share of a
    /// target step) — see the module doc for the sources.
    fn params(self, layers: f64) -> (f64, f64, f64) {
        match self {
            SpecDecode::Off => (0.0, 0.0, 0.0),
            SpecDecode::Draft => (4.0, 0.7, 0.1),
            SpecDecode::Eagle => (5.0, 0.8, 1.0 / layers.max(1.0)),
            SpecDecode::Mtp => (1.0, 0.85, 1.0 / layers.max(1.0)),
        }
    }
}

/// How the users' requests arrive, which sets the time to first token's mid (the per-user speed
/// and the total do not depend on it: over a request the same prompts are mixed into the steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arrivals {
    /// Requests arrive at random times (users at their own pace, varying lengths): a prompt waits
    /// behind the others as in an M/D/1 queue ([`Build::ttft`]).
    #[default]
    Random,
    /// Requests arrive together: a closed loop of fixed-length requests started at once (every
    /// user finishes together and sends the next prompt at once), or a burst of requests sent
    /// together. Benchmark clients run this way when prompt and output lengths are fixed and
    /// concurrency is capped: GenAI-Perf at a fixed concurrency with `--synthetic-input-tokens-stddev
    /// 0` and a fixed output; SGLang's `bench_serving` with `--random-range-ratio 1` (it ignores
    /// EOS unless `--disable-ignore-eos`, so every output runs to its length; sgl-project/sglang
    /// docs/developer_guide/bench_serving.md) and `--max-concurrency`. The prompts are batched
    /// into the scheduler's iterations ([`Build::ttft_in_step`]).
    InStep,
}

impl Arrivals {
    /// Every pattern, in CLI order.
    pub const ALL: [Arrivals; 2] = [Arrivals::Random, Arrivals::InStep];

    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Arrivals::Random => "random",
            Arrivals::InStep => "in-step",
        }
    }

    /// Parses a CLI name.
    pub fn parse(s: &str) -> Option<Arrivals> {
        let lower = s.trim().to_ascii_lowercase();
        Arrivals::ALL.into_iter().find(|m| m.as_str() == lower)
    }
}

/// What the serving analysis is asked.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ServingTargets {
    /// Each user must see at least this many output tokens per second.
    pub tokens_per_s_per_user: Option<f64>,
    /// The first token must come within this many seconds.
    pub max_ttft_s: Option<f64>,
    /// Requests arrive at this rate (requests/s); `None`: the job's `batch` users are in flight.
    pub arrival_rate_rps: Option<f64>,
    /// Share of each prompt already in the prefix cache (0..1).
    pub prefix_hit: f64,
    pub spec: SpecDecode,
    /// Acceptance rate of drafted tokens (0..1); `None`: the mode's default.
    pub spec_accept: Option<f64>,
    /// How requests arrive (sets the TTFT's mid).
    pub arrivals: Arrivals,
    /// Prefill/decode disaggregation ([`super::disagg`]): `Some(true)` tries prefill-only and
    /// decode-only replicas on every build of two replicas or more, `Some(false)` never, `None`
    /// (the default) on builds past one node, where production deployments split the phases.
    pub disaggregate: Option<bool>,
}

/// One point of the throughput–interactivity frontier (mid values).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CurvePoint {
    pub users: u32,
    pub per_user_tokens_per_s: f64,
    pub aggregate_tokens_per_s: f64,
    pub ttft_s: f64,
}

/// The serving analysis of a job on a build.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingReport {
    /// Users in flight the figures are for (the job's, or Little's law under an arrival rate).
    pub users: f64,
    pub per_user_tokens_per_s: Band,
    pub aggregate_tokens_per_s: Band,
    /// `None` when arrivals outpace the build (the queue grows without bound).
    pub ttft_s: Option<Band>,
    /// The most users that meet the targets (`None` without a target).
    pub max_users: Option<u32>,
    /// The most requests the build holds at once (KV pool and scheduler).
    pub capacity: u32,
    /// From one user to the build's capacity.
    pub curve: Vec<CurvePoint>,
    /// Replicas that only prefill, the rest only decoding ([`super::disagg`]); 0: every replica
    /// does both.
    pub prefill_replicas: u32,
    /// Seconds to move a prompt's KV cache to a decode replica (0 without prefill replicas).
    pub kv_transfer_s: f64,
}

/// The model of one build: step times at a given number of users.
struct Build<'a> {
    job: &'a LlmJob,
    gpu: &'a Gpu,
    engine: Engine,
    layout: Layout,
    prompt: f64,
    output: f64,
    ctx: f64,
    spec: (f64, f64, f64),
    arrivals: Arrivals,
    /// Seconds each prefill chunk after a prompt's first adds ([`Build::prefill_fixed`] of one
    /// token), the same for every load, so found once per build.
    chunk_fixed_s: f64,
}

impl Build<'_> {
    /// Seconds between a user's tokens from decode alone, `users` in flight. Under pipeline
    /// parallelism (a layer split in an engine that pipelines requests: vLLM's virtual engines,
    /// SGLang and TensorRT-LLM `pipeline_parallel_size`) the users are split into as many
    /// micro-batches as there are stages, each passing every stage in turn while the others use
    /// the other stages: a user gets a token every pass of its micro-batch, `t_step(users/p)`. Each
    /// micro-batch streams the weights again, so the KV reads and FLOPs of the batch are what is
    /// divided: the total grows where they dominate, one user's speed never (GPipe, Huang et al. 2019 §2;
    /// vLLM docs, "Distributed inference and serving"). llama.cpp, ExLlamaV2, MLC and transformers
    /// run the split one card after another.
    fn step(&self, users: f64) -> f64 {
        decode_step_s(self.job, self.gpu, self.engine, &self.layout, self.in_step(users), self.ctx)
    }

    /// Sequences in one decode pass with `users` in flight: a micro-batch's share under
    /// pipeline parallelism, all of them otherwise.
    fn in_step(&self, users: f64) -> f64 {
        (users / self.pipeline(users)).max(1.0)
    }

    /// Micro-batches in flight at once under pipeline parallelism (1 without it).
    fn pipeline(&self, users: f64) -> f64 {
        match self.layout {
            Layout::LayerSplit(p) if self.engine.pipelines_requests() => f64::from(p).min(users.max(1.0)),
            _ => 1.0,
        }
    }

    /// Seconds per output token for one user with `users` in flight.
    fn tpot(&self, users: f64) -> f64 {
        let (k, alpha, draft) = self.spec;
        let others = (users - 1.0).max(0.0) / self.output.max(1.0) * self.prefill_share(self.prompt, users) / self.pipeline(users);
        if k <= 0.0 {
            return self.step(users) + others;
        }
        let tokens = if alpha >= 1.0 { k + 1.0 } else { (1.0 - crate::fmath::pow(alpha, k + 1.0)) / (1.0 - alpha) };
        let verify = verify_step_s(self.job, self.gpu, self.engine, &self.layout, self.in_step(users), k + 1.0, self.ctx);
        (verify + k * draft * self.step(users) + others) / tokens
    }

    /// Seconds to prefill `tokens` prompt tokens as the engine runs them: in chunks of its
    /// `max_num_batched_tokens`, each chunk a forward pass of its own that pays the per-layer
    /// fixed time and, under tensor parallelism, two all-reduces of its activations per layer
    /// (Shoeybi et al. 2019, "Megatron-LM", §3; Agrawal et al. 2024, "Sarathi-Serve", §4: a
    /// chunk is one iteration). The all-reduced bytes add up over the chunks to the prompt's;
    /// the latencies and fixed times are paid once per chunk.
    fn prefill(&self, tokens: f64) -> f64 {
        if tokens <= 0.0 {
            return 0.0;
        }
        let whole = prefill_s(self.job, self.gpu, self.engine, &self.layout, tokens, true);
        whole + (self.chunks(tokens) - 1.0) * self.chunk_fixed_s
    }

    /// The build's time per prompt of `tokens` with `users` sending prompts
    /// ([`prefill_share_s`]), plus the fixed time of its further chunks, as [`Build::prefill`] pays it.
    fn prefill_share(&self, tokens: f64, users: f64) -> f64 {
        if tokens <= 0.0 {
            return 0.0;
        }
        prefill_share_s(self.job, self.gpu, self.engine, &self.layout, tokens, users) + (self.chunks(tokens) - 1.0) * self.chunk_fixed_s
    }

    /// The per-pass part of a prefill of `tokens`: the per-layer fixed time and the layout's
    /// communication.
    fn prefill_fixed(&self, tokens: f64) -> f64 {
        let with = prefill_s(self.job, self.gpu, self.engine, &self.layout, tokens, true);
        (with - prefill_s(self.job, self.gpu, self.engine, &self.layout, tokens, false)).max(0.0)
    }

    /// Chunks a prompt of `tokens` is prefilled in.
    fn chunks(&self, tokens: f64) -> f64 {
        let chunk = self.job.prefill_chunk(self.gpu, self.engine).unwrap_or(tokens).max(1.0);
        (tokens / chunk).ceil().max(1.0)
    }

    /// Seconds to the first token with `users` in flight: the prompt's own chunks, plus its wait
    /// behind the other users' prompts. Over one round of requests the GPUs spend
    /// `users · t_prefill` on prompts and `O · t_step(users)` on decode steps, so prompts keep
    /// them busy a share `ρ = users·t_prefill / (users·t_prefill + O·t_step)`; taken as an M/D/1
    /// queue, a prompt waits `ρ·t_prefill / (2·(1 − ρ))` (Pollaczek–Khinchine; Kleinrock vol. 1,
    /// §5.7), ρ held below 0.95.
    fn ttft(&self, users: f64) -> f64 {
        let own = self.ttft_alone(users);
        let t_pf = self.prefill_share(self.prompt, users);
        let busy = users * t_pf + self.output * self.step(users);
        let rho = if busy > 0.0 { (users * t_pf / busy).clamp(0.0, 0.95) } else { 0.0 };
        own + rho * t_pf / (2.0 * (1.0 - rho))
    }

    /// The TTFT's mid with `users` in flight: random arrivals wait behind the other prompts as
    /// in an M/D/1 queue ([`Build::ttft`]); arrivals in step wait for the batched prompts
    /// ([`Build::ttft_in_step`]).
    fn ttft_mid(&self, users: f64) -> f64 {
        match self.arrivals {
            Arrivals::Random => self.ttft(users),
            Arrivals::InStep => self.ttft_in_step(users),
        }
    }

    /// The band of the TTFT with `users` in flight and `wait` seconds for a slot. Random
    /// arrivals: the M/D/1 mid of [`Build::ttft`], its high end the other limit, users whose
    /// requests arrive together ([`Build::ttft_in_step`]); measured sweeps of unknown lengths sit
    /// at either end (NVIDIA NIM 1.8's Llama 3.3 70B near the mid). Arrivals in step: the in-step
    /// figure. Each with its band (`crate::model::bands`: `TTFT`, `TTFT_IN_STEP`, and a
    /// DeepSeek-style MoE's `TTFT_MLA_MOE`).
    fn ttft_band(&self, users: f64, wait: f64, measured: bool) -> Band {
        use crate::model::bands;
        let (mid, set) = match self.arrivals {
            Arrivals::InStep => (wait + self.ttft_in_step(users), bands::TTFT_IN_STEP),
            Arrivals::Random => (wait + self.ttft(users), bands::TTFT),
        };
        let set = if is_mla_moe(&self.job.model) { bands::TTFT_MLA_MOE } else { set };
        band(mid, measured, &set)
    }
    /// Mean TTFT of `users` whose prompts arrive together, as a closed loop of fixed-length
    /// requests started at once does on every round (they all finish together and send the next
    /// at once). The scheduler packs the waiting prompts first come, first served, into
    /// iterations of its token budget C (`max_num_batched_tokens`; TensorRT-LLM `max_num_tokens`):
    /// each iteration is one forward pass over all its tokens, so the prompts share the weight
    /// stream and a user's first token comes when the iteration holding the end of its prompt
    /// ends (Sarathi-Serve, Agrawal et al. 2024, §4; vLLM docs, "Optimization and tuning":
    /// chunked prefill "batches" the prefills up to the budget). The time to a prompt's end
    /// grows linearly with the iterations before it, so the mean over users is the mean of the
    /// first iteration's end and the last's: `(t(min(C, B·P')) + t(B·P'))/2`, `t(x)` the
    /// batched prefill of `x` prompt tokens ([`prefill_batch_s`]). All prompts within one
    /// budget: every user waits for the one iteration.
    fn ttft_in_step(&self, users: f64) -> f64 {
        let prompt = self.prompt.max(1.0);
        let users = users.max(1.0);
        let all = users * prompt;
        let budget = self.job.prefill_chunk(self.gpu, self.engine).unwrap_or(all).max(prompt);
        let first = all.min(budget);
        (self.prefill_batch(first / prompt) + self.prefill_batch(users)) / 2.0 + self.request_overhead()
    }

    /// Seconds every request spends outside the GPU's forward passes before its first token:
    /// the API server's parsing and tokenization, the scheduler's admission and the first
    /// token's sampling and detokenization ([`super::fit::LlmFit::serving_request_ms`], fitted on
    /// the serving engines' one-user TTFT rows).
    fn request_overhead(&self) -> f64 {
        request_overhead_s(self.engine)
    }

    /// Seconds to prefill `seqs` prompts that arrive together, batched: one weight stream per
    /// iteration of the engine's token budget, the per-layer fixed time and all-reduce latencies
    /// paid per iteration (as [`Build::prefill`] for one prompt).
    fn prefill_batch(&self, seqs: f64) -> f64 {
        let whole = prefill_batch_s(self.job, self.gpu, self.engine, &self.layout, seqs, self.prompt.max(1.0), true);
        whole + (self.chunks(seqs * self.prompt.max(1.0)) - 1.0) * self.chunk_fixed_s
    }

    /// Seconds of a request from its first prompt token to its last output token.
    fn request(&self, users: f64) -> f64 {
        self.ttft_mid(users) + self.output * self.tpot(users)
    }

    /// [`Build::ttft`] without the wait behind other prompts: the prompt's chunked prefill, each
    /// chunk sharing its iteration with a decode step of the other `users − 1` requests.
    fn ttft_alone(&self, users: f64) -> f64 {
        let prompt = self.prompt.max(1.0);
        let others = if users > 1.0 { self.step(users - 1.0) } else { 0.0 };
        self.prefill(prompt) + self.chunks(prompt) * others + self.request_overhead()
    }
}

/// Seconds a serving engine spends on a request outside the forward passes before its first
/// token (0 for the engines that are not servers: llama.cpp's bench, ExLlamaV2, MLC, transformers).
pub fn request_overhead_s(engine: Engine) -> f64 {
    match engine {
        Engine::Vllm | Engine::Sglang => super::in_force::with(|f| f.serving_request_ms) * 1e-3,
        Engine::TrtLlm => super::in_force::with(|f| f.trt_llm_request_ms) * 1e-3,
        _ => 0.0,
    }
}

/// The band of one user's speed `mid` at a concurrency above 1.
fn per_user_band(model: &ModelArch, mid: f64) -> Band {
    let b = if is_mla_moe(model) { crate::model::bands::PER_USER_MLA_MOE } else { crate::model::bands::PER_USER };
    Band::around(mid, b.fitted.0, b.fitted.1)
}

/// Probability that an arrival waits in an M/M/c queue with offered load `a` (Erlang C).
pub fn erlang_c(c: u32, a: f64) -> f64 {
    let c_f = f64::from(c.max(1));
    if a >= c_f {
        return 1.0;
    }
    // Σ_{k<c} a^k/k! and a^c/c!, in a running term to stay finite for large c.
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c.max(1) {
        sum += term;
        term *= a / f64::from(k + 1);
    }
    let top = term * c_f / (c_f - a);
    top / (sum + top)
}

/// The serving analysis of `job` (its `batch` is the users in flight) on `gpus` of `gpu`.
pub fn analyze(job: &LlmJob, gpu: &Gpu, gpus: u32, targets: &ServingTargets) -> Result<ServingReport, EstimateError> {
    analyze_opts(job, gpu, gpus, targets, true)
}

/// [`analyze`], with the frontier (`curve`) only when `with_curve` (the recommender ranks every
/// candidate without it and draws it for the options it shows). Without it the TTFT is computed
/// only when a TTFT target or an arrival rate needs it; otherwise it is NaN (not `None`, which
/// means arrivals outpace the build).
pub fn analyze_opts(job: &LlmJob, gpu: &Gpu, gpus: u32, targets: &ServingTargets, with_curve: bool) -> Result<ServingReport, EstimateError> {
    let job = &*super::vision::with_images(job)?;
    job.validate()?;
    crate::model::types::check_range("prefix_hit", targets.prefix_hit, 0.0, 1.0)?;
    if let Some(a) = targets.spec_accept {
        crate::model::types::check_range("spec_accept", a, 0.0, 1.0)?;
    }
    for (field, v) in [("target_tokens_per_s_per_user", targets.tokens_per_s_per_user), ("max_ttft_s", targets.max_ttft_s), ("arrival_rate", targets.arrival_rate_rps)] {
        if let Some(v) = v {
            crate::model::types::check_range(field, v, 1e-9, 1e12)?;
        }
    }
    let b = build(job, gpu, gpus, targets);
    let capacity = capacity_with_drafter(job, max_concurrency(job, gpu, gpus)?, b.spec.2).max(1);
    let cap = f64::from(capacity);
    let (users, wait) = match targets.arrival_rate_rps {
        // More users than the build holds: the rest wait for a slot. A closed loop of N users on
        // c slots completes c / T_request(c) requests a second, so by Little's law each request
        // waits (N − c) · T_request(c) / c for its slot.
        None if f64::from(job.batch) > cap => (cap, Some((f64::from(job.batch) - cap) * b.request(cap) / cap)),
        None => (f64::from(job.batch), Some(0.0)),
        Some(rate) => queue(&b, rate, capacity),
    };
    let users = users.max(1.0);
    let tpot = b.tpot(users);
    let measured = job_efficiency(job, b.engine, gpu).measured;
    let per_user = 1.0 / tpot;
    let curve = if with_curve { curve(&b, capacity) } else { Vec::new() };
    let max_users = max_users(&b, capacity, targets);
    Ok(ServingReport {
        users,
        // One user: the decode figure and its band; more: a loaded server's figure.
        per_user_tokens_per_s: if users > 1.0 { per_user_band(&job.model, per_user) } else { band(per_user, measured, &crate::model::bands::DECODE) },
        aggregate_tokens_per_s: serving_band(&job.model, users * per_user),
        // Ranking alone (no curve) needs the TTFT only to test a TTFT target or an arrival rate;
        // the options shown are analysed again in full.
        ttft_s: if with_curve || targets.max_ttft_s.is_some() || targets.arrival_rate_rps.is_some() {
            wait.map(|w| b.ttft_band(users, w, measured))
        } else {
            wait.map(|_| Band::around(f64::NAN, 1.0, 1.0))
        },
        max_users,
        capacity,
        curve,
        prefill_replicas: 0,
        kv_transfer_s: 0.0,
    })
}

/// The serving model of `job` on `gpus` of `gpu` under `targets` (its layout for one user, the
/// prefilled share of each prompt, speculation).
fn build<'a>(job: &'a LlmJob, gpu: &'a Gpu, gpus: u32, targets: &ServingTargets) -> Build<'a> {
    let engine = job.engine_for(gpu);
    let (k, alpha0, draft) = targets.spec.params(f64::from(job.model.layers));
    let mut one = job.clone();
    one.batch = 1;
    let terms = memory::terms(&one, gpu, engine);
    let layout = layout_for(&one, gpu, engine, &terms, gpus);
    let output = f64::from(job.output_tokens);
    let mut b = Build {
        job,
        gpu,
        engine,
        layout,
        prompt: f64::from(job.prompt_tokens) * (1.0 - targets.prefix_hit),
        output,
        ctx: (f64::from(job.prompt_tokens) + output / 2.0).min(f64::from(job.context_tokens)),
        spec: (k, targets.spec_accept.unwrap_or(alpha0), draft),
        arrivals: targets.arrivals,
        chunk_fixed_s: 0.0,
    };
    b.chunk_fixed_s = b.prefill_fixed(1.0);
    b
}

/// A prefill-only replica of `gpus` cards ([`super::disagg`]): seconds from a prompt's arrival to
/// its first token when it runs alone (its chunks one after another, plus the engine's request
/// overhead), and seconds of the replica per prompt when prompts queue: each iteration is one
/// forward pass over as many prompts as the engine's token budget holds, in every attention group
/// under data-parallel attention (one weight stream, fixed time and communication per pass,
/// [`prefill_batch_s`]).
pub fn prompt_s(job: &LlmJob, gpu: &Gpu, gpus: u32, targets: &ServingTargets) -> (f64, f64) {
    let b = build(job, gpu, gpus, targets);
    let prompt = b.prompt.max(1.0);
    let groups = f64::from(b.layout.attention_groups());
    let seqs = groups * (job.prefill_chunk(gpu, b.engine).unwrap_or(prompt) / prompt).floor().max(1.0);
    (b.prefill(prompt) + b.request_overhead(), prefill_batch_s(job, gpu, b.engine, &b.layout, seqs, prompt, true) / seqs)
}

/// Requests a build that holds `capacity` without speculation holds beside its drafter, whose
/// cost share of a target step is `draft` (a draft model a tenth of the target, EAGLE's
/// one-layer head, DeepSeek-V3's one MTP layer: 14B beside 671B, its model card): the drafter's
/// weights, that share of the target's, come out of the KV pool, and every request keeps the
/// drafter's cache beside the target's, the same share of it.
pub fn capacity_with_drafter(job: &LlmJob, capacity: u32, draft: f64) -> u32 {
    let per_request = memory::kv_bytes(job, f64::from(job.prompt_tokens.saturating_add(job.output_tokens)), 1.0);
    if draft <= 0.0 || per_request <= 0.0 || !per_request.is_finite() {
        return capacity;
    }
    let (body, embed, head) = memory::weight_bytes(job);
    let pool = f64::from(capacity) * per_request;
    ((pool - draft * (body + embed + head)) / (per_request * (1.0 + draft))).floor().clamp(0.0, f64::from(capacity)) as u32
}

/// Users in flight and the mean wait for a slot under `rate` requests/s (M/M/c, Erlang C), solved
/// with Little's law; `None` wait when the build saturates.
fn queue(b: &Build, rate: f64, capacity: u32) -> (f64, Option<f64>) {
    let cap = f64::from(capacity);
    let mut users = 1.0_f64;
    for _ in 0..50 {
        let service = b.request(users);
        let next = (rate * service).min(cap);
        if (next - users).abs() < 1e-6 {
            break;
        }
        users = 0.5 * users + 0.5 * next.max(1.0);
    }
    let service = b.request(users);
    let load = rate * service;
    if load >= cap {
        return (cap, None);
    }
    let wait = erlang_c(capacity, load) * service / (cap - load);
    (users, Some(wait))
}

/// The frontier from one user to `capacity`, doubling. A point whose total rate is no higher
/// than a point with fewer users (prompts outweigh the extra decode) is dominated and left out:
/// the curve ends where it bends back.
fn curve(b: &Build, capacity: u32) -> Vec<CurvePoint> {
    let mut users = Vec::new();
    let mut u = 1_u32;
    while u < capacity {
        users.push(u);
        u = u.saturating_mul(2);
    }
    users.push(capacity);
    users
        .into_iter()
        .map(|u| {
            let f = f64::from(u);
            let per_user = 1.0 / b.tpot(f);
            CurvePoint { users: u, per_user_tokens_per_s: per_user, aggregate_tokens_per_s: f * per_user, ttft_s: b.ttft_mid(f) }
        })
        .fold(Vec::new(), |mut front: Vec<CurvePoint>, p| {
            if front.last().is_none_or(|last| p.aggregate_tokens_per_s > last.aggregate_tokens_per_s) {
                front.push(p);
            }
            front
        })
}

/// The most users (up to `capacity`) whose per-user speed and TTFT meet the targets; `None`
/// without a target, `Some(0)` when even one user misses.
fn max_users(b: &Build, capacity: u32, t: &ServingTargets) -> Option<u32> {
    if t.tokens_per_s_per_user.is_none() && t.max_ttft_s.is_none() {
        return None;
    }
    let ok = |u: u32| {
        let f = f64::from(u);
        t.tokens_per_s_per_user.is_none_or(|x| 1.0 / b.tpot(f) >= x) && t.max_ttft_s.is_none_or(|x| b.ttft_mid(f) <= x)
    };
    if !ok(1) {
        return Some(0);
    }
    // Per-user speed falls and TTFT rises with users: the last passing count, by bisection.
    let (mut lo, mut hi) = (1_u32, capacity);
    if ok(hi) {
        return Some(hi);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}
