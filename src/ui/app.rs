//! The root component: holds the [`AppState`] in a reducer, reads it from the URL on start and
//! writes it back to the URL after every change (a side effect, never inside the reducer).

use crate::state::{url, Action, AppState, View};
use crate::ui::components::{
    advisor_view::AdvisorView, catalog_filters::CatalogFilters, catalog_table::CatalogTable, compare_view::CompareView, gpu_detail::GpuDetail,
    header::Header, url_notes::UrlNotes,
};
use crate::ui::dom;
use std::rc::Rc;
use yew::prelude::*;

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

/// The app.
#[function_component(App)]
pub fn app() -> Html {
    let initial = use_memo((), |_| url::parse(&dom::query_string()));
    let state = {
        let initial = initial.clone();
        use_reducer(move || initial.state.clone())
    };
    let dispatch = {
        let state = state.clone();
        Callback::from(move |a: Action| state.dispatch(a))
    };
    use_effect_with((*state).clone(), |s| dom::replace_query(&url::render(s)));

    let body = match state.view {
        View::Advisor => html! { <AdvisorView inputs={state.advisor.clone()} dispatch={dispatch.clone()} /> },
        View::Catalog => html! {
            <>
                <CatalogFilters filter={state.filter.clone()} dispatch={dispatch.clone()} />
                <CatalogTable state={Rc::new((*state).clone())} dispatch={dispatch.clone()} />
            </>
        },
        View::Compare => html! { <CompareView ids={state.compare.clone()} dispatch={dispatch.clone()} /> },
    };
    let detail = state.detail.as_ref().and_then(|id| crate::catalog::gpu(id));
    html! {
        <div class="app">
            <Header view={state.view} compare_count={state.compare.len()} dispatch={dispatch.clone()} />
            <main class="app__main" id="main">
                <UrlNotes notes={initial.notes.clone()} />
                { body }
            </main>
            if let Some(gpu) = detail {
                <GpuDetail id={AttrValue::from(gpu.id.clone())} dispatch={dispatch.clone()} />
            }
            <footer class="app__footer">
                <p>{ format!("{} GPUs · tensor figures are dense (no 2:4 sparsity) · prices as of {} · everything runs in your browser",
                    crate::catalog::gpus().len(), crate::catalog::prices_as_of().unwrap_or("—")) }</p>
            </footer>
        </div>
    }
}
