//! The top options, each a card ([`OptionCard`]: card × count, fit, speed, costs, reasons and an
//! expandable "how this was computed" for every number), the result's notes and the picks above
//! them, and below them the why-not notes for popular cards that were left out. Reasons and notes
//! are the recommender's facts, written out here in the interface language.

use crate::i18n::t;
use crate::present;
use crate::ui::components::after_start::AfterStart;
use crate::ui::components::option_card::OptionCard;
use crate::ui::components::pick_strip::pick_strip;
use crate::ui::lang::use_lang;
use crate::ui::result_props::ResultProps;
use yew::prelude::*;

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
    let options = rec.options.iter().take(FIRST_OPTIONS).map(|_| (rec.clone(), input.clone())).chain(rest.map(|_| (later_rec.clone(), later_input.clone())));
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
                { for options.enumerate().map(|(i, (rec, input))| match i {
                    0 => html! { <OptionCard key={i} {rec} {input} index={i} /> },
                    _ => html! { <AfterStart key={i} below={i >= FIRST_OPTIONS}><OptionCard {rec} {input} index={i} /></AfterStart> },
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
