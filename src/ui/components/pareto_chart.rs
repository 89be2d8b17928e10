//! Throughput against cost for every feasible option, as plain SVG with log axes; the Pareto
//! front (nothing both faster and cheaper exists) is drawn as a line and its points filled.

use crate::i18n::{t, tf};
use crate::recommend::cost::CostSettings;
use crate::recommend::Recommendation;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ParetoChartProps {
    pub rec: Rc<Recommendation>,
    pub cost: CostSettings,
}

const W: f64 = 640.0;
const H: f64 = 320.0;
const PAD_L: f64 = 64.0;
const PAD_B: f64 = 40.0;
const PAD_T: f64 = 12.0;
const PAD_R: f64 = 12.0;

/// The chart.
#[function_component(ParetoChart)]
pub fn pareto_chart(props: &ParetoChartProps) -> Html {
    let lang = use_lang();
    // Every card at its smallest feasible count, plus every point on the Pareto front: the other
    // counts add hundreds of dots (and DOM nodes) without changing the picture.
    let mut smallest: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
    for p in &props.rec.feasible {
        let e = smallest.entry(p.gpu.as_str()).or_insert(p.count);
        *e = (*e).min(p.count);
    }
    let pts: Vec<_> = props
        .rec
        .feasible
        .iter()
        .filter(|p| p.cost_usd > 0.0 && p.throughput_mid > 0.0)
        .filter(|p| p.pareto || smallest.get(p.gpu.as_str()) == Some(&p.count))
        .collect();
    if pts.len() < 2 {
        return html! {};
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in &pts {
        x0 = x0.min(p.cost_usd.log10());
        x1 = x1.max(p.cost_usd.log10());
        y0 = y0.min(p.throughput_mid.log10());
        y1 = y1.max(p.throughput_mid.log10());
    }
    let (x0, x1) = (x0 - 0.05, x1 + 0.05);
    let (y0, y1) = (y0 - 0.05, y1 + 0.05);
    let sx = |c: f64| PAD_L + (c.log10() - x0) / (x1 - x0).max(1e-9) * (W - PAD_L - PAD_R);
    let sy = |v: f64| H - PAD_B - (v.log10() - y0) / (y1 - y0).max(1e-9) * (H - PAD_B - PAD_T);
    let mut front: Vec<_> = pts.iter().filter(|p| p.pareto).collect();
    crate::sort::sort_by(&mut front, |a, b| a.cost_usd.total_cmp(&b.cost_usd));
    let path = front.iter().map(|p| format!("{:.1},{:.1}", sx(p.cost_usd), sy(p.throughput_mid))).collect::<Vec<_>>().join(" ");
    let unit = props.rec.rate_kind.map_or("", |k| k.unit());
    let ticks = |lo: f64, hi: f64| -> Vec<f64> {
        (lo.floor() as i32..=hi.ceil() as i32).map(|e| 10f64.powi(e)).filter(|v| v.log10() >= lo && v.log10() <= hi).collect()
    };
    html! {
        <figure class="pareto-chart">
            <figcaption class="pareto-chart__caption">{ t(lang, "Throughput against cost: each card at its smallest feasible count; the Pareto front is connected") }</figcaption>
            <svg class="pareto-chart__svg" viewBox={format!("0 0 {W} {H}")} role="img"
                aria-label={tf(lang, "{n} options plotted", &[("n", &pts.len().to_string())])}>
                <line class="pareto-chart__axis" x1={PAD_L.to_string()} y1={(H - PAD_B).to_string()} x2={(W - PAD_R).to_string()} y2={(H - PAD_B).to_string()} />
                <line class="pareto-chart__axis" x1={PAD_L.to_string()} y1={PAD_T.to_string()} x2={PAD_L.to_string()} y2={(H - PAD_B).to_string()} />
                { for ticks(x0, x1).into_iter().map(|v| html! {
                    <text class="pareto-chart__tick" x={format!("{:.1}", sx(v))} y={(H - PAD_B + 14.0).to_string()} text-anchor="middle">{ props.cost.money_in(lang, v) }</text>
                }) }
                { for ticks(y0, y1).into_iter().map(|v| html! {
                    <text class="pareto-chart__tick" x={(PAD_L - 6.0).to_string()} y={format!("{:.1}", sy(v) + 4.0)} text-anchor="end">{ format!("{v}") }</text>
                }) }
                <text class="pareto-chart__label" x={((W + PAD_L) / 2.0).to_string()} y={(H - 6.0).to_string()} text-anchor="middle">{ t(lang, "cost (log scale)") }</text>
                <text class="pareto-chart__label" x="14" y={((H - PAD_B) / 2.0).to_string()} text-anchor="middle" transform={format!("rotate(-90 14 {})", (H - PAD_B) / 2.0)}>{ t(lang, unit) }</text>
                <polyline class="pareto-chart__front" points={path} />
                // Only the front's points carry a tooltip: hundreds of <title> nodes made re-ranking slow.
                { for pts.iter().filter(|p| !p.pareto).map(|p| html! {
                    <circle key={format!("{}x{}", p.gpu, p.count)} class="pareto-chart__point"
                        cx={format!("{:.1}", sx(p.cost_usd))} cy={format!("{:.1}", sy(p.throughput_mid))} r="3" />
                }) }
                { for front.iter().map(|p| html! {
                    <circle key={format!("f{}x{}", p.gpu, p.count)} class="pareto-chart__point pareto-chart__point--front"
                        cx={format!("{:.1}", sx(p.cost_usd))} cy={format!("{:.1}", sy(p.throughput_mid))} r="4">
                        <title>{ format!("{} × {}: {} · {:.1} {}", p.gpu, p.count, props.cost.money_in(lang, p.cost_usd), p.throughput_mid, t(lang, unit)) }</title>
                    </circle>
                }) }
            </svg>
        </figure>
    }
}
