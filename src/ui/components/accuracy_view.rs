//! The accuracy page (`?view=accuracy`): docs/ACCURACY.md's summary (per set of published
//! measurements, the engine's median error in-sample and on rows held out by GPU family, source and
//! hardware generation, the share inside the band, the goal and whether it is met) and each set's
//! five worst rows with their sources linked.
//!
//! The tables are rendered at build time, natively, in each language ([`render`], from
//! `data/accuracy.toml` through the i18n table; `gpu-advisor accuracy-pack` writes them into
//! `accuracy.bin`, see [`packed`]), and the app loads them when the page opens
//! (`ui::accuracy_load`) and shows the one in its language: the wasm carries neither the figures
//! nor the code and text that lay them out, only this frame. Without the file it says so.

use crate::i18n::{t, Lang};
use crate::state::{Action, View};
use yew::prelude::*;

/// The page: its title, the way back, and the tables in `lang` once loaded. A plain function of
/// the app's, not a component with state of its own: the app loads the tables when the view opens
/// and paints again (`ui::app`, as it does for the Chinese and Russian table).
pub fn accuracy_view(lang: Lang, dispatch: &Callback<Action>) -> Html {
    html! {
        <section class="accuracy-view" aria-labelledby="accuracy-title">
            <h2 class="accuracy-view__title" id="accuracy-title">{ t(lang, "Accuracy") }</h2>
            <button type="button" class="accuracy-view__back" onclick={dispatch.reform(|_| Action::SetView(View::Advisor))}>{ t(lang, "← Back to the advisor") }</button>
            if let Some(tables) = crate::ui::accuracy_load::page(lang) {
                { Html::from_html_unchecked(AttrValue::Static(tables)) }
            } else if crate::ui::accuracy_load::failed() {
                <p class="accuracy-view__status" role="alert">{ t(lang, "The accuracy tables could not be loaded.") }</p>
            } else {
                <p class="accuracy-view__status">{ t(lang, "Loading…") }</p>
            }
        </section>
    }
}

/// `accuracy.bin`: the page in English, Chinese and Russian as one i18n-style entry (postcard),
/// then the sets it was rendered from (postcard; the app reads only the first part).
#[cfg(not(target_arch = "wasm32"))]
pub fn packed() -> Vec<u8> {
    let sets = crate::catalog::accuracy::sets();
    // No sets (no data/accuracy.toml): no page, which the app refuses and says so.
    let page = if sets.is_empty() { Vec::new() } else { vec![(render(Lang::En, sets), render(Lang::Zh, sets), render(Lang::Ru, sets))] };
    let mut out = postcard::to_allocvec(&page).unwrap_or_default();
    out.extend(postcard::to_allocvec(sets).unwrap_or_default());
    out
}

/// The goal on the share of held-out rows inside the band (the harness's `Set::IN_BAND_GOAL`).
#[cfg(not(target_arch = "wasm32"))]
const IN_BAND_GOAL: f64 = 0.80;

/// `s` escaped for HTML text and attribute values.
#[cfg(not(target_arch = "wasm32"))]
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A share as a percentage with one decimal; "—" for a figure the file marks as not available.
#[cfg(not(target_arch = "wasm32"))]
fn pct(lang: Lang, x: f64) -> String {
    if x.is_finite() && x >= 0.0 { format!("{}%", crate::i18n::num(lang, x * 100.0, 1)) } else { "—".into() }
}

/// Whether `x` is a figure at most (`at_most`) or at least `goal`.
#[cfg(not(target_arch = "wasm32"))]
fn meets(x: f64, goal: f64, at_most: bool) -> bool {
    x.is_finite() && x >= 0.0 && if at_most { x <= goal } else { x >= goal }
}

/// A goal as a whole percentage.
#[cfg(not(target_arch = "wasm32"))]
fn goal(lang: Lang, x: f64) -> String {
    format!("{}%", crate::i18n::num(lang, x * 100.0, 0))
}

/// A share and whether it meets its goal.
#[cfg(not(target_arch = "wasm32"))]
fn checked(lang: Lang, x: f64, goal: f64, at_most: bool) -> String {
    format!("{} {}", pct(lang, x), if meets(x, goal, at_most) { "✓" } else { "✗" })
}

/// A table row; `open` is its opening tag, `head` its row header.
#[cfg(not(target_arch = "wasm32"))]
fn row(out: &mut String, open: &str, head: Option<&str>, cells: &[String]) {
    use std::fmt::Write;
    out.push_str(open);
    if let Some(h) = head {
        let _ = write!(out, "<th scope=\"row\">{}</th>", esc(h));
    }
    for c in cells {
        let _ = write!(out, "<td>{c}</td>");
    }
    out.push_str("</tr>");
}

/// A table's head of `columns`, and the start of its body.
#[cfg(not(target_arch = "wasm32"))]
fn head(out: &mut String, columns: &[&str]) {
    use std::fmt::Write;
    out.push_str("<thead><tr>");
    for c in columns {
        let _ = write!(out, "<th scope=\"col\">{}</th>", esc(c));
    }
    out.push_str("</tr></thead><tbody>");
}

