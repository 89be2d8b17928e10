//! The props of the components that show one recommendation (the options, the one-line best
//! option, the serving frontier): the result and the input it answers.

use crate::recommend::{RecommendInput, Recommendation};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct ResultProps {
    pub rec: Rc<Recommendation>,
    pub input: Rc<RecommendInput>,
    /// The result painted before this one, once the frame showing this one's first options is on
    /// screen: the options list shows its options past the first ones from it (their own, the
    /// same allocation, once it is this result).
    #[prop_or_default]
    pub painted: Option<(Rc<Recommendation>, Rc<RecommendInput>)>,
}

/// The same result is the same allocation: comparing by pointer keeps a keystroke from walking
/// the whole recommendation (the results are recomputed, and re-rendered, after the paint).
impl PartialEq for ResultProps {
    fn eq(&self, other: &Self) -> bool {
        let painted = match (&self.painted, &other.painted) {
            (Some(a), Some(b)) => Rc::ptr_eq(&a.0, &b.0) && Rc::ptr_eq(&a.1, &b.1),
            (a, b) => a.is_none() && b.is_none(),
        };
        Rc::ptr_eq(&self.rec, &other.rec) && Rc::ptr_eq(&self.input, &other.input) && painted
    }
}
