//! Value formatting: the text `print` and `str` produce (docs/language.md
//! "Printing" and detail 11).
//!
//! - `int`: decimal; `float`: Rust's `{:?}` of `f64` (shortest round-trip
//!   text, always with a `.` or an exponent: `1.0`, `1e100`, `NaN`);
//!   `bool`: `true`/`false`; `str`: its bytes as they are.
//! - Arrays: `[1, 2, 3]`, nested; strings inside arrays are quoted and
//!   escaped: `\"` `\\` `\n` `\r` `\t` `\0`, other ASCII control characters
//!   as `\u{x}` (lowercase hex, no leading zeros, as Rust writes them), and
//!   everything else (all non-ASCII text included) as is. This differs from
//!   Rust's `{:?}` of `str`, which also escapes non-printable Unicode.

use std::io::Write;

use waddle_opt::abi::{array_get, array_len, str_bytes, Word};
use waddle_opt::ir::Type;

/// Writes the text `print` writes for `value` of type `ty` (without the
/// newline) to `out`. `void` writes nothing.
///
/// `out` is any writer, so the text never has to exist in one piece: `str`
/// measures it with a [`ByteCounter`] and then writes it straight into the
/// string object, `print` streams it into the output in blocks. Write
/// errors are ignored (the writers used here do not fail, or record their
/// failure themselves).
///
/// # Safety
/// When `ty` is a reference type, `value` must be a live heap object of
/// that type (arrays: all elements as well, recursively).
pub unsafe fn format_value<W: Write>(out: &mut W, ty: Type, value: Word) {
    // SAFETY: the caller's promise is `write_value`'s.
    unsafe { write_value(out, ty, value, false) }
}

/// The length of the text [`format_value`] writes, without storing it.
///
/// # Safety
/// As [`format_value`].
pub unsafe fn formatted_len(ty: Type, value: Word) -> usize {
    let mut counter = ByteCounter(0);
    // SAFETY: the caller's promise is `format_value`'s.
    unsafe { format_value(&mut counter, ty, value) };
    counter.0
}

/// A writer that only counts the bytes written to it.
#[derive(Debug, Default)]
pub struct ByteCounter(pub usize);

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The text of a float: Rust's `{:?}` of `f64` (what `write_value`
/// writes; the AArch64 runner formats its printed words with it).
#[cfg(feature = "cross")]
pub fn format_float(f: f64) -> String {
    format!("{f:?}")
}

unsafe fn write_value<W: Write>(out: &mut W, ty: Type, value: Word, quoted: bool) {
    match ty {
        Type::Unit => {}
        Type::Int => {
            let _ = write!(out, "{}", value as i64);
        }
        Type::Float => {
            let _ = write!(out, "{:?}", f64::from_bits(value));
        }
        Type::Bool => {
            let _ = out.write_all(if value != 0 { b"true" } else { b"false" });
        }
        Type::Str => {
            // SAFETY: the caller guarantees a live string object.
            let bytes = unsafe { str_bytes(value) };
            if quoted {
                write_escaped(out, bytes);
            } else {
                let _ = out.write_all(bytes);
            }
        }
        Type::Array { .. } => {
            let elem = ty.element().unwrap_or(Type::Unit);
            let _ = out.write_all(b"[");
            // SAFETY: the caller guarantees a live array object.
            let n = unsafe { array_len(value) };
            for i in 0..n {
                // SAFETY: `i < len` of the live array.
                let e = unsafe { array_get(value, i) };
                if i > 0 {
                    let _ = out.write_all(b", ");
                }
                // SAFETY: elements of a live array of type `ty` are live values of `elem`.
                unsafe { write_value(out, elem, e, true) };
            }
            let _ = out.write_all(b"]");
        }
    }
}

