//! "What to add" to the cards the user owns, and the mixed build's estimate: two short lists of
//! sentences beside the ranking, shown only when the `owned` or `mix` input is set. The engine
//! work is [`crate::recommend::owned::what_to_add`] and [`crate::model::llm::mixed`]; the words
//! come from `present` and the estimate's own notes.

use crate::catalog;
use crate::i18n::{t, tf};
use crate::present::{self, InLang};
use crate::recommend::{Job, RecommendInput};
use crate::ui::lang::use_lang;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct OwnedListProps {
    pub input: Rc<RecommendInput>,
}

fn cards(list: &[(String, u32)]) -> Vec<(&'static catalog::Gpu, u32)> {
    list.iter().filter_map(|(id, n)| catalog::gpu(id).map(|g| (g, *n))).collect()
}

/// The owned-cards answers and the mixed build.
#[function_component(OwnedList)]
pub fn owned_list(props: &OwnedListProps) -> Html {
    let lang = use_lang();
    let input = &props.input;
    let adds = use_memo(input.clone(), |i| {
        if i.owned.is_empty() { Ok(Vec::new()) } else { crate::recommend::owned::what_to_add(i, &cards(&i.owned), catalog::gpus()) }
    });
    let mixed = use_memo(input.clone(), |i| match &i.job {
        Job::Llm(j) if !i.mix.is_empty() => Some(crate::model::llm::mixed::estimate_mixed(j, &cards(&i.mix))),
        _ => None,
    });
    html! {
        <>
            if !input.owned.is_empty() {
                <section class="owned-list">
                    <h3 class="owned-list__title">{ t(lang, "What to add to the cards you own") }</h3>
                    { match &*adds {
                        Ok(list) if list.is_empty() => html! { <p>{ t(lang, "No addition of up to 4 cards of one kind holds the job.") }</p> },
                        Ok(list) => html! { <ol class="owned-list__items">{ for list.iter().map(|a| html! {
                            <li>{ for present::owned_reasons(a, input, lang).into_iter().map(|r| html! { <p class="owned-list__reason">{ r }</p> }) }</li>
                        }) }</ol> },
                        Err(e) => html! { <p role="alert">{ e.note().in_lang(lang) }</p> },
                    } }
                </section>
            }
            if let Some(m) = &*mixed {
                <section class="owned-list">
                    <h3 class="owned-list__title">{ t(lang, "Mixed build") }</h3>
                    { match m {
                        Ok(e) => html! { <>
                            <p>{ tf(lang, "{fits}; the busiest card holds {gib} GiB; {speed} tokens/s", &[
                                ("fits", t(lang, if e.fits { "fits" } else { "does not fit" })),
                                ("gib", &crate::i18n::num(lang, e.per_gpu_gib, 1)),
                                ("speed", &present::speed(lang, e.throughput.decode_tokens_per_s.map_or(0.0, |b| b.mid))),
                            ]) }</p>
                            <ul class="owned-list__items">{ for e.assumptions.iter().map(|n| html! { <li>{ n.in_lang(lang) }</li> }) }</ul>
                        </> },
                        Err(e) => html! { <p role="alert">{ e.note().in_lang(lang) }</p> },
                    } }
                </section>
            }
        </>
    }
}
