//! The test host: Box-allocated objects in the `abi` layouts, captured
//! output, optional fuel with a record of what was charged, an allocation
//! limit, an optional record of the GC roots passed to every allocating
//! call, and a conservative mark-and-sweep collector that *poisons* swept
//! objects instead of freeing them (kind 0xEE, length 0, elements freed),
//! so a live object collected by mistake shows up as a wrong result or a
//! trap, never as memory corruption.
//!
//! Objects made by the free functions [`new_str`] and [`new_array`] (test
//! arguments built before a host exists) are leaked and never collected.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use waddle_opt::abi::{
    obj_kind, str_bytes, ArrayObj, ElemLayout, ObjHeader, StrObj, TrapCode, Word,
};
use waddle_opt::interp::Host;
use waddle_opt::ir::Type;

/// Kind byte of a swept (poisoned) object.
pub const POISON: u8 = 0xEE;

/// The default of [`TestHost::max_alloc`].
const MAX_ALLOC: usize = 1 << 22;

/// The test host.
pub struct TestHost {
    /// Everything printed.
    pub out: String,
    /// The globals area.
    pub globals: Vec<Word>,
    /// Fuel left, `None` for unlimited.
    pub fuel: Option<u64>,
    /// Collect every this many allocations (`None`: never collect).
    pub gc_every: Option<usize>,
    /// Number of collections run.
    pub collections: usize,
    /// Largest number of live unpinned objects right after a collection.
    pub max_live_after_gc: usize,
    /// Objects swept so far.
    pub swept: usize,
    /// Total fuel units charged.
    pub fuel_charged: u64,
    /// Number of `consume_fuel` calls.
    pub fuel_calls: u64,
    /// Largest array (in elements) or string (bytes) allocation allowed;
    /// larger ones fail with `OutOfMemory`.
    pub max_alloc: usize,
    /// Whether to record [`TestHost::alloc_log`].
    pub log_allocs: bool,
    /// For each allocating call while `log_allocs`: (operation, operand
    /// words, roots).
    pub alloc_log: Vec<AllocRecord>,
    /// Every tiering counter that ran out ([`Host::hot`]), in order: the
    /// function and whether it was its back-edge counter.
    pub hot: Vec<(waddle_opt::ir::FuncId, bool)>,
    live: HashSet<usize>,
    arrays: HashSet<usize>,
    dead: Vec<usize>,
    interned: HashMap<String, Word>,
    pinned: Vec<usize>,
    since_gc: usize,
    bytes_since_gc: usize,
    ticks: u64,
}

