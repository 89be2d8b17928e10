//! The advisor page: inputs on one side, results on the other. Bad input shows its message beside
//! its field while the last good result stays on screen.

use crate::state::advisor::{AdvisorInputs, Job};
use crate::state::sizing::{size_all, sorted};
use crate::state::Action;
use crate::ui::components::advisor_form::AdvisorForm;
use crate::ui::components::sizing_table::SizingTable;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AdvisorViewProps {
    pub inputs: AdvisorInputs,
    pub dispatch: Callback<Action>,
}

/// The advisor.
#[function_component(AdvisorView)]
pub fn advisor_view(props: &AdvisorViewProps) -> Html {
    let parsed = use_memo(props.inputs.clone(), |i| i.job());
    let last_good = use_mut_ref(|| None::<Job>);
    let (job, errors) = match &*parsed {
        Ok(j) => {
            *last_good.borrow_mut() = Some(j.clone());
            (Some(j.clone()), Vec::new())
        }
        Err(e) => (last_good.borrow().clone(), e.clone()),
    };
    let rows = use_memo(job.clone(), |j| Rc::new(j.as_ref().map(|j| sorted(size_all(j))).unwrap_or_default()));
    html! {
        <div class="advisor-view">
            <aside class="advisor-view__inputs">
                <AdvisorForm inputs={props.inputs.clone()} errors={errors.clone()} dispatch={props.dispatch.clone()} />
            </aside>
            <section class="advisor-view__results" aria-live="polite">
                if !errors.is_empty() {
                    <p class="advisor-view__stale" role="status">{ "Fix the highlighted input; showing the last valid result." }</p>
                }
                <SizingTable rows={(*rows).clone()} dispatch={props.dispatch.clone()} />
            </section>
        </div>
    }
}
