//! The sizing panel: every card, whether the job fits, how many cards it takes, the headline
//! speed band, and a stacked memory bar.

use crate::present::InLang;
use crate::state::sizing::{headline, SizingRow};
use crate::state::Action;
use crate::ui::components::after_start::AfterStart;
use crate::ui::components::memory_bar::{MemoryBar, TERMS};
use std::rc::Rc;
use crate::i18n::{t, tf};
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties)]
pub struct SizingTableProps {
    pub rows: Rc<Vec<SizingRow>>,
    pub dispatch: Callback<Action>,
}

/// The same result is the same allocation: comparing by pointer keeps a keystroke from walking
/// the whole recommendation (the results are recomputed, and re-rendered, after the paint).
impl PartialEq for SizingTableProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.rows, &other.rows) && self.dispatch == other.dispatch
    }
}

/// Rows shown before "show all".
const FIRST_ROWS: usize = 20;
/// Rows per chunk of the table's first render.
const ROWS_PER_TASK: usize = 5;

fn band_text(lang: crate::i18n::Lang, b: crate::model::Band, unit: &str) -> String {
    let d = if b.mid >= 100.0 { 0 } else if b.mid >= 10.0 { 1 } else { 2 };
    let n = |v| crate::i18n::num(lang, v, d);
    format!("{} ({}–{}) {unit}", n(b.mid), n(b.low), n(b.high))
}

/// The table of every card.
#[function_component(SizingTable)]
pub fn sizing_table(props: &SizingTableProps) -> Html {
    let lang = use_lang();
    let show_all = use_state(|| false);
    let limit = if *show_all { props.rows.len() } else { FIRST_ROWS.min(props.rows.len()) };
    let toggle = {
        let s = show_all.clone();
        Callback::from(move |_| s.set(!*s))
    };
    let row = |r: &SizingRow| {
        let open = props.dispatch.reform({ let id = r.gpu.id.clone(); move |_| Action::ShowDetail(Some(id.clone())) });
        match &r.estimate {
            Ok(e) => {
                let h = headline(e);
                html! {
                    <tr key={r.gpu.id.clone()} class={classes!("sizing-table__row", (r.needed == 0).then_some("sizing-table__row--none"))} data-gpu={r.gpu.id.clone()}>
                        <th scope="row" class="sizing-table__card"><button type="button" class="sizing-table__name" onclick={open}>{ &r.gpu.name }</button>
                            <span class="sizing-table__meta">{ format!("{} {} · {} {}", crate::i18n::num(lang, r.gpu.memory_gib, 0), t(lang, "GiB"), crate::i18n::num(lang, r.gpu.memory_bandwidth_gb_s, 0), t(lang, "GB/s")) }</span></th>
                        <td class="sizing-table__num sizing-table__needed">{ if r.needed == 0 { "—".to_string() } else { format!("×{}", r.needed) } }</td>
                        <td class="sizing-table__num">{ crate::i18n::num(lang, e.per_gpu_gib, 1) }</td>
                        <td class="sizing-table__bar"><MemoryBar memory={e.memory} per_gpu_gib={e.per_gpu_gib} capacity_gib={r.gpu.memory_gib} /></td>
                        <td class="sizing-table__num sizing-table__speed">{ h.band.map(|b| format!("{} {}", band_text(lang, b, t(lang, h.unit)), t(lang, h.label))).unwrap_or_else(|| "—".into()) }</td>
                    </tr>
                }
            }
            Err(msg) => html! {
                <tr key={r.gpu.id.clone()} class="sizing-table__row sizing-table__row--none" data-gpu={r.gpu.id.clone()}>
                    <th scope="row" class="sizing-table__card"><button type="button" class="sizing-table__name" onclick={open}>{ &r.gpu.name }</button></th>
                    <td colspan="4" class="sizing-table__msg">{ msg.in_lang(lang) }</td>
                </tr>
            },
        }
    };
    let shown: Vec<&SizingRow> = props.rows.iter().take(limit).collect();
    html! {
        <section class="sizing-table" aria-labelledby="sizing-title">
            <h2 class="sizing-table__title" id="sizing-title">{ t(lang, "Every card") }</h2>
            <p class="sizing-table__legend">
                { for TERMS.iter().map(|(k, l)| html! { <span class="sizing-table__key"><span class={format!("sizing-table__swatch memory-bar__seg--{k}")}></span>{ t(lang, l) }</span> }) }
            </p>
            <div class="sizing-table__scroll">
                <table class="sizing-table__table">
                    <thead><tr>
                        <th scope="col">{ t(lang, "Card") }</th>
                        <th scope="col" class="sizing-table__num">{ t(lang, "Cards needed") }</th>
                        <th scope="col" class="sizing-table__num">{ t(lang, "Per card, GiB") }</th>
                        <th scope="col">{ t(lang, "Memory per card") }</th>
                        <th scope="col" class="sizing-table__num">{ t(lang, "Speed") }</th>
                    </tr></thead>
                    <tbody>
                        // The first screenful of rows comes in chunks, a task each, the first time
                        // (no long task); later updates go in place.
                        { for shown.chunks(ROWS_PER_TASK).enumerate().map(|(k, chunk)| html! {
                            <AfterStart key={format!("rows-{k}")} always={k > 0 && (k + 1) * ROWS_PER_TASK <= FIRST_ROWS}>
                                { for chunk.iter().map(|r| row(r)) }
                            </AfterStart>
                        }) }
                    </tbody>
                </table>
            </div>
            if props.rows.len() > FIRST_ROWS {
                <button type="button" class="sizing-table__more" onclick={toggle}>
                    { if *show_all { t(lang, "Show fewer").to_string() } else { tf(lang, "Show all {n} cards", &[("n", &props.rows.len().to_string())]) } }
                </button>
            }
        </section>
    }
}
