//! The GPU fields the catalog table and the compare view show: label, unit, how to read the
//! value from a [`Gpu`], and which direction is better. One list serves both views.

use crate::catalog::Gpu;
use crate::i18n::{t, tf, Lang};

/// Which way a field is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    /// Not ranked (text-like values).
    Neither,
}

/// One numeric GPU field.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Stable key, used in the URL (`sort=`) and as a CSS hook.
    pub key: &'static str,
    /// English label (translated in the UI by key).
    pub label: &'static str,
    /// Unit shown beside the value.
    pub unit: &'static str,
    pub get: fn(&Gpu) -> Option<f64>,
    pub better: Better,
    /// Decimals to show.
    pub decimals: usize,
    /// Shown as a catalog table column (the compare view shows every field).
    pub in_table: bool,
    /// The noun used in ratio sentences ("1.31× the bandwidth of …").
    pub noun: &'static str,
}

fn bool_num(b: bool) -> Option<f64> {
    Some(if b { 1.0 } else { 0.0 })
}

/// Every numeric field, in display order.
pub const FIELDS: &[Field] = &[
    Field { key: "memory", label: "Memory", unit: "GiB", get: |g| Some(g.memory_gib), better: Better::Higher, decimals: 0, in_table: true, noun: "memory" },
    Field { key: "bandwidth", label: "Memory bandwidth", unit: "GB/s", get: |g| Some(g.memory_bandwidth_gb_s), better: Better::Higher, decimals: 0, in_table: true, noun: "bandwidth" },
    Field { key: "fp32", label: "FP32 (non-tensor)", unit: "TFLOPS", get: |g| g.fp32_tflops, better: Better::Higher, decimals: 1, in_table: true, noun: "FP32 throughput" },
    Field { key: "tf32", label: "TF32 tensor, dense", unit: "TFLOPS", get: |g| g.tf32_tflops, better: Better::Higher, decimals: 1, in_table: false, noun: "TF32 throughput" },
    Field { key: "fp16", label: "FP16 tensor, dense (FP32 acc.)", unit: "TFLOPS", get: |g| g.fp16_tflops, better: Better::Higher, decimals: 1, in_table: true, noun: "FP16 tensor throughput" },
    Field { key: "fp16acc16", label: "FP16 tensor, dense (FP16 acc.)", unit: "TFLOPS", get: |g| g.fp16_acc16_tflops, better: Better::Higher, decimals: 1, in_table: false, noun: "FP16-accumulate throughput" },
    Field { key: "bf16", label: "BF16 tensor, dense", unit: "TFLOPS", get: |g| g.bf16_tflops, better: Better::Higher, decimals: 1, in_table: true, noun: "BF16 throughput" },
    Field { key: "fp8", label: "FP8 tensor, dense", unit: "TFLOPS", get: |g| g.fp8_tflops, better: Better::Higher, decimals: 1, in_table: true, noun: "FP8 throughput" },
    Field { key: "int8", label: "INT8 tensor, dense", unit: "TOPS", get: |g| g.int8_tops, better: Better::Higher, decimals: 0, in_table: false, noun: "INT8 throughput" },
    Field { key: "fp4", label: "FP4 tensor, dense", unit: "TFLOPS", get: |g| g.fp4_tflops, better: Better::Higher, decimals: 0, in_table: false, noun: "FP4 throughput" },
    Field { key: "fp64", label: "FP64", unit: "TFLOPS", get: |g| g.fp64_tflops, better: Better::Higher, decimals: 2, in_table: false, noun: "FP64 throughput" },
    Field { key: "tdp", label: "Board power", unit: "W", get: |g| g.tdp_w, better: Better::Lower, decimals: 0, in_table: true, noun: "power draw" },
    Field { key: "nvlink", label: "NVLink", unit: "GB/s", get: |g| if g.nvlink { g.nvlink_gb_s } else { None }, better: Better::Higher, decimals: 0, in_table: false, noun: "NVLink bandwidth" },
    Field { key: "pcie", label: "PCIe generation", unit: "", get: |g| g.pcie_gen.map(f64::from), better: Better::Higher, decimals: 0, in_table: false, noun: "PCIe generation" },
    Field { key: "ecc", label: "ECC memory", unit: "", get: |g| g.ecc.and_then(bool_num), better: Better::Neither, decimals: 0, in_table: false, noun: "ECC" },
    Field { key: "year", label: "Release year", unit: "", get: |g| Some(f64::from(g.release_year)), better: Better::Neither, decimals: 0, in_table: false, noun: "release year" },
    Field { key: "launch", label: "Launch price", unit: "USD", get: |g| g.launch_price_usd, better: Better::Lower, decimals: 0, in_table: true, noun: "launch price" },
    Field { key: "street", label: "Street price", unit: "USD", get: |g| g.street_price_usd, better: Better::Lower, decimals: 0, in_table: false, noun: "street price" },
    Field { key: "rent", label: "Cheapest rent", unit: "USD/h", get: cheapest_rent, better: Better::Lower, decimals: 2, in_table: false, noun: "hourly price" },
    Field { key: "gb_per_usd", label: "Memory per $1000", unit: "GiB", get: gib_per_kusd, better: Better::Higher, decimals: 1, in_table: false, noun: "memory per dollar" },
];

