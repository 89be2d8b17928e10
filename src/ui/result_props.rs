//! The props of the components that show one recommendation (the options, the one-line best
//! option, the serving frontier): the result and the input it answers; and of one of its options
//! (the option's card).

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
        // No painted result is the same as this one painted.
        let painted = |p: &Self| p.painted.as_ref().map_or((Rc::as_ptr(&p.rec), Rc::as_ptr(&p.input)), |(r, i)| (Rc::as_ptr(r), Rc::as_ptr(i)));
        Rc::ptr_eq(&self.rec, &other.rec) && Rc::ptr_eq(&self.input, &other.input) && painted(self) == painted(other)
    }
}

/// The props of one option of a result (its card).
#[derive(Properties)]
pub struct OptionProps {
    /// The result the option is in, and the input it answers.
    pub rec: Rc<Recommendation>,
    pub input: Rc<RecommendInput>,
    /// Its place among the result's options (0 is the top one).
    pub index: usize,
}

/// The same result is the same allocation: compared by pointer, an unchanged option costs no
/// walk of its figures.
impl PartialEq for OptionProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.rec, &other.rec) && Rc::ptr_eq(&self.input, &other.input) && self.index == other.index
    }
}
