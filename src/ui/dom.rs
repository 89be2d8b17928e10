//! Small browser helpers: reading the query string and replacing it without a reload (at once, or
//! once the inputs rest), and running work after the browser's next paint.

/// The current `location.search` (with the leading `?`), or empty.
pub fn query_string() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Replaces the URL's query string without adding a history entry.
pub fn replace_query(query: &str) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_default();
    let url = if query.is_empty() { path } else { format!("{path}?{query}") };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// How long the inputs must rest before the address follows them (ms).
const QUERY_DELAY_MS: u32 = 300;

thread_local! {
    static PENDING_QUERY: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    static QUERY_TIMER: std::cell::RefCell<Option<gloo::timers::callback::Timeout>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the query string once the inputs rest: of several calls within [`QUERY_DELAY_MS`] of
/// each other only the last query is written, once. `history.replaceState` costs about 6 ms a call
/// here (issue 13's profile, 1x CPU; more on a phone), work that would otherwise follow every
/// keystroke and hold up the next one (issue 13: "URL and localStorage writes once typing
/// pauses"). Whatever reads the address for the user ([`flush_query`]) writes it first.
pub fn replace_query_once_idle(query: String) {
    PENDING_QUERY.with(|p| *p.borrow_mut() = Some(query));
    // A new timer replaces (and so cancels) the one still waiting; a timer is never dropped from
    // inside its own callback.
    let timer = gloo::timers::callback::Timeout::new(QUERY_DELAY_MS, flush_query);
    QUERY_TIMER.with(|t| *t.borrow_mut() = Some(timer));
}

/// Writes the query still waiting in [`replace_query_once_idle`], if any, now: before the address
/// is copied or shared, and when the page is left.
pub fn flush_query() {
    if let Some(q) = PENDING_QUERY.with(|p| p.borrow_mut().take()) {
        replace_query(&q);
    }
}

/// Runs `f` after the browser's next paint: in a task queued from the next animation frame. A
/// hidden tab has no frames, so `f` then runs when the tab is shown again.
pub fn after_paint(f: impl FnOnce() + 'static) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else { return f() };
    let frame = Closure::once_into_js(move || gloo::timers::callback::Timeout::new(0, f).forget());
    let _ = window.request_animation_frame(frame.unchecked_ref());
}

thread_local! {
    /// Whether the app has taken the static shell's place (see [`reveal_app`]).
    static REVEALED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Shows the app in place of the static shell of index.html (`#shell`: the header and the
/// advisor's frame, or the pre-rendered default answer, painted before the wasm runs).
///
/// The app mounts beside the shell while the shell is still there, and stays hidden behind it
/// (`#shell ~ .app { display: none }` in styles/main.css): its start is split into tasks (mount,
/// first ranking, results) so no one task holds the page long (issue 13's long tasks), and
/// removing the shell, once the first results are rendered, shows the whole app in one frame.
pub fn reveal_app() {
    if REVEALED.with(|r| r.replace(true)) {
        return;
    }
    // Offline support is set up once the app is on screen, in a task of its own.
    crate::ui::later(crate::ui::embed::register_service_worker);
    if let Some(shell) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("shell")) {
        shell.remove();
    }
}

/// Whether [`reveal_app`] has run: before it, the app is still starting behind the shell.
pub fn revealed() -> bool {
    REVEALED.with(|r| r.get())
}
