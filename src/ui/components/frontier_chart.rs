//! The throughput–interactivity frontier of the top LLM serving options, as plain
//! SVG with log axes: speed per user across, output tokens/s per GPU up, one line per option from
//! one user to its memory limit, its operating point (the users asked for) ringed, and the
//! per-user target drawn as a vertical line. The legend is HTML below the chart so it stays
//! readable on a phone and in a narrow embed.

use crate::i18n::{num, t, tf};
use crate::present;
use crate::recommend::Recommendation;
use crate::ui::lang::use_lang;
use crate::ui::result_props::ResultProps;
use yew::prelude::*;

const W: f64 = 400.0;
const H: f64 = 260.0;
const PAD_L: f64 = 48.0;
const PAD_B: f64 = 34.0;
const PAD_T: f64 = 10.0;
const PAD_R: f64 = 10.0;
/// Options drawn: more lines than this stop being readable on a phone.
const MAX_SERIES: usize = 5;

/// One option's line: (label, points as (per-user tokens/s, tokens/s per GPU), operating point).
type Series = (String, Vec<(f64, f64)>, Option<(f64, f64)>);

fn series(rec: &Recommendation) -> Vec<Series> {
    rec.options
        .iter()
        .filter_map(|o| {
            let s = o.serving.as_ref()?;
            let per_gpu = f64::from(o.count.max(1));
            let pts: Vec<(f64, f64)> = s
                .report
                .curve
                .iter()
                .filter(|p| p.per_user_tokens_per_s > 0.0 && p.aggregate_tokens_per_s > 0.0)
                .map(|p| (p.per_user_tokens_per_s, p.aggregate_tokens_per_s / per_gpu))
                .collect();
            let r = &s.report;
            let here = (r.per_user_tokens_per_s.mid > 0.0 && r.aggregate_tokens_per_s.mid > 0.0)
                .then(|| (r.per_user_tokens_per_s.mid, r.aggregate_tokens_per_s.mid / per_gpu));
            (!pts.is_empty()).then(|| (format!("{} × {}", crate::recommend::rank::short_name_of(&o.gpu_name), o.count), pts, here))
        })
        .take(MAX_SERIES)
        .collect()
}

/// The chart (nothing for jobs without serving figures).
#[function_component(FrontierChart)]
pub fn frontier_chart(props: &ResultProps) -> Html {
    let lang = use_lang();
    let lines = series(&props.rec);
    if lines.is_empty() {
        return html! {};
    }
    let target = props.input.serving.tokens_per_s_per_user;
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (_, pts, _) in &lines {
        for (x, y) in pts {
            x0 = x0.min(crate::fmath::log10(*x));
            x1 = x1.max(crate::fmath::log10(*x));
            y0 = y0.min(crate::fmath::log10(*y));
            y1 = y1.max(crate::fmath::log10(*y));
        }
    }
    if let Some(tx) = target.filter(|v| *v > 0.0) {
        x0 = x0.min(crate::fmath::log10(tx));
        x1 = x1.max(crate::fmath::log10(tx));
    }
    let (x0, x1) = (x0 - 0.1, x1 + 0.1);
    let (y0, y1) = (y0 - 0.1, y1 + 0.1);
    let sx = |v: f64| PAD_L + (crate::fmath::log10(v) - x0) / (x1 - x0).max(1e-9) * (W - PAD_L - PAD_R);
    let sy = |v: f64| H - PAD_B - (crate::fmath::log10(v) - y0) / (y1 - y0).max(1e-9) * (H - PAD_B - PAD_T);
    let f1 = |v: f64| crate::decimal::fixed(v, 1);
    let label = |v: f64| num(lang, v, if v < 10.0 { 1 } else { 0 });
    html! {
        <figure class="frontier-chart">
            <figcaption class="frontier-chart__caption">{ t(lang, "Speed per user against output per GPU, from one user to the memory limit; the ring is the users asked for") }</figcaption>
            <svg class="frontier-chart__svg" viewBox={format!("0 0 {} {}", crate::decimal::plain(W), crate::decimal::plain(H))} role="img"
                aria-label={tf(lang, "{n} options plotted", &[("n", &lines.len().to_string())])}>
                <line class="frontier-chart__axis" x1={f1(PAD_L)} y1={f1(H - PAD_B)} x2={f1(W - PAD_R)} y2={f1(H - PAD_B)} />
                <line class="frontier-chart__axis" x1={f1(PAD_L)} y1={f1(PAD_T)} x2={f1(PAD_L)} y2={f1(H - PAD_B)} />
                { for crate::ui::chart::log_ticks(x0, x1).into_iter().map(|v| html! {
                    <text class="frontier-chart__tick" x={f1(sx(v))} y={f1(H - PAD_B + 13.0)} text-anchor="middle">{ label(v) }</text>
                }) }
                { for crate::ui::chart::log_ticks(y0, y1).into_iter().map(|v| html! {
                    <text class="frontier-chart__tick" x={f1(PAD_L - 4.0)} y={f1(sy(v) + 4.0)} text-anchor="end">{ label(v) }</text>
                }) }
                <text class="frontier-chart__label" x={f1((W + PAD_L) / 2.0)} y={f1(H - 4.0)} text-anchor="middle">{ t(lang, "tokens/s per user (log)") }</text>
                <text class="frontier-chart__label" x="12" y={f1((H - PAD_B) / 2.0)} text-anchor="middle" transform={format!("rotate(-90 12 {})", f1((H - PAD_B) / 2.0))}>{ t(lang, "tokens/s per GPU (log)") }</text>
                if let Some(tx) = target {
                    <line class="frontier-chart__target" x1={f1(sx(tx))} y1={f1(PAD_T)} x2={f1(sx(tx))} y2={f1(H - PAD_B)} />
                    <text class="frontier-chart__target-label" x={f1(sx(tx) + 3.0)} y={f1(PAD_T + 10.0)}>{ tf(lang, "target {tps}", &[("tps", &present::typed(lang, tx))]) }</text>
                }
                { for lines.iter().enumerate().map(|(i, (name, pts, here))| {
                    let path = pts.iter().map(|(x, y)| format!("{},{}", f1(sx(*x)), f1(sy(*y)))).collect::<Vec<_>>().join(" ");
                    let class = format!("frontier-chart__series frontier-chart__series--{i}");
                    html! {
                        <g class={class} key={name.clone()}>
                            <polyline class="frontier-chart__line" points={path} />
                            { for pts.iter().map(|(x, y)| html! { <circle class="frontier-chart__point" cx={f1(sx(*x))} cy={f1(sy(*y))} r="2.5" /> }) }
                            if let Some((x, y)) = here {
                                <circle class="frontier-chart__here" cx={f1(sx(*x))} cy={f1(sy(*y))} r="6"><title>{ name.clone() }</title></circle>
                            }
                        </g>
                    }
                }) }
            </svg>
            <ul class="frontier-chart__legend">
                { for lines.iter().enumerate().map(|(i, (name, _, _))| html! {
                    <li class={format!("frontier-chart__key frontier-chart__key--{i}")}>{ name.clone() }</li>
                }) }
            </ul>
        </figure>
    }
}
