//! Content that the app's start leaves for a task of its own, so that the start's tasks stay short
//! (no long task during load): the advisor's form, the ranked options after the first,
//! the why-not list, the charts, and the model field's preset list (never painted). Each renders
//! one task after it would have, while the app is still hidden behind the static shell (the
//! advisor takes the shell's place in a task queued after these); once the app has started, at
//! once.
//!
//! A part below the first screen (`below`: the options past the first rows, the why-not list,
//! the charts) holds the start only while the shell shows the pre-rendered answer, which has them
//! all: the app takes its place only once it matches it. On a bare shell (a shared link, saved
//! inputs, another language) the app is shown as soon as the first screen is in, and these render
//! in the tasks after the frame that shows it, below it, where they move nothing already painted.

use crate::ui::dom;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AfterStartProps {
    pub children: Html,
    /// Its first render comes a task later even after the start (a chunk of a long list shown
    /// for the first time, like the every-card table's rows).
    #[prop_or_default]
    pub always: bool,
    /// Below the first screen (see the module's notes): on a bare shell it holds nothing.
    #[prop_or_default]
    pub below: bool,
}

/// A part's first render, waiting for its task.
type Part = Box<dyn FnOnce()>;

/// The parts waiting to render, first come first served, and whether a task is queued for them.
/// (The parts below the first screen mount with or after those above them, so they come after.)
#[derive(Default)]
struct Waiting {
    parts: std::collections::VecDeque<Part>,
    queued: bool,
}

thread_local! {
    static WAITING: std::cell::RefCell<Waiting> = std::cell::RefCell::new(Waiting::default());
    /// Whether the parts below the first screen have waited, once, for the frame that paints the
    /// revealed app: queued before it, their tasks would hold that frame back.
    static PAINT_WAITED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` in a task of its own after those queued before it here: one part per task (timers
/// queued together may run back to back in one task).
fn one_per_task(f: Part) {
    let idle = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        w.parts.push_back(f);
        !std::mem::replace(&mut w.queued, true)
    });
    if idle {
        crate::ui::later(next);
    }
}

/// Runs the first waiting part, and queues the next in a task of its own.
fn next() {
    if dom::revealed() && !PAINT_WAITED.with(|p| p.replace(true)) {
        return dom::after_paint(next);
    }
    let f = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        let f = w.parts.pop_front();
        w.queued = f.is_some();
        f
    });
    if let Some(f) = f {
        f();
        crate::ui::later(next);
    }
}

/// Renders its children at once after the start; during it, in a task of their own.
#[function_component(AfterStart)]
pub fn after_start(props: &AfterStartProps) -> Html {
    let ready = use_state(|| dom::revealed() && !props.always);
    // Whether this part holds the app's start (dom::hold_start) and has not released it yet.
    let holding = use_mut_ref(|| false);
    {
        let (ready, holding) = (ready.clone(), holding.clone());
        let below = props.below && !dom::shell_shows_answer();
        use_effect_with((), move |_| {
            if !*ready {
                if !dom::revealed() && !below {
                    dom::hold_start();
                    *holding.borrow_mut() = true;
                }
                one_per_task(Box::new(move || ready.set(true)));
            }
            // Gone before it rendered: it holds nothing any more.
            move || {
                if holding.replace(false) {
                    dom::release_start();
                }
            }
        });
    }
    {
        let holding = holding.clone();
        use_effect_with(*ready, move |ready| {
            if *ready && holding.replace(false) {
                dom::release_start();
            }
        });
    }
    if *ready {
        props.children.clone()
    } else {
        Html::default()
    }
}
