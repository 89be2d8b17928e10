//! Nested cross-validation: every row predicted by the engine as shipped, by the engine refitted on
//! every row (in-sample), and by the engine refitted without the row's GPU family, source and
//! hardware generation in turn (every fitted constant refitted inside each fold, by its domain's
//! [`Domain::refit`]); then bands set out of fold: a source's rows are scored against the 10th–90th
//! percentile of the held-out measured/model ratios of the other sources' rows.

use super::row::{median, quantile, Fold, Row, Set};
use crate::model::Band;
use std::collections::{BTreeMap, BTreeSet};

/// A refit: the constants, and the names of those the rows could not determine (left at their
/// physics default).
pub struct Refit<F> {
    pub fit: F,
    pub fallbacks: Vec<&'static str>,
}

/// An engine with fitted constants and the rows that judge it.
pub trait Domain: Sync {
    /// The fitted constants.
    type Fit: Clone + Send;
    /// What each row carries besides its keys.
    type Payload: Sync;
    fn rows(&self) -> &[Row<Self::Payload>];
    /// The constants the app ships.
    fn shipped(&self) -> Self::Fit;
    /// Every fitted constant refitted on the rows `train` (indices into [`Domain::rows`]).
    fn refit(&self, train: &[usize]) -> Refit<Self::Fit>;
    /// The engine's band for row `i` under `fit`.
    fn predict(&self, fit: &Self::Fit, i: usize) -> Band;
}

/// One row's predictions.
#[derive(Debug, Clone, Copy)]
pub struct Scored {
    /// Index into the domain's rows.
    pub index: usize,
    pub measured: f64,
    /// The shipped engine.
    pub raw: Band,
    /// Refitted on every row.
    pub in_sample: Band,
    /// Refitted without the row's family, source and generation (in [`Fold::ALL`] order).
    pub held_out: [Band; 3],
}

impl Scored {
    /// The held-out band under `fold`.
    pub fn fold(&self, fold: Fold) -> Band {
        self.held_out[fold as usize]
    }
}

/// Signed relative error of `mid` against `measured`.
pub fn err(mid: f64, measured: f64) -> f64 {
    mid / measured - 1.0
}

/// What the folds of one domain needed: per fold kind, the held-out keys whose refit fell back to
/// a physics default, with the constants' names.
#[derive(Debug, Default, Clone)]
pub struct FoldNotes {
    pub fallbacks: BTreeMap<(Fold, String), Vec<&'static str>>,
}

