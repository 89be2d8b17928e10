//! Content that the app's start leaves for a task of its own, so that the start's tasks stay short
//! (issue 13: long tasks during load): the advisor's form (the app is still hidden behind the
//! static shell then), what is below the first screen (the charts under the ranked options) and
//! what is never painted (the model field's preset list). Each renders one task after it would
//! have; once the app has started, at once.

use crate::ui::dom;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AfterStartProps {
    pub children: Html,
}

/// Renders its children at once after the start; during it, one task later.
#[function_component(AfterStart)]
pub fn after_start(props: &AfterStartProps) -> Html {
    let ready = use_state(dom::revealed);
    {
        let ready = ready.clone();
        use_effect_with((), move |_| {
            if !*ready {
                crate::ui::later(move || ready.set(true));
            }
        });
    }
    if *ready {
        props.children.clone()
    } else {
        Html::default()
    }
}
