//! The top options as cards: card × count, a fit bar against capacity, the speed (for LLM
//! serving: per user and in total side by side, with the time to first token), cost figures, the
//! reasons, and an expandable "how this was computed" for every number. Below them, the why-not
//! notes for popular cards that were left out. Reasons and notes are the recommender's facts,
//! written out here in the interface language.

use crate::i18n::{num, t, tf, Lang};
use crate::model::Band;
use crate::present::{self, Money};
use crate::recommend::{OptionRow, RateKind, RecommendInput};
use crate::ui::components::after_start::AfterStart;
use crate::ui::components::explain_details::ExplainDetails;
use crate::ui::components::memory_bar::MemoryBar;
use crate::ui::components::pick_strip::pick_strip;
use crate::ui::lang::use_lang;
use std::rc::Rc;
use crate::ui::result_props::ResultProps;
use yew::prelude::*;

/// A band as `mid (low–high)`.
fn band_text(lang: Lang, b: Band) -> String {
    format!("{} ({}–{})", present::speed(lang, b.mid), present::speed(lang, b.low), present::speed(lang, b.high))
}

/// Per-user speed, total speed and time to first token of an LLM serving option.
fn serving_figures(lang: Lang, o: &OptionRow) -> Html {
    let Some(s) = &o.serving else { return html! {} };
    let r = &s.report;
    let users = r.users.round().max(1.0);
    let tokens = t(lang, "tokens/s");
    let total = tf(lang, "{speed} {unit} · {users}", &[("speed", &band_text(lang, r.aggregate_tokens_per_s)), ("unit", tokens), ("users", &crate::i18n::users(lang, users as u64))]);
    html! {
        <>
            <dt>{ t(lang, "Per user") }</dt>
            <dd class="recommend-list__speed recommend-list__per-user" data-mid={crate::decimal::fixed(r.per_user_tokens_per_s.mid, 3)}>
                { format!("{} {}", band_text(lang, r.per_user_tokens_per_s), tokens) }
            </dd>
            <dt>{ t(lang, "Total") }</dt>
            <dd class="recommend-list__total" data-mid={crate::decimal::fixed(r.aggregate_tokens_per_s.mid, 3)}>{ total }</dd>
            <dt>{ t(lang, "First token") }</dt>
            <dd class="recommend-list__ttft">{ r.ttft_s.map_or_else(|| t(lang, "unbounded").to_string(), |b| format!("{} {}", present::seconds(lang, b.mid), t(lang, "s"))) }</dd>
            if let Some(m) = r.max_users {
                <dt>{ t(lang, "Users within the target") }</dt><dd class="recommend-list__max-users">{ m.to_string() }</dd>
            }
        </>
    }
}

/// The cost per unit of work, after what the option's rate counts: (label, USD). Images are
/// priced per thousand, tokens and samples per million.
fn unit_cost(lang: Lang, kind: Option<RateKind>, usd_per_million: f64) -> (&'static str, f64) {
    match kind {
        Some(RateKind::Images) => (t(lang, "Per 1,000 images"), usd_per_million / 1000.0),
        Some(RateKind::Videos) => (t(lang, "Per 1,000 videos"), usd_per_million / 1000.0),
        Some(RateKind::Samples) => (t(lang, "Per million samples"), usd_per_million),
        _ => (t(lang, "Per million tokens"), usd_per_million),
    }
}

/// The option's speed, as its rate counts: seconds per image or video, else items per second.
fn speed_text(lang: Lang, o: &OptionRow) -> Option<String> {
    o.rate.map(|(b, kind)| {
        if let Some(per) = kind.per_item().filter(|_| b.low > 0.0) {
            // Seconds per image or video, as people time generation.
            let s = b.recip();
            let d = if s.mid >= 10.0 { 0 } else { 1 };
            return format!("{} ({}–{}) {} {}", num(lang, s.mid, d), num(lang, s.low, d), num(lang, s.high, d), t(lang, "s"), t(lang, per));
        }
        let d = if b.mid >= 100.0 { 0 } else if b.mid >= 10.0 { 1 } else { 2 };
        format!("{} ({}–{}) {}", num(lang, b.mid, d), num(lang, b.low, d), num(lang, b.high, d), t(lang, kind.unit()))
    })
}

/// The option's figures: speed (or the serving figures), purchase and rent, total cost, cost per
/// unit of work, time to train, and when buying beats renting.
fn figures(lang: Lang, o: &OptionRow, input: &RecommendInput) -> Html {
    let money = |usd: f64| input.cost.money_in(lang, usd);
    html! {
        <dl class="recommend-list__figures">
            if o.serving.is_some() {
                { serving_figures(lang, o) }
            } else if let Some(s) = speed_text(lang, o) {
                <dt>{ t(lang, "Speed") }</dt><dd class="recommend-list__speed">{ s }</dd>
            }
            if let Some(p) = &o.cost.purchase {
                <dt>{ t(lang, "Purchase") }</dt><dd class="recommend-list__purchase">{ money(p.total_usd) }</dd>
            }
            if let Some(h) = o.cost.rent_hourly_usd {
                <dt>{ t(lang, "Rent per hour") }</dt><dd>{ money(h) }</dd>
            }
            <dt>{ t(lang, "Total cost") }</dt><dd>{ money(o.tco_usd) }</dd>
            if let Some((label, usd)) = o.usd_per_million.map(|m| unit_cost(lang, o.rate.map(|(_, k)| k), m)) {
                <dt>{ label }</dt><dd>{ money(usd) }</dd>
            }
            if let Some(h) = o.training_hours {
                <dt>{ t(lang, "Time to train") }</dt><dd>{ tf(lang, "{n} h", &[("n", &num(lang, h, 1))]) }</dd>
            }
            if let Some(m) = o.cost.break_even_month {
                <dt>{ t(lang, "Buying beats renting after") }</dt><dd>{ tf(lang, "{n} months", &[("n", &num(lang, m, 1))]) }</dd>
            }
        </dl>
    }
}

