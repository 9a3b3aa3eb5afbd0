//! The types of Waddle values as the embedding API reports them
//! ([`ValType`], [`FuncType`]), so that no IR type appears in the public
//! API: they wrap the IR's types without exposing them.

use std::fmt;

use waddle_opt::ir::{Signature, Type};

/// The type of a Waddle value (docs/language.md, "Types"): `void`, `int`,
/// `float`, `bool`, `str` or an array of one of them (`[int]`, `[[str]]`,
/// ...). Displays as the source spells it.
///
/// ```
/// use waddle::ValType;
/// let matrix = ValType::FLOAT.array_of().and_then(ValType::array_of).unwrap();
/// assert_eq!(matrix.to_string(), "[[float]]");
/// assert_eq!(matrix.element().and_then(ValType::element), Some(ValType::FLOAT));
/// assert!(matrix.is_array() && !ValType::STR.is_array());
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct ValType(pub(crate) Type);

impl ValType {
    /// `void`: the result of a function that returns nothing.
    pub const VOID: ValType = ValType(Type::Unit);
    /// `int`: 64-bit two's complement (`i64`).
    pub const INT: ValType = ValType(Type::Int);
    /// `float`: IEEE-754 binary64 (`f64`).
    pub const FLOAT: ValType = ValType(Type::Float);
    /// `bool`.
    pub const BOOL: ValType = ValType(Type::Bool);
    /// `str`: an immutable UTF-8 string.
    pub const STR: ValType = ValType(Type::Str);

    /// The array type with elements of this type; `None` for `void` and
    /// past the deepest nesting the language allows.
    pub fn array_of(self) -> Option<ValType> {
        self.0.array_of().map(ValType)
    }

    /// The element type of an array type; `None` for other types.
    pub fn element(self) -> Option<ValType> {
        self.0.element().map(ValType)
    }

    /// Whether this is an array type.
    pub fn is_array(self) -> bool {
        self.0.is_array()
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValType({})", self.0)
    }
}

/// A function's parameter and result types. Displays as
/// `(int, str) -> bool`, without the arrow for a `void` result.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub struct FuncType {
    /// Parameter types, in order.
    pub params: Vec<ValType>,
    /// Result type ([`ValType::VOID`] when the function returns nothing).
    pub result: ValType,
}

impl FuncType {
    /// The API form of an IR signature (crate-private: no IR type appears
    /// in the public API, not even in a `From` impl).
    pub(crate) fn of(sig: &Signature) -> FuncType {
        FuncType {
            params: sig.params.iter().map(|&t| ValType(t)).collect(),
            result: ValType(sig.ret),
        }
    }
}

impl fmt::Display for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        f.write_str(")")?;
        if self.result != ValType::VOID {
            write!(f, " -> {}", self.result)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_types_display_as_the_source_writes_them() {
        let sig = Signature {
            params: vec![Type::Int, Type::Str.array_of().unwrap()],
            ret: Type::Bool,
        };
        assert_eq!(FuncType::of(&sig).to_string(), "(int, [str]) -> bool");
        let void = Signature {
            params: vec![],
            ret: Type::Unit,
        };
        assert_eq!(FuncType::of(&void).to_string(), "()");
        assert_eq!(format!("{:?}", ValType::INT), "ValType(int)");
        assert_eq!(ValType::VOID.array_of(), None);
    }
}
