//! [`Name`]: the text of an identifier, stored inline when short.
//!
//! Every identifier token and every [`crate::ast::Ident`] holds one. A
//! `String` cost one allocation per occurrence (two per statement of a
//! generated `let vK = vJ * 3 + K;` program, a million of each at a million
//! statements) and a pointer chase, a likely cache miss, at each
//! comparison of names in the checker's scopes; a name of up to
//! [`INLINE`] bytes (every identifier of the corpus) lives in the node
//! itself, in the same 24 bytes as a `String`.

use std::fmt;
use std::ops::Deref;

/// The longest name stored inline.
pub const INLINE: usize = 22;

/// An identifier's text: inline up to [`INLINE`] bytes, else on the heap.
/// Reads as a `&str` ([`Deref`]); compares, hashes and prints as one.
#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    /// The first `len` bytes of `bytes` (valid UTF-8).
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A longer name.
    Heap(Box<str>),
}

impl Name {
    /// The name `s`.
    pub fn new(s: &str) -> Name {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Name(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            Name(Repr::Heap(s.into()))
        }
    }

    /// The text's bytes (without the UTF-8 check of [`Name::as_str`]).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..*len as usize],
            Repr::Heap(s) => s.as_bytes(),
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // A prefix of a `&str` that ends at the end of that string:
            // always valid UTF-8 (the crate forbids the unchecked
            // conversion; the check is a few instructions per byte).
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..*len as usize]).unwrap_or_default()
            }
            Repr::Heap(s) => s,
        }
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name::new(&s)
    }
}

impl From<&Name> for String {
    fn from(n: &Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::hash::Hash for Name {
    /// As `str` hashes (its bytes, then `0xff`), as [`std::borrow::Borrow`]
    /// requires, without the UTF-8 check.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write(self.as_bytes());
        state.write_u8(0xff);
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_names_read_back_and_compare_as_their_text() {
        for s in [
            "",
            "x",
            "v123456",
            "a_name_of_22_bytes_abc",
            "a_name_of_23_bytes_abcd",
            "ünï",
        ] {
            let n = Name::new(s);
            assert_eq!(n.as_str(), s);
            assert_eq!(&*n, s);
            assert_eq!(n, Name::from(s.to_string()));
            assert_eq!(format!("{n}"), s);
            assert_eq!(format!("{n:?}"), format!("{s:?}"));
        }
        assert!(matches!(
            Name::new("a_name_of_22_bytes_abc").0,
            Repr::Inline { .. }
        ));
        assert!(matches!(
            Name::new("a_name_of_23_bytes_abcd").0,
            Repr::Heap(_)
        ));
        assert_ne!(Name::new("ab"), Name::new("abc"));
        // Hashes as its text, so maps keyed by `Name` are read by `&str`.
        let h = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            x(&mut s);
            std::hash::Hasher::finish(&s)
        };
        use std::hash::Hash;
        for s in ["v1", "a_name_of_23_bytes_abcd"] {
            assert_eq!(h(&|st| Name::new(s).hash(st)), h(&|st| s.hash(st)));
        }
        assert_eq!(std::mem::size_of::<Name>(), std::mem::size_of::<String>());
    }
}
