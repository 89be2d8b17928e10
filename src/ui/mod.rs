//! The Yew user interface: the only layer that touches the browser. Components live one per file
//! in [`components`]; [`app`] holds the root, its reducer and the URL/storage effects.

pub mod accuracy_load;
pub mod app;
pub mod browser_json;
pub mod browser_query;
pub mod chart;
pub mod components;
pub mod dom;
pub mod embed;
pub mod form_section;
pub mod i18n_load;
pub mod lang;
pub mod panic;
pub mod result_props;
pub mod sources_load;

/// Installs the panic panel and mounts the app in `#app-root` (see [`mount`]).
///
/// The start is split into tasks, each short (no long task during load): this one, which
/// follows the wasm's instantiation, only installs the panic panel; the next reads the link's
/// embedding options and the language; the one after mounts the app, behind the static shell
/// (see [`dom::reveal_app`]), where its first ranking then runs in slices. The service worker is
/// registered once the app is on screen.
pub fn start() {
    panic::install();
    dom::read_shell();
    later(|| {
        browser_json::install();
        browser_query::install();
        embed::apply_accent_from_url();
        if embed::is_embed() {
            embed::start_height_reporter();
        }
        // A reader of Chinese or Russian gets the table before the first paint (no flash of
        // English); everyone else starts at once.
        if lang::may_need_table() {
            wasm_bindgen_futures::spawn_local(async {
                i18n_load::load().await;
                mount();
            });
        } else {
            later(mount);
        }
    });
}

/// Mounts the app in a root of its own (`#app-root`), outside the document until the app takes the
/// static shell's place (dom::reveal_app): the shell stays on screen meanwhile, and no element of
/// the app's (ids included) is in the document twice. (Yew empties the element it mounts in, so
/// not `<body>`, which holds the shell.)
fn mount() {
    if let Some(root) = dom::app_root() {
        yew::Renderer::<app::App>::with_root(root).render();
    }
}

/// Runs `f` in a task of its own, queued now.
pub(crate) fn later(f: impl FnOnce() + 'static) {
    later_boxed(Box::new(f));
}

thread_local! {
    /// The closures [`later_boxed`] queued, run one per message of [`LATER_PORT`], first in first.
    static LATER: std::cell::RefCell<std::collections::VecDeque<Box<dyn FnOnce()>>> = const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
    /// The sending end of a MessageChannel whose other end runs the next queued closure. A
    /// message is a task of its own without a timer's minimum delay: HTML's timers wait at least
    /// 4 ms once five are nested, which a start of a few dozen chained tasks paid every time.
    static LATER_PORT: Option<web_sys::MessagePort> = later_port();
}

/// [`LATER_PORT`]: a channel whose receiving end runs one queued closure per message.
fn later_port() -> Option<web_sys::MessagePort> {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let channel = web_sys::MessageChannel::new().ok()?;
    let run = Closure::<dyn FnMut()>::new(run_next_later);
    channel.port1().set_onmessage(Some(run.as_ref().unchecked_ref()));
    run.forget();
    Some(channel.port2())
}

/// Runs the oldest closure [`later_boxed`] queued.
fn run_next_later() {
    if let Some(f) = LATER.with(|q| q.borrow_mut().pop_front()) {
        f();
    }
}

/// [`later`] for one closure type: the JavaScript glue is generic over the closure, so boxing
/// first keeps one copy of it in the wasm instead of one per caller. Without a MessageChannel it
/// falls back to a timer.
pub(crate) fn later_boxed(f: Box<dyn FnOnce()>) {
    LATER.with(|q| q.borrow_mut().push_back(f));
    let posted = LATER_PORT.with(|p| p.as_ref().is_some_and(|p| p.post_message(&wasm_bindgen::JsValue::NULL).is_ok()));
    if !posted {
        timeout(0, Box::new(run_next_later)).forget();
    }
}

/// A timer that runs `f` after `ms`, cancelled when dropped: every timer of the app goes through
/// this one closure type (see [`later_boxed`]).
pub(crate) fn timeout(ms: u32, f: Box<dyn FnOnce()>) -> gloo::timers::callback::Timeout {
    gloo::timers::callback::Timeout::new(ms, f)
}
