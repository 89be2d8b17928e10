//! The advisor page: inputs on one side, results on the other — the ranked options with their
//! reasons, the why-not list, the serving frontier and throughput-against-cost charts, and every
//! card's sizing. Bad input shows its message beside its field while the last good result stays on
//! screen.
//!
//! The app starts behind the static shell; the first ranking runs a few cards per task, its
//! results render, and then the app takes the shell's place. Every card's sizing follows in tasks
//! of its own. After that, an input ranks in its own task (a typed one after a slow ranking, in
//! the task after the frame that shows its value: `dom::waits_for_its_paint`), and the frame that paints the
//! keystroke paints the new answer too: its pick strip and its first options (the ones a window
//! shows). The options below them, the why-not notes, the charts and the sizing follow in tasks
//! after that paint. A ranking longer than [`INPUT_SLICE_MS`] goes on in slices of a few
//! milliseconds, so the next keystroke never waits behind it; a burst of keystrokes ranks only the
//! last one.

use crate::present::InLang;
use crate::i18n::{t, Lang};
use crate::model::EstimateError;
use crate::recommend::{recommend, Ranking, RecommendInput, Recommendation};
use crate::state::advisor::{AdvisorInputs, FieldError};
use crate::state::sizing::{size_one, sorted, SizingRow};
use crate::state::Action;
use crate::ui::components::advisor_form::AdvisorForm;
use crate::ui::components::after_start::AfterStart;
use crate::ui::dom::after_paint;
use crate::ui::later;
use crate::ui::components::frontier_chart::FrontierChart;
use crate::ui::components::owned_list::OwnedList;
use crate::ui::components::pareto_chart::ParetoChart;
use crate::ui::components::pick_strip::pick_strip;
use crate::ui::components::recommend_list::RecommendList;
use crate::ui::components::share_bar::ShareBar;
use crate::ui::components::sizing_table::SizingTable;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AdvisorViewProps {
    pub inputs: Rc<AdvisorInputs>,
    pub dispatch: Callback<Action>,
}

/// The result of one computation: the input it used and what came out.
#[derive(Clone)]
struct Computed {
    input: Rc<RecommendInput>,
    rec: Option<Rc<Recommendation>>,
    engine_error: Option<crate::model::Note>,
}

/// What the results show: the ranking for one input.
#[derive(Clone)]
struct Shown {
    input: Option<RecommendInput>,
    computed: Option<Computed>,
}

/// What one input's ranking shows.
fn computed(input: RecommendInput, result: Result<Recommendation, EstimateError>) -> Computed {
    match result {
        Ok(r) => Computed { input: Rc::new(input), rec: Some(Rc::new(r)), engine_error: None },
        Err(e) => Computed { input: Rc::new(input), rec: None, engine_error: Some(e.note()) },
    }
}

fn compute(input: Option<RecommendInput>) -> Shown {
    let computed = input.as_ref().map(|i| computed(i.clone(), recommend(i)));
    Shown { input, computed }
}

/// How long one task of sliced work may run (ms): a keystroke that arrives meanwhile waits at most
/// about this long (README.md, "Speed and size": an input's next frame within 16.7 ms, and 50 ms at
/// 4× CPU throttle).
const SLICE_MS: f64 = 6.0;

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Whether the work for an input is still wanted (false once a newer input is on its way).
type Still = Rc<dyn Fn() -> bool>;

/// How long the ranking for an input may run in the input's own task (ms), under the 50 ms of a
/// long task: an ordinary ranking ends well within it (about 5 ms of wasm unthrottled, four times
/// that at 4× CPU throttle), so its answer paints in the input's next frame; a longer one goes on
/// in [`SLICE_MS`] slices.
const INPUT_SLICE_MS: f64 = 40.0;

/// Calls `step` (one card's worth of work) in tasks of at most [`SLICE_MS`] until it gives a
/// result, and hands that to `done`; stops as soon as `still()` is false. With `first_ms`, the
/// first slice runs now for up to that long, and a result within it goes to `done` at once (in
/// this task); otherwise the result goes to `done` in a task of its own.
fn in_slices<T: 'static>(
    first_ms: Option<f64>,
    mut step: impl FnMut() -> Option<T> + 'static,
    still: Still,
    done: impl FnOnce(T) + 'static,
) {
    if !still() {
        return;
    }
    let start = now_ms();
    loop {
        if let Some(result) = step() {
            if first_ms.is_some() {
                crate::ui::dom::ranked_in(now_ms() - start);
                return done(result);
            }
            return later(move || {
                if still() {
                    done(result);
                }
            });
        }
        if now_ms() - start > first_ms.unwrap_or(SLICE_MS) {
            if first_ms.is_some() {
                crate::ui::dom::ranked_in(now_ms() - start);
            }
            return later(move || in_slices(None, step, still, done));
        }
    }
}

/// Runs `steps` in order, each in a task of its own, while the input they are for is `still`
/// wanted: the parts of one input's results render apart (no long task), and a newer input stops the
/// rest.
fn in_turn(still: Still, mut steps: std::collections::VecDeque<Box<dyn FnOnce()>>) {
    later(move || {
        if still() {
            if let Some(step) = steps.pop_front() {
                step();
                in_turn(still, steps);
            }
        }
    });
}

