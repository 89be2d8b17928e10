//! The GPU and model catalogs, compiled into the binary.
//!
//! `build.rs` parses and validates `data/*.toml` and packs them with postcard; this module unpacks
//! them once, on first use, into a [`Catalog`]. Bad data fails the build, so the running app never
//! sees it. Lookups by id and "did you mean" suggestions for unknown ids live here too.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod accuracy;
pub mod accuracy_schema;
pub mod schema;
pub mod sources;

pub use schema::{
    Arch, Attention, ClassicSpec, CloudPrice, DiffusionComponent, DiffusionSpec, Gpu, LlmSpec, ModelKind,
    Segment, Vendor, VideoSpec, VisionSpec,
};

use std::sync::LazyLock;

static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/catalog.bin"));

/// Every bundled card and model preset.
#[derive(Debug, Default)]
pub struct Catalog {
    pub gpus: Vec<Gpu>,
    pub llms: Vec<LlmSpec>,
    pub diffusion: Vec<DiffusionSpec>,
    pub classic: Vec<ClassicSpec>,
}

type Packed = (Vec<Gpu>, Vec<LlmSpec>, Vec<DiffusionSpec>, Vec<ClassicSpec>);

static CATALOG: LazyLock<Catalog> = LazyLock::new(|| {
    // The bytes were written by build.rs from the same schema, so this cannot fail short of a
    // build bug; `tests/catalog.rs` proves it decodes. An empty catalog is the panic-free fallback.
    match postcard::from_bytes::<Packed>(PACKED) {
        Ok((gpus, llms, diffusion, classic)) => Catalog { gpus, llms, diffusion, classic },
        Err(_) => Catalog::default(),
    }
});

/// The bundled catalog.
pub fn catalog() -> &'static Catalog {
    &CATALOG
}

/// All GPUs, in catalog order.
pub fn gpus() -> &'static [Gpu] {
    &CATALOG.gpus
}

/// The position in [`gpus`] of `gpu` when it is a catalog entry (not a copy of one), found from
/// its address: the engine keeps per-card figures it derives once in tables by this index.
pub fn index_of(gpu: &Gpu) -> Option<usize> {
    let all = gpus();
    let offset = (gpu as *const Gpu as usize).wrapping_sub(all.as_ptr() as usize);
    let size = std::mem::size_of::<Gpu>().max(1);
    let i = offset / size;
    all.get(i).filter(|g| offset.is_multiple_of(size) && std::ptr::eq(*g, gpu)).map(|_| i)
}

/// The GPU with this id.
pub fn gpu(id: &str) -> Option<&'static Gpu> {
    CATALOG.gpus.iter().find(|g| g.id == id)
}

/// The LLM (or encoder) preset with this id.
pub fn llm(id: &str) -> Option<&'static LlmSpec> {
    CATALOG.llms.iter().find(|m| m.id == id)
}

/// The diffusion preset with this id.
pub fn diffusion(id: &str) -> Option<&'static DiffusionSpec> {
    CATALOG.diffusion.iter().find(|m| m.id == id)
}

/// The classic vision/NLP/speech preset with this id.
pub fn classic(id: &str) -> Option<&'static ClassicSpec> {
    CATALOG.classic.iter().find(|m| m.id == id)
}

/// Every model preset id, across the three model files.
pub fn model_ids() -> impl Iterator<Item = &'static str> {
    CATALOG
        .llms
        .iter()
        .map(|m| m.id.as_str())
        .chain(CATALOG.diffusion.iter().map(|m| m.id.as_str()))
        .chain(CATALOG.classic.iter().map(|m| m.id.as_str()))
}

/// The newest date among all street and cloud prices (`YYYY-MM`), for "prices as of …".
pub fn prices_as_of() -> Option<&'static str> {
    CATALOG
        .gpus
        .iter()
        .flat_map(|g| g.street_price_date.iter().map(String::as_str).chain(g.cloud.iter().map(|c| c.date.as_str())))
        .max()
}

/// Levenshtein edit distance between two short strings.
pub fn edit_distance(a: &str, b: &str) -> usize {
    edit_distance_within(a, b, usize::MAX)
}

/// The edit distance between `a` and `b` when it is at most `bound`; otherwise some value above
/// `bound` (the work stops once every entry of a row is above it, since no later row can fall
/// back under its row's minimum).
fn edit_distance_within(a: &str, b: &str, bound: usize) -> usize {
    let b: Vec<char> = b.chars().collect();
    // Wagner–Fischer with one row: `row[j]` is the distance between the prefix of `a` seen so far
    // and the first `j` characters of `b`.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = i; // row[j - 1] of the previous row
        let mut left = i + 1; // row[j - 1] of this row
        let mut row_min = left;
        for (slot, cb) in row.iter_mut().skip(1).zip(&b) {
            let up = *slot;
            let value = (diag + usize::from(ca != *cb)).min(up + 1).min(left + 1);
            diag = up;
            *slot = value;
            left = value;
            row_min = row_min.min(value);
        }
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        if row_min > bound {
            return row_min;
        }
    }
    row.last().copied().unwrap_or(0)
}

