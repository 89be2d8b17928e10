//! The root component: holds the [`AppState`] in a reducer, reads it from the URL on start and
//! writes it back to the URL after every change (a side effect, never inside the reducer), and
//! to localStorage once the inputs rest (or the page is left).

use crate::state::advisor::AdvisorInputs;
use crate::state::{stored, url, Action, AppState, View};
use gloo::storage::Storage as _;
use crate::ui::components::{
    accuracy_view::accuracy_view, advisor_view::AdvisorView, after_start::AfterStart, embed_dialog::EmbedDialog, catalog_filters::CatalogFilters, catalog_table::CatalogTable, compare_view::CompareView, gpu_detail::GpuDetail,
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

/// How long the inputs must rest before they are saved to localStorage (ms).
const SAVE_DELAY_MS: u32 = 400;

/// Saves the state still waiting in `unsaved`, if any.
fn save(unsaved: &std::cell::RefCell<Option<AppState>>) {
    if let Some(s) = unsaved.borrow_mut().take() {
        let _ = gloo::storage::LocalStorage::raw().set_item(stored::KEY, &stored::encode(&s));
    }
}

/// The state the app starts from, with its notes. Explicit state wins: a link with parameters is
/// used as it is; without one, the last saved inputs come back. A link never overwrites what is
/// saved until the user changes something.
fn initial() -> url::Parsed {
    let query = dom::query_string();
    // Notes come out in the link's language, else the browser's.
    let fallback = crate::ui::lang::browser_lang().unwrap_or_default();
    let from_link = url::parse_in(&query, fallback);
    let note_lang = from_link.state.lang.as_deref().and_then(Lang::parse).unwrap_or(fallback);
    let explicit = query.trim_start_matches('?').split('&').any(|kv| {
        let key = kv.split('=').next().unwrap_or("");
        !key.is_empty() && !matches!(key, "embed" | "accent" | "lang")
    });
    if explicit || from_link.state.embed {
        return from_link;
    }
    match gloo::storage::LocalStorage::raw().get_item(stored::KEY).ok().flatten() {
        None => from_link,
        Some(text) => match stored::decode_in(&text, note_lang) {
            Ok(mut saved) => {
                // Keep the link's presentation options (language, accent) over the saved ones.
                saved.state.lang = from_link.state.lang.clone().or(saved.state.lang);
                saved.state.accent = from_link.state.accent.clone().or(saved.state.accent);
                saved.notes.extend(from_link.notes);
                saved
            }
            Err(note) => {
                let _ = gloo::storage::LocalStorage::raw().remove_item(stored::KEY);
                let mut p = from_link;
                p.notes.push(note);
                p
            }
        },
    }
}

/// One callback for the app's life: children whose other props are unchanged compare equal and
/// skip their render (the every-card table on each keystroke). An input is taken in its own event,
/// so the frame that paints the typed or chosen value paints its answer too; a typed one after a
/// slow ranking (a phone), in the task after that frame, so the keystroke never waits for the
/// engine (`dom::waits_for_its_paint`; README.md, "Speed and size").
#[hook]
fn use_dispatch(dispatcher: UseReducerDispatcher<AppState>) -> Callback<Action> {
    (*use_memo((), move |_| {
        Callback::from(move |a: Action| match a {
            Action::SetInput(..) if dom::waits_for_its_paint() => {
                let dispatcher = dispatcher.clone();
                dom::after_paint(move || dispatcher.dispatch(a));
            }
            a => dispatcher.dispatch(a),
        })
    }))
    .clone()
}

/// Writes `state` to the URL after every change, and to localStorage once the user has changed
/// something from `initial` and the inputs rest (or the page is left).
#[hook]
fn use_saved(state: AppState, initial: AppState) {
    let unsaved = use_mut_ref(|| None::<AppState>);
    let timer = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
    {
        // Leaving the page (or reloading it) saves what a pending timer had not yet.
        let unsaved = unsaved.clone();
        use_effect_with((), move |_| {
            let listener = gloo::events::EventListener::new(&gloo::utils::window(), "pagehide", move |_| {
                dom::flush_query();
                save(&unsaved);
                // The address and the saved inputs are written: the answer on screen may be kept
                // for the next visit to the same question (assets/answer.js watches the mark).
                if let Some(html) = gloo::utils::document().document_element() {
                    let _ = html.set_attribute("data-left", "");
                }
            });
            move || drop(listener)
        });
    }
    use_effect_with(state, move |s| {
        let for_url = s.clone();
        dom::replace_query_once_idle(Box::new(move || url::render(&for_url)));
        // Save only once the user has changed something, and never from an embed; and only
        // once typing pauses (localStorage writes are synchronous).
        if *s != initial && !s.embed {
            *unsaved.borrow_mut() = Some(s.clone());
            *timer.borrow_mut() = Some(crate::ui::timeout(
                SAVE_DELAY_MS,
                Box::new(move || save(&unsaved)),
            ));
        }
    });
}

/// Loads what the page needs and the wasm does not carry, then paints again: the Chinese or
/// Russian table for `requested`, and the accuracy page's tables while it is open (`accuracy`;
/// a failed load is tried again the next time it opens).
#[hook]
fn use_loads(requested: Lang, accuracy: bool) {
    let repaint = use_force_update();
    use_effect_with((requested, accuracy), move |&(lang, accuracy)| {
        let table = lang != Lang::En && !crate::i18n::installed();
        let page = accuracy && crate::ui::accuracy_load::page(lang).is_none();
        if table || page {
            wasm_bindgen_futures::spawn_local(async move {
                if table {
                    crate::ui::i18n_load::load().await;
                }
                if page {
                    crate::ui::accuracy_load::load().await;
                }
                repaint.force_update();
            });
        }
    });
}

/// The open view.
fn body(state: &AppState, advisor: Rc<AdvisorInputs>, lang: Lang, dispatch: &Callback<Action>) -> Html {
    match state.view {
        View::Advisor => html! { <AdvisorView inputs={advisor} dispatch={dispatch.clone()} /> },
        View::Catalog => html! {
            <>
                <CatalogFilters filter={state.filter.clone()} dispatch={dispatch.clone()} />
                <CatalogTable state={Rc::new(state.clone())} dispatch={dispatch.clone()} />
            </>
        },
        View::Compare => html! { <CompareView ids={state.compare.clone()} {advisor} dispatch={dispatch.clone()} /> },
        View::Accuracy => accuracy_view(lang, dispatch),
    }
}

/// The footer: the catalog's size and dates, the offline copy, and the embed dialog for `query`.
fn footer(lang: Lang, query: String) -> Html {
    let about = tf(lang, "{n} GPUs · tensor figures are dense (no 2:4 sparsity) · prices as of {date} · everything runs in your browser",
        &[("n", &crate::catalog::gpus().len().to_string()), ("date", crate::catalog::prices_as_of().unwrap_or("—"))]);
    html! {
        <footer class="app__footer">
            <p>{ about }</p>
            <p class="app__footer-links">
                <a href={crate::ui::embed::single_file_href()} download="gpu-advisor.html">{ crate::i18n::t(lang, "Download for offline use") }</a>
            </p>
            <EmbedDialog query={AttrValue::from(query)} />
        </footer>
    }
}

/// The app.
#[function_component(App)]
pub fn app() -> Html {
    // The link is read with the browser's query codec, however the app was mounted.
    super::browser_query::install();
    let initial = use_memo((), |_| initial());
    // The catalog and compare views are whole after their first render: the static shell of
    // index.html goes in the same task. The advisor shows itself once its first results are in.
    {
        let advisor = initial.state.view == View::Advisor;
        use_effect_with((), move |_| {
            if !advisor {
                dom::reveal_app();
            }
        });
    }
    let state = {
        let initial = initial.clone();
        use_reducer(move || initial.state.clone())
    };
    let dispatch = use_dispatch(state.dispatcher());
    use_saved((*state).clone(), initial.state.clone());

    let detail = state.detail.as_ref().and_then(|id| crate::catalog::gpu(id));
    let browser = use_memo((), |_| crate::ui::lang::browser_lang());
    let requested = state.lang.as_deref().and_then(Lang::parse).or(*browser).unwrap_or_default();
    // Switching to Chinese or Russian loads their table first, then paints again. Until it is
    // there the page is English: the language then changes once the table arrives, and every
    // component reading it renders again (their other props may be unchanged).
    let lang = if requested == Lang::En || crate::i18n::installed() { requested } else { Lang::En };
    use_loads(requested, state.view == View::Accuracy);
    // Money is shown in the reader's currency while the currency is left on `auto`.
    let mut advisor = state.advisor.clone();
    advisor.reader_lang = requested;
    let body = body(&state, Rc::new(advisor), lang, &dispatch);
    use_effect_with(lang, |lang| {
        if let Some(el) = gloo::utils::document().document_element() {
            let _ = el.set_attribute("lang", match lang { Lang::En => "en", Lang::Zh => "zh-CN", Lang::Ru => "ru" });
        }
    });
    html! {
        <ContextProvider<Lang> context={lang}>
        <div class={classes!("app", state.embed.then_some("app--embed"))}>
            // During the start the header renders in a task after the mount (the static shell
            // shows its copy meanwhile).
            <AfterStart><Header view={state.view} compare_count={state.compare.len()} {lang} dispatch={dispatch.clone()} /></AfterStart>
            <main class="app__main" id="main">
                <UrlNotes notes={initial.notes.clone()} />
                { body }
            </main>
            if let Some(gpu) = detail {
                <GpuDetail id={AttrValue::from(gpu.id.clone())} dispatch={dispatch.clone()} />
            }
            { footer(lang, url::render(&state)) }
        </div>
        </ContextProvider<Lang>>
    }
}
