//! How N cards serve an LLM: `k` replicas of `m` cards each (tensor parallel, or the engine's
//! layer split, inside a replica), chosen for the serving targets.
//!
//! A replica is an independent server: the users are spread evenly over the replicas, each
//! replica runs [`super::serving::analyze`] for its share, and the build's total is the replicas'
//! sum. More replicas of fewer cards hold more requests and give more total throughput when the
//! model fits in few cards; one replica over every card gives one user the most speed when tensor
//! parallelism scales. The choice: with a per-user speed or TTFT target, the layout that serves the
//! most users within it; without one, the layout with the most total output at the requested
//! users, then the fastest per user. This is how vLLM and SGLang deployments are sized in
//! practice: data parallel replicas (`--data-parallel-size`) of the smallest tensor-parallel group
//! that holds the model (vLLM docs, "Parallelism and scaling"; SGLang `--dp-size`).
//!
//! A mixture-of-experts model on an engine with expert parallelism is also tried with its experts
//! spread whole over each replica's cards, with tensor-parallel or data-parallel attention
//! ([`super::job::MoeLayout`]), unless the job fixes its layout, and in replicas of several nodes
//! (wide expert parallelism: SGLang served DeepSeek-V3 on 96 H100s with EP32 prefill and EP72
//! decode replicas, LMSYS blog 2025-05-05; DeepSeek's own decode runs EP144).
//!
//! A build of two replicas or more may also split them into prefill-only and decode-only pools
//! ([`super::disagg`]): on builds past one node unless the job says otherwise, every split is
//! tried and kept when it serves better.

use std::borrow::Cow;
use super::serving::{analyze_opts, CurvePoint, ServingReport, ServingTargets};
use super::disagg;
use super::job::MoeLayout;
use super::parallel::expert_parallel_applies;
use super::job::LlmJob;
use super::per_gpu_fit;
use crate::catalog::Gpu;
use crate::model::types::{Estimate, EstimateError};

/// Cards per replica looked at: divisors of the build up to one 8-GPU node, plus the whole build
/// when a replica needs more than a node.
const NODE_GPUS: u32 = 8;

/// A chosen deployment: its layout, its serving figures for the whole build, and the memory
/// estimate of one replica.
#[derive(Debug, Clone, PartialEq)]
pub struct Deployment {
    pub replicas: u32,
    pub gpus_per_replica: u32,
    /// How an MoE model's experts spread over a replica's cards (`Tensor` for dense models).
    pub moe_layout: MoeLayout,
    /// Figures for the whole build (all replicas).
    pub report: ServingReport,
    /// The estimate of one replica with its share of the users (`None` from [`plan_opts`] when
    /// the build is one replica: the caller's estimate of the whole build is that replica's).
    pub estimate: Option<Estimate>,
}

/// Replica sizes to try for `gpus` cards when one replica needs at least `needed`: the divisors
/// up to a node, then, when a replica needs more than a node or its experts may spread over
/// several (`wide`), two, four, … nodes that divide the build, and the whole build.
fn replica_sizes(gpus: u32, needed: u32, wide: bool) -> Vec<u32> {
    let needed = needed.max(1);
    let mut sizes: Vec<u32> = (needed..=gpus.min(NODE_GPUS)).filter(|m| gpus.is_multiple_of(*m)).collect();
    let mut m = 2 * NODE_GPUS;
    while (wide || needed > NODE_GPUS) && m < gpus {
        if m >= needed && gpus.is_multiple_of(m) {
            sizes.push(m);
        }
        m *= 2;
    }
    if sizes.is_empty() || needed > NODE_GPUS || wide {
        sizes.push(gpus);
    }
    sizes.dedup();
    sizes
}

