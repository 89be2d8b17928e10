//! The advisor page: inputs on one side, results on the other — the ranked options with their
//! reasons, the why-not list, the serving frontier and throughput-against-cost charts, and every
//! card's sizing. Bad input shows its message beside its field while the last good result stays on
//! screen.
//!
//! The first ranking is computed before the first paint; every card's sizing follows in tasks of
//! its own. After that, an input repaints its field at once and the results follow one frame
//! later: the ranking runs after the browser has painted the keystroke (a requestAnimationFrame,
//! then a task), and a burst of keystrokes computes only the last one. A phone paints each
//! keystroke within a frame while the engine catches up.

use crate::i18n::t;
use crate::recommend::{recommend, RecommendInput, Recommendation};
use crate::state::advisor::{AdvisorInputs, FieldError};
use crate::state::sizing::{size_all, sorted, SizingRow};
use crate::state::Action;
use crate::ui::components::advisor_form::AdvisorForm;
use crate::ui::dom::after_paint;
use crate::ui::components::best_summary::BestSummary;
use crate::ui::components::frontier_chart::FrontierChart;
use crate::ui::components::owned_list::OwnedList;
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

/// What the results show: the ranking for one input.
#[derive(Clone, PartialEq)]
struct Shown {
    input: Option<RecommendInput>,
    computed: Option<Computed>,
}

fn compute(input: Option<RecommendInput>) -> Shown {
    let computed = input.as_ref().map(|input| match recommend(input) {
        Ok(r) => Computed { input: Rc::new(input.clone()), rec: Some(Rc::new(r)), engine_error: None },
        Err(e) => Computed { input: Rc::new(input.clone()), rec: None, engine_error: Some(e.to_string()) },
    });
    Shown { input, computed }
}

/// Every card's sizing for one input (the table below the ranking).
fn size_rows(input: Option<&RecommendInput>) -> Rc<Vec<SizingRow>> {
    Rc::new(input.map(|i| sorted(size_all(&i.job))).unwrap_or_default())
}

/// Runs `f` in a task of its own, queued now.
fn later(f: impl FnOnce() + 'static) {
    gloo::timers::callback::Timeout::new(0, f).forget();
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
    // The ranking of the first input is computed before the first paint: the results column is
    // there when the app replaces the static shell, so nothing shifts (issue 13's CLS). Every
    // card's sizing follows in tasks of its own (compute, then show the table below), keeping the
    // long task of the first render short. Later inputs paint their field first and rank after
    // that paint; a burst of inputs computes only the last.
    let shown = use_state({
        let input = input.clone();
        move || compute(input)
    });
    let rows = use_state(|| Rc::new(Vec::<SizingRow>::new()));
    let generation = use_mut_ref(|| 0_u64);
    {
        let shown = shown.clone();
        let rows = rows.clone();
        let generation = generation.clone();
        use_effect_with(input.clone(), move |input| {
            *generation.borrow_mut() += 1;
            let mine = *generation.borrow();
            // False once a newer input is on its way: the work is left to it.
            let still = move || *generation.borrow() == mine;
            let input = input.clone();
            let size = {
                let (still, input) = (still.clone(), input.clone());
                move || {
                    if still() {
                        let sized = size_rows(input.as_ref());
                        later(move || {
                            if still() {
                                rows.set(sized);
                            }
                        });
                    }
                }
            };
            if shown.input == input {
                later(size);
            } else {
                after_paint(move || {
                    if still() {
                        let ranking = compute(input);
                        later(move || {
                            if still() {
                                shown.set(ranking);
                                later(size);
                            }
                        });
                    }
                });
            }
        });
    }
    let computed = &shown.computed;
    let rows = &*rows;
    html! {
        <div class="advisor-view">
            if let Some(Computed { input, rec: Some(rec), .. }) = computed.clone() {
                <div class="advisor-view__best"><BestSummary {rec} {input} /></div>
            }
            <aside class="advisor-view__inputs">
                <AdvisorForm inputs={props.inputs.clone()} errors={errors.clone()} dispatch={props.dispatch.clone()} />
            </aside>
            <section class="advisor-view__results" aria-live="polite">
                if !errors.is_empty() {
                    <p class="advisor-view__stale" role="status">{ t(lang, "Fix the highlighted input; showing the last valid result.") }</p>
                }
                if let Some(c) = computed.clone() {
                    <ShareBar rec={c.rec.clone()} />
                    if !c.input.owned.is_empty() || !c.input.mix.is_empty() {
                        <OwnedList input={c.input.clone()} />
                    }
                    if let Some(msg) = c.engine_error {
                        <p class="advisor-view__stale" role="alert">{ msg }</p>
                    }
                    if let Some(rec) = c.rec {
                        <RecommendList rec={rec.clone()} input={c.input.clone()} />
                        <FrontierChart rec={rec.clone()} input={c.input.clone()} />
                        <ParetoChart rec={rec} cost={c.input.cost.clone()} />
                    }
                }
                // Shown once sized: appearing below the results, it moves nothing already painted.
                if !rows.is_empty() {
                    <SizingTable rows={rows.clone()} dispatch={props.dispatch.clone()} />
                }
            </section>
        </div>
    }
}