/// One allocating call: (operation, operand words, GC roots).
pub type AllocRecord = (&'static str, Vec<Word>, Vec<Word>);

fn header(kind: u8, elems_are_refs: bool, pinned: bool) -> ObjHeader {
    ObjHeader {
        kind,
        marked: 0,
        elems_are_refs: u8::from(elems_are_refs),
        pinned: u8::from(pinned),
        byte_elems: 0,
        reserved: [0; 3],
    }
}

impl TestHost {
    /// A host with `nglobals` zeroed globals and no collector.
    pub fn new(nglobals: usize) -> TestHost {
        TestHost {
            out: String::new(),
            globals: vec![0; nglobals],
            fuel: None,
            gc_every: None,
            collections: 0,
            max_live_after_gc: 0,
            swept: 0,
            fuel_charged: 0,
            fuel_calls: 0,
            max_alloc: MAX_ALLOC,
            log_allocs: false,
            alloc_log: Vec::new(),
            hot: Vec::new(),
            live: HashSet::new(),
            arrays: HashSet::new(),
            dead: Vec::new(),
            interned: HashMap::new(),
            pinned: Vec::new(),
            since_gc: 0,
            bytes_since_gc: 0,
            ticks: 0,
        }
    }

    /// The printed lines.
    pub fn lines(&self) -> Vec<&str> {
        self.out.lines().collect()
    }

    fn log(&mut self, what: &'static str, operands: &[Word], roots: &[Word]) {
        if self.log_allocs {
            self.alloc_log
                .push((what, operands.to_vec(), roots.to_vec()));
        }
    }

    /// Gives every global its type's zero value (`""` and `[]` need objects).
    pub fn init_globals(&mut self, p: &waddle_opt::ir::Program) {
        for (i, g) in p.globals.values().enumerate() {
            self.globals[i] = match g.ty {
                Type::Str => self.intern_str(""),
                Type::Array { .. } => self.new_array(g.ty.element().unwrap_or(Type::Int), &[]),
                _ => 0,
            };
        }
    }

    fn new_str(&mut self, bytes: &[u8], pinned: bool) -> Word {
        let data: Box<[u8]> = bytes.into();
        let len = data.len() as u64;
        let ptr = Box::into_raw(data) as *const u8;
        let obj = Box::new(StrObj {
            header: header(obj_kind::STR, false, pinned),
            len,
            ptr,
        });
        let w = Box::into_raw(obj) as usize;
        if pinned {
            self.pinned.push(w);
        } else {
            self.live.insert(w);
        }
        w as Word
    }

    fn new_array(&mut self, elem: Type, elems: &[Word]) -> Word {
        let w = new_array(elem, elems) as usize;
        self.live.insert(w);
        self.arrays.insert(w);
        w as Word
    }

    /// Runs a collection first when one is due; `extra` are the method's
    /// own reference arguments.
    fn maybe_gc(&mut self, roots: &[Word], extra: &[Word]) {
        let Some(every) = self.gc_every else { return };
        self.since_gc += 1;
        if self.since_gc < every && self.bytes_since_gc < 64 << 20 {
            return;
        }
        self.since_gc = 0;
        self.bytes_since_gc = 0;
        self.collect(roots, extra);
    }

    fn collect(&mut self, roots: &[Word], extra: &[Word]) {
        self.collections += 1;
        let mut marked = HashSet::new();
        let mut work: Vec<usize> = Vec::new();
        let all = roots.iter().chain(extra).chain(self.globals.iter());
        for &w in all {
            let w = w as usize;
            if self.live.contains(&w) && marked.insert(w) {
                work.push(w);
            }
        }
        while let Some(o) = work.pop() {
            // SAFETY: `o` is a live object of this host.
            let h = unsafe { &*(o as *const ObjHeader) };
            if h.kind == obj_kind::ARRAY && h.elems_are_refs == 1 {
                // SAFETY: as above.
                for &e in unsafe { waddle_opt::abi::array_words(o as Word) }.iter() {
                    let e = e as usize;
                    if self.live.contains(&e) && marked.insert(e) {
                        work.push(e);
                    }
                }
            }
        }
        let garbage: Vec<usize> = self
            .live
            .iter()
            .copied()
            .filter(|o| !marked.contains(o))
            .collect();
        for o in garbage {
            self.live.remove(&o);
            self.poison(o);
            self.dead.push(o);
            self.swept += 1;
        }
        self.max_live_after_gc = self.max_live_after_gc.max(self.live.len());
    }

    fn poison(&mut self, o: usize) {
        // SAFETY: `o` is an object of this host that is being swept.
        unsafe {
            let h = &mut *(o as *mut ObjHeader);
            if h.kind == obj_kind::ARRAY {
                let a = &mut *(o as *mut ArrayObj);
                drop(take_buffer(a));
                a.data = std::ptr::null_mut();
                a.len = 0;
                a.cap = 0;
            } else {
                let s = &mut *(o as *mut StrObj);
                let bytes = std::ptr::slice_from_raw_parts_mut(s.ptr as *mut u8, s.len as usize);
                drop(Box::from_raw(bytes));
                s.ptr = std::ptr::null();
                s.len = 0;
            }
            h.kind = POISON;
        }
    }

    fn check_live(&self, w: Word) {
        // SAFETY: only called on values of reference type.
        let kind = unsafe { (*(w as *const ObjHeader)).kind };
        assert_ne!(kind, POISON, "use of a swept object {w:#x}");
    }

    /// The text `print` writes for `value` of type `ty`.
    pub fn format(&self, ty: Type, value: Word, nested: bool, out: &mut String) {
        match ty {
            Type::Unit => {}
            Type::Bool => out.push_str(if value != 0 { "true" } else { "false" }),
            Type::Int => {
                let _ = write!(out, "{}", value as i64);
            }
            Type::Float => {
                let _ = write!(out, "{:?}", f64::from_bits(value));
            }
            Type::Str => {
                self.check_live(value);
                // SAFETY: a live string of this host.
                let s = String::from_utf8_lossy(unsafe { str_bytes(value) }).into_owned();
                if nested {
                    let _ = write!(out, "{s:?}");
                } else {
                    out.push_str(&s);
                }
            }
            Type::Array { .. } => {
                self.check_live(value);
                let elem = ty.element().unwrap_or(Type::Int);
                out.push('[');
                // SAFETY: a live array of this host.
                let elems = unsafe { waddle_opt::abi::array_to_vec(value) };
                for (i, e) in elems.into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.format(elem, e, true, out);
                }
                out.push(']');
            }
        }
    }

    fn deep_copy(&mut self, ty: Type, value: Word) -> Word {
        if !ty.is_array() {
            return value;
        }
        let elem = ty.element().unwrap_or(Type::Int);
        // SAFETY: a live array of this host.
        let elems = unsafe { waddle_opt::abi::array_to_vec(value) };
        let copied: Vec<Word> = elems.into_iter().map(|e| self.deep_copy(elem, e)).collect();
        self.new_array(elem, &copied)
    }
}

