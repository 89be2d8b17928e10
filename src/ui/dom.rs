//! Small browser helpers: reading the query string and replacing it without a reload (at once, or
//! once the inputs rest), running work after the browser's next paint or once typing in a field
//! rests, and the start's hold and reveal of the static shell.

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

/// What writes the query string once the inputs rest.
type QueryOf = Box<dyn FnOnce() -> String>;

thread_local! {
    static PENDING_QUERY: std::cell::RefCell<Option<QueryOf>> = const { std::cell::RefCell::new(None) };
    static QUERY_TIMER: std::cell::RefCell<Option<gloo::timers::callback::Timeout>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the query string once the inputs rest: of several calls within [`QUERY_DELAY_MS`] of
/// each other only the last query is written, once. `history.replaceState` costs about 6 ms a call
/// here (profiled at 1x CPU; more on a phone), work that would otherwise follow every keystroke
/// and hold up the next one; the query itself is written then too (`query`), not in the frame
/// that answers the input. Whatever reads the address for the user ([`flush_query`]) writes it
/// first.
pub fn replace_query_once_idle(query: QueryOf) {
    PENDING_QUERY.with(|p| *p.borrow_mut() = Some(query));
    // A new timer replaces (and so cancels) the one still waiting; a timer is never dropped from
    // inside its own callback.
    let timer = crate::ui::timeout(QUERY_DELAY_MS, Box::new(flush_query));
    QUERY_TIMER.with(|t| *t.borrow_mut() = Some(timer));
}

/// Writes the query still waiting in [`replace_query_once_idle`], if any, now: before the address
/// is copied or shared, and when the page is left.
pub fn flush_query() {
    if let Some(q) = PENDING_QUERY.with(|p| p.borrow_mut().take()) {
        replace_query(&q());
    }
}

/// How long typing in a field must rest before the app takes the typed value (ms).
const TYPING_REST_MS: u32 = 150;

thread_local! {
    /// The typed value waiting for its field's typing to rest.
    static TYPED: std::cell::RefCell<Option<(crate::state::advisor::Field, gloo::timers::callback::Timeout)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` once typing in `field` has rested for [`TYPING_REST_MS`]: a newer call for the same
/// field replaces (and so cancels) the one waiting; another field's wait goes on. Used for a field
/// emptied while retyping, so its "not a number" does not flash.
pub fn once_typing_rests(field: crate::state::advisor::Field, f: impl FnOnce() + 'static) {
    let timer = crate::ui::timeout(TYPING_REST_MS, Box::new(f));
    if let Some((waiting, old)) = TYPED.with(|t| t.borrow_mut().replace((field, timer))) {
        if waiting != field {
            old.forget();
        }
    }
}

/// Cancels the wait of [`once_typing_rests`] for `field`, if one is pending.
pub fn cancel_typing(field: crate::state::advisor::Field) {
    TYPED.with(|t| {
        let mut t = t.borrow_mut();
        if t.as_ref().is_some_and(|(waiting, _)| *waiting == field) {
            // Dropping the timeout cancels it.
            t.take();
        }
    });
}

/// How long an input's ranking may take (ms) for the next input to be taken in its own event:
/// half a frame, so the typed or chosen value and its answer paint in one frame. A slower
/// ranking (a phone, a long job) makes the next input wait for the frame that shows the value,
/// so the value itself never waits for the engine.
const RANK_IN_EVENT_MS: f64 = 8.0;

thread_local! {
    /// How long the last input's ranking took (ms).
    static LAST_RANK_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Records how long an input's ranking took (ms).
pub fn ranked_in(ms: f64) {
    LAST_RANK_MS.with(|c| c.set(ms));
}

/// Whether the last input's ranking took longer than [`RANK_IN_EVENT_MS`].
pub fn ranking_is_slow() -> bool {
    LAST_RANK_MS.with(|c| c.get()) > RANK_IN_EVENT_MS
}

thread_local! {
    /// Whether the input being dispatched was typed (set by [`mark_typed`], read once).
    static TYPED_INPUT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the input about to be dispatched as typed in a text field (see [`waits_for_its_paint`]).
pub fn mark_typed() {
    TYPED_INPUT.with(|c| c.set(true));
}

/// Whether the input being dispatched should wait for the frame that paints its value: a typed
/// one after a slow ranking, so the next keystroke never waits behind the engine. A chosen one
/// (a select, a check box) ranks in its own event whatever the last ranking took: no keystroke
/// follows it that the ranking could hold up, and its answer paints a frame sooner.
pub fn waits_for_its_paint() -> bool {
    TYPED_INPUT.with(|c| c.replace(false)) && ranking_is_slow()
}

/// Runs `f` after the browser's next paint: in a task queued from the next animation frame. A
/// hidden tab has no frames, so `f` then runs when the tab is shown again.
pub fn after_paint(f: impl FnOnce() + 'static) {
    after_paint_boxed(Box::new(f));
}

/// Runs `f` after the paint that shows the answer: [`after_paint`] once the app is on screen;
/// during a start on the bare shell, after a paint that follows [`reveal_app`] (it looks again
/// each frame), so nothing the start leaves for later is queued ahead of the frame that shows the
/// app. Behind the pre-rendered answer, which the app must match whole before it takes its place,
/// as [`after_paint`].
pub fn after_shown_paint(f: Box<dyn FnOnce()>) {
    if revealed() || shell_shows_answer() {
        return after_paint_boxed(f);
    }
    after_paint_boxed(Box::new(move || after_shown_paint(f)));
}

/// [`after_paint`] for one closure type (see [`crate::ui::later_boxed`]).
fn after_paint_boxed(f: Box<dyn FnOnce()>) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return f();
    };
    let frame = Closure::once_into_js(move || crate::ui::later_boxed(f));
    let _ = window.request_animation_frame(frame.unchecked_ref());
}

thread_local! {
    /// Whether the app has taken the static shell's place (see [`reveal_app`]).
    static REVEALED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The element the app renders into, outside the document until [`reveal_app`].
    static ROOT: std::cell::RefCell<Option<web_sys::Element>> = const { std::cell::RefCell::new(None) };
}

/// The element the app mounts in (`<div id="app-root">`), made on first call, not yet in the
/// document: [`reveal_app`] puts it in the shell's place.
pub fn app_root() -> Option<web_sys::Element> {
    ROOT.with(|r| {
        if r.borrow().is_none() {
            let root = web_sys::window()?.document()?.create_element("div").ok()?;
            root.set_id("app-root");
            *r.borrow_mut() = Some(root);
        }
        r.borrow().clone()
    })
}

/// Shows the app in place of the static shell of index.html (`#shell`: the header and the
/// advisor's frame, or the pre-rendered default answer, painted before the wasm runs).
///
/// The app renders outside the document ([`app_root`]) while the shell stays on screen: its start
/// is split into tasks (mount, form, first ranking, results, their later parts) so no one task
/// holds the page long, and this puts the whole app in the shell's place
/// in one step, so no frame shows both or half of the app.
pub fn reveal_app() {
    if REVEALED.with(|r| r.replace(true)) {
        return;
    }
    // Offline support is set up once the app is on screen, in a task of its own.
    crate::ui::later(crate::ui::embed::register_service_worker);
    let Some(root) = app_root() else { return };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    // Without a shell (a page without one), the app goes at the end of <body>.
    let _ = match document.get_element_by_id("shell") {
        Some(shell) => shell.replace_with_with_node_1(&root),
        None => document.body().map_or(Ok(()), |b| b.append_child(&root).map(|_| ())),
    };
}

/// The app's start: how many of its parts are still to render ([`hold_start`]), and whether it
/// asked to be shown meanwhile ([`reveal_when_whole`]).
#[derive(Clone, Copy)]
struct Held {
    parts: u32,
    wanted: bool,
}

thread_local! {
    static HELD: std::cell::Cell<Held> = const { std::cell::Cell::new(Held { parts: 0, wanted: false }) };
}

/// Changes the start's [`Held`] state, and shows the app if it asked to be and nothing is held.
fn update_held(change: impl FnOnce(&mut Held)) {
    let held = HELD.with(|h| {
        let mut held = h.get();
        change(&mut held);
        h.set(held);
        held
    });
    if held.parts == 0 && held.wanted {
        reveal_app();
    }
}

/// A part of the app will render later during its start (components::after_start): the app is
/// not shown before [`release_start`] for it.
pub fn hold_start() {
    update_held(|h| h.parts += 1);
}

/// A part held by [`hold_start`] has rendered (or is gone): the app is shown if it asked to be and
/// nothing else is held.
pub fn release_start() {
    update_held(|h| h.parts = h.parts.saturating_sub(1));
}

/// Shows the app ([`reveal_app`]) once no part of it is held ([`hold_start`]).
pub fn reveal_when_whole() {
    update_held(|h| h.wanted = true);
}

thread_local! {
    /// Whether the static shell shows the pre-rendered answer ([`read_shell`]).
    static SHELL_ANSWER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Reads, at the start (the shell is gone after the reveal), whether the static shell shows the
/// pre-rendered answer: index.html keeps `data-answer` on `#shell` only for the question it
/// answers.
pub fn read_shell() {
    let document = web_sys::window().and_then(|w| w.document());
    let answer = document.and_then(|d| d.get_element_by_id("shell")).is_some_and(|s| s.get_attribute("data-answer").is_some());
    SHELL_ANSWER.with(|a| a.set(answer));
}

/// Whether the page opened on the pre-rendered answer (the app's start must then match it
/// whole before it takes its place) rather than on the bare shell.
pub fn shell_shows_answer() -> bool {
    SHELL_ANSWER.with(|a| a.get())
}

/// Whether [`reveal_app`] has run: before it, the app is still starting behind the shell.
pub fn revealed() -> bool {
    REVEALED.with(|r| r.get())
}
