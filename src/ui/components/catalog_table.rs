//! The catalog table: every card that passes the filters, with units, sortable columns, a
//! compare checkbox per row and a button that opens the card's detail panel.

use crate::state::fields::{Field, FIELDS};
use crate::state::format::opt_number;
use crate::state::{Action, AppState, MAX_COMPARE};
use std::rc::Rc;
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
        <section class="catalog-table" aria-label="GPU catalog">
            <p class="catalog-table__count">
                { format!("{} of {} cards", rows.len(), crate::catalog::gpus().len()) }
                { " · tick up to 4 to compare" }
                if !state.compare.is_empty() {
                    <button type="button" class="catalog-table__compare-go"
                        onclick={props.dispatch.reform(|_| Action::SetView(crate::state::View::Compare))}>
                        { format!("Compare {} →", state.compare.len()) }
                    </button>
                }
            </p>
            <div class="catalog-table__scroll">
                <table class="catalog-table__table">
                    <thead>
                        <tr>
                            <th scope="col" class="catalog-table__head catalog-table__head--pick"><span class="visually-hidden">{ "Compare" }</span></th>
                            { sort_header("name", html! { "Card" }) }
                            { for columns.iter().map(|f| sort_header(f.key, html! { <>{ f.label }<span class="catalog-table__unit">{ f.unit }</span></> })) }
                            <th scope="col" class="catalog-table__head">{ "NVLink" }</th>
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
                                            aria-label={format!("Compare {}", g.name)} onchange={toggle} />
                                    </td>
                                    <th scope="row" class="catalog-table__cell catalog-table__cell--name">
                                        <button type="button" class="catalog-table__name" onclick={open}>{ &g.name }</button>
                                        <span class="catalog-table__meta">{ format!("{} · {} · {}", g.architecture, segment_label(g.segment), g.release_year) }</span>
                                    </th>
                                    { for columns.iter().map(|f| html! {
                                        <td class={classes!("catalog-table__cell", "catalog-table__cell--num", format!("catalog-table__cell--{}", f.key))}>
                                            { opt_number((f.get)(g), f.decimals) }
                                        </td>
                                    }) }
                                    <td class="catalog-table__cell">{ if g.nvlink { "yes" } else { "—" } }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if rows.is_empty() {
                <p class="catalog-table__empty">{ "No card matches these filters." }</p>
            }
        </section>
    }
}
