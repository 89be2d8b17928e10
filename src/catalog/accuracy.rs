//! How accurate the engine is, as `make accuracy` measured it (`data/accuracy.toml`, see
//! [`accuracy_schema`](super::accuracy_schema)), for two readers:
//!
//! - every LLM estimate names the held-out error of its own set, engine and GPU family
//!   ([`held_out`]): a table of a few hundred bytes that `build.rs` embeds, since the first
//!   estimate needs it;
//! - the accuracy page (`?view=accuracy`) shows each set's figures and worst rows (`sets`, in
//!   native builds): `gpu-advisor accuracy-pack` (Trunk's post_build hook) renders the page's
//!   tables in each language into `accuracy.bin`, which the web app loads when the page opens
//!   (`ui::accuracy_load`).
//!
//! [`family_of`] is the GPU-family rule the accuracy harness holds cards out by, shared here so
//! that an estimate looks its card up under the same family.

#[cfg(not(target_arch = "wasm32"))]
use super::accuracy_schema::SetAccuracy;
use super::{Gpu, Segment, Vendor};

// SETS: [(set id, rows, leave-one-family-out median |error| in per mille, u16::MAX when not
// available)]; ENGINES and FAMILIES: names; PAIRS: [(set, engine, family, rows, per mille)] as
// indices into them. Written by build.rs from data/accuracy.toml.
include!(concat!(env!("OUT_DIR"), "/held_out.rs"));

/// The GPU family a card is held out with in the accuracy harness's leave-one-family-out fold:
/// NVIDIA by memory class (HBM, or a datacenter card of unknown memory, against GDDR), AMD
/// Instinct (CDNA) against Radeon, Apple, Intel Arc, and "other" (Gaudi, Ascend).
pub fn family_of(g: &Gpu) -> &'static str {
    let hbm = g.memory_type.as_deref().is_some_and(|m| m.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"HBM")));
    match g.vendor {
        Vendor::Nvidia if hbm || (g.memory_type.is_none() && g.segment == Segment::Datacenter) => "NVIDIA HBM",
        Vendor::Nvidia => "NVIDIA GDDR",
        Vendor::Amd if g.architecture.starts_with("CDNA") => "AMD Instinct",
        Vendor::Amd => "AMD Radeon",
        Vendor::Apple => "Apple",
        Vendor::Intel if g.architecture.starts_with("Gaudi") => "other",
        Vendor::Intel => "Intel Arc",
        Vendor::Huawei => "other",
    }
}

/// A held-out median |error| and the rows behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldOut {
    /// Median |model / measured − 1| of the rows, each estimated without its GPU family.
    pub median_error: f64,
    pub rows: u32,
    /// True when the figure is the engine's on this family; false when it is the whole set's
    /// (the pair has no rows).
    pub pair: bool,
}

/// The leave-one-family-out error of `set` for `engine` on `family`: the pair's own figure when
/// the harness has one, else the set's overall one; None when the set has no figure.
pub fn held_out(set: &str, engine: Option<&str>, family: &str) -> Option<HeldOut> {
    fn name(names: &[&'static str], i: u8) -> Option<&'static str> {
        names.get(usize::from(i)).copied()
    }
    let index = SETS.iter().position(|s| s.0 == set)?;
    let pair = engine.and_then(|engine| {
        PAIRS.iter().find(|p| usize::from(p.0) == index && name(&ENGINES, p.1) == Some(engine) && name(&FAMILIES, p.2) == Some(family))
    });
    if let Some(p) = pair {
        return Some(HeldOut { median_error: f64::from(p.4) / 1000.0, rows: u32::from(p.3), pair: true });
    }
    let (_, rows, per_mille) = SETS.get(index)?;
    (*per_mille != u16::MAX).then(|| HeldOut { median_error: f64::from(*per_mille) / 1000.0, rows: *rows, pair: false })
}

/// The sets as build.rs packed them (postcard), native builds only: `gpu-advisor accuracy-pack`
/// appends them to the accuracy page's file (`ui::components::accuracy_view::packed`).
#[cfg(not(target_arch = "wasm32"))]
pub fn packed_sets() -> &'static [u8] {
    include_bytes!(concat!(env!("OUT_DIR"), "/accuracy_sets.bin"))
}

#[cfg(not(target_arch = "wasm32"))]
static SETS_TABLE: std::sync::LazyLock<Vec<SetAccuracy>> = std::sync::LazyLock::new(|| postcard::from_bytes(packed_sets()).unwrap_or_default());

/// Every set's figures and worst rows, as `data/accuracy.toml` has them (native builds only: the
/// web app gets the page they make, rendered at build time).
#[cfg(not(target_arch = "wasm32"))]
pub fn sets() -> &'static [SetAccuracy] {
    &SETS_TABLE
}
