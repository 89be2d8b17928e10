//! Prefill/decode disaggregation: some replicas of a build only prefill prompts, the others only
//! decode, and each prompt's KV cache moves from the one to the other (DistServe, Zhong et al.,
//! OSDI 2024; Splitwise, Patel et al., ISCA 2024; SGLang's PD disaggregation and NVIDIA Dynamo
//! run this way, each pool on its own nodes).
//!
//! The decode replicas run decode steps only: a user's time per token is the step of its
//! replica's batch, with no other user's prompt mixed in (the serving model with every prompt
//! already in the cache, [`super::serving::analyze_opts`] at a prefix hit of 1). The prefill
//! replicas take prompts one after another, batched into iterations of the engine's token budget
//! ([`super::serving::prompt_s`]), so the pool completes `P / t_prompt` requests a second.
//!
//! A closed loop of `U` users, each sending its next request when the last ends, asks
//! `U / (t_first + O / v)` requests a second (`t_first` the prompt alone and its KV transfer,
//! `O` output tokens at the decode pool's per-user speed `v`); the build completes the lesser of
//! that and the prefill pool's rate, and its total output is `O` times it. The first token: the
//! prompt alone, its KV transfer and its wait for a prefill replica, an M/D/1 queue at the pool's
//! load (Pollaczek–Khinchine, as the colocated model); when the prefill pool is the bottleneck,
//! the wait follows from Little's law (`U / rate − O / v`). Under an arrival rate at or past the
//! pool's rate the wait is unbounded.
//!
//! The KV cache moves over one GPU's link: the scale-up fabric inside a node, else the GPU's node
//! port (SGLang and Dynamo move it by RDMA, Mooncake's transfer engine or NIXL); the transfer is
//! added whole, although the engines overlap it with the prefill layer by layer.

use super::job::LlmJob;
use super::serving::{prompt_s, CurvePoint, ServingReport, ServingTargets};
use super::throughput::{band, job_efficiency, serving_band};
use crate::catalog::Gpu;
use crate::model::fabric;

/// Seconds to move one prompt's KV cache from a prefill replica to a decode replica of a
/// `gpus`-card build: over the scale-up fabric (or PCIe) when the build is one node, else over a
/// node port (the job's `nic_gbit_s`, or the catalog's), one GPU's link at its achieved rate
/// (`crate::model::fabric`).
pub fn kv_transfer_s(job: &LlmJob, gpu: &Gpu, gpus: u32) -> f64 {
    let port = job.nic_gbit_s.map_or_else(|| fabric::node_port_gb_s(gpu), |g| g / 8.0);
    let per_node = if gpus <= fabric::node_gpus(gpu) { 2 } else { 1 };
    let link = fabric::spread_link(gpu, 2, per_node, port);
    let bytes = super::memory::kv_bytes(job, f64::from(job.prompt_tokens), 1.0);
    link.latency_s + bytes / (link.gb_s.max(1e-9) * 1e9)
}

/// Whether the planner tries disaggregated splits of `k` replicas over `gpus` cards of `gpu`
/// (see [`ServingTargets::disaggregate`]).
pub fn tried(targets: &ServingTargets, gpu: &Gpu, gpus: u32, k: u32) -> bool {
    k >= 2 && targets.disaggregate.unwrap_or(gpus > fabric::node_gpus(gpu))
}

/// One prefill replica of a build and what a request spends outside the decode pool: the same
/// for every split of the build's replicas, so the planner finds it once per replica size.
pub struct PrefillReplica {
    /// The replica's seconds per prompt, batched.
    per_prompt_s: f64,
    /// A prompt alone and its KV transfer, s.
    first_s: f64,
    /// The KV transfer alone, s.
    kv_s: f64,
    output: f64,
}

impl PrefillReplica {
    /// A prefill replica of `m` cards of `gpu` in a `gpus`-card build serving `job`
    /// ([`prompt_s`], [`kv_transfer_s`]).
    pub fn new(job: &LlmJob, gpu: &Gpu, gpus: u32, m: u32, targets: &ServingTargets) -> Self {
        let (alone_s, per_prompt_s) = prompt_s(job, gpu, m, targets);
        let kv_s = kv_transfer_s(job, gpu, gpus);
        PrefillReplica { per_prompt_s, first_s: alone_s + kv_s, kv_s, output: f64::from(job.output_tokens) }
    }

    /// (total output tokens/s, TTFT s) with `replicas` of them, `decoding` users in the decode
    /// pool at `per_user` tokens/s each, `users` asked in all (the rest wait for a decode slot),
    /// or under `rate` requests/s (see the module doc); `None` TTFT: the queue grows without bound.
    fn combine(&self, replicas: u32, users: f64, decoding: f64, per_user: f64, rate: Option<f64>) -> (f64, Option<f64>) {
        let pool_rps = f64::from(replicas.max(1)) / self.per_prompt_s.max(1e-12);
        let decode_s = self.output / per_user.max(1e-12);
        let done = rate.unwrap_or(decoding / (self.first_s + decode_s)).min(pool_rps);
        let rho = (done / pool_rps).min(0.95);
        let queued = self.first_s + rho * self.per_prompt_s / (2.0 * (1.0 - rho));
        let ttft = match rate {
            Some(r) if r >= pool_rps => None,
            Some(_) => Some(queued),
            // A closed loop completes `done` requests a second: by Little's law a request takes
            // `users / done`, of which `decode_s` decoding.
            None => Some(queued.max(users / done - decode_s)),
        };
        (done * self.output, ttft)
    }
}

/// The serving report of `job` (its users over the whole build) with `prefill` replicas like
/// `replica` prefilling and the rest decoding, from the decode pool's own report `dec` (every
/// decode replica, nothing to prefill: `super::deploy::split_report` finds it). Users past the
/// decode pool's capacity wait for a slot. A TTFT target counts the build only when the users
/// asked meet it.
pub fn split(job: &LlmJob, gpu: &Gpu, replica: &PrefillReplica, prefill: u32, targets: &ServingTargets, dec: ServingReport) -> ServingReport {
    let users = f64::from(job.batch.max(1));
    let (total, ttft) = replica.combine(prefill, users, dec.users, dec.per_user_tokens_per_s.mid, targets.arrival_rate_rps);
    let ttft = ttft.filter(|_| dec.ttft_s.is_some());
    let set = if super::arch::is_mla_moe(&job.model) { crate::model::bands::TTFT_MLA_MOE } else { crate::model::bands::TTFT };
    let measured = job_efficiency(job, job.engine_for(gpu), gpu).measured;
    let misses = targets.max_ttft_s.is_some_and(|x| ttft.is_none_or(|t| t > x));
    let curve = dec
        .curve
        .iter()
        .map(|p| {
            let u = f64::from(p.users);
            let (aggregate, t) = replica.combine(prefill, u, u, p.per_user_tokens_per_s, None);
            CurvePoint { aggregate_tokens_per_s: aggregate, ttft_s: t.unwrap_or(f64::INFINITY), ..*p }
        })
        .collect();
    ServingReport {
        aggregate_tokens_per_s: serving_band(&job.model, total),
        ttft_s: ttft.map(|t| band(t, measured, &set)),
        max_users: dec.max_users.map(|n| if misses { 0 } else { n }),
        curve,
        prefill_replicas: prefill,
        kv_transfer_s: replica.kv_s,
        ..dec
    }
}