/// Scores every row of `d`: shipped, in-sample, and held out by each fold kind.
pub fn evaluate<D: Domain>(d: &D) -> (Vec<Scored>, FoldNotes) {
    let rows = d.rows();
    let all: Vec<usize> = (0..rows.len()).collect();
    let shipped = d.shipped();
    let full = d.refit(&all);
    let mut out: Vec<Scored> = (0..rows.len())
        .map(|i| {
            let raw = d.predict(&shipped, i);
            Scored { index: i, measured: rows[i].measured, raw, in_sample: d.predict(&full.fit, i), held_out: [raw; 3] }
        })
        .collect();
    let mut notes = FoldNotes::default();
    let all = &all;
    for fold in Fold::ALL {
        let keys: BTreeSet<&str> = rows.iter().map(|r| r.key(fold)).collect();
        let results: Vec<(String, Vec<(usize, Band)>, Vec<&'static str>)> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk(keys.iter().copied().collect(), 2)
                .into_iter()
                .map(|group| {
                    s.spawn(move || {
                        group
                            .into_iter()
                            .map(|k| {
                                let train: Vec<usize> = all.iter().copied().filter(|&i| rows[i].key(fold) != k).collect();
                                let r = d.refit(&train);
                                let preds: Vec<(usize, Band)> =
                                    (0..rows.len()).filter(|&i| rows[i].key(fold) == k).map(|i| (i, d.predict(&r.fit, i))).collect();
                                (k.to_string(), preds, r.fallbacks)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        for (k, preds, fallbacks) in results {
            for (i, b) in preds {
                out[i].held_out[fold as usize] = b;
            }
            if !fallbacks.is_empty() {
                notes.fallbacks.insert((fold, k), fallbacks);
            }
        }
    }
    (out, notes)
}

/// `v` dealt into `n` interleaved groups (the keys in sorted order alternate between threads, so
/// both get a share of the expensive ones).
fn chunk<T>(v: Vec<T>, n: usize) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = (0..n.max(1)).map(|_| Vec::new()).collect();
    let len = out.len();
    for (i, x) in v.into_iter().enumerate() {
        out[i % len].push(x);
    }
    out
}

/// The figures of one set.
#[derive(Debug, Clone)]
pub struct Summary {
    pub set: Set,
    pub rows: usize,
    pub sources: usize,
    /// Median |error|: shipped, in-sample, and held out by [`Fold::ALL`].
    pub raw: f64,
    pub in_sample: f64,
    pub held_out: [f64; 3],
    /// Share of rows inside the band the other sources' held-out ratios set (the band's 10th–90th
    /// percentile of measured / held-out mid), each source scored only against the others'.
    pub in_band_out_of_fold: f64,
    /// The band over every row's held-out ratio (10th and 90th percentile of measured / mid,
    /// leave-one-source-out): what the app shows for fitted and cross-validated pairs.
    pub band: (f64, f64),
    /// The same over leave-one-family-out ratios: what a family without rows gets.
    pub band_new_family: (f64, f64),
    /// The worst rows by held-out error (largest of the three folds), at most five.
    pub worst: Vec<usize>,
}

/// The 10th–90th percentile band of `ratios` (NaN when empty).
pub fn band_of(ratios: Vec<f64>) -> (f64, f64) {
    (quantile(ratios.clone(), 0.1), quantile(ratios, 0.9))
}

/// The share of `scored` rows inside the band set by the other sources' leave-one-source-out
/// ratios (measured / held-out mid): every source's rows scored against a band its own rows did
/// not set.
pub fn in_band_out_of_fold<P>(rows: &[Row<P>], scored: &[&Scored]) -> f64 {
    let ratio = |s: &Scored| s.measured / s.fold(Fold::Source).mid;
    let sources: BTreeSet<&str> = scored.iter().map(|s| rows[s.index].source.as_str()).collect();
    let mut inside = 0usize;
    let mut counted = 0usize;
    for src in sources {
        let others: Vec<f64> = scored.iter().filter(|s| rows[s.index].source != src).map(|s| ratio(s)).collect();
        if others.len() < 5 {
            continue;
        }
        let (lo, hi) = band_of(others);
        for s in scored.iter().filter(|s| rows[s.index].source == src) {
            counted += 1;
            if (lo..=hi).contains(&ratio(s)) {
                inside += 1;
            }
        }
    }
    inside as f64 / counted.max(1) as f64
}

/// The figures of set `set` from its scored rows.
pub fn summarize<P>(set: Set, rows: &[Row<P>], scored: &[&Scored]) -> Summary {
    let med = |f: &dyn Fn(&Scored) -> f64| median(scored.iter().map(|s| f(s).abs()).collect());
    let held = |fold: Fold| med(&|s: &Scored| err(s.fold(fold).mid, s.measured));
    let mut worst: Vec<&&Scored> = scored.iter().collect();
    let worst_err = |s: &Scored| Fold::ALL.iter().map(|&f| err(s.fold(f).mid, s.measured).abs()).fold(0.0, f64::max);
    worst.sort_by(|a, b| worst_err(b).total_cmp(&worst_err(a)));
    Summary {
        set,
        rows: scored.len(),
        sources: scored.iter().map(|s| rows[s.index].source.as_str()).collect::<BTreeSet<_>>().len(),
        raw: med(&|s| err(s.raw.mid, s.measured)),
        in_sample: med(&|s| err(s.in_sample.mid, s.measured)),
        held_out: [held(Fold::Family), held(Fold::Source), held(Fold::Generation)],
        in_band_out_of_fold: in_band_out_of_fold(rows, scored),
        band: band_of(scored.iter().map(|s| s.measured / s.fold(Fold::Source).mid).collect()),
        band_new_family: band_of(scored.iter().map(|s| s.measured / s.fold(Fold::Family).mid).collect()),
        worst: worst.iter().take(5).map(|s| s.index).collect(),
    }
}
