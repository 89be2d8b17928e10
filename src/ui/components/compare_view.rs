//! The compare view: 2 to 4 cards side by side, every field, the best value of each row
//! highlighted, ratio sentences against the first card, and the cards on the advisor's job.
//! Prices are shown in the advisor's currency.

use crate::catalog::Gpu;
use crate::i18n::{t, tf, Lang};
use crate::present::Money;
use crate::recommend::cost::CostSettings;
use crate::state::advisor::AdvisorInputs;
use crate::state::fields::{best_index, ratio_sentences, Field, FIELDS};
use crate::state::Action;
use crate::ui::components::compare_job::CompareJob;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    pub ids: Vec<String>,
    /// The advisor's inputs: their currency for the prices, their job for "for your job".
    pub advisor: Rc<AdvisorInputs>,
    pub dispatch: Callback<Action>,
}

/// Fields holding USD amounts, shown in the advisor's currency.
fn is_money(key: &str) -> bool {
    matches!(key, "launch" | "street" | "rent")
}

/// The select that adds a card (none while `full`), listing the cards not in `ids`.
fn picker(lang: Lang, ids: &[String], full: bool, dispatch: &Callback<Action>) -> Html {
    let add = dispatch.reform(|e: Event| {
        let sel = e.target_unchecked_into::<HtmlSelectElement>();
        let id = sel.value();
        sel.set_value("");
        Action::ToggleCompare(id)
    });
    html! {
        <label class="compare-view__add">
            <span class="compare-view__add-label">{ t(lang, "Add a card") }</span>
            <select class="compare-view__select" onchange={add} disabled={full}>
                <option value="" selected=true>{ t(lang, "Choose…") }</option>
                { for crate::catalog::gpus().iter().filter(|g| !ids.contains(&g.id)).map(|g| html! {
                    <option value={g.id.clone()}>{ &g.name }</option>
                }) }
            </select>
        </label>
    }
}

/// The table's head: one column per card, each with its remove button.
fn head(lang: Lang, gpus: &[&'static Gpu], dispatch: &Callback<Action>) -> Html {
    html! {
        <thead>
            <tr>
                <th scope="col" class="compare-view__corner">{ t(lang, "Field") }</th>
                { for gpus.iter().map(|g| {
                    let remove = dispatch.reform({ let id = g.id.clone(); move |_| Action::ToggleCompare(id.clone()) });
                    html! {
                        <th scope="col" class="compare-view__card" data-gpu={g.id.clone()}>
                            { &g.name }
                            <button type="button" class="compare-view__remove" onclick={remove} aria-label={tf(lang, "Remove {name}", &[("name", &g.name)])}>{ "×" }</button>
                        </th>
                    }
                }) }
            </tr>
        </thead>
    }
}

/// The row of field `f`: its label and unit, then each card's value, the best one marked.
fn row(lang: Lang, f: &Field, gpus: &[&'static Gpu], cost: &CostSettings, currency: &str) -> Html {
    let best = best_index(f, gpus);
    html! {
        <tr class="compare-view__row" data-field={f.key}>
            <th scope="row" class="compare-view__field">{ t(lang, f.label) }<span class="compare-view__unit">{
                match f.key { "rent" => format!("{currency}/h"), k if is_money(k) => currency.to_string(), _ => t(lang, f.unit).to_string() }
            }</span></th>
            { for gpus.iter().enumerate().map(|(i, g)| {
                let is_best = best == Some(i);
                let text = match (f.get)(g) {
                    Some(v) if is_money(f.key) => cost.money_in(lang, v),
                    v => f.display(lang, v),
                };
                html! {
                    <td class={classes!("compare-view__value", is_best.then_some("compare-view__value--best"))}
                        data-gpu={g.id.clone()}>
                        { text }
                        if is_best { <span class="visually-hidden">{ t(lang, " (best)") }</span> }
                    </td>
                }
            }) }
        </tr>
    }
}

/// Side-by-side comparison.
#[function_component(CompareView)]
pub fn compare_view(props: &CompareViewProps) -> Html {
    let lang = use_lang();
    let cost = use_memo(props.advisor.clone(), |a| crate::compare::cost_settings(a));
    let currency = cost.currency.as_str().to_ascii_uppercase();
    let gpus: Vec<&'static Gpu> = props.ids.iter().filter_map(|id| crate::catalog::gpu(id)).collect();
    let picker = picker(lang, &props.ids, gpus.len() >= crate::state::MAX_COMPARE, &props.dispatch);
    if gpus.len() < 2 {
        return html! {
            <section class="compare-view">
                <h1 class="compare-view__title">{ t(lang, "Compare cards") }</h1>
                <p class="compare-view__hint">{ t(lang, "Pick 2 to 4 cards: tick them in the catalog, or add them here.") }</p>
                { picker }
                <ul class="compare-view__picked">
                    { for gpus.iter().map(|g| html! { <li>{ &g.name }</li> }) }
                </ul>
            </section>
        };
    }
    let ratios: Vec<String> = FIELDS
        .iter()
        .filter(|f| matches!(f.key, "memory" | "bandwidth" | "bf16" | "fp16" | "fp8" | "tdp" | "launch"))
        .flat_map(|f| ratio_sentences(lang, f, &gpus))
        .collect();
    html! {
        <section class="compare-view">
            <h1 class="compare-view__title">{ t(lang, "Compare cards") }</h1>
            { picker }
            <div class="compare-view__scroll">
                <table class="compare-view__table">
                    { head(lang, &gpus, &props.dispatch) }
                    <tbody>
                        { for FIELDS.iter().filter(|f| gpus.iter().any(|g| (f.get)(g).is_some())).map(|f| row(lang, f, &gpus, &cost, &currency)) }
                    </tbody>
                </table>
            </div>
            <CompareJob gpus={gpus.clone()} advisor={props.advisor.clone()} cost={(*cost).clone()} />
            <h2 class="compare-view__sub">{ t(lang, "In ratios") }</h2>
            <ul class="compare-view__ratios">
                { for ratios.iter().map(|r| html! { <li class="compare-view__ratio">{ r }</li> }) }
            </ul>
            <p class="compare-view__note">{ t(lang, "Tensor figures are dense (without 2:4 sparsity). GeForce cards run FP16/BF16 with FP32 accumulate at half the FP16-accumulate rate; both are shown.") }</p>
        </section>
    }
}
