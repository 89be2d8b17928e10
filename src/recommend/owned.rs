//! "I already have" (`recommend --owned ID:COUNT,...`, URL `owned`): the cards the user owns cost
//! nothing, and the recommender answers what to add. Each candidate card is tried at 1 to
//! [`MAX_ADDED`] more (within `max_gpus` in total); a build of one card type runs as the engine
//! runs any build (tensor parallelism where it applies), a build of different cards as a
//! llama.cpp-style layer split in proportion to memory ([`crate::model::llm::mixed`]). Only
//! additions that hold the job and that some engine can run with what is owned are options; each
//! card appears at its smallest count that fits, and only cards that go in the same machine (PCIe
//! beside PCIe, or more of an owned card). The price is the added cards alone (the owner has a
//! machine for them).

use super::cost::card_price_usd;
use super::{Budget, Job, Objective, RecommendInput};
use crate::catalog::Gpu;
use crate::model::llm::{mixed, LlmJob};
use crate::model::types::{Estimate, EstimateError};

/// Most cards of one kind added to what is owned.
pub const MAX_ADDED: u32 = 4;

/// How the owned and added cards run together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pairing {
    /// What is owned holds the job already: nothing to buy.
    OwnedOnly,
    /// More of the card owned: the engine's own layout (tensor parallel where it applies).
    SameCard,
    /// Different cards: layers split in proportion to memory, run one after another.
    LayerSplit,
}

/// One answer to "what should I add?".
#[derive(Debug, Clone, PartialEq)]
pub struct Addition {
    /// The card to add (`None`: nothing) and how many.
    pub add_gpu: Option<String>,
    pub add_count: u32,
    pub pairing: Pairing,
    /// USD for the added cards (0 when nothing is added).
    pub purchase_usd: f64,
    /// The estimate of the whole build, owned and added.
    pub estimate: Estimate,
}

impl Addition {
    /// Decode speed of the build, tokens/s (0 without a figure).
    pub fn decode_tokens_per_s(&self) -> f64 {
        self.estimate.throughput.decode_tokens_per_s.map_or(0.0, |b| b.mid)
    }
}

/// The LLM inference job of `input`, or the error naming `owned`.
fn inference_job(input: &RecommendInput) -> Result<&LlmJob, EstimateError> {
    match &input.job {
        Job::Llm(j) if !j.workload.is_training() => Ok(j),
        _ => Err(EstimateError::invalid("owned", "cards you own are sized for LLM inference")),
    }
}

/// `owned` plus `count` of `gpu`, merged when `gpu` is already owned.
fn with_added<'a>(owned: &[(&'a Gpu, u32)], gpu: &'a Gpu, count: u32) -> Vec<(&'a Gpu, u32)> {
    let mut cards = owned.to_vec();
    match cards.iter_mut().find(|(g, _)| g.id == gpu.id) {
        Some((_, n)) => *n += count,
        None => cards.push((gpu, count)),
    }
    cards
}

/// The smallest addition of `gpu` that holds the job, if any.
fn smallest_fit(job: &LlmJob, owned: &[(&Gpu, u32)], gpu: &Gpu, room: u32, input: &RecommendInput) -> Option<Addition> {
    let (unit_usd, _) = card_price_usd(gpu, input.cost.price_basis, &input.cost.overrides)?;
    let single_owned = owned.len() == 1 && owned.first().is_some_and(|(g, _)| g.id == gpu.id);
    (1..=room.min(MAX_ADDED)).find_map(|k| {
        let cards = with_added(owned, gpu, k);
        let estimate = mixed::estimate_mixed(job, &cards).ok().filter(|e| e.fits)?;
        let pairing = if single_owned { Pairing::SameCard } else { Pairing::LayerSplit };
        Some(Addition { add_gpu: Some(gpu.id.clone()), add_count: k, pairing, purchase_usd: unit_usd * f64::from(k), estimate })
    })
}

/// Ranks what to add to `owned` for `input` over the cards `gpus`, best first (at most
/// `input.top`). Errors name the field: `owned` for a job that is not LLM inference or an empty
/// list, the engine's field for a job it rejects.
pub fn what_to_add(input: &RecommendInput, owned: &[(&Gpu, u32)], gpus: &[Gpu]) -> Result<Vec<Addition>, EstimateError> {
    super::validate(input)?;
    let job = inference_job(input)?;
    if owned.is_empty() || owned.iter().any(|(_, n)| *n == 0) {
        return Err(EstimateError::invalid("owned", "give the cards you own as ID:COUNT"));
    }
    let owned_total: u32 = owned.iter().map(|(_, n)| *n).sum();
    let room = input.constraints.max_gpus.unwrap_or(mixed::MAX_MIX_GPUS).min(mixed::MAX_MIX_GPUS).saturating_sub(owned_total);
    let mut out = Vec::new();
    let alone = mixed::estimate_mixed(job, owned)?;
    if alone.fits {
        out.push(Addition { add_gpu: None, add_count: 0, pairing: Pairing::OwnedOnly, purchase_usd: 0.0, estimate: alone });
    }
    for gpu in gpus.iter().filter(|g| allowed(input, g) && fits_machine(owned, g)) {
        out.extend(smallest_fit(job, owned, gpu, room, input));
    }
    if let Budget::PurchaseUsd(b) = input.budget {
        out.retain(|a| a.purchase_usd <= b);
    }
    crate::sort::sort_by(&mut out, |a, b| order(input.objective, a, b));
    out.truncate(input.top.max(1));
    Ok(out)
}

/// The region and licence constraints (the others need a count or a link the mix does not have).
fn allowed(input: &RecommendInput, gpu: &Gpu) -> bool {
    let c = &input.constraints;
    c.region.as_ref().is_none_or(|r| gpu.available_in(r)) && (!c.datacenter_only || gpu.datacenter_licence())
}

/// True when `gpu` goes in the machine the owned cards are in: more of an owned card, or a PCIe
/// card beside PCIe cards (catalog `form_factor`); an SXM module or a whole system does not.
fn fits_machine(owned: &[(&Gpu, u32)], gpu: &Gpu) -> bool {
    let pcie = |g: &Gpu| g.form_factor.as_deref().is_some_and(|f| f.starts_with("PCIe"));
    owned.iter().any(|(g, _)| g.id == gpu.id) || (pcie(gpu) && owned.iter().all(|(g, _)| pcie(g)))
}

/// Fastest: decode speed first; cheapest (and every cost objective): price first, then speed.
fn order(objective: Objective, a: &Addition, b: &Addition) -> std::cmp::Ordering {
    let speed = b.decode_tokens_per_s().total_cmp(&a.decode_tokens_per_s());
    let price = a.purchase_usd.total_cmp(&b.purchase_usd);
    match objective {
        Objective::Fastest => speed.then(price),
        _ => price.then(speed),
    }
}
