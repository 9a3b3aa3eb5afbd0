//! Types of Waddle IR values.
//!
//! Every array type is `[... [S] ...]` for a scalar element type `S` with some
//! nesting depth, so a type is a small `Copy` value with no interning.

use std::fmt;

/// The element type at the bottom of an array type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ScalarType {
    /// `bool`
    Bool,
    /// `int`
    Int,
    /// `float`
    Float,
    /// `str`
    Str,
}

/// The type of an IR value (and of a source-language expression).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// `void`: the result of instructions and functions that produce nothing.
    Unit,
    /// `bool`
    Bool,
    /// `int`: 64-bit two's-complement.
    Int,
    /// `float`: IEEE-754 binary64.
    Float,
    /// `str`: pointer to an immutable heap string.
    Str,
    /// `[T]`: pointer to a heap array; `depth` ≥ 1 levels of nesting around `elem`.
    Array {
        /// Innermost element type.
        elem: ScalarType,
        /// Nesting depth, at least 1 (`[int]` has depth 1, `[[int]]` depth 2).
        depth: u8,
    },
}

impl Type {
    /// Deepest array nesting that the type representation supports.
    pub const MAX_ARRAY_DEPTH: u8 = 64;

    /// The array type whose elements have type `self`, or `None` for `void` or
    /// nesting deeper than [`Type::MAX_ARRAY_DEPTH`].
    pub fn array_of(self) -> Option<Type> {
        let (elem, depth) = match self {
            Type::Unit => return None,
            Type::Bool => (ScalarType::Bool, 0),
            Type::Int => (ScalarType::Int, 0),
            Type::Float => (ScalarType::Float, 0),
            Type::Str => (ScalarType::Str, 0),
            Type::Array { elem, depth } => (elem, depth),
        };
        if depth >= Self::MAX_ARRAY_DEPTH {
            return None;
        }
        Some(Type::Array {
            elem,
            depth: depth + 1,
        })
    }

    /// The element type of an array type, `None` for non-arrays.
    pub fn element(self) -> Option<Type> {
        match self {
            Type::Array { elem, depth: 1 } => Some(Type::from(elem)),
            Type::Array { elem, depth } => Some(Type::Array {
                elem,
                depth: depth - 1,
            }),
            _ => None,
        }
    }

    /// Whether values of this type are pointers to heap objects (GC references).
    pub fn is_ref(self) -> bool {
        matches!(self, Type::Str | Type::Array { .. })
    }

    /// Whether this is an array type.
    pub fn is_array(self) -> bool {
        matches!(self, Type::Array { .. })
    }
}

impl From<ScalarType> for Type {
    fn from(s: ScalarType) -> Type {
        match s {
            ScalarType::Bool => Type::Bool,
            ScalarType::Int => Type::Int,
            ScalarType::Float => Type::Float,
            ScalarType::Str => Type::Str,
        }
    }
}

impl fmt::Display for Type {
    /// Source-language spelling: `int`, `[float]`, `void`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Type::Unit => f.write_str("void"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Float => f.write_str("float"),
            Type::Str => f.write_str("str"),
            Type::Array { elem, depth } => {
                for _ in 0..depth {
                    f.write_str("[")?;
                }
                write!(f, "{}", Type::from(elem))?;
                for _ in 0..depth {
                    f.write_str("]")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_roundtrip() {
        let t = Type::Int.array_of().unwrap().array_of().unwrap();
        assert_eq!(t.to_string(), "[[int]]");
        assert_eq!(t.element().unwrap().element(), Some(Type::Int));
        assert_eq!(Type::Unit.array_of(), None);
        assert!(t.is_ref() && Type::Str.is_ref() && !Type::Float.is_ref());
    }
}
