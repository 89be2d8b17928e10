//! A stacked SVG bar of one card's memory by term (weights, KV cache, activations, gradients,
//! optimizer, overhead) against its capacity.

use crate::model::MemoryBreakdown;
use crate::i18n::{t, tf};
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MemoryBarProps {
    /// The job's memory, summed over all cards.
    pub memory: MemoryBreakdown,
    /// What one card holds.
    pub per_gpu_gib: f64,
    /// One card's capacity.
    pub capacity_gib: f64,
}

/// The terms in drawing order, with their CSS modifier and label.
pub const TERMS: [(&str, &str); 6] = [
    ("weights", "weights"),
    ("kv", "KV cache"),
    ("activations", "activations"),
    ("gradients", "gradients"),
    ("optimizer", "optimizer"),
    ("overhead", "overhead"),
];

fn values(m: &MemoryBreakdown) -> [f64; 6] {
    [m.weights_gib, m.kv_cache_gib, m.activations_gib, m.gradients_gib, m.optimizer_gib, m.overhead_gib]
}

/// The bar. Per-card terms are the job's terms scaled by `per_gpu / total`.
#[function_component(MemoryBar)]
pub fn memory_bar(props: &MemoryBarProps) -> Html {
    let lang = use_lang();
    let total = props.memory.total_gib.max(1e-9);
    let scale = props.per_gpu_gib / total;
    let max = props.capacity_gib.max(props.per_gpu_gib).max(1e-9);
    let width = 100.0;
    let mut x = 0.0;
    let over = props.per_gpu_gib > props.capacity_gib;
    let title = format!(
        "{}: {}",
        tf(lang, "{used} of {capacity} GiB per card", &[("used", &crate::decimal::fixed(props.per_gpu_gib, 1)), ("capacity", &crate::decimal::fixed(props.capacity_gib, 0))]),
        TERMS
            .iter()
            .zip(values(&props.memory))
            .filter(|(_, v)| *v > 0.0)
            .map(|((_, l), v)| format!("{} {}", t(lang, l), crate::decimal::fixed(v * scale, 1)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    html! {
        <svg class={classes!("memory-bar", over.then_some("memory-bar--over"))} viewBox="0 0 100 10" preserveAspectRatio="none"
            role="img" aria-label={title.clone()}>
            <title>{ title }</title>
            <rect class="memory-bar__track" x="0" y="0" width={crate::decimal::fixed(props.capacity_gib / max * width, 2)} height="10" />
            { for TERMS.iter().zip(values(&props.memory)).filter(|(_, v)| *v > 0.0).map(|((key, _), v)| {
                let w = v * scale / max * width;
                let seg = html! { <rect class={format!("memory-bar__seg memory-bar__seg--{key}")} x={crate::decimal::fixed(x, 2)} y="1" width={crate::decimal::fixed(w, 2)} height="8" /> };
                x += w;
                seg
            }) }
            <line class="memory-bar__cap" x1={crate::decimal::fixed(props.capacity_gib / max * width, 2)} x2={crate::decimal::fixed(props.capacity_gib / max * width, 2)} y1="0" y2="10" />
        </svg>
    }
}
