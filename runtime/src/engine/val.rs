//! [`Val`]: Waddle values on the Rust side of the embedding API, and the
//! conversions used by typed calls ([`IntoVal`], [`FromVal`], [`Args`]).
//!
//! A `Val` owns its data (strings and arrays are copied across the
//! boundary), so it stays valid after the heap collects.

use std::fmt;

use waddle_opt::abi::{array_to_vec, str_bytes, Word};
use waddle_opt::ir::Type;

use crate::error::Error;
use crate::host::Runtime;
use crate::types::ValType;

/// A Waddle value owned by Rust code.
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub enum Val {
    /// The result of a `void` function.
    Unit,
    /// `int`
    Int(i64),
    /// `float`
    Float(f64),
    /// `bool`
    Bool(bool),
    /// `str`
    Str(String),
    /// `[T]` (elements all of one type).
    Array(Vec<Val>),
}

impl Val {
    /// Whether this value can be passed where `ty` is expected.
    ///
    /// ```
    /// use waddle::{Val, ValType};
    /// let xs = Val::Array(vec![Val::Int(1), Val::Int(2)]);
    /// assert!(xs.has_type(ValType::INT.array_of().unwrap()));
    /// assert!(!xs.has_type(ValType::FLOAT.array_of().unwrap()));
    /// ```
    pub fn has_type(&self, ty: ValType) -> bool {
        self.fits(ty.0)
    }

    /// [`Val::has_type`] on the IR's type.
    pub(crate) fn fits(&self, ty: Type) -> bool {
        match (self, ty) {
            (Val::Unit, Type::Unit)
            | (Val::Int(_), Type::Int)
            | (Val::Float(_), Type::Float)
            | (Val::Bool(_), Type::Bool)
            | (Val::Str(_), Type::Str) => true,
            (Val::Array(items), Type::Array { .. }) => {
                let elem = ty.element().unwrap_or(Type::Unit);
                items.iter().all(|v| v.fits(elem))
            }
            _ => false,
        }
    }

    /// A short description of the value's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Unit => "void",
            Val::Int(_) => "int",
            Val::Float(_) => "float",
            Val::Bool(_) => "bool",
            Val::Str(_) => "str",
            Val::Array(_) => "array",
        }
    }
}

impl fmt::Display for Val {
    /// The text `print` would write for the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn go(v: &Val, f: &mut fmt::Formatter<'_>, quoted: bool) -> fmt::Result {
            match v {
                Val::Unit => Ok(()),
                Val::Int(i) => write!(f, "{i}"),
                Val::Float(x) => write!(f, "{x:?}"),
                Val::Bool(b) => write!(f, "{b}"),
                Val::Str(s) if quoted => {
                    let mut out = Vec::new();
                    crate::format::write_escaped(&mut out, s.as_bytes());
                    f.write_str(&String::from_utf8_lossy(&out))
                }
                Val::Str(s) => f.write_str(s),
                Val::Array(items) => {
                    f.write_str("[")?;
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        go(item, f, true)?;
                    }
                    f.write_str("]")
                }
            }
        }
        go(self, f, false)
    }
}

/// Writes `v` into the heap as a word of type `ty` (allocating strings and
/// arrays). Words in `roots` stay alive across the allocations; the new
/// word is appended to `roots`.
pub(crate) fn to_word(
    rt: &mut Runtime,
    ty: Type,
    v: &Val,
    roots: &mut Vec<Word>,
) -> Result<Word, Error> {
    let w = match (v, ty) {
        (Val::Int(i), Type::Int) => *i as u64,
        (Val::Float(x), Type::Float) => x.to_bits(),
        (Val::Bool(b), Type::Bool) => *b as u64,
        (Val::Str(s), Type::Str) => rt.new_str(s.as_bytes(), roots).map_err(trap_error)?,
        (Val::Array(items), Type::Array { .. }) => {
            let elem = ty.element().unwrap_or(Type::Unit);
            let mark = roots.len();
            for item in items {
                to_word(rt, elem, item, roots)?;
            }
            let elems = roots.split_off(mark);
            rt.new_array(elem, &elems, roots).map_err(trap_error)?
        }
        _ => {
            return Err(Error::Signature(format!(
                "expected a value of type `{ty}`, found {}",
                v.kind()
            )))
        }
    };
    roots.push(w);
    Ok(w)
}

