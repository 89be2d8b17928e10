//! Throughput against cost for every feasible option, as plain SVG with log axes; the Pareto
//! front (nothing both faster and cheaper exists) is drawn as a line and its points filled.
//! Hovering or tapping a point names it (card × count, cost, throughput) beside it: one handler
//! on the chart reads the point's index, so hundreds of points add no listeners or titles.

use crate::i18n::{t, tf};
use crate::present::Money;
use crate::recommend::cost::CostSettings;
use crate::recommend::{Point, Recommendation};
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct ParetoChartProps {
    pub rec: Rc<Recommendation>,
    pub cost: CostSettings,
}

/// The same result is the same allocation: comparing by pointer keeps a keystroke from walking
/// the whole recommendation (the results are recomputed, and re-rendered, after the paint).
impl PartialEq for ParetoChartProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.rec, &other.rec) && self.cost == other.cost
    }
}

const W: f64 = 640.0;
const H: f64 = 320.0;
const PAD_L: f64 = 64.0;
const PAD_B: f64 = 40.0;
const PAD_T: f64 = 12.0;
const PAD_R: f64 = 12.0;

/// The index of the point last hovered or tapped, and the chart's one handler that sets it from
/// the point's `data-i`.
#[hook]
fn use_point_namer() -> (Option<usize>, Callback<MouseEvent>) {
    let named = use_state(|| None::<usize>);
    let setter = named.clone();
    let name_point = Callback::from(move |e: MouseEvent| {
        let index = e.target_unchecked_into::<web_sys::Element>().get_attribute("data-i").and_then(|i| i.parse().ok());
        if index.is_some() {
            setter.set(index);
        }
    });
    (*named, name_point)
}

/// A point's name beside it at (`x`, `y`): card × count, cost, throughput; toward the middle.
fn point_name(lang: crate::i18n::Lang, p: &Point, cost: &CostSettings, unit: &'static str, x: f64, y: f64) -> Html {
    let left = x > W / 2.0;
    let card = crate::catalog::gpu(&p.gpu).map_or(p.gpu.as_str(), |g| crate::recommend::rank::short_name_of(&g.name));
    html! {
        <text class="pareto-chart__name" x={crate::decimal::fixed(x + if left { -8.0 } else { 8.0 }, 1)} y={crate::decimal::fixed(y - 8.0, 1)}
            text-anchor={if left { "end" } else { "start" }}>
            { format!("{} × {}: {} · {} {}", card, p.count, cost.money_in(lang, p.cost_usd), crate::decimal::fixed(p.throughput_mid, 1), t(lang, unit)) }
        </text>
    }
}

/// The chart.
#[function_component(ParetoChart)]
pub fn pareto_chart(props: &ParetoChartProps) -> Html {
    let lang = use_lang();
    let (named, name_point) = use_point_namer();
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
        x0 = x0.min(crate::fmath::log10(p.cost_usd));
        x1 = x1.max(crate::fmath::log10(p.cost_usd));
        y0 = y0.min(crate::fmath::log10(p.throughput_mid));
        y1 = y1.max(crate::fmath::log10(p.throughput_mid));
    }
    let (x0, x1) = (x0 - 0.05, x1 + 0.05);
    let (y0, y1) = (y0 - 0.05, y1 + 0.05);
    let sx = |c: f64| PAD_L + (crate::fmath::log10(c) - x0) / (x1 - x0).max(1e-9) * (W - PAD_L - PAD_R);
    let sy = |v: f64| H - PAD_B - (crate::fmath::log10(v) - y0) / (y1 - y0).max(1e-9) * (H - PAD_B - PAD_T);
    let mut front: Vec<_> = pts.iter().filter(|p| p.pareto).collect();
    crate::sort::sort_by(&mut front, |a, b| a.cost_usd.total_cmp(&b.cost_usd));
    let path = front.iter().map(|p| format!("{},{}", crate::decimal::fixed(sx(p.cost_usd), 1), crate::decimal::fixed(sy(p.throughput_mid), 1))).collect::<Vec<_>>().join(" ");
    let unit = props.rec.rate_kind.map_or("", |k| k.unit());
    html! {
        <figure class="pareto-chart">
            <figcaption class="pareto-chart__caption">{ t(lang, "Throughput against cost: each card at its smallest feasible count; the Pareto front is connected") }</figcaption>
            <svg class="pareto-chart__svg" onmouseover={name_point.clone()} onclick={name_point} viewBox={format!("0 0 {} {}", crate::decimal::plain(W), crate::decimal::plain(H))} role="img"
                aria-label={tf(lang, "{n} options plotted", &[("n", &pts.len().to_string())])}>
                <line class="pareto-chart__axis" x1={crate::decimal::plain(PAD_L)} y1={crate::decimal::plain(H - PAD_B)} x2={crate::decimal::plain(W - PAD_R)} y2={crate::decimal::plain(H - PAD_B)} />
                <line class="pareto-chart__axis" x1={crate::decimal::plain(PAD_L)} y1={crate::decimal::plain(PAD_T)} x2={crate::decimal::plain(PAD_L)} y2={crate::decimal::plain(H - PAD_B)} />
                { for crate::ui::chart::log_ticks(x0, x1).into_iter().map(|v| html! {
                    <text class="pareto-chart__tick" x={crate::decimal::fixed(sx(v), 1)} y={crate::decimal::plain(H - PAD_B + 14.0)} text-anchor="middle">{ props.cost.money_in(lang, v) }</text>
                }) }
                { for crate::ui::chart::log_ticks(y0, y1).into_iter().map(|v| html! {
                    <text class="pareto-chart__tick" x={crate::decimal::plain(PAD_L - 6.0)} y={crate::decimal::fixed(sy(v) + 4.0, 1)} text-anchor="end">{ crate::decimal::plain(v) }</text>
                }) }
                <text class="pareto-chart__label" x={crate::decimal::plain((W + PAD_L) / 2.0)} y={crate::decimal::plain(H - 6.0)} text-anchor="middle">{ t(lang, "cost (log scale)") }</text>
                <text class="pareto-chart__label" x="14" y={crate::decimal::plain((H - PAD_B) / 2.0)} text-anchor="middle" transform={format!("rotate(-90 14 {})", crate::decimal::plain((H - PAD_B) / 2.0))}>{ t(lang, unit) }</text>
                <polyline class="pareto-chart__front" points={path} />
                { for pts.iter().enumerate().filter(|(_, p)| !p.pareto).map(|(i, p)| html! {
                    <circle key={format!("{}x{}", p.gpu, p.count)} class="pareto-chart__point" data-i={i.to_string()}
                        cx={crate::decimal::fixed(sx(p.cost_usd), 1)} cy={crate::decimal::fixed(sy(p.throughput_mid), 1)} r="3" />
                }) }
                { for pts.iter().enumerate().filter(|(_, p)| p.pareto).map(|(i, p)| html! {
                    <circle key={format!("f{}x{}", p.gpu, p.count)} class="pareto-chart__point pareto-chart__point--front" data-i={i.to_string()}
                        cx={crate::decimal::fixed(sx(p.cost_usd), 1)} cy={crate::decimal::fixed(sy(p.throughput_mid), 1)} r="4" />
                }) }
                if let Some(p) = named.and_then(|i| pts.get(i)) {
                    { point_name(lang, p, &props.cost, unit, sx(p.cost_usd), sy(p.throughput_mid)) }
                }
            </svg>
        </figure>
    }
}
