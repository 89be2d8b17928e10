//! The schema of `data/accuracy.toml`, which `make accuracy` (src/accuracy) writes: per set of
//! calibration rows its held-out figures and five worst rows, and per (set, engine, GPU family)
//! the held-out median error. Shared by `build.rs` (which parses the file, packs the sets for the
//! accuracy page's `accuracy.bin` and embeds the held-out table) and the library (which unpacks
//! them), so it uses nothing but `serde` and `std`. A figure of -1.0 means "not available".

use serde::{Deserialize, Serialize};

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccuracyFile {
    #[serde(default)]
    pub set: Vec<SetAccuracy>,
    #[serde(default)]
    pub held_out: Vec<HeldOutEntry>,
}

/// One set's figures: median |error| in-sample and of held-out rows per fold (leave one family,
/// source, generation out), the share of held-out rows inside the band other sources set, the
/// bands (measured / model, 10th–90th percentile), the goals, and its five worst rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAccuracy {
    pub id: String,
    pub rows: u32,
    pub sources: u32,
    pub shipped: f64,
    pub in_sample: f64,
    pub lofo: f64,
    pub loso: f64,
    pub logo: f64,
    pub in_band: f64,
    pub band: [f64; 2],
    pub band_new_family: [f64; 2],
    pub goal: f64,
    /// The goal on leave-one-generation-out, where the set has its own.
    #[serde(default)]
    pub goal_logo: Option<f64>,
    #[serde(default)]
    pub worst: Vec<WorstRow>,
}

/// A row with a large held-out error: what was measured, where, and what the model said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorstRow {
    pub label: String,
    pub source: String,
    pub measured: f64,
    pub model: f64,
}

/// The held-out (leave one family out) median |error| of one engine on one GPU family in a set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldOutEntry {
    pub set: String,
    pub engine: String,
    pub family: String,
    pub rows: u32,
    pub median_error: f64,
}