/// The whole build's figures from one replica's. A replica has `r.users` in flight; the build
/// has `replicas` of them, but never more users than were asked for (`users`), except under an
/// arrival rate, where every replica takes its share of the requests.
fn scale(r: ServingReport, users: f64, replicas: u32, by_rate: bool) -> ServingReport {
    let k = f64::from(replicas);
    let in_flight = if by_rate { k * r.users } else { users.min(k * r.users) };
    let factor = if r.users > 0.0 { in_flight / r.users } else { k };
    ServingReport {
        users: in_flight,
        per_user_tokens_per_s: r.per_user_tokens_per_s,
        aggregate_tokens_per_s: r.aggregate_tokens_per_s.scale(factor),
        ttft_s: r.ttft_s,
        prefill_replicas: r.prefill_replicas,
        kv_transfer_s: r.kv_transfer_s,
        max_users: r.max_users.map(|m| m.saturating_mul(replicas)),
        capacity: r.capacity.saturating_mul(replicas),
        curve: r
            .curve
            .into_iter()
            .map(|p| CurvePoint {
                users: p.users.saturating_mul(replicas),
                per_user_tokens_per_s: p.per_user_tokens_per_s,
                aggregate_tokens_per_s: p.aggregate_tokens_per_s * k,
                ttft_s: p.ttft_s,
            })
            .collect(),
    }
}

/// True when `a` is the better deployment for the targets (see the module doc).
fn better(a: &ServingReport, b: &ServingReport, targets: &ServingTargets) -> bool {
    let has_target = targets.tokens_per_s_per_user.is_some() || targets.max_ttft_s.is_some();
    if has_target && a.max_users != b.max_users {
        return a.max_users > b.max_users;
    }
    let (ta, tb) = (a.aggregate_tokens_per_s.mid, b.aggregate_tokens_per_s.mid);
    if (ta - tb).abs() > 1e-9 * ta.abs().max(tb.abs()) {
        return ta > tb;
    }
    a.per_user_tokens_per_s.mid > b.per_user_tokens_per_s.mid * (1.0 + 1e-9)
}

/// One replica's targets: its share of the arrivals.
fn replica_targets(targets: &ServingTargets, replicas: u32) -> ServingTargets {
    let mut t = *targets;
    t.arrival_rate_rps = targets.arrival_rate_rps.map(|r| r / f64::from(replicas.max(1)));
    t
}

/// The best deployment of `job` (its `batch` = the users in flight) on `gpus` of `gpu` whose
/// replicas fit with at most `allowed_gib` per card, with its frontier; `None` when no replica
/// size fits.
pub fn plan(job: &LlmJob, gpu: &Gpu, gpus: u32, targets: &ServingTargets, allowed_gib: f64) -> Result<Option<Deployment>, EstimateError> {
    let mut d = plan_inner(job, gpu, gpus, targets, allowed_gib, true, None)?;
    if let Some(d) = d.as_mut() {
        d.report = full_report(job, gpu, d, targets)?;
    }
    Ok(d)
}

/// The full serving report of a deployment (with its TTFT and its frontier: one replica's from
/// one user to its capacity, with users and totals times the replicas).
pub fn full_report(job: &LlmJob, gpu: &Gpu, d: &Deployment, targets: &ServingTargets) -> Result<ServingReport, EstimateError> {
    let laid = with_layout(job, d.moe_layout);
    if d.report.prefill_replicas > 0 {
        return split_report(&laid, gpu, d.replicas * d.gpus_per_replica, d.gpus_per_replica, d.report.prefill_replicas, targets, true);
    }
    let share = share_of(&laid, d.replicas);
    let r = analyze_opts(&share, gpu, d.gpus_per_replica, &replica_targets(targets, d.replicas), true)?;
    Ok(scale(r, f64::from(job.batch.max(1)), d.replicas, targets.arrival_rate_rps.is_some()))
}

