//! The compare view: 2 to 4 cards side by side, every field, the best value of each row
//! highlighted, ratio sentences against the first card, and the cards on the advisor's job.
//! Prices are shown in the advisor's currency.

use crate::state::fields::{best_index, ratio_sentences, FIELDS};
use crate::state::advisor::AdvisorInputs;
use crate::state::Action;
use crate::ui::components::compare_job::CompareJob;
use web_sys::HtmlSelectElement;
use crate::i18n::{t, tf};
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    pub ids: Vec<String>,
    /// The advisor's inputs: their currency for the prices, their job for "for your job".
    pub advisor: std::rc::Rc<AdvisorInputs>,
    pub dispatch: Callback<Action>,
}

/// Fields holding USD amounts, shown in the advisor's currency.
fn is_money(key: &str) -> bool {
    matches!(key, "launch" | "street" | "rent")
}

/// Side-by-side comparison.
#[function_component(CompareView)]
pub fn compare_view(props: &CompareViewProps) -> Html {
    let lang = use_lang();
    let cost = use_memo(props.advisor.clone(), |a| crate::compare::cost_settings(a));
    let currency = cost.currency.as_str().to_ascii_uppercase();
    let gpus: Vec<&'static crate::catalog::Gpu> = props.ids.iter().filter_map(|id| crate::catalog::gpu(id)).collect();
    let add = props.dispatch.reform(|e: Event| {
        let sel = e.target_unchecked_into::<HtmlSelectElement>();
        let id = sel.value();
        sel.set_value("");
        Action::ToggleCompare(id)
    });
    let picker = html! {
        <label class="compare-view__add">
            <span class="compare-view__add-label">{ t(lang, "Add a card") }</span>
            <select class="compare-view__select" onchange={add} disabled={gpus.len() >= crate::state::MAX_COMPARE}>
                <option value="" selected=true>{ t(lang, "Choose…") }</option>
                { for crate::catalog::gpus().iter().filter(|g| !props.ids.contains(&g.id)).map(|g| html! {
                    <option value={g.id.clone()}>{ &g.name }</option>
                }) }
            </select>
        </label>
    };
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
                    <thead>
                        <tr>
                            <th scope="col" class="compare-view__corner">{ t(lang, "Field") }</th>
                            { for gpus.iter().map(|g| {
                                let remove = props.dispatch.reform({ let id = g.id.clone(); move |_| Action::ToggleCompare(id.clone()) });
                                html! {
                                    <th scope="col" class="compare-view__card" data-gpu={g.id.clone()}>
                                        { &g.name }
                                        <button type="button" class="compare-view__remove" onclick={remove} aria-label={tf(lang, "Remove {name}", &[("name", &g.name)])}>{ "×" }</button>
                                    </th>
                                }
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        { for FIELDS.iter().filter(|f| gpus.iter().any(|g| (f.get)(g).is_some())).map(|f| {
                            let best = best_index(f, &gpus);
                            html! {
                                <tr class="compare-view__row" data-field={f.key}>
                                    <th scope="row" class="compare-view__field">{ t(lang, f.label) }<span class="compare-view__unit">{
                                        match f.key { "rent" => format!("{currency}/h"), k if is_money(k) => currency.clone(), _ => t(lang, f.unit).to_string() }
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
                        }) }
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