/// Option `i` (0 is the top one): card × count, the fit, the figures, the reasons and how they
/// were computed.
fn option(lang: Lang, i: usize, o: &OptionRow, input: &RecommendInput) -> Html {
    let e = &o.estimate;
    html! {
        <li class={classes!("recommend-list__option", (i == 0).then_some("recommend-list__option--top"))} key={i}
            data-gpu={o.gpu.clone()} data-count={o.count.to_string()}>
            <div class="recommend-list__head">
                <span class="recommend-list__rank">{ format!("#{}", i + 1) }</span>
                <h3 class="recommend-list__name">{ format!("{} × {}", o.gpu_name, o.count) }</h3>
                if o.nodes > 1 {
                    <span class="recommend-list__badge">{ tf(lang, "{n} nodes", &[("n", &o.nodes.to_string())]) }</span>
                }
            </div>
            <MemoryBar memory={e.memory} per_gpu_gib={e.per_gpu_gib} capacity_gib={o.capacity_gib} />
            <p class="recommend-list__fit">{ tf(lang, "{used} of {capacity} GiB per card", &[("used", &num(lang, e.per_gpu_gib, 1)), ("capacity", &num(lang, o.capacity_gib, 0))]) }</p>
            { figures(lang, o, input) }
            <ul class="recommend-list__reasons">
                { for present::reasons(o, input, lang).into_iter().map(|r| html! { <li>{ r }</li> }) }
            </ul>
            // First how far off the headline figure was on held-out measurements, then the assumptions.
            <ExplainDetails explain={Rc::new(present::explain(o, input))} assumptions={Rc::new(present::held_out(o, input).into_iter().chain(e.assumptions.iter().cloned()).collect())} />
        </li>
    }
}

/// How many options render in the task that ranks an input: those a 1280 × 900 window shows
/// (two rows of two; the third row starts below 1,280 px). The rest, and the why-not notes,
/// render from the result painted before until the answer has painted (`ResultProps::painted`),
/// then from the new one.
const FIRST_OPTIONS: usize = 4;

/// The ranked options.
#[function_component(RecommendList)]
pub fn recommend_list(props: &ResultProps) -> Html {
    let lang = use_lang();
    let rec = &props.rec;
    let input = &props.input;
    let (later_rec, later_input) = props.painted.as_ref().map_or((rec, input), |(r, i)| (r, i));
    // The first options from this result, the rest from the one painted (`ResultProps::painted`);
    // none when this result has no more.
    let rest = later_rec.options.iter().skip(FIRST_OPTIONS).take(if rec.options.len() > FIRST_OPTIONS { usize::MAX } else { 0 });
    let options = rec.options.iter().take(FIRST_OPTIONS).map(|o| (o, input)).chain(rest.map(|o| (o, later_input)));
    html! {
        <section class="recommend-list" aria-labelledby="recommend-title">
            <h2 class="recommend-list__title" id="recommend-title">{ t(lang, "Best options") }</h2>
            if !rec.notes.is_empty() {
                <ul class="recommend-list__notes">
                    { for rec.notes.iter().map(|n| html! { <li>{ present::note(n, input, lang) }</li> }) }
                </ul>
            }
            { pick_strip(lang, rec, input) }
            if rec.options.is_empty() {
                <p class="recommend-list__empty">{ t(lang, "No card fits within these limits. Raise the budget or relax a constraint; the why-not list says what stopped each card.") }</p>
            }
            <ol class="recommend-list__options">
                // During the app's start the options after the first and the why-not list render
                // in tasks of their own, one option each, still behind the static shell (no long
                // task).
                { for options.enumerate().map(|(i, (o, input))| match i {
                    0 => option(lang, 0, o, input),
                    _ => html! { <AfterStart key={i} below={i >= FIRST_OPTIONS}>{ option(lang, i, o, input) }</AfterStart> },
                }) }
            </ol>
            <AfterStart below=true>
                if !later_rec.why_not.is_empty() {
                    <h3 class="recommend-list__sub">{ t(lang, "Why not…") }</h3>
                    <ul class="recommend-list__why-not">
                        { for later_rec.why_not.iter().map(|w| html! { <li>{ present::why_not(w, later_input, lang) }</li> }) }
                    </ul>
                }
            </AfterStart>
        </section>
    }
}