/// Runs `f` now, or in a task of its own.
fn now_or_later(now: bool, f: impl FnOnce() + 'static) {
    if now {
        f()
    } else {
        later(f)
    }
}

/// Ranks `input` a card at a time (see [`in_slices`], which `first_ms` is passed to).
fn rank_in_slices(
    first_ms: Option<f64>,
    input: Option<RecommendInput>,
    still: Still,
    done: impl FnOnce(Shown) + 'static,
) {
    let now = first_ms.is_some();
    let Some(i) = input.clone() else {
        return now_or_later(now, move || {
            done(Shown {
                input: None,
                computed: None,
            })
        });
    };
    match Ranking::new(i.clone(), crate::catalog::gpus()) {
        Err(e) => now_or_later(now, move || {
            done(Shown {
                input,
                computed: Some(computed(i, Err(e))),
            })
        }),
        Ok(mut ranking) => {
            let mut i = Some(i);
            let step = move || {
                let result = ranking.step(crate::catalog::gpus())?;
                let i = i.take()?;
                Some(Shown { input: Some(i.clone()), computed: Some(computed(i, result)) })
            };
            in_slices(first_ms, step, still, done);
        }
    }
}

/// Sizes every card for `input` a card at a time (see [`in_slices`]): the table below the ranking.
fn size_in_slices(input: Option<RecommendInput>, still: Still, done: impl FnOnce(Rc<Vec<SizingRow>>) + 'static) {
    let Some(input) = input else { return later(move || done(Rc::default())) };
    let gpus = crate::catalog::gpus();
    let mut rows = Vec::with_capacity(gpus.len());
    let step = move || match gpus.get(rows.len()) {
        Some(gpu) => {
            rows.push(size_one(&input.job, gpu));
            None
        }
        None => Some(Rc::new(sorted(std::mem::take(&mut rows)))),
    };
    in_slices(None, step, still, done);
}

/// The parts of the results, each set in a task of its own after an input: the ranking (the best
/// option, the ranked list), the two charts below it (a task later each, so no one task renders
/// them all), and every card's sizing.
#[derive(Clone)]
struct Results {
    shown: UseStateHandle<Shown>,
    frontier: UseStateHandle<Shown>,
    pareto: UseStateHandle<Shown>,
    rows: UseStateHandle<Rc<Vec<SizingRow>>>,
}

/// Shows the results for a new `input` while it is `still` wanted: an input the ranking already
/// answers (the first, ranked before the first paint) sizes every card in the next task. Any
/// other ranks at once (within [`INPUT_SLICE_MS`], so the new answer paints in the input's next
/// frame; during the start, behind the shell, in short slices after a paint), then sets the
/// charts and the sizing in tasks of their own.
fn show(input: Option<RecommendInput>, still: Still, results: Results) {
    let Results { shown, frontier, pareto, rows } = results;
    let size = {
        let (still, input) = (still.clone(), input.clone());
        move || size_in_slices(input, still, move |sized| rows.set(sized))
    };
    let still_for_rank = still.clone();
    if shown.input == input {
        return later(size);
    }
    let on_ranked = move |ranking: Shown| {
        shown.set(ranking.clone());
        let for_pareto = ranking.clone();
        // The charts and the sizing wait for the answer's paint: queued now, their tasks would
        // run before the browser's next frame and hold the answer back.
        crate::ui::dom::after_shown_paint(Box::new(move || {
            in_turn(
                still,
                [
                    Box::new(move || frontier.set(ranking)) as Box<dyn FnOnce()>,
                    Box::new(move || pareto.set(for_pareto)),
                    Box::new(size),
                ]
                .into(),
            )
        }));
    };
    let still = still_for_rank;
    if crate::ui::dom::revealed() {
        // An input: rank now, so the answer paints in the input's next frame. "Now" is a
        // microtask after this render of the form, not this effect: Yew yields to the browser
        // (a zero-delay timer, so a frame) once one run of its scheduler passes 16 ms, and a
        // ranking inside the run that rendered the form pushed it past that on a slow CPU, so
        // the answer's render waited a frame. In a microtask of its own, the ranking ends
        // before the answer's render starts a run of its own, all before the next frame.
        wasm_bindgen_futures::spawn_local(async move { rank_in_slices(Some(INPUT_SLICE_MS), input, still, on_ranked) });
    } else if crate::ui::dom::shell_shows_answer() {
        // The start, behind the pre-rendered answer: short slices after the first paint.
        after_paint(move || rank_in_slices(None, input, still, on_ranked));
    } else {
        // The start behind the bare shell, which has painted while the wasm loaded: short
        // slices from the next task, since the answer is all this visitor waits for.
        later(move || rank_in_slices(None, input, still, on_ranked));
    }
}

