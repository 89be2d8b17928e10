//! The compare view's "for your job" block: each compared card on the advisor's current job —
//! whether it fits, how many cards, one user's speed, and the cost per million units (or seconds
//! per image). The figures come from [`crate::compare::job_row`].

use crate::catalog::Gpu;
use crate::compare::{job_row, JobRow};
use crate::i18n::{t, tf, Lang};
use crate::recommend::cost::CostSettings;
use crate::present::{seconds, speed, Money};
use crate::state::advisor::AdvisorInputs;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CompareJobProps {
    pub gpus: Vec<&'static Gpu>,
    pub advisor: std::rc::Rc<AdvisorInputs>,
    pub cost: CostSettings,
}

/// One row of the block: a label and one cell per card.
fn row(key: &'static str, label: String, cells: impl Iterator<Item = String>) -> Html {
    html! {
        <tr class="compare-job__row" data-row={key}>
            <th scope="row" class="compare-job__field">{ label }</th>
            { for cells.map(|c| html! { <td class="compare-job__value">{ c }</td> }) }
        </tr>
    }
}

fn rows(lang: Lang, data: &[JobRow], cost: &CostSettings) -> Html {
    let dash = || "—".to_string();
    let mut out = vec![
        row("fits", t(lang, "Fits").into(), data.iter().map(|r| t(lang, if r.gpus.is_some() { "yes" } else { "no" }).into())),
        row("gpus", t(lang, "GPUs needed").into(), data.iter().map(|r| r.gpus.map_or_else(dash, |n| n.to_string()))),
    ];
    if data.iter().any(|r| r.tokens_per_s_per_user.is_some()) {
        let label = tf(lang, "Speed per user, {unit}", &[("unit", t(lang, "tokens/s"))]);
        out.push(row("speed", label, data.iter().map(|r| r.tokens_per_s_per_user.map_or_else(dash, |v| speed(lang, v)))));
    }
    if data.iter().any(|r| r.seconds_per_image.is_some()) {
        out.push(row("seconds", t(lang, "Seconds per image").into(), data.iter().map(|r| r.seconds_per_image.map_or_else(dash, |v| seconds(lang, v)))));
    } else if let Some(k) = data.iter().find_map(|r| r.kind) {
        let label = tf(lang, "Cost per million {what}", &[("what", t(lang, k.noun()))]);
        out.push(row("cost", label, data.iter().map(|r| r.usd_per_million.map_or_else(dash, |v| cost.money_in(lang, v)))));
    }
    out.into_iter().collect()
}

/// The "for your job" block.
#[function_component(CompareJob)]
pub fn compare_job(props: &CompareJobProps) -> Html {
    let lang = use_lang();
    let body = match props.advisor.recommend_input() {
        Err(_) => html! { <p class="compare-job__hint">{ t(lang, "Some advisor inputs are invalid; fix them in the advisor to compare these cards on your job.") }</p> },
        Ok(input) => {
            let data: Vec<JobRow> = props.gpus.iter().map(|g| job_row(&input, g)).collect();
            html! {
                <table class="compare-job__table">
                    <thead><tr>
                        <th scope="col" class="compare-job__corner">{ tf(lang, "Job: {model}", &[("model", props.advisor.get(crate::state::advisor::Field::Model))]) }</th>
                        { for props.gpus.iter().map(|g| html! { <th scope="col" class="compare-job__card" data-gpu={g.id.clone()}>{ crate::recommend::rank::short_name(g) }</th> }) }
                    </tr></thead>
                    <tbody>{ rows(lang, &data, &props.cost) }</tbody>
                </table>
            }
        }
    };
    html! {
        <section class="compare-job" aria-labelledby="compare-job-title">
            <h2 class="compare-job__title" id="compare-job-title">{ t(lang, "For your job") }</h2>
            { body }
        </section>
    }
}