/// Writes `"bytes"` with detail 11's escapes.
pub fn write_escaped<W: Write>(out: &mut W, bytes: &[u8]) {
    let _ = out.write_all(b"\"");
    // Runs of bytes that need no escape are written in one piece.
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0 => b"\\0",
            0x01..=0x1f | 0x7f => b"",
            // Every other byte, including all bytes of multi-byte UTF-8
            // sequences, is copied: non-ASCII text stays as is.
            _ => continue,
        };
        let _ = out.write_all(&bytes[start..i]);
        start = i + 1;
        if escape.is_empty() {
            let _ = write!(out, "\\u{{{b:x}}}");
        } else {
            let _ = out.write_all(escape);
        }
    }
    let _ = out.write_all(&bytes[start..]);
    let _ = out.write_all(b"\"");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::Heap;
    use waddle_opt::abi::ElemLayout;

    fn fmt(ty: Type, v: Word) -> String {
        let mut out = Vec::new();
        // SAFETY: scalar values, or objects of the test's heap.
        unsafe { format_value(&mut out, ty, v) };
        String::from_utf8(out).unwrap()
    }

    fn float(f: f64) -> String {
        fmt(Type::Float, f.to_bits())
    }

    #[test]
    fn scalars() {
        assert_eq!(fmt(Type::Int, (-42i64) as u64), "-42");
        assert_eq!(fmt(Type::Int, i64::MIN as u64), "-9223372036854775808");
        assert_eq!(fmt(Type::Bool, 1), "true");
        assert_eq!(fmt(Type::Bool, 0), "false");
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(-2.5), "-2.5");
        assert_eq!(float(1e100), "1e100");
        assert_eq!(float(1.5e-7), "1.5e-7");
        assert_eq!(float(f64::INFINITY), "inf");
        assert_eq!(float(f64::NEG_INFINITY), "-inf");
        assert_eq!(float(f64::NAN), "NaN");
        assert_eq!(float(-0.0), "-0.0");
        assert_eq!(float(1e15), "1000000000000000.0");
        assert_eq!(float(1e16), "1e16");
    }

    #[test]
    fn strings_and_arrays() {
        let mut heap = Heap::default();
        let s = heap
            .alloc_str("a\"b\\c\nd\re\tf\0g\x01h\x1b\x7fé😀\u{200b}'".as_bytes())
            .unwrap();
        let plain = heap.alloc_str(b"plain").unwrap();
        assert_eq!(fmt(Type::Str, plain), "plain");
        let strs = heap.alloc_array(&[s, plain], 2, ElemLayout::Ref).unwrap();
        let str_arr = Type::Str.array_of().unwrap();
        assert_eq!(
            fmt(str_arr, strs),
            "[\"a\\\"b\\\\c\\nd\\re\\tf\\0g\\u{1}h\\u{1b}\\u{7f}é😀\u{200b}'\", \"plain\"]"
        );
        let ints1 = heap.alloc_array(&[1, 2], 2, ElemLayout::Word).unwrap();
        let ints2 = heap.alloc_array(&[3], 1, ElemLayout::Word).unwrap();
        let empty = heap.alloc_array(&[], 0, ElemLayout::Word).unwrap();
        let nested = heap
            .alloc_array(&[ints1, ints2, empty], 3, ElemLayout::Ref)
            .unwrap();
        let t = Type::Int.array_of().unwrap().array_of().unwrap();
        assert_eq!(fmt(t, nested), "[[1, 2], [3], []]");
        let floats = heap
            .alloc_array(&[1.0f64.to_bits(), f64::NAN.to_bits()], 2, ElemLayout::Word)
            .unwrap();
        assert_eq!(fmt(Type::Float.array_of().unwrap(), floats), "[1.0, NaN]");
        let bools = heap.alloc_array(&[1, 0], 2, ElemLayout::Byte).unwrap();
        assert_eq!(fmt(Type::Bool.array_of().unwrap(), bools), "[true, false]");
    }

    #[test]
    fn escapes_match_rust_debug_for_ascii() {
        for b in 0u8..0x80 {
            let s = (b as char).to_string();
            let mut out = Vec::new();
            write_escaped(&mut out, s.as_bytes());
            assert_eq!(
                String::from_utf8(out).unwrap(),
                format!("{s:?}"),
                "byte {b:#x}"
            );
        }
    }
}