/// The results for `input` (the last good one), kept up to date.
///
/// While the app starts behind the static shell, the first ranking runs in slices after the
/// mount, and its results render in a task of their own; then the app takes the shell's place
/// (dom::reveal_app), results included, so nothing shifts and no task runs long. Opened later
/// (from another view), the advisor ranks before its first paint. Every card's sizing follows in
/// tasks of its own (compute, then show the table below). Later inputs rank in their own task, so
/// their answer paints with the keystroke; a burst of inputs computes only the last.
#[hook]
fn use_results(input: Option<RecommendInput>) -> Results {
    let shown = use_state({
        let input = input.clone();
        move || if crate::ui::dom::revealed() { compute(input) } else { Shown { input: None, computed: None } }
    });
    {
        let whole = shown.computed.is_some() || input.is_none();
        use_effect_with(whole, |whole| {
            // Once the parts of the results left for later tasks (AfterStart) are in too.
            if *whole && !crate::ui::dom::revealed() {
                later(crate::ui::dom::reveal_when_whole);
            }
        });
    }
    let frontier = use_state(|| (*shown).clone());
    let pareto = use_state(|| (*shown).clone());
    let rows = use_state(|| Rc::new(Vec::<SizingRow>::new()));
    let results = Results { shown, frontier, pareto, rows };
    let generation = use_mut_ref(|| 0_u64);
    {
        let results = results.clone();
        use_effect_with(input, move |input| {
            *generation.borrow_mut() += 1;
            let mine = *generation.borrow();
            // False once a newer input is on its way: the work is left to it.
            let still: Still = Rc::new(move || *generation.borrow() == mine);
            show(input.clone(), still, results);
        });
    }
    results
}

/// The result the charts show, set once the answer before it painted: the options past the
/// first ones come from it (`recommend_list`).
fn painted(shown: &Shown) -> Option<(Rc<Recommendation>, Rc<RecommendInput>)> {
    shown.computed.as_ref().and_then(|c| Some((c.rec.clone()?, c.input.clone())))
}

/// The results' column: the stale-result note, the ranked options, the charts and every card's
/// sizing; `aria-busy` while a newer input's ranking runs (assets/answer.js keeps no answer then).
fn results_column(lang: Lang, errors: &[FieldError], results: &Results, busy: bool, dispatch: &Callback<Action>) -> Html {
    let rows = &*results.rows;
    html! {
        <section class="advisor-view__results" aria-live="polite" aria-busy={busy.then_some("true")}>
            if !errors.is_empty() {
                <p class="advisor-view__stale" role="status">{ t(lang, "Fix the highlighted input; showing the last valid result.") }</p>
            }
            if let Some(c) = results.shown.computed.clone() {
                <AfterStart><ShareBar rec={c.rec.clone()} /></AfterStart>
                if !c.input.owned.is_empty() || !c.input.mix.is_empty() {
                    <OwnedList input={c.input.clone()} />
                }
                if let Some(msg) = c.engine_error {
                    <p class="advisor-view__stale" role="alert">{ msg.in_lang(lang) }</p>
                }
                if let Some(rec) = c.rec {
                    <RecommendList {rec} input={c.input.clone()} painted={painted(&results.frontier)} />
                }
            }
            if let Some(Computed { input, rec: Some(rec), .. }) = results.frontier.computed.clone() {
                <AfterStart below=true><FrontierChart {rec} {input} /></AfterStart>
            }
            if let Some(Computed { input, rec: Some(rec), .. }) = results.pareto.computed.clone() {
                <AfterStart below=true><ParetoChart {rec} cost={input.cost.clone()} /></AfterStart>
            }
            // Shown once sized: appearing below the results, it moves nothing already painted.
            if !rows.is_empty() {
                <SizingTable rows={rows.clone()} dispatch={dispatch.clone()} />
            }
        </section>
    }
}

/// The advisor.
#[function_component(AdvisorView)]
pub fn advisor_view(props: &AdvisorViewProps) -> Html {
    let lang = use_lang();
    let parsed = use_memo(props.inputs.clone(), |i| i.recommend_input().map_err(Rc::new));
    let last_good = use_mut_ref(|| None::<RecommendInput>);
    let (input, errors) = match &*parsed {
        Ok(i) => {
            *last_good.borrow_mut() = Some(i.clone());
            (Some(i.clone()), Rc::default())
        }
        Err(e) => (last_good.borrow().clone(), e.clone()),
    };
    let results = use_results(input.clone());
    // Until the ranking for the latest input is in, the options shown answer an earlier one.
    let busy = results.shown.input != input;
    html! {
        <div class="advisor-view">
            if let Some(Computed { input, rec: Some(rec), .. }) = results.shown.computed.clone() {
                <div class="advisor-view__best"><AfterStart>{ pick_strip(lang, &rec, &input) }</AfterStart></div>
            }
            <aside class="advisor-view__inputs">
                // During the start the form renders in a task after the mount (the app is still
                // behind the shell, so no one sees it missing).
                <AfterStart>
                    <AdvisorForm inputs={props.inputs.clone()} errors={errors.clone()} dispatch={props.dispatch.clone()} />
                </AfterStart>
            </aside>
            { results_column(lang, &errors, &results, busy, &props.dispatch) }
        </div>
    }
}