impl Field {
    /// The value as shown: grouped digits, except for years and generations; ECC as yes/no.
    pub fn display(&self, lang: Lang, v: Option<f64>) -> String {
        match (self.key, v) {
            (_, None) => "—".into(),
            ("ecc", Some(v)) => t(lang, if v > 0.0 { "yes" } else { "no" }).into(),
            ("year" | "pcie", Some(v)) => crate::decimal::fixed(v, 0),
            (_, Some(v)) => crate::i18n::num(lang, v, self.decimals),
        }
    }
}

/// The cheapest listed on-demand price per GPU-hour.
pub fn cheapest_rent(g: &Gpu) -> Option<f64> {
    g.cloud.iter().map(|c| c.usd_per_hour).fold(None, |acc: Option<f64>, p| Some(acc.map_or(p, |a| a.min(p))))
}

fn gib_per_kusd(g: &Gpu) -> Option<f64> {
    let price = g.street_price_usd.or(g.launch_price_usd)?;
    Some(g.memory_gib / price * 1000.0)
}

/// The field with this key.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// For one row of the compare view: the index of the best value, if the row is ranked and at
/// least two cards have a value. Ties go to the first card.
pub fn best_index(field: &Field, gpus: &[&Gpu]) -> Option<usize> {
    let values: Vec<(usize, f64)> = gpus.iter().enumerate().filter_map(|(i, g)| (field.get)(g).map(|v| (i, v))).collect();
    if values.len() < 2 || field.better == Better::Neither {
        return None;
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values {
        let better = match (best, field.better) {
            (None, _) => true,
            (Some((_, b)), Better::Higher) => v > b,
            (Some((_, b)), Better::Lower) => v < b,
            (Some(_), Better::Neither) => false,
        };
        if better {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

/// "RTX 4090: 1.31× the bandwidth of RTX A5000" for each card after the first, where both have
/// a value and the field is ranked.
pub fn ratio_sentences(lang: Lang, field: &Field, gpus: &[&Gpu]) -> Vec<String> {
    let Some((first, rest)) = gpus.split_first() else { return Vec::new() };
    if field.better == Better::Neither {
        return Vec::new();
    }
    let Some(base) = (field.get)(first).filter(|v| *v > 0.0) else { return Vec::new() };
    rest.iter()
        .filter_map(|g| {
            let v = (field.get)(g)?;
            let noun = t(lang, field.noun);
            if (v / base - 1.0).abs() < 0.005 {
                return Some(tf(lang, "{a}: the same {what} as {b}", &[("a", &g.name), ("what", noun), ("b", &first.name)]));
            }
            let ratio = crate::i18n::num(lang, v / base, 2);
            Some(tf(lang, "{a}: {ratio}× the {what} of {b}", &[("a", &g.name), ("ratio", &ratio), ("what", noun), ("b", &first.name)]))
        })
        .collect()
}
