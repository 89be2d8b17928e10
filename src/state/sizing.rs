//! The sizing panel's rows: for every card, how many it takes to hold the job, the estimate at
//! that count, and the headline speed. Pure; the UI memoizes it on the inputs.

use crate::catalog::{self, Gpu};
use crate::model::{Band, Estimate};
use crate::state::advisor::Job;

/// One card's sizing.
#[derive(Debug, Clone, PartialEq)]
pub struct SizingRow {
    pub gpu: &'static Gpu,
    /// Cards needed (0: no count holds the job).
    pub needed: u32,
    /// The estimate at `max(needed, 1)` cards.
    pub estimate: Result<Estimate, crate::model::Note>,
}

/// The speed figure a job is judged by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headline {
    pub label: &'static str,
    pub unit: &'static str,
    pub band: Option<Band>,
    /// True when smaller is better (seconds per image).
    pub lower_is_better: bool,
}

/// The headline speed of an estimate: decode tokens/s for LLM inference, training tokens/s for
/// LLM training, seconds per image, or training samples/s.
pub fn headline(e: &Estimate) -> Headline {
    let t = &e.throughput;
    if let Some(b) = t.seconds_per_video {
        Headline { label: "per video", unit: "s", band: Some(b), lower_is_better: true }
    } else if let Some(b) = t.seconds_per_image {
        Headline { label: "per image", unit: "s", band: Some(b), lower_is_better: true }
    } else if let Some(b) = t.train_samples_per_s {
        Headline { label: "training", unit: "samples/s", band: Some(b), lower_is_better: false }
    } else if let Some(b) = t.train_tokens_per_s {
        Headline { label: "training", unit: "tokens/s", band: Some(b), lower_is_better: false }
    } else if let Some(b) = t.decode_tokens_per_s {
        Headline { label: "decode", unit: "tokens/s", band: Some(b), lower_is_better: false }
    } else {
        Headline { label: "", unit: "", band: None, lower_is_better: false }
    }
}

/// Sizes `job` on every card of the catalog, in catalog order.
pub fn size_all(job: &Job) -> Vec<SizingRow> {
    catalog::gpus().iter().map(|gpu| size_one(job, gpu)).collect()
}

/// One card's row of [`size_all`] (the web app sizes a card per step, between frames).
pub fn size_one(job: &Job, gpu: &'static Gpu) -> SizingRow {
    let needed = job.gpus_needed(gpu).unwrap_or(0);
    let estimate = job.estimate(gpu, needed.max(1)).map_err(|e| e.note());
    SizingRow { gpu, needed, estimate }
}

/// Rows sorted for display: cards that hold the job on fewer cards first, then by headline
/// speed (best first), then by id.
pub fn sorted(mut rows: Vec<SizingRow>) -> Vec<SizingRow> {
    let key = |r: &SizingRow| -> (u32, f64) {
        let n = if r.needed == 0 { u32::MAX } else { r.needed };
        let speed = r.estimate.as_ref().ok().map(headline).and_then(|h| {
            h.band.map(|b| if h.lower_is_better { b.mid } else { -b.mid })
        });
        (n, speed.unwrap_or(f64::INFINITY))
    };
    crate::sort::sort_by(&mut rows, |a, b| {
        let (na, sa) = key(a);
        let (nb, sb) = key(b);
        na.cmp(&nb).then(sa.total_cmp(&sb)).then_with(|| a.gpu.id.cmp(&b.gpu.id))
    });
    rows
}