/// The serving report of `job` (its users over the whole build) on `gpus` cards of `gpu` in
/// replicas of `m`, `prefill` of them prefill-only and the rest decode-only ([`disagg::split`]):
/// the decode pool is every decode replica with its share of the users and nothing to prefill.
pub fn split_report(job: &LlmJob, gpu: &Gpu, gpus: u32, m: u32, prefill: u32, targets: &ServingTargets, with_curve: bool) -> Result<ServingReport, EstimateError> {
    split_with(job, gpu, gpus, m, &disagg::PrefillReplica::new(job, gpu, gpus, m, targets), prefill, targets, with_curve)
}

/// [`split_report`] with its prefill replica found already (the planner tries every split of a
/// replica size with one).
#[allow(clippy::too_many_arguments)]
fn split_with(job: &LlmJob, gpu: &Gpu, gpus: u32, m: u32, replica: &disagg::PrefillReplica, prefill: u32, targets: &ServingTargets, with_curve: bool) -> Result<ServingReport, EstimateError> {
    let decode = (gpus / m.max(1)).saturating_sub(prefill).max(1);
    let decode_targets = ServingTargets { prefix_hit: 1.0, ..replica_targets(targets, decode) };
    let dec = analyze_opts(&share_of(job, decode), gpu, m, &decode_targets, with_curve)?;
    let dec = scale(dec, f64::from(job.batch.max(1)), decode, targets.arrival_rate_rps.is_some());
    Ok(disagg::split(job, gpu, replica, prefill, targets, dec))
}

/// [`plan`] without the frontier and the TTFT (unless a target needs it), and without the estimate
/// of a build that is one replica: the recommender ranks every candidate this way and analyses the
/// options it shows in full, with [`full_report`].
/// `needed` is [`replica_needed`] of the job on the card (the same for every count, so the
/// ranking finds it once per card).
pub fn plan_opts(job: &LlmJob, gpu: &Gpu, gpus: u32, targets: &ServingTargets, allowed_gib: f64, needed: u32) -> Result<Option<Deployment>, EstimateError> {
    plan_inner(job, gpu, gpus, targets, allowed_gib, false, Some(needed))
}

/// The fewest cards of `gpu` a replica of `job` needs. A replica holds only its share of the
/// users' cache: the smallest is the one that holds the model for one user; each size is then
/// checked at its own share.
pub fn replica_needed(job: &LlmJob, gpu: &Gpu) -> Result<u32, EstimateError> {
    let job = &*super::vision::with_images(job)?;
    Ok(super::gpus_needed(&share_of(job, job.batch.max(1)), gpu)?.max(1))
}

fn plan_inner(job: &LlmJob, gpu: &Gpu, gpus: u32, targets: &ServingTargets, allowed_gib: f64, with_estimate: bool, needed: Option<u32>) -> Result<Option<Deployment>, EstimateError> {
    let needed = match needed {
        Some(n) => n,
        None => replica_needed(job, gpu)?,
    };
    let job = &*super::vision::with_images(job)?;
    let users = f64::from(job.batch.max(1));
    let mut best: Option<Deployment> = None;
    // One user is served by one replica over every card: more replicas would sit idle.
    let wide = job.moe_layout != MoeLayout::Tensor && expert_parallel_applies(job, job.engine_for(gpu));
    let sizes = if users <= 1.0 && targets.arrival_rate_rps.is_none() { vec![gpus] } else { replica_sizes(gpus, needed, wide) };
    for m in sizes {
        let k = gpus / m;
        for &mode in moe_modes(job, gpu, m) {
            let laid = with_layout(job, mode);
            let share = share_of(&laid, k);
            let (per_gpu_gib, fits) = per_gpu_fit(&share, gpu, m)?;
            if !fits || per_gpu_gib > allowed_gib {
                continue;
            }
            // Every replica serving, then each split into prefill and decode pools (a replica is
            // sized for an even share of the users; a decode replica holds what its cache holds).
            let splits = if disagg::tried(targets, gpu, gpus, k) { k } else { 1 };
            let replica = (splits > 1).then(|| disagg::PrefillReplica::new(&laid, gpu, gpus, m, targets));
            for prefill in 0..splits {
                let report = match &replica {
                    Some(r) if prefill > 0 => split_with(&laid, gpu, gpus, m, r, prefill, targets, false)?,
                    _ => scale(analyze_opts(&share, gpu, m, &replica_targets(targets, k), false)?, users, k, targets.arrival_rate_rps.is_some()),
                };
                if best.as_ref().is_none_or(|b| better(&report, &b.report, targets)) {
                    best = Some(Deployment { replicas: k, gpus_per_replica: m, moe_layout: mode, report, estimate: None });
                }
            }
        }
    }
    // The memory estimate of a split build's replica, or of a layout other than the caller's
    // (the full estimate is dear; the other sizes needed only their fit, and one replica over
    // every card is the caller's own estimate).
    if let Some(d) = best.as_mut().filter(|d| d.replicas > 1 || with_estimate || d.moe_layout != job.moe_layout) {
        let laid = with_layout(job, d.moe_layout);
        // The ranking shows the assumptions of a few options, which it writes again in full.
        d.estimate = Some(super::estimate_llm_with(&share_of(&laid, d.replicas), gpu, d.gpus_per_replica, if with_estimate { super::Detail::Full } else { super::Detail::Figures })?);
    }
    Ok(best)
}

