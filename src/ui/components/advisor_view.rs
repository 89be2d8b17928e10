//! The advisor page: inputs on one side, results on the other — the ranked options with their
//! reasons, the why-not list, a throughput-against-cost chart, and every card's sizing. Bad input
//! shows its message beside its field while the last good result stays on screen.

use crate::i18n::t;
use crate::recommend::{recommend, RecommendInput, Recommendation};
use crate::state::advisor::{AdvisorInputs, FieldError};
use crate::state::sizing::{size_all, sorted};
use crate::state::Action;
use crate::ui::components::advisor_form::AdvisorForm;
use crate::ui::components::best_summary::BestSummary;
use crate::ui::components::frontier_chart::FrontierChart;
use crate::ui::components::pareto_chart::ParetoChart;
use crate::ui::components::recommend_list::RecommendList;
use crate::ui::components::share_bar::ShareBar;
use crate::ui::components::sizing_table::SizingTable;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AdvisorViewProps {
    pub inputs: AdvisorInputs,
    pub dispatch: Callback<Action>,
}

/// The result of one computation: the input it used and what came out.
#[derive(Clone, PartialEq)]
struct Computed {
    input: Rc<RecommendInput>,
    rec: Option<Rc<Recommendation>>,
    engine_error: Option<String>,
}

/// The advisor.
#[function_component(AdvisorView)]
pub fn advisor_view(props: &AdvisorViewProps) -> Html {
    let lang = use_lang();
    let parsed: Rc<Result<RecommendInput, Vec<FieldError>>> = use_memo(props.inputs.clone(), |i| i.recommend_input());
    let last_good = use_mut_ref(|| None::<RecommendInput>);
    let (input, errors) = match &*parsed {
        Ok(i) => {
            *last_good.borrow_mut() = Some(i.clone());
            (Some(i.clone()), Vec::new())
        }
        Err(e) => (last_good.borrow().clone(), e.clone()),
    };
    let computed = use_memo(input.clone(), |i| {
        i.as_ref().map(|input| match recommend(input) {
            Ok(r) => Computed { input: Rc::new(input.clone()), rec: Some(Rc::new(r)), engine_error: None },
            Err(e) => Computed { input: Rc::new(input.clone()), rec: None, engine_error: Some(e.to_string()) },
        })
    });
    let job = input.as_ref().map(|i| i.job.clone());
    let rows = use_memo(job, |j| Rc::new(j.as_ref().map(|j| sorted(size_all(j))).unwrap_or_default()));
    html! {
        <div class="advisor-view">
            if let Some(Computed { input, rec: Some(rec), .. }) = (*computed).clone() {
                <div class="advisor-view__best"><BestSummary {rec} {input} /></div>
            }
            <aside class="advisor-view__inputs">
                <AdvisorForm inputs={props.inputs.clone()} errors={errors.clone()} dispatch={props.dispatch.clone()} />
            </aside>
            <section class="advisor-view__results" aria-live="polite">
                if !errors.is_empty() {
                    <p class="advisor-view__stale" role="status">{ t(lang, "Fix the highlighted input; showing the last valid result.") }</p>
                }
                if let Some(c) = (*computed).clone() {
                    <ShareBar rec={c.rec.clone()} />
                    if let Some(msg) = c.engine_error {
                        <p class="advisor-view__stale" role="alert">{ msg }</p>
                    }
                    if let Some(rec) = c.rec {
                        <RecommendList rec={rec.clone()} input={c.input.clone()} />
                        <FrontierChart rec={rec.clone()} input={c.input.clone()} />
                        <ParetoChart rec={rec} cost={c.input.cost.clone()} />
                    }
                }
                <SizingTable rows={(*rows).clone()} dispatch={props.dispatch.clone()} />
            </section>
        </div>
    }
}