pub(crate) fn trap_error(code: waddle_opt::abi::TrapCode) -> Error {
    Error::Runtime(crate::error::RuntimeError::new(code, None))
}

/// Reads the word `w` of type `ty` into a [`Val`].
///
/// # Safety
/// For reference types `w` must be a live object of that type.
pub(crate) unsafe fn from_word(ty: Type, w: Word) -> Val {
    match ty {
        Type::Unit => Val::Unit,
        Type::Int => Val::Int(w as i64),
        Type::Float => Val::Float(f64::from_bits(w)),
        Type::Bool => Val::Bool(w != 0),
        // SAFETY: caller guarantees a live string.
        Type::Str => Val::Str(String::from_utf8_lossy(unsafe { str_bytes(w) }).into_owned()),
        Type::Array { .. } => {
            let elem = ty.element().unwrap_or(Type::Unit);
            // SAFETY: caller guarantees a live array whose elements have type `elem`.
            let elems = unsafe { array_to_vec(w) };
            Val::Array(
                elems
                    .into_iter()
                    // SAFETY: every element is a live value of type `elem`.
                    .map(|e| unsafe { from_word(elem, e) })
                    .collect(),
            )
        }
    }
}

/// Rust types that convert into a [`Val`].
pub trait IntoVal {
    /// The value.
    fn into_val(self) -> Val;
}

/// Rust types that can be read from a [`Val`].
pub trait FromVal: Sized {
    /// The Rust value, or `None` when `v` has another type.
    fn from_val(v: Val) -> Option<Self>;
}

macro_rules! scalar_conv {
    ($t:ty, $variant:ident) => {
        impl IntoVal for $t {
            fn into_val(self) -> Val {
                Val::$variant(self)
            }
        }
        impl FromVal for $t {
            fn from_val(v: Val) -> Option<Self> {
                match v {
                    Val::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
        impl From<$t> for Val {
            fn from(x: $t) -> Val {
                Val::$variant(x)
            }
        }
    };
}
scalar_conv!(i64, Int);
scalar_conv!(f64, Float);
scalar_conv!(bool, Bool);
scalar_conv!(String, Str);

impl IntoVal for &str {
    fn into_val(self) -> Val {
        Val::Str(self.to_string())
    }
}

impl IntoVal for Val {
    fn into_val(self) -> Val {
        self
    }
}

impl FromVal for Val {
    fn from_val(v: Val) -> Option<Self> {
        Some(v)
    }
}

impl FromVal for () {
    fn from_val(v: Val) -> Option<Self> {
        matches!(v, Val::Unit).then_some(())
    }
}

impl<T: IntoVal> IntoVal for Vec<T> {
    fn into_val(self) -> Val {
        Val::Array(self.into_iter().map(IntoVal::into_val).collect())
    }
}

impl<T: FromVal> FromVal for Vec<T> {
    fn from_val(v: Val) -> Option<Self> {
        match v {
            Val::Array(items) => items.into_iter().map(T::from_val).collect(),
            _ => None,
        }
    }
}

/// Argument lists of typed calls: tuples of [`IntoVal`] values.
pub trait Args {
    /// The arguments in order.
    fn into_vals(self) -> Vec<Val>;
}

macro_rules! tuple_args {
    ($($name:ident),*) => {
        impl<$($name: IntoVal),*> Args for ($($name,)*) {
            #[allow(non_snake_case)]
            fn into_vals(self) -> Vec<Val> {
                let ($($name,)*) = self;
                vec![$($name.into_val()),*]
            }
        }
    };
}
tuple_args!();
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);
