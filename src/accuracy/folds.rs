//! Nested cross-validation: every row predicted by the engine as shipped, by the engine refitted on
//! every row (in-sample), and by the engine refitted without the row's GPU family, source and
//! hardware generation in turn (every fitted constant refitted inside each fold, by its domain's
//! [`Domain::refit`]); then bands set out of fold: a source's rows are scored against the 10th–90th
//! percentile of the held-out measured/model ratios of the other sources' rows.

use super::row::{median, Fold, Row, Set};
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
    /// The band class of row `i` within its set ("" for the set's own band): rows the engine
    /// shows a band of their own for (a DeepSeek-style MoE's serving figures, a TTFT of requests
    /// that arrive together) are held to bands set from rows of their class.
    fn class(&self, _i: usize) -> &'static str {
        ""
    }
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

/// One held-out key's result: the key, its rows' predictions, the constants its refit could not
/// determine.
type KeyResult = (String, Vec<(usize, Band)>, Vec<&'static str>);

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
        let results: Vec<KeyResult> = std::thread::scope(|s| {
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
    /// Share of rows inside the band the other sources' held-out ratios set ([`band_of`] of
    /// measured / held-out mid, leave-one-source-out, over the rows of the other sources in the
    /// row's class), each source scored only against the others'.
    pub in_band_out_of_fold: f64,
    /// Per band class ("" the set's own), the band over every source's held-out ratios
    /// (leave-one-source-out): what the app shows for fitted and cross-validated pairs; and the
    /// same over leave-one-family-out ratios, what a family without rows gets.
    pub bands: Vec<ClassBand>,
    /// The worst rows by held-out error (largest of the three folds), at most five.
    pub worst: Vec<usize>,
}

/// The band of one class of a set's rows.
#[derive(Debug, Clone)]
pub struct ClassBand {
    pub class: &'static str,
    pub rows: usize,
    pub band: (f64, f64),
    pub band_new_family: (f64, f64),
}

impl Summary {
    /// The set's own band (class "").
    pub fn band(&self) -> (f64, f64) {
        self.bands.iter().find(|b| b.class.is_empty()).map_or((f64::NAN, f64::NAN), |b| b.band)
    }
}

/// The 10th–90th percentile band of measured / model `ratios`, each source weighing the same
/// whatever its number of rows: the band says where a measurement from a source not yet seen
/// falls, and sources differ more than the rows within one do. (`ratios`: (source, ratio).)
pub fn band_of(ratios: &[(&str, f64)]) -> (f64, f64) {
    if ratios.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut per_source: BTreeMap<&str, usize> = BTreeMap::new();
    for (s, _) in ratios {
        *per_source.entry(s).or_default() += 1;
    }
    let mut v: Vec<(f64, f64)> = ratios.iter().map(|(s, r)| (*r, 1.0 / per_source[s] as f64)).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    let at = |q: f64| {
        let mut acc = 0.0;
        for (r, w) in &v {
            acc += w;
            if acc >= q * total - 1e-12 {
                return *r;
            }
        }
        v[v.len() - 1].0
    };
    (at(0.1), at(0.9))
}

/// The figures of set `set` from its scored rows; `class` gives each row's band class.
pub fn summarize<P>(set: Set, rows: &[Row<P>], scored: &[&Scored], class: &dyn Fn(usize) -> &'static str) -> Summary {
    let med = |f: &dyn Fn(&Scored) -> f64| median(scored.iter().map(|s| f(s).abs()).collect());
    let held = |fold: Fold| med(&|s: &Scored| err(s.fold(fold).mid, s.measured));
    let mut worst: Vec<&&Scored> = scored.iter().collect();
    let worst_err = |s: &Scored| Fold::ALL.iter().map(|&f| err(s.fold(f).mid, s.measured).abs()).fold(0.0, f64::max);
    worst.sort_by(|a, b| worst_err(b).total_cmp(&worst_err(a)));
    let ratio = |s: &Scored, fold: Fold| (rows[s.index].source.as_str(), s.measured / s.fold(fold).mid);
    let classes: BTreeSet<&'static str> = scored.iter().map(|s| class(s.index)).collect();
    let mut bands = Vec::new();
    let (mut inside, mut counted) = (0usize, 0usize);
    for c in classes {
        let mine: Vec<&Scored> = scored.iter().copied().filter(|s| class(s.index) == c).collect();
        let loso: Vec<(&str, f64)> = mine.iter().map(|s| ratio(s, Fold::Source)).collect();
        let lofo: Vec<(&str, f64)> = mine.iter().map(|s| ratio(s, Fold::Family)).collect();
        bands.push(ClassBand { class: c, rows: mine.len(), band: band_of(&loso), band_new_family: band_of(&lofo) });
        // Out of fold: each source's rows against the band of the other sources' rows.
        let sources: BTreeSet<&str> = loso.iter().map(|x| x.0).collect();
        for src in sources {
            let others: Vec<(&str, f64)> = loso.iter().copied().filter(|x| x.0 != src).collect();
            if others.len() < 5 {
                continue;
            }
            let (lo, hi) = band_of(&others);
            for (_, r) in loso.iter().filter(|x| x.0 == src) {
                counted += 1;
                if (lo..=hi).contains(r) {
                    inside += 1;
                }
            }
        }
    }
    Summary {
        set,
        rows: scored.len(),
        sources: scored.iter().map(|s| rows[s.index].source.as_str()).collect::<BTreeSet<_>>().len(),
        raw: med(&|s| err(s.raw.mid, s.measured)),
        in_sample: med(&|s| err(s.in_sample.mid, s.measured)),
        held_out: [held(Fold::Family), held(Fold::Source), held(Fold::Generation)],
        in_band_out_of_fold: inside as f64 / counted.max(1) as f64,
        bands,
        worst: worst.iter().take(5).map(|s| s.index).collect(),
    }
}