impl Drop for TestHost {
    fn drop(&mut self) {
        let objs: Vec<usize> = self.live.drain().chain(self.pinned.drain(..)).collect();
        for o in objs {
            self.poison(o);
            self.dead.push(o);
        }
        for o in self.dead.drain(..) {
            // SAFETY: every object was allocated as a Box of its struct and
            // poisoned (buffers freed) exactly once; `arrays` says which.
            unsafe {
                if self.arrays.contains(&o) {
                    drop(Box::from_raw(o as *mut ArrayObj));
                } else {
                    drop(Box::from_raw(o as *mut StrObj));
                }
            }
        }
    }
}

impl Host for TestHost {
    fn hot(&mut self, func: waddle_opt::ir::FuncId, back_edge: bool) {
        self.hot.push((func, back_edge));
    }

    fn intern_str(&mut self, s: &str) -> Word {
        if let Some(&w) = self.interned.get(s) {
            return w;
        }
        let w = self.new_str(s.as_bytes(), true);
        self.interned.insert(s.to_string(), w);
        w
    }

    fn globals(&mut self) -> &mut [Word] {
        &mut self.globals
    }

    fn array_new(&mut self, elem: Type, elems: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        self.log("array_new", elems, roots);
        if elems.len() > self.max_alloc {
            return Err(TrapCode::OutOfMemory);
        }
        self.maybe_gc(roots, elems);
        let w = self.new_array(elem, elems);
        Ok(w)
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
        self.maybe_gc(roots, &[value]);
        let elems: Vec<Word> = if elem.is_array() {
            (0..n).map(|_| self.deep_copy(elem, value)).collect()
        } else {
            vec![value; n]
        };
        self.bytes_since_gc += elems.len() * ElemLayout::of(elem).size();
        let w = self.new_array(elem, &elems);
        Ok(w)
    }

    fn array_push(&mut self, array: Word, value: Word, roots: &[Word]) -> Result<(), TrapCode> {
        self.log("array_push", &[array, value], roots);
        self.check_live(array);
        // SAFETY: a live array of this host, whose buffer came from a Vec.
        unsafe {
            let a = &mut *(array as *mut ArrayObj);
            if a.len as usize >= self.max_alloc {
                return Err(TrapCode::OutOfMemory);
            }
            let mut v = take_buffer(a);
            v.push(value);
            put_buffer(a, v);
        }
        Ok(())
    }

    fn str_concat(&mut self, a: Word, b: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        self.log("str_concat", &[a, b], roots);
        self.check_live(a);
        self.check_live(b);
        self.maybe_gc(roots, &[a, b]);
        // SAFETY: live strings of this host.
        let mut bytes = unsafe { str_bytes(a) }.to_vec();
        // SAFETY: as above.
        bytes.extend_from_slice(unsafe { str_bytes(b) });
        if bytes.len() > self.max_alloc {
            return Err(TrapCode::OutOfMemory);
        }
        Ok(self.new_str(&bytes, false))
    }

    fn to_str(&mut self, ty: Type, value: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        self.log("to_str", &[value], roots);
        let mut s = String::new();
        self.format(ty, value, false, &mut s);
        self.maybe_gc(roots, &[value]);
        Ok(self.new_str(s.as_bytes(), false))
    }

    fn print(&mut self, ty: Type, value: Word) {
        let mut s = String::new();
        self.format(ty, value, false, &mut s);
        self.out.push_str(&s);
        self.out.push('\n');
    }