/// The MoE layouts tried for a replica of `m` cards: the job's own, or, when it leaves the choice
/// to the planner on an engine with expert parallelism, tensor parallelism and both
/// expert-parallel layouts (one card: tensor, the only one).
fn moe_modes<'a>(job: &'a LlmJob, gpu: &Gpu, m: u32) -> &'a [MoeLayout] {
    if job.moe_layout != MoeLayout::Auto {
        return std::slice::from_ref(&job.moe_layout);
    }
    if m > 1 && expert_parallel_applies(job, job.engine_for(gpu)) {
        &[MoeLayout::Tensor, MoeLayout::Expert, MoeLayout::DpAttention]
    } else {
        &[MoeLayout::Auto]
    }
}

/// `job` with its MoE layout fixed to `mode` (the planner tries several for every card and count,
/// so the job is copied only when the layout changes).
fn with_layout(job: &LlmJob, mode: MoeLayout) -> Cow<'_, LlmJob> {
    if job.moe_layout == mode {
        Cow::Borrowed(job)
    } else {
        Cow::Owned(LlmJob { moe_layout: mode, ..job.clone() })
    }
}

/// The job one of `replicas` replicas serves: its share of the users (a copy only when that
/// changes the job).
fn share_of(job: &LlmJob, replicas: u32) -> Cow<'_, LlmJob> {
    let batch = job.batch.max(1).div_ceil(replicas.max(1));
    if job.batch == batch {
        Cow::Borrowed(job)
    } else {
        Cow::Owned(LlmJob { batch, ..job.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::replica_sizes;

    #[test]
    fn replica_sizes_divide_the_build() {
        assert_eq!(replica_sizes(8, 2, false), vec![2, 4, 8]);
        assert_eq!(replica_sizes(6, 1, false), vec![1, 2, 3, 6]);
        assert_eq!(replica_sizes(5, 2, false), vec![5]);
        assert_eq!(replica_sizes(16, 16, false), vec![16]);
        assert_eq!(replica_sizes(32, 2, false), vec![2, 4, 8]);
        // Replicas past a node: two, four, … nodes that divide the build, and the whole build.
        assert_eq!(replica_sizes(64, 12, false), vec![16, 32, 64]);
        assert_eq!(replica_sizes(96, 16, false), vec![16, 32, 96]);
        // Wide expert parallelism: the same multi-node sizes beside the in-node ones.
        assert_eq!(replica_sizes(64, 8, true), vec![8, 16, 32, 64]);
        assert_eq!(replica_sizes(8, 4, true), vec![4, 8]);
    }
}
