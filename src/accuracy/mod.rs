//! How accurate the engine is, measured so that anyone can check it: every published measurement
//! in `tests/data/calibration/` (each row names its source) predicted by the engine as shipped,
//! refitted on every row (in-sample), and refitted without the row's GPU family, its source and
//! its hardware generation in turn, with every fitted constant refitted inside each fold
//! ([`folds`]); bands set out of fold. `make accuracy` writes the result to `docs/ACCURACY.md`
//! (tables and plots) and `data/accuracy.toml` (the bands and held-out errors the app shows), and
//! `make test` fails when either differs from what this code produces.
//!
//! Native only: the app carries the figures, not the harness.

pub mod folds;
pub mod llm;
pub mod llm_rows;
pub mod media;
pub mod offload;
pub mod report;
pub mod row;

use folds::{evaluate, summarize, Domain, FoldNotes, Scored, Summary};
use row::{Fold, Row, Set};
use std::path::Path;

/// The scored rows of one set, with what the report prints of each.
pub struct SetResult {
    pub summary: Summary,
    /// Every row: (label, source key, citation, family, engine, measured, shipped mid, held-out
    /// mids by [`Fold::ALL`]).
    pub rows: Vec<RowResult>,
}

/// One scored row, as the report and the plots read it.
#[derive(Debug, Clone)]
pub struct RowResult {
    pub label: String,
    pub source: String,
    pub citation: String,
    pub family: String,
    pub generation: String,
    pub engine: String,
    /// GPUs the measured run used.
    pub gpus: u32,
    pub measured: f64,
    pub raw: f64,
    pub in_sample: f64,
    pub held_out: [f64; 3],
    /// The row's band class (`Domain::class`: "" for the set's own band).
    pub class: &'static str,
}

/// Everything `make accuracy` reports.
pub struct Accuracy {
    pub sets: Vec<SetResult>,
    /// (domain, fold notes): the constants a fold could not determine.
    pub notes: Vec<(&'static str, FoldNotes)>,
    /// (constant, shipped value, value refitted on every row).
    pub constants: Vec<(&'static str, f64, f64)>,
    /// The LLM engine's constants refitted on every row: what `make accuracy` ships
    /// (`src/model/llm/calibrated.rs`).
    pub llm_full: crate::model::llm::fit::LlmFit,
    /// Rows read, rows left out (with the reason), rows not modelled.
    pub read: usize,
    pub skipped: Vec<String>,
    pub not_modelled: Vec<String>,
}

/// Scores `d` and appends its sets' results.
fn score_domain<D: Domain>(d: &D, sets: &mut Vec<SetResult>) -> FoldNotes {
    let (scored, notes) = evaluate(d);
    let rows = d.rows();
    for set in Set::ALL {
        let mine: Vec<&Scored> = scored.iter().filter(|s| rows[s.index].set == set && s.raw.mid.is_finite()).collect();
        if mine.is_empty() {
            continue;
        }
        let summary = summarize(set, rows, &mine, &|i| d.class(i));
        let results = mine.iter().map(|s| row_result(&rows[s.index], s, d.class(s.index))).collect();
        sets.push(SetResult { summary, rows: results });
    }
    notes
}

fn row_result<P>(r: &Row<P>, s: &Scored, class: &'static str) -> RowResult {
    RowResult {
        label: r.label.clone(),
        source: r.source.clone(),
        citation: r.citation.clone(),
        family: r.family.clone(),
        generation: r.generation.clone(),
        engine: r.engine.clone(),
        gpus: r.gpus,
        measured: s.measured,
        raw: s.raw.mid,
        in_sample: s.in_sample.mid,
        held_out: [s.fold(Fold::Family).mid, s.fold(Fold::Source).mid, s.fold(Fold::Generation).mid],
        class,
    }
}

/// Runs every domain on the calibration files in `dir`.
pub fn run(dir: &Path) -> Result<Accuracy, String> {
    let inv = llm_rows::inventory(dir)?;
    let (read, skipped, not_modelled) = (inv.read, inv.skipped.clone(), inv.not_modelled.clone());
    let llm = llm::LlmDomain::new(inv);
    let mut sets = Vec::new();
    let llm_notes = score_domain(&llm, &mut sets);
    let all: Vec<usize> = (0..llm.rows().len()).collect();
    let full = llm.refit(&all).fit;
    let llm_full = report::rounded(&full, llm.groups());
    let mut constants = Vec::new();
    for k in llm.groups().iter().flat_map(|g| &g.knobs) {
        let (mut shipped, mut refit) = (crate::model::llm::calibrated::CALIBRATED, full);
        constants.push((k.name, *(k.at)(&mut shipped), *(k.at)(&mut refit)));
    }
    let mut notes = vec![("LLM", llm_notes)];
    let media_inv = media::inventory(dir)?;
    let (read, mut skipped) = (read + media_inv.read, skipped);
    skipped.extend(media_inv.skipped.iter().cloned());
    let media = media::MediaDomain::new(media_inv);
    notes.push(("image, classic and video", score_domain(&media, &mut sets)));
    let full = media.refit(&(0..media.rows().len()).collect::<Vec<_>>()).fit;
    for k in media::media_knobs() {
        let (mut shipped, mut refit) = (media::MediaFits::CALIBRATED.media, full.media);
        constants.push((k.name, *(k.at)(&mut shipped), *(k.at)(&mut refit)));
    }
    for k in media::video_knobs() {
        let (mut shipped, mut refit) = (media::MediaFits::CALIBRATED.video, full.video);
        constants.push((k.name, *(k.at)(&mut shipped), *(k.at)(&mut refit)));
    }
    let offload_inv = offload::inventory(dir)?;
    let read = read + offload_inv.read;
    let offload = offload::OffloadDomain { inventory: offload_inv };
    notes.push(("offload", score_domain(&offload, &mut sets)));
    let full = offload.refit(&(0..offload.rows().len()).collect::<Vec<_>>()).fit;
    constants.push(("offload: RAM stream share", offload.shipped().ram_stream_fraction, full.ram_stream_fraction));
    sets.sort_by_key(|s| s.summary.set);
    Ok(Accuracy { sets, notes, constants, llm_full, read, skipped, not_modelled })
}
