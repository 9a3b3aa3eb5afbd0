//! A host with a real array heap for the validator's tests: the T1/T2
//! checks run every `Equal` pair on the interpreter, and a function that
//! allocates must get its array (with [`super::fold::PureHost`] every
//! allocation traps, so both sides would agree without running their
//! loops).

use crate::abi::{ArrayObj, ElemLayout, TrapCode, Word};
use crate::interp::Host;
use crate::ir::Type;

/// Owns its arrays (header and element buffer) for its lifetime and
/// records what is printed.
#[derive(Default)]
pub(crate) struct ArrayHost {
    /// Each array's object and its buffer (words, so that word elements
    /// are aligned; byte elements are packed into them).
    arrays: Vec<(Box<ArrayObj>, Vec<u64>)>,
    /// What `print` was given, in order.
    pub printed: Vec<(Type, Word)>,
}

impl ArrayHost {
    /// A fresh `[elem]` array holding `elems`, as the caller's argument.
    pub fn array_new_for_test(&mut self, elem: Type, elems: &[Word]) -> Word {
        self.alloc(elem, elems)
    }

    fn alloc(&mut self, elem: Type, elems: &[Word]) -> Word {
        let layout = ElemLayout::of(elem);
        let size = layout.size();
        let len = elems.len();
        let cap = len.max(1);
        let mut data = vec![0u64; (cap * size).div_ceil(8)];
        for (i, &e) in elems.iter().enumerate() {
            write(&mut data, size, i, e);
        }
        let mut obj = Box::new(ArrayObj {
            header: layout.header(),
            len: len as u64,
            cap: cap as u64,
            data: data.as_mut_ptr() as *mut u8,
        });
        let w = &mut *obj as *mut ArrayObj as Word;
        self.arrays.push((obj, data));
        w
    }
}

/// Writes element `i` of `size` bytes (little-endian) into `data`.
fn write(data: &mut [u64], size: usize, i: usize, v: Word) {
    if size == 8 {
        data[i] = v;
    } else {
        let (w, s) = (i / 8, 8 * (i % 8));
        data[w] = (data[w] & !(0xff << s)) | ((v & 0xff) << s);
    }
}

impl Host for ArrayHost {
    fn intern_str(&mut self, _s: &str) -> Word {
        0
    }
    fn globals(&mut self) -> &mut [Word] {
        &mut []
    }
    fn array_new(&mut self, elem: Type, elems: &[Word], _: &[Word]) -> Result<Word, TrapCode> {
        Ok(self.alloc(elem, elems))
    }
    fn array_repeat(&mut self, elem: Type, v: Word, n: i64, _: &[Word]) -> Result<Word, TrapCode> {
        let n = usize::try_from(n).map_err(|_| TrapCode::NegativeLength)?;
        if n > 1 << 20 {
            return Err(TrapCode::OutOfMemory);
        }
        Ok(self.alloc(elem, &vec![v; n]))
    }
    fn array_push(&mut self, array: Word, value: Word, _: &[Word]) -> Result<(), TrapCode> {
        let (obj, data) = self
            .arrays
            .iter_mut()
            .find(|(o, _)| &**o as *const ArrayObj as Word == array)
            .ok_or(TrapCode::OutOfMemory)?;
        let size = if obj.header.byte_elems != 0 { 1 } else { 8 };
        let len = obj.len as usize;
        if len == obj.cap as usize {
            let cap = (2 * len).max(4);
            let mut grown = vec![0u64; (cap * size).div_ceil(8)];
            grown[..data.len()].copy_from_slice(data);
            *data = grown;
            obj.cap = cap as u64;
            obj.data = data.as_mut_ptr() as *mut u8;
        }
        write(data, size, len, value);
        obj.len += 1;
        Ok(())
    }
    fn str_concat(&mut self, _: Word, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn to_str(&mut self, _: Type, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn print(&mut self, ty: Type, value: Word) {
        self.printed.push((ty, value));
    }
    fn clock(&mut self) -> f64 {
        0.0
    }
    fn consume_fuel(&mut self, _: u64) -> Result<(), TrapCode> {
        Ok(())
    }
}
