//! The catalog table: every card that passes the filters, with units, sortable columns, a
//! compare checkbox per row and a button that opens the card's detail panel.

use crate::state::fields::{Field, FIELDS};
use crate::state::{Action, AppState, MAX_COMPARE};
use std::rc::Rc;
use crate::i18n::{t, tf};
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CatalogTableProps {
    pub state: Rc<AppState>,
    pub dispatch: Callback<Action>,
}

fn segment_label(s: crate::catalog::Segment) -> &'static str {
    match s {
        crate::catalog::Segment::Consumer => "consumer",
        crate::catalog::Segment::Workstation => "workstation",
        crate::catalog::Segment::Datacenter => "datacenter",
    }
}

/// The sortable table of cards.
#[function_component(CatalogTable)]
pub fn catalog_table(props: &CatalogTableProps) -> Html {
    let lang = use_lang();
    let state = &props.state;
    let rows = use_memo(Rc::clone(state), |s| s.visible_gpus());
    let columns: Vec<&'static Field> = FIELDS.iter().filter(|f| f.in_table).collect();
    let sort_header = |key: &'static str, label: Html| {
        let active = state.sort.key == key;
        let aria = if active { if state.sort.descending { "descending" } else { "ascending" } } else { "none" };
        let arrow = if active { if state.sort.descending { " ▼" } else { " ▲" } } else { "" };
        let onclick = props.dispatch.reform(move |_| Action::SortBy(key.to_string()));
        html! {
            <th scope="col" class={classes!("catalog-table__head", active.then_some("catalog-table__head--sorted"))} aria-sort={aria}>
                <button type="button" class="catalog-table__sort" {onclick}>{ label }{ arrow }</button>
            </th>
        }
    };
    let full = state.compare.len() >= MAX_COMPARE;
    html! {
        <section class="catalog-table" aria-label={t(lang, "GPU catalog")}>
            <p class="catalog-table__count">
                { tf(lang, "{shown} of {total} cards", &[("shown", &rows.len().to_string()), ("total", &crate::catalog::gpus().len().to_string())]) }
                { t(lang, " · tick up to 4 to compare") }
                if !state.compare.is_empty() {
                    <button type="button" class="catalog-table__compare-go"
                        onclick={props.dispatch.reform(|_| Action::SetView(crate::state::View::Compare))}>
                        { tf(lang, "Compare {n} →", &[("n", &state.compare.len().to_string())]) }
                    </button>
                }
            </p>
            <div class="catalog-table__scroll">
                <table class="catalog-table__table">
                    <thead>
                        <tr>
                            <th scope="col" class="catalog-table__head catalog-table__head--pick"><span class="visually-hidden">{ t(lang, "Compare") }</span></th>
                            { sort_header("name", html! { t(lang, "Card") }) }
                            { for columns.iter().map(|f| sort_header(f.key, html! { <>{ t(lang, f.label) }<span class="catalog-table__unit">{ t(lang, f.unit) }</span></> })) }
                            <th scope="col" class="catalog-table__head">{ t(lang, "NVLink") }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|g| {
                            let id = g.id.clone();
                            let picked = state.compare.contains(&g.id);
                            let toggle = props.dispatch.reform({ let id = id.clone(); move |_| Action::ToggleCompare(id.clone()) });
                            let open = props.dispatch.reform({ let id = id.clone(); move |_| Action::ShowDetail(Some(id.clone())) });
                            html! {
                                <tr key={g.id.clone()} class={classes!("catalog-table__row", picked.then_some("catalog-table__row--picked"))} data-gpu={g.id.clone()}>
                                    <td class="catalog-table__cell catalog-table__cell--pick">
                                        <input type="checkbox" checked={picked} disabled={full && !picked}
                                            aria-label={tf(lang, "Compare {name}", &[("name", &g.name)])} onchange={toggle} />
                                    </td>
                                    <th scope="row" class="catalog-table__cell catalog-table__cell--name">
                                        <button type="button" class="catalog-table__name" onclick={open}>{ &g.name }</button>
                                        <span class="catalog-table__meta">{ format!("{} · {} · {}", g.architecture, t(lang, segment_label(g.segment)), g.release_year) }</span>
                                    </th>
                                    { for columns.iter().map(|f| html! {
                                        <td class={classes!("catalog-table__cell", "catalog-table__cell--num", format!("catalog-table__cell--{}", f.key))}>
                                            { f.display(lang, (f.get)(g)) }
                                        </td>
                                    }) }
                                    <td class="catalog-table__cell">{ if g.nvlink { t(lang, "yes") } else { "—" } }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if rows.is_empty() {
                <p class="catalog-table__empty">{ t(lang, "No card matches these filters.") }</p>
            }
        </section>
    }
}
