//! The best option in one line at the top of the advisor on narrow screens (phones, blog
//! embeds), where the inputs come first: card × count, speed (per user and in total for LLM
//! serving), and its price, with a link down to the full option. Wide screens show the options
//! beside the inputs and hide it.

use crate::i18n::{num, t, tf};
use crate::present::{self, Money};
use crate::recommend::Mode;
use crate::ui::lang::use_lang;
use crate::ui::result_props::ResultProps;
use yew::prelude::*;

/// The line.
#[function_component(BestSummary)]
pub fn best_summary(props: &ResultProps) -> Html {
    let lang = use_lang();
    let Some(o) = props.rec.options.first() else {
        return html! {
            <p class="best-summary best-summary--none" role="status">{ t(lang, "No card fits within these limits.") }</p>
        };
    };
    let speed = match (&o.serving, o.rate) {
        (Some(s), _) if s.report.users <= 1.0 => tf(
            lang,
            "{speed} tokens/s for one user",
            &[(
                "speed",
                &present::speed(lang, s.report.per_user_tokens_per_s.mid),
            )],
        ),
        (Some(s), _) => tf(
            lang,
            "{per_user} tokens/s per user, {total} in total",
            &[
                (
                    "per_user",
                    &present::speed(lang, s.report.per_user_tokens_per_s.mid),
                ),
                (
                    "total",
                    &present::speed(lang, s.report.aggregate_tokens_per_s.mid),
                ),
            ],
        ),
        (None, Some((b, kind))) if b.mid > 0.0 && kind.per_item().is_some() => {
            format!(
                "{} {} {}",
                num(lang, 1.0 / b.mid, 1),
                t(lang, "s"),
                t(lang, kind.per_item().unwrap_or_default())
            )
        }
        (None, Some((b, kind))) => {
            format!("{} {}", present::speed(lang, b.mid), t(lang, kind.unit()))
        }
        (None, None) => String::new(),
    };
    let money = |usd: f64| props.input.cost.money_in(lang, usd);
    let price = match props.input.mode {
        Mode::Buy => o
            .purchase_usd()
            .map(|p| tf(lang, "{price} to buy", &[("price", &money(p))])),
        Mode::Rent => o
            .hourly_usd()
            .map(|h| tf(lang, "{price}/h to rent", &[("price", &money(h))])),
    };
    html! {
        <p class="best-summary" role="status" data-gpu={o.gpu.clone()} data-count={o.count.to_string()}>
            <span class="best-summary__label">{ t(lang, "Best:") }</span>
            <strong class="best-summary__name">{ format!("{} × {}", crate::recommend::rank::short_name_of(&o.gpu_name), o.count) }</strong>
            if !speed.is_empty() {
                <span class="best-summary__speed">{ speed }</span>
            }
            if let Some(p) = price {
                <span class="best-summary__price">{ p }</span>
            }
            <a class="best-summary__more" href="#recommend-title">{ t(lang, "details ↓") }</a>
        </p>
    }
}
