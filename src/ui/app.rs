//! The root component: holds the [`AppState`] in a reducer, reads it from the URL on start and
//! writes it back to the URL after every change (a side effect, never inside the reducer).

use crate::state::{url, Action, AppState, View};
use crate::ui::components::{
    advisor_view::AdvisorView, catalog_filters::CatalogFilters, catalog_table::CatalogTable, compare_view::CompareView, gpu_detail::GpuDetail,
    header::Header, url_notes::UrlNotes,
};
use crate::i18n::{tf, Lang};
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
    let browser = use_memo((), |_| crate::ui::lang::browser_lang());
    let lang = state.lang.as_deref().and_then(Lang::parse).or(*browser).unwrap_or_default();
    use_effect_with(lang, |lang| {
        if let Some(el) = gloo::utils::document().document_element() {
            let _ = el.set_attribute("lang", match lang { Lang::En => "en", Lang::Zh => "zh-CN", Lang::Ru => "ru" });
        }
    });
    let footer = tf(lang, "{n} GPUs · tensor figures are dense (no 2:4 sparsity) · prices as of {date} · everything runs in your browser",
        &[("n", &crate::catalog::gpus().len().to_string()), ("date", crate::catalog::prices_as_of().unwrap_or("—"))]);
    html! {
        <ContextProvider<Lang> context={lang}>
        <div class={classes!("app", state.embed.then_some("app--embed"))}>
            <Header view={state.view} compare_count={state.compare.len()} {lang} dispatch={dispatch.clone()} />
            <main class="app__main" id="main">
                <UrlNotes notes={initial.notes.clone()} />
                { body }
            </main>
            if let Some(gpu) = detail {
                <GpuDetail id={AttrValue::from(gpu.id.clone())} dispatch={dispatch.clone()} />
            }
            <footer class="app__footer">
                <p>{ footer }</p>
            </footer>
        </div>
        </ContextProvider<Lang>>
    }
}