    fn clock(&mut self) -> f64 {
        self.ticks += 1;
        self.ticks as f64 * 0.5
    }

    fn consume_fuel(&mut self, units: u64) -> Result<(), TrapCode> {
        self.fuel_calls += 1;
        self.fuel_charged += units;
        match &mut self.fuel {
            None => Ok(()),
            Some(f) if *f >= units => {
                *f -= units;
                Ok(())
            }
            Some(f) => {
                *f = 0;
                Err(TrapCode::OutOfFuel)
            }
        }
    }
}

/// A leaked string object (a test argument made without a host).
pub fn new_str(s: &str) -> Word {
    let bytes: &'static [u8] = Box::leak(s.as_bytes().to_vec().into_boxed_slice());
    let obj = Box::new(StrObj {
        header: header(obj_kind::STR, false, false),
        len: bytes.len() as u64,
        ptr: bytes.as_ptr(),
    });
    Box::leak(obj) as *mut StrObj as Word
}

/// A leaked array object holding `elems` (a test argument made without a
/// host); its buffer is a `Vec`'s, so `push` may grow it. The host's own
/// arrays are made the same way and freed by its collector.
pub fn new_array(elem: Type, elems: &[Word]) -> Word {
    let layout = ElemLayout::of(elem);
    let mut data = match layout {
        ElemLayout::Byte => Buffer::Bytes(elems.iter().map(|&e| e as u8).collect()),
        _ => Buffer::Words(elems.to_vec()),
    };
    data.reserve(4);
    let mut obj = Box::new(ArrayObj {
        header: layout.header(),
        len: 0,
        cap: 0,
        data: std::ptr::null_mut(),
    });
    put_buffer(&mut obj, data);
    Box::leak(obj) as *mut ArrayObj as Word
}

/// An array's element buffer as the `Vec` it was made from.
enum Buffer {
    Words(Vec<Word>),
    Bytes(Vec<u8>),
}

impl Buffer {
    fn reserve(&mut self, n: usize) {
        match self {
            Buffer::Words(v) => v.reserve(n),
            Buffer::Bytes(v) => v.reserve(n),
        }
    }

    fn push(&mut self, w: Word) {
        match self {
            Buffer::Words(v) => v.push(w),
            Buffer::Bytes(v) => v.push(w as u8),
        }
    }
}

/// Takes the buffer out of `a` (leaving it empty).
///
/// # Safety
/// `a` must be an array made by [`new_array`] (its buffer a `Vec` of its layout).
unsafe fn take_buffer(a: &mut ArrayObj) -> Buffer {
    let (len, cap) = (a.len as usize, a.cap as usize);
    let data = std::mem::replace(&mut a.data, std::ptr::null_mut());
    a.len = 0;
    a.cap = 0;
    // SAFETY: the caller promises the buffer is a leaked `Vec` of the
    // array's layout with this length and capacity (a null pointer with
    // capacity 0 is never made: `new_array` reserves room).
    unsafe {
        if ElemLayout::of_header(&a.header) == ElemLayout::Byte {
            Buffer::Bytes(Vec::from_raw_parts(data, len, cap))
        } else {
            Buffer::Words(Vec::from_raw_parts(data as *mut Word, len, cap))
        }
    }
}

/// Puts `v` into `a` as its buffer.
fn put_buffer(a: &mut ArrayObj, v: Buffer) {
    let (ptr, len, cap) = match v {
        Buffer::Words(mut v) => {
            let r = (v.as_mut_ptr() as *mut u8, v.len(), v.capacity());
            std::mem::forget(v);
            r
        }
        Buffer::Bytes(mut v) => {
            let r = (v.as_mut_ptr(), v.len(), v.capacity());
            std::mem::forget(v);
            r
        }
    };
    a.data = ptr;
    a.len = len as u64;
    a.cap = cap as u64;
}

/// The elements of an array word (a live array of a test host, or one made
/// by [`new_array`]).
pub fn elems(w: Word) -> Vec<Word> {
    // SAFETY: test words are arrays of a test host or leaked by `new_array`.
    unsafe { waddle_opt::abi::array_to_vec(w) }
}

/// The text of a string word (a live string of a test host, or one made by
/// [`new_str`]).
pub fn text(w: Word) -> String {
    // SAFETY: test words are strings of a test host or leaked by `new_str`.
    String::from_utf8_lossy(unsafe { str_bytes(w) }).into_owned()
}
