//! The props of the components that show one recommendation (the options, the one-line best
//! option, the serving frontier): the result and the input it answers.

use crate::recommend::{RecommendInput, Recommendation};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct ResultProps {
    pub rec: Rc<Recommendation>,
    pub input: Rc<RecommendInput>,
}

/// The same result is the same allocation: comparing by pointer keeps a keystroke from walking
/// the whole recommendation (the results are recomputed, and re-rendered, after the paint).
impl PartialEq for ResultProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.rec, &other.rec) && Rc::ptr_eq(&self.input, &other.input)
    }
}
