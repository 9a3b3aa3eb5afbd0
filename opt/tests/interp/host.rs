//! A small test [`Host`]: leaked `Box`/`Vec` heap objects laid out per
//! `abi`, printed output captured, fuel and allocation limits, and a record
//! of the GC roots passed to every allocating call.

use waddle_opt::abi::{obj_kind, str_bytes, ArrayObj, ObjHeader, StrObj, TrapCode, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::Type;

/// The test host.
pub struct TestHost {
    /// Lines printed so far.
    pub out: Vec<String>,
    /// The globals area.
    pub globals: Vec<Word>,
    /// Remaining fuel (`None`: unlimited).
    pub fuel: Option<u64>,
    /// Total fuel units charged.
    pub fuel_charged: u64,
    /// Number of `consume_fuel` calls.
    pub fuel_calls: u64,
    /// Largest array (in elements) or string (bytes) allocation allowed.
    pub max_alloc: usize,
    /// For each allocating call: (operation, operand words, roots).
    pub alloc_log: Vec<(&'static str, Vec<Word>, Vec<Word>)>,
    /// Whether to record `alloc_log`.
    pub log_allocs: bool,
    /// What `clock` returns next (incremented by 0.5 per call).
    pub clock: f64,
}

impl TestHost {
    /// A host with `nglobals` zeroed globals and unlimited fuel.
    pub fn new(nglobals: usize) -> TestHost {
        TestHost {
            out: Vec::new(),
            globals: vec![0; nglobals],
            fuel: None,
            fuel_charged: 0,
            fuel_calls: 0,
            max_alloc: 1 << 20,
            alloc_log: Vec::new(),
            log_allocs: false,
            clock: 1.0,
        }
    }

    fn log(&mut self, what: &'static str, operands: &[Word], roots: &[Word]) {
        if self.log_allocs {
            self.alloc_log
                .push((what, operands.to_vec(), roots.to_vec()));
        }
    }
}

fn header(kind: u8, refs: bool) -> ObjHeader {
    ObjHeader {
        kind,
        marked: 0,
        elems_are_refs: u8::from(refs),
        pinned: 0,
        reserved: 0,
    }
}

/// A leaked string object.
pub fn new_str(s: &str) -> Word {
    let bytes: &'static [u8] = Box::leak(s.as_bytes().to_vec().into_boxed_slice());
    let obj = Box::new(StrObj {
        header: header(obj_kind::STR, false),
        len: bytes.len() as u64,
        ptr: bytes.as_ptr(),
    });
    Box::leak(obj) as *mut StrObj as Word
}

/// A leaked array object holding `elems`.
pub fn new_array(elem: Type, elems: &[Word]) -> Word {
    let mut data = elems.to_vec();
    data.reserve(4);
    let cap = data.capacity() as u64;
    let obj = Box::new(ArrayObj {
        header: header(obj_kind::ARRAY, elem.is_ref()),
        len: elems.len() as u64,
        cap,
        data: data.leak().as_mut_ptr(),
    });
    Box::leak(obj) as *mut ArrayObj as Word
}

/// The elements of an array word.
pub fn elems(w: Word) -> Vec<Word> {
    // SAFETY: test words are arrays this host allocated and never frees.
    unsafe { waddle_opt::abi::array_elems(w) }.to_vec()
}

/// The text of a string word.
pub fn text(w: Word) -> String {
    // SAFETY: test words are strings this host allocated and never frees.
    String::from_utf8_lossy(unsafe { str_bytes(w) }).into_owned()
}

/// Formats like `print` (docs/language.md "Printing"); `nested` quotes strings.
pub fn format(ty: Type, w: Word, nested: bool) -> String {
    match ty {
        Type::Unit => "void".to_string(),
        Type::Int => (w as i64).to_string(),
        Type::Float => format!("{:?}", f64::from_bits(w)),
        Type::Bool => (w != 0).to_string(),
        Type::Str if nested => format!("{:?}", text(w)),
        Type::Str => text(w),
        Type::Array { .. } => {
            let et = ty.element().expect("array");
            let parts: Vec<String> = elems(w).iter().map(|&e| format(et, e, true)).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

fn deep_copy(ty: Type, w: Word) -> Word {
    match ty.element() {
        Some(et) => {
            let copied: Vec<Word> = elems(w).iter().map(|&e| deep_copy(et, e)).collect();
            new_array(et, &copied)
        }
        None => w,
    }
}

impl Host for TestHost {
    fn intern_str(&mut self, s: &str) -> Word {
        new_str(s)
    }

    fn globals(&mut self) -> &mut [Word] {
        &mut self.globals
    }

    fn array_new(&mut self, elem: Type, elems: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        self.log("array_new", elems, roots);
        if elems.len() > self.max_alloc {
            return Err(TrapCode::OutOfMemory);
        }
        Ok(new_array(elem, elems))
    }

    fn array_repeat(
        &mut self,
        elem: Type,
        value: Word,
        count: i64,
        roots: &[Word],
    ) -> Result<Word, TrapCode> {
        self.log("array_repeat", &[value], roots);
        let n = usize::try_from(count).map_err(|_| TrapCode::NegativeLength)?;
        if n > self.max_alloc {
            return Err(TrapCode::OutOfMemory);
        }
        let items: Vec<Word> = (0..n).map(|_| deep_copy(elem, value)).collect();
        Ok(new_array(elem, &items))
    }

    fn array_push(&mut self, array: Word, value: Word, roots: &[Word]) -> Result<(), TrapCode> {
        self.log("array_push", &[array, value], roots);
        // SAFETY: the interpreter passes a live array of this host.
        let a = unsafe { &mut *(array as *mut ArrayObj) };
        if a.len as usize >= self.max_alloc {
            return Err(TrapCode::OutOfMemory);
        }
        if a.len == a.cap {
            let mut data = elems(array);
            data.reserve(data.len().max(4));
            a.cap = data.capacity() as u64;
            a.data = data.leak().as_mut_ptr();
        }
        // SAFETY: `len < cap` here, so the slot is inside the buffer.
        unsafe { *a.data.add(a.len as usize) = value };
        a.len += 1;
        Ok(())
    }

    fn str_concat(&mut self, a: Word, b: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        self.log("str_concat", &[a, b], roots);
        let s = text(a) + &text(b);
        if s.len() > self.max_alloc {
            return Err(TrapCode::OutOfMemory);
        }
        Ok(new_str(&s))
    }

    fn to_str(&mut self, ty: Type, value: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        self.log("to_str", &[value], roots);
        Ok(new_str(&format(ty, value, false)))
    }

    fn print(&mut self, ty: Type, value: Word) {
        self.out.push(format(ty, value, false));
    }

    fn clock(&mut self) -> f64 {
        self.clock += 0.5;
        self.clock
    }

    fn consume_fuel(&mut self, units: u64) -> Result<(), TrapCode> {
        self.fuel_calls += 1;
        self.fuel_charged += units;
        match &mut self.fuel {
            None => Ok(()),
            Some(left) if *left >= units => {
                *left -= units;
                Ok(())
            }
            Some(left) => {
                *left = 0;
                Err(TrapCode::OutOfFuel)
            }
        }
    }
}
