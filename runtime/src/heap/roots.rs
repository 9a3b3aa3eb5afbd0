//! Root sources: where the collector starts marking.
//!
//! A root source hands the collector candidate words. The collector keeps a
//! word only if it is exactly the address of a tracked object, so a source
//! may be *conservative* (any machine words, e.g. interpreter slots or, in
//! the compiled tiers, the words of native stack frames) or *precise* (only
//! words known to hold references, e.g. ref-typed globals). New kinds of
//! roots (JIT frames, host handles) are added by implementing
//! [`RootSource`] and passing them to [`super::Heap::collect`].

use waddle_opt::abi::Word;
use waddle_opt::ir::Type;

/// Something that can enumerate words that may reference heap objects.
pub trait RootSource {
    /// Calls `visit` with every candidate root word.
    fn visit_roots(&self, visit: &mut dyn FnMut(Word));
}

/// A slice of words scanned conservatively (interpreter frame slots,
/// arguments of a host call).
pub struct Conservative<'a>(pub &'a [Word]);

impl RootSource for Conservative<'_> {
    fn visit_roots(&self, visit: &mut dyn FnMut(Word)) {
        self.0.iter().for_each(|&w| visit(w));
    }
}

/// A typed area of words (the globals) scanned precisely: only words whose
/// type is a reference type are roots.
pub struct Typed<'a> {
    /// The words.
    pub words: &'a [Word],
    /// The type of each word (same length as `words`).
    pub types: &'a [Type],
}

impl RootSource for Typed<'_> {
    fn visit_roots(&self, visit: &mut dyn FnMut(Word)) {
        for (&w, t) in self.words.iter().zip(self.types) {
            if t.is_ref() {
                visit(w);
            }
        }
    }
}
