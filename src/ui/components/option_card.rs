//! One ranked option as a card: card × count, a fit bar against capacity, the speed (for LLM
//! serving: per user and in total side by side, with the time to first token), cost figures, the
//! reasons, and "how this was computed" (the formulas with their values, the held-out error of
//! its headline figure, and the engine's assumptions, written out only once it is opened). A
//! component of its own, compared by the result it comes from: an input re-renders the options
//! whose result changed, and builds nothing for the rest.

use crate::i18n::{num, t, tf, Lang};
use crate::model::Band;
use crate::present::{self, InLang, Money};
use crate::recommend::{OptionRow, RateKind, RecommendInput};
use crate::ui::components::memory_bar::MemoryBar;
use crate::ui::lang::use_lang;
use crate::ui::result_props::OptionProps;
use yew::prelude::*;

/// A band as `mid (low–high)`.
fn band_text(lang: Lang, b: Band) -> String {
    format!("{} ({}–{})", present::speed(lang, b.mid), present::speed(lang, b.low), present::speed(lang, b.high))
}

/// One figure of the option's list: its label and its value, with the value's own class where
/// the page picks it out (one builder for every plain figure keeps the app's code small).
/// `mid`: the figure's mid value as a `data-mid` attribute, for the speeds.
fn figure(label: &'static str, class: Option<&'static str>, mid: Option<f64>, value: String) -> Html {
    html! { <><dt>{ label }</dt><dd class={class} data-mid={mid.map(|m| crate::decimal::fixed(m, 3))}>{ value }</dd></> }
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
            { figure(t(lang, "Per user"), Some("recommend-list__speed recommend-list__per-user"), Some(r.per_user_tokens_per_s.mid), format!("{} {}", band_text(lang, r.per_user_tokens_per_s), tokens)) }
            { figure(t(lang, "Total"), Some("recommend-list__total"), Some(r.aggregate_tokens_per_s.mid), total) }
            { figure(t(lang, "First token"), Some("recommend-list__ttft"), None, r.ttft_s.map_or_else(|| t(lang, "unbounded").to_string(), |b| format!("{} {}", present::seconds(lang, b.mid), t(lang, "s")))) }
            if let Some(m) = r.max_users {
                { figure(t(lang, "Users within the target"), Some("recommend-list__max-users"), None, m.to_string()) }
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
                { figure(t(lang, "Speed"), Some("recommend-list__speed"), None, s) }
            }
            if let Some(p) = &o.cost.purchase {
                { figure(t(lang, "Purchase"), Some("recommend-list__purchase"), None, money(p.total_usd)) }
            }
            if let Some(h) = o.cost.rent_hourly_usd {
                { figure(t(lang, "Rent per hour"), None, None, money(h)) }
            }
            { figure(t(lang, "Total cost"), None, None, money(o.tco_usd)) }
            if let Some((label, usd)) = o.usd_per_million.map(|m| unit_cost(lang, o.rate.map(|(_, k)| k), m)) {
                { figure(label, None, None, money(usd)) }
            }
            if let Some(h) = o.training_hours {
                { figure(t(lang, "Time to train"), None, None, tf(lang, "{n} h", &[("n", &num(lang, h, 1))])) }
            }
            if let Some(m) = o.cost.break_even_month {
                { figure(t(lang, "Buying beats renting after"), None, None, tf(lang, "{n} months", &[("n", &num(lang, m, 1))])) }
            }
        </dl>
    }
}

/// The heading of one formula: the engine's label ids (kept stable for `recommend --json`) in
/// words.
fn label(lang: Lang, id: &'static str) -> &'static str {
    match id {
        "headroom" => t(lang, "Headroom"),
        "purchase" => t(lang, "Purchase"),
        "hourly" => t(lang, "Rent per hour"),
        "energy" => t(lang, "Energy per month"),
        "tco" => t(lang, "Total cost"),
        "break_even" => t(lang, "Buying beats renting after"),
        "usd_per_million" => t(lang, "Cost per million"),
        "training_run" => t(lang, "Time to train"),
        "api_break_even" => t(lang, "API break-even"),
        other => other,
    }
}

/// "How this was computed": a disclosure whose body is written out only while `open`.
fn explain(lang: Lang, o: &OptionRow, input: &RecommendInput, open: &UseStateHandle<bool>) -> Html {
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| open.set(e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open()))
    };
    html! {
        <details class="recommend-list__explain" {ontoggle}>
            <summary>{ t(lang, "How this was computed") }</summary>
            if **open {
                <dl class="recommend-list__formulas">
                    { for present::explain(o, input).iter().map(|x| html! { <><dt>{ label(lang, x.label) }</dt><dd><code>{ &x.formula }</code></dd></> }) }
                </dl>
                <ul class="recommend-list__assumptions">
                    // First how far off the headline figure was on held-out measurements, then the assumptions.
                    { for present::held_out(o, input).iter().chain(&o.estimate.assumptions).map(|a| html! { <li>{ a.in_lang(lang) }</li> }) }
                </ul>
            }
        </details>
    }
}

/// Option `i` (0 is the top one): card × count, the fit, the figures, the reasons and how they
/// were computed.
fn option(lang: Lang, props: &OptionProps, o: &OptionRow, open: &UseStateHandle<bool>) -> Html {
    let (i, input) = (props.index, &*props.input);
    let e = &o.estimate;
    html! {
        <li class={classes!("recommend-list__option", (i == 0).then_some("recommend-list__option--top"))}
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
            { explain(lang, o, input, open) }
        </li>
    }
}

/// The option, or nothing when the result has no option at its place.
#[function_component(OptionCard)]
pub fn option_card(props: &OptionProps) -> Html {
    let lang = use_lang();
    let open = use_state(|| false);
    props.rec.options.get(props.index).map_or_else(Html::default, |o| option(lang, props, o, &open))
}
