//! The three picks: the cheapest build that meets the question, the best value (throughput per
//! dollar of TCO) and the fastest within the budget, whatever the ranking's objective. A build
//! that wins two roles shows once, with both. Each names its card and count, its speed (per user
//! and in total when it serves many) and its price. Wide screens show them above the ranked
//! options; narrow ones (phones, blog embeds), where the inputs come first, at the very top.

use crate::i18n::{t, Lang};
use crate::present;
use crate::recommend::{PickRole, RecommendInput, Recommendation};
use yew::prelude::*;

/// A role's label, the same words as the ranking's objectives.
fn role_label(lang: Lang, role: PickRole) -> &'static str {
    t(
        lang,
        match role {
            PickRole::Cheapest => "Cheapest that fits",
            PickRole::Value => "Throughput per dollar",
            PickRole::Fastest => "Fastest within budget",
        },
    )
}

/// The picks, or a line saying no build is feasible (the list below says why). A function, not
/// a component: it re-renders with the result that holds it.
pub fn pick_strip(lang: Lang, rec: &Recommendation, input: &RecommendInput) -> Html {
    if rec.picks.is_empty() {
        return html! { <p class="pick-strip pick-strip--none" role="status">{ t(lang, "No card fits within these limits.") }</p> };
    }
    html! {
        <ul class="pick-strip" aria-label={t(lang, "The cheapest, the best value and the fastest")}>
            { for rec.picks().enumerate().map(|(i, (roles, o))| {
                let roles: Vec<&str> = roles.iter().map(|r| role_label(lang, *r)).collect();
                let speed = present::headline_speed(lang, o);
                html! {
                    <li class="pick-strip__pick" key={i} data-gpu={o.gpu.clone()} data-count={o.count.to_string()}>
                        <span class="pick-strip__role">{ roles.join(" · ") }</span>
                        <strong class="pick-strip__name">{ format!("{} × {}", crate::recommend::rank::short_name_of(&o.gpu_name), o.count) }</strong>
                        if !speed.is_empty() {
                            <span class="pick-strip__speed">{ speed }</span>
                        }
                        if let Some(price) = present::headline_price(lang, o, input) {
                            <span class="pick-strip__price">{ price }</span>
                        }
                    </li>
                }
            }) }
        </ul>
    }
}
