//! An engine note ([`Note`]) in the interface language: its template, and each nested note's,
//! looked up in the translation table and filled with its values. In English this is the note's
//! own text ([`Note::text`]), which the engine writes without the table.

use crate::i18n::{t, Lang};
use crate::model::{Note, Translate};

impl Translate for Lang {
    fn translate(&self, template: &'static str) -> &'static str {
        t(*self, template)
    }
}

/// A note written in an interface language.
pub trait InLang {
    /// The note in `lang`.
    fn in_lang(&self, lang: Lang) -> String;
}

impl InLang for Note {
    fn in_lang(&self, lang: Lang) -> String {
        self.render(Some(&lang))
    }
}