/// The summary table's row of set `s`.
#[cfg(not(target_arch = "wasm32"))]
fn summary_row(lang: Lang, out: &mut String, s: &crate::catalog::accuracy_schema::SetAccuracy) {
    use crate::i18n::tf;
    let logo_goal = s.goal_logo.map(|g| format!(" (LOGO ≤ {})", goal(lang, g))).unwrap_or_default();
    let met = meets(s.lofo, s.goal, true)
        && meets(s.loso, s.goal, true)
        && s.goal_logo.is_none_or(|g| meets(s.logo, g, true))
        && meets(s.in_band, IN_BAND_GOAL, false);
    let cells = [
        s.rows.to_string(),
        s.sources.to_string(),
        pct(lang, s.in_sample),
        checked(lang, s.lofo, s.goal, true),
        checked(lang, s.loso, s.goal, true),
        s.goal_logo.map_or_else(|| pct(lang, s.logo), |g| checked(lang, s.logo, g, true)),
        checked(lang, s.in_band, IN_BAND_GOAL, false),
        esc(&tf(lang, "≤ {goal}{logo}, ≥ {band} in band", &[("goal", &goal(lang, s.goal)), ("logo", &logo_goal), ("band", &goal(lang, IN_BAND_GOAL))])),
        format!(
            "<span class=\"accuracy-view__met{}\">{}</span>",
            if met { "" } else { " accuracy-view__met--no" },
            esc(if met { t(lang, "✓ met") } else { t(lang, "✗ not met") })
        ),
    ];
    // The row names its set for tests and styles.
    row(out, &format!("<tr data-set=\"{}\">", esc(&s.id)), Some(crate::present::set_name(lang, &s.id)), &cells);
}

/// Set `s`'s five worst held-out rows, with their sources linked.
#[cfg(not(target_arch = "wasm32"))]
fn worst_rows(lang: Lang, out: &mut String, s: &crate::catalog::accuracy_schema::SetAccuracy) {
    use crate::i18n::num;
    use std::fmt::Write;
    let value = |x: f64| num(lang, x, if x.abs() >= 100.0 { 0 } else { 2 });
    let _ = write!(
        out,
        "<section class=\"accuracy-view__set\" data-set=\"{}\"><h4 class=\"accuracy-view__set-title\">{}</h4><div class=\"accuracy-view__scroll\"><table class=\"accuracy-view__table\">",
        esc(&s.id),
        esc(crate::present::set_name(lang, &s.id))
    );
    head(out, &[t(lang, "Row"), t(lang, "Source"), t(lang, "Measured"), t(lang, "Held-out estimate"), t(lang, "Error")]);
    for w in &s.worst {
        let error = w.model / w.measured - 1.0;
        let error = if error.is_finite() { format!("{}{}%", if error > 0.0 { "+" } else { "−" }, num(lang, error.abs() * 100.0, 0)) } else { "—".into() };
        let source = match source_href(&w.source) {
            Some(href) => format!("<a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\">{}</a>", esc(&href), esc(&w.source)),
            None => esc(&w.source),
        };
        row(out, "<tr>", None, &[esc(&w.label), source, value(w.measured), value(w.model), error]);
    }
    out.push_str("</tbody></table></div></section>");
}

/// The page's tables in `lang`, as HTML (every value from the file escaped): what the
/// accuracy harness measures, the summary table, and each set's worst rows.
#[cfg(not(target_arch = "wasm32"))]
pub fn render(lang: Lang, sets: &[crate::catalog::accuracy_schema::SetAccuracy]) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "<p class=\"accuracy-view__about\">{}</p><div class=\"accuracy-view__scroll\"><table class=\"accuracy-view__table accuracy-view__summary\"><caption>{}</caption>",
        esc(t(lang, "Each figure is the median error, |estimate ÷ measured − 1|, of published measurements the engine was not fitted to: its constants are refitted without the row's GPU family (leave one family out, LOFO), without its source (leave one source out, LOSO) or without its hardware generation (leave one generation out, LOGO). “In band, out of fold” is the share of those held-out rows inside the band (10th to 90th percentile of measured ÷ estimate) that the other sources set. Everything here is reproduced by make accuracy.")),
        esc(t(lang, "Median error of held-out rows, by set")),
    );
    head(
        &mut out,
        &[
            t(lang, "Set"),
            t(lang, "Rows"),
            t(lang, "Sources"),
            t(lang, "In-sample"),
            t(lang, "Leave one family out"),
            t(lang, "Leave one source out"),
            t(lang, "Leave one generation out"),
            t(lang, "In band, out of fold"),
            t(lang, "Goal"),
            t(lang, "Met"),
        ],
    );
    for s in sets {
        summary_row(lang, &mut out, s);
    }
    out.push_str("</tbody></table></div>");
    let _ = write!(out, "<h3 class=\"accuracy-view__sub\">{}</h3>", esc(t(lang, "The five worst held-out rows of each set")));
    for s in sets {
        worst_rows(lang, &mut out, s);
    }
    out
}

/// Where a row's source can be read: its URL, or for "github owner/repo path @commit" the file at
/// that commit (the repository when either is missing); None for anything else.
#[cfg(not(target_arch = "wasm32"))]
pub fn source_href(source: &str) -> Option<String> {
    let mut words = source.split_whitespace();
    let first = words.next()?;
    if first != "github" {
        return (first.starts_with("https://") || first.starts_with("http://")).then(|| first.to_string());
    }
    let repo = words.next().filter(|r| r.split('/').count() == 2 && r.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c) || c == '/'))?;
    let path = words.next().filter(|p| !p.starts_with(['@', '(']));
    let commit = source.split_whitespace().find_map(|w| w.strip_prefix('@')).filter(|c| !c.is_empty() && c.chars().all(|c| c.is_ascii_hexdigit()));
    Some(match (path, commit) {
        (Some(p), Some(c)) => format!("https://github.com/{repo}/blob/{c}/{p}"),
        _ => format!("https://github.com/{repo}"),
    })
}
