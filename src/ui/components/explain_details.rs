//! "How this was computed" for one option: the formulas with their values, the held-out error of
//! its headline figure, and the engine's assumptions. They are written out only when it is
//! opened, which keeps re-ranking cheap.

use crate::i18n::{t, Lang};
use crate::present::{self, InLang};
use crate::ui::lang::use_lang;
use crate::ui::result_props::OptionProps;
use yew::prelude::*;

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

/// A disclosure that renders its content on first open.
#[function_component(ExplainDetails)]
pub fn explain_details(props: &OptionProps) -> Html {
    let lang = use_lang();
    let open = use_state(|| false);
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| open.set(e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open()))
    };
    html! {
        <details class="recommend-list__explain" {ontoggle}>
            <summary>{ t(lang, "How this was computed") }</summary>
            if let (true, Some(o)) = (*open, props.rec.options.get(props.index)) {
                <dl class="recommend-list__formulas">
                    { for present::explain(o, &props.input).iter().map(|x| html! { <><dt>{ label(lang, x.label) }</dt><dd><code>{ &x.formula }</code></dd></> }) }
                </dl>
                <ul class="recommend-list__assumptions">
                    // First how far off the headline figure was on held-out measurements, then the assumptions.
                    { for present::held_out(o, &props.input).iter().chain(&o.estimate.assumptions).map(|a| html! { <li>{ a.in_lang(lang) }</li> }) }
                </ul>
            }
        </details>
    }
}