/// Up to three ids nearest to `query`: substring matches first, then by edit distance (ties by
/// id). Exact, but it computes the distance only for ids whose cheap lower bound could still
/// place them in the three: `distance_floor` never exceeds the edit distance, so an id whose floor
/// is above the third-best distance found so far cannot enter. Typing an unknown id in the form
/// therefore costs a few distance tables, not one per catalog entry.
pub fn nearest<'a>(query: &str, ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let q = query.to_ascii_lowercase();
    let histogram = char_histogram(&q);
    let query_len = q.chars().count();
    let substring = |id: &str| id.contains(q.as_str()) || (!id.is_empty() && q.contains(id));
    let mut candidates: Vec<(usize, &'a str)> = ids
        .map(|id| {
            (
                if substring(id) {
                    0
                } else {
                    distance_floor(&histogram, query_len, id)
                },
                id,
            )
        })
        .collect();
    crate::sort::sort_by(&mut candidates, Ord::cmp);
    // The three best (distance, id), kept in order.
    let mut best: Vec<(usize, &'a str)> = Vec::with_capacity(4);
    for (floor, id) in candidates {
        let third = if best.len() == 3 {
            best.last().map_or(usize::MAX, |(d, _)| *d)
        } else {
            usize::MAX
        };
        if floor > third {
            break;
        }
        let d = if floor == 0 && substring(id) {
            0
        } else {
            edit_distance_within(&q, id, third)
        };
        let at = best.partition_point(|b| *b <= (d, id));
        if at < 3 {
            best.insert(at, (d, id));
            best.truncate(3);
        }
    }
    best.into_iter().map(|(_, id)| id).collect()
}

/// Counts of each character of `s`, folded into 128 buckets (folding only merges counts, so the
/// floor below stays a floor).
fn char_histogram(s: &str) -> [u32; 128] {
    let mut counts = [0u32; 128];
    for c in s.chars() {
        if let Some(slot) = counts.get_mut(c as usize % 128) {
            *slot += 1;
        }
    }
    counts
}

/// A lower bound on the edit distance between the query (its histogram and length) and `id`:
/// an insertion, deletion or substitution removes at most one unmatched character from each
/// side, so the distance is at least the larger count of characters one side has and the other
/// lacks.
fn distance_floor(query: &[u32; 128], query_len: usize, id: &str) -> usize {
    let mut left = *query;
    let (mut matched, mut id_len) = (0usize, 0usize);
    for c in id.chars() {
        id_len += 1;
        if let Some(slot) = left.get_mut(c as usize % 128).filter(|n| **n > 0) {
            *slot -= 1;
            matched += 1;
        }
    }
    (query_len - matched).max(id_len - matched)
}

/// A card's scale-up fabric as numbers; the fabric's name is `Gpu::scale_up_fabric`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleUp {
    /// Per-GPU total bandwidth over the fabric, both directions summed, GB/s.
    pub gb_s: f64,
    /// The largest group of GPUs the fabric joins all-to-all.
    pub max_gpus: u32,
}

impl Gpu {
    /// True for a computer whose GPU shares its memory (Apple, Strix Halo, DGX Spark): its price
    /// is the whole machine, and a build is one box, or as many as its own link joins.
    pub fn is_unified_computer(&self) -> bool {
        self.unified_memory || self.vendor == Vendor::Apple
    }

    /// Memory a job may count on, GiB: GDDR cards that ship with ECC on lose 1/16 of it to the
    /// check bits (a 24 GB A10 shows 23,028 MiB in `nvidia-smi`, a 16 GB T4 15,360; CUDA Best
    /// Practices Guide: GDDR capacity "reduced by 6.25%"). Every engine sizes against this.
    pub fn usable_memory_gib(&self) -> f64 {
        if self.ecc_on_by_default {
            self.memory_gib * 15.0 / 16.0
        } else {
            self.memory_gib
        }
    }

    /// The scale-up fabric's bandwidth and group size, or `None` for a card that has none
    /// (PCIe only). build.rs guarantees the fields come as a set.
    pub fn scale_up(&self) -> Option<ScaleUp> {
        match (self.scale_up_gb_s, self.scale_up_max_gpus) {
            (Some(gb_s), Some(max_gpus)) => Some(ScaleUp { gb_s, max_gpus }),
            _ => None,
        }
    }

    /// The best dense 16-bit tensor rate for mixed-precision training (FP32 accumulate):
    /// BF16 where present, else FP16, else the FP32 vector rate.
    pub fn train_16bit_tflops(&self) -> Option<f64> {
        self.bf16_tflops.or(self.fp16_tflops).or(self.fp32_tflops)
    }

    /// True when the card's scale-up fabric is NVLink (bridges or NVSwitch) or AMD Infinity
    /// Fabric: GPU-to-GPU links with load/store access between the cards' memories, what
    /// "NVLink required" asks for. Gaudi's on-die RoCE, Ascend's HCCS and DGX Spark's
    /// ConnectX-7 are scale-up fabrics of other kinds (the catalog's `scale_up_fabric` names them).
    pub fn nvlink_class_fabric(&self) -> bool {
        self.scale_up_fabric.as_deref().is_some_and(|f| f.starts_with("NVLink") || f.starts_with("Infinity Fabric"))
    }

    /// True when the card may be deployed in a datacenter under its licence (not GeForce).
    pub fn datacenter_licence(&self) -> bool {
        !(self.vendor == Vendor::Nvidia && self.segment == Segment::Consumer)
    }

    /// True when the card is sold new in `region` (`global` or `cn`); no list means global only.
    pub fn available_in(&self, region: &str) -> bool {
        if self.regions.is_empty() {
            region == "global"
        } else {
            self.regions.iter().any(|r| r == region)
        }
    }
}
