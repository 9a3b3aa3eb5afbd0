//! The code image: a whole program's position-independent machine code plus
//! what the loader needs to run it, and its binary serialization (read by
//! `rt/loader.c`). The layout is documented in [`super`].

use std::fmt;

use cranelift_entity::EntityRef;
use waddle_opt::ir::{FuncId, HostFnDecl, InstKind, Program, Type};

use crate::abi::encode_type;

/// The file magic (8 bytes).
pub const IMAGE_MAGIC: &[u8; 8] = b"WADLIMG2";

/// Number of entries the loader's helper table has (the `Helper` enum of
/// `crate::helpers`, in order, up to `TierUp`; `CallFunc` is never called
/// by an image); an image records it so a mismatch between the compiler
/// and the loader is detected instead of calling garbage.
pub const HELPER_COUNT: u32 = 19;

/// Whether a value of type `ty` can cross between an image and the process
/// that runs it, as a host function's argument or result: scalars can;
/// strings and arrays live in the loader's heap, which the host cannot
/// reach.
pub fn crosses_to_host(ty: Type) -> bool {
    matches!(ty, Type::Int | Type::Float | Type::Bool | Type::Unit)
}

/// Why host function `decl` cannot be called from an image, if it cannot:
/// one of its parameters or its result is a `str` or an array.
pub fn host_fn_obstacle(decl: &HostFnDecl) -> Option<String> {
    let ty = (decl.sig.params.iter().copied())
        .chain([decl.sig.ret])
        .find(|&t| !crosses_to_host(t))?;
    Some(format!(
        "host function `{}` takes or returns a `{ty}`: only int, float and bool values \
         cross between AArch64 code and the host, because the code runs in a separate \
         process (qemu-aarch64) whose heap the host cannot reach",
        decl.name
    ))
}

/// An error when `program` calls a host function whose signature cannot
/// cross to the host ([`host_fn_obstacle`]). The runtime reports the same
/// as a compile error at the call before generating code; this is the code
/// generators' own guard.
pub(crate) fn check_host_calls(program: &Program) -> Result<(), crate::CompileError> {
    for f in program.funcs.values() {
        for &b in f.layout() {
            for &i in &f.blocks()[b].insts {
                if let InstKind::HostCall(h, _) = &f.inst(i).kind {
                    let message = match program.host_fns.get(*h) {
                        Some(decl) => host_fn_obstacle(decl),
                        None => Some(format!("calls undeclared host function {h}")),
                    };
                    if let Some(message) = message {
                        return Err(crate::CompileError::Codegen {
                            func: f.name().to_string(),
                            message,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Target architectures of code images.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arch {
    /// AArch64 (AAPCS64, little endian, Linux).
    Aarch64,
}

impl Arch {
    /// The number stored in the image header.
    pub fn code(self) -> u32 {
        match self {
            Arch::Aarch64 => 1,
        }
    }
}

/// A whole program compiled for a foreign target, ready to be loaded.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CodeImage {
    /// The target.
    pub arch: Arch,
    /// Whether the code counts fuel (calls the fuel helper).
    pub fuel: bool,
    /// The start values of the tiering counters the code decrements
    /// (calls, back edges; `crate::JitOptions::tier_counters`), `None`
    /// when it has none. The loader allocates the cells
    /// (`VmCtx::tier_counters`) and reports each run-out ([`super`]).
    pub counters: Option<(u32, u32)>,
    /// Machine code of every function, concatenated.
    pub code: Vec<u8>,
    /// Per [`FuncId`] index: the byte offset of the function's native entry
    /// in [`CodeImage::code`], `None` for declarations without a body.
    pub funcs: Vec<Option<u64>>,
    /// The function the loader calls (the program's top-level statements).
    pub main: FuncId,
    /// Per global: its type code ([`crate::abi::encode_type`]), for the
    /// zero value the loader stores before `main` runs.
    pub globals: Vec<u32>,
    /// String constants, in the order of `VmCtx::strings`.
    pub strings: Vec<Box<str>>,
}

/// Why an image could not be built or read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImageError(pub String);

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad code image: {}", self.0)
    }
}

impl std::error::Error for ImageError {}

/// Assembles a [`CodeImage`] from any code generator's output: append each
/// function's machine code with [`ImageBuilder::add_function`], then
/// [`ImageBuilder::finish`].
#[derive(Debug)]
pub struct ImageBuilder {
    arch: Arch,
    fuel: bool,
    counters: Option<(u32, u32)>,
    code: Vec<u8>,
    funcs: Vec<Option<u64>>,
    main: Option<FuncId>,
    globals: Vec<u32>,
    strings: Vec<Box<str>>,
}

impl ImageBuilder {
    /// A builder for `program` (its functions, main and globals), with the
    /// string constants in `strings` order (the indices the code uses to
    /// read `VmCtx::strings`).
    pub fn new(arch: Arch, program: &Program, strings: Vec<Box<str>>, fuel: bool) -> Self {
        ImageBuilder {
            arch,
            fuel,
            counters: None,
            code: Vec::new(),
            funcs: vec![None; program.funcs.len()],
            main: program.main,
            globals: program
                .globals
                .values()
                .map(|g| encode_type(g.ty))
                .collect(),
            strings,
        }
    }

    /// Appends the machine code of `func`, aligned to `align` bytes (a power
    /// of two, at least 4), whose native entry is at `entry` bytes into
    /// `code`. Returns the function's base offset in the image.
    pub fn add_function(
        &mut self,
        func: FuncId,
        code: &[u8],
        entry: u64,
        align: u64,
    ) -> Result<u64, ImageError> {
        let align = align.max(4);
        if !align.is_power_of_two() {
            return Err(ImageError(format!(
                "alignment {align} is not a power of two"
            )));
        }
        let slot = self.funcs.get_mut(func.index()).ok_or_else(|| {
            ImageError(format!("function {} is not in the program", func.index()))
        })?;
        if entry >= code.len() as u64 {
            return Err(ImageError(format!(
                "entry {entry} outside function {} ({} bytes)",
                func.index(),
                code.len()
            )));
        }
        while !(self.code.len() as u64).is_multiple_of(align) {
            self.code.push(0);
        }
        let base = self.code.len() as u64;
        self.code.extend_from_slice(code);
        *slot = Some(base + entry);
        Ok(base)
    }

    /// Appends one block of code shared by several functions (a generator
    /// that lays out the whole program itself, such as the baseline tier),
    /// aligned to `align` bytes; `entries` gives each function's entry
    /// offset inside `code`. Returns the block's base offset in the image.
    pub fn add_code_block(
        &mut self,
        code: &[u8],
        entries: &[(FuncId, u64)],
        align: u64,
    ) -> Result<u64, ImageError> {
        let align = align.max(4);
        if !align.is_power_of_two() {
            return Err(ImageError(format!(
                "alignment {align} is not a power of two"
            )));
        }
        for &(func, entry) in entries {
            if func.index() >= self.funcs.len() {
                return Err(ImageError(format!(
                    "function {} is not in the program",
                    func.index()
                )));
            }
            if entry >= code.len() as u64 {
                return Err(ImageError(format!(
                    "entry {entry} of function {} outside the code block ({} bytes)",
                    func.index(),
                    code.len()
                )));
            }
        }
        while !(self.code.len() as u64).is_multiple_of(align) {
            self.code.push(0);
        }
        let base = self.code.len() as u64;
        self.code.extend_from_slice(code);
        for &(func, entry) in entries {
            self.funcs[func.index()] = Some(base + entry);
        }
        Ok(base)
    }

    /// Declares that the code decrements tiering counters starting at
    /// `counters` (calls, back edges), in the table at
    /// `VmCtx::tier_counters`.
    pub fn counters(&mut self, counters: Option<(u32, u32)>) {
        self.counters = counters.map(|(c, e)| (c.max(1), e.max(1)));
    }

    /// The finished image; fails when the program has no main function or
    /// main has no code.
    pub fn finish(self) -> Result<CodeImage, ImageError> {
        let main = self
            .main
            .ok_or_else(|| ImageError("the program has no main function".to_string()))?;
        if self.funcs.get(main.index()).copied().flatten().is_none() {
            return Err(ImageError("main has no code".to_string()));
        }
        Ok(CodeImage {
            arch: self.arch,
            fuel: self.fuel,
            counters: self.counters,
            code: self.code,
            funcs: self.funcs,
            main,
            globals: self.globals,
            strings: self.strings,
        })
    }
}

fn u32_of(n: usize, what: &str) -> Result<u32, ImageError> {
    u32::try_from(n).map_err(|_| ImageError(format!("too many {what}")))
}

impl CodeImage {
    /// The binary form the loader reads (see [`super`] for the layout).
    pub fn to_bytes(&self) -> Result<Vec<u8>, ImageError> {
        let mut out = Vec::with_capacity(64 + self.code.len());
        out.extend_from_slice(IMAGE_MAGIC);
        let header = [
            self.arch.code(),
            u32::from(self.fuel),
            u32_of(self.funcs.len(), "functions")?,
            u32_of(self.main.index(), "functions")?,
            u32_of(self.globals.len(), "globals")?,
            u32_of(self.strings.len(), "strings")?,
            HELPER_COUNT,
            0,
        ];
        for v in header {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(self.code.len() as u64).to_le_bytes());
        // Counter start values, 0 for none (a counter starts at 1 or more).
        let (calls, edges) = self.counters.map_or((0, 0), |(c, e)| (c.max(1), e.max(1)));
        out.extend_from_slice(&calls.to_le_bytes());
        out.extend_from_slice(&edges.to_le_bytes());
        for f in &self.funcs {
            out.extend_from_slice(&f.unwrap_or(u64::MAX).to_le_bytes());
        }
        for g in &self.globals {
            out.extend_from_slice(&g.to_le_bytes());
        }
        for s in &self.strings {
            out.extend_from_slice(&u32_of(s.len(), "bytes in a string")?.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        while !out.len().is_multiple_of(16) {
            out.push(0);
        }
        out.extend_from_slice(&self.code);
        Ok(out)
    }

    /// Reads the binary form back (the inverse of [`CodeImage::to_bytes`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<CodeImage, ImageError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8)? != IMAGE_MAGIC {
            return Err(ImageError("wrong magic".to_string()));
        }
        let arch = match r.u32()? {
            1 => Arch::Aarch64,
            a => return Err(ImageError(format!("unknown architecture {a}"))),
        };
        let fuel = r.u32()? != 0;
        let n_funcs = r.u32()? as usize;
        let main = FuncId::new(r.u32()? as usize);
        let n_globals = r.u32()? as usize;
        let n_strings = r.u32()? as usize;
        if r.u32()? != HELPER_COUNT {
            return Err(ImageError("helper table size differs".to_string()));
        }
        r.u32()?;
        let code_len =
            usize::try_from(r.u64()?).map_err(|_| ImageError("code too large".to_string()))?;
        let counters = match (r.u32()?, r.u32()?) {
            (0, 0) => None,
            (c, e) if c > 0 && e > 0 => Some((c, e)),
            _ => return Err(ImageError("a counter start value is 0".to_string())),
        };
        let mut funcs = Vec::new();
        for _ in 0..n_funcs {
            let off = r.u64()?;
            funcs.push((off != u64::MAX).then_some(off));
        }
        let mut globals = Vec::new();
        for _ in 0..n_globals {
            globals.push(r.u32()?);
        }
        let mut strings = Vec::new();
        for _ in 0..n_strings {
            let n = r.u32()? as usize;
            let text = std::str::from_utf8(r.take(n)?)
                .map_err(|_| ImageError("string constant is not UTF-8".to_string()))?;
            strings.push(text.into());
        }
        while !r.pos.is_multiple_of(16) {
            r.take(1)?;
        }
        let code = r.take(code_len)?.to_vec();
        Ok(CodeImage {
            arch,
            fuel,
            counters,
            code,
            funcs,
            main,
            globals,
            strings,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ImageError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| ImageError("truncated".to_string()))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, ImageError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, ImageError> {
        let b = self.take(8)?;
        let mut a = [0; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cross::toolchain::LOADER_SOURCE;
    use crate::helpers::Helper;
    use waddle_opt::abi::{
        STR_LEN_OFFSET, VMCTX_FUEL_OFFSET, VMCTX_HELPERS_OFFSET, VMCTX_STRINGS_OFFSET,
        VMCTX_TIER_COUNTERS_OFFSET, VMCTX_TRAP_CODE_OFFSET,
    };

    /// The loader's C layouts and tables agree with the Rust side.
    #[test]
    fn loader_agrees_with_the_rust_layouts() {
        // The loader's helper_table lists the helpers in this order.
        let order = [
            Helper::ArrayNew,
            Helper::ArrayRepeat,
            Helper::ArrayPush,
            Helper::StrConcat,
            Helper::ToStr,
            Helper::Print,
            Helper::Clock,
            Helper::Fuel,
            Helper::StrCmp,
            Helper::Sin,
            Helper::Cos,
            Helper::Tan,
            Helper::Exp,
            Helper::Log,
            Helper::Fmod,
            Helper::TrapFrame,
            Helper::HostCall,
            Helper::CallFunc,
            Helper::TierUp,
        ];
        for (i, h) in order.iter().enumerate() {
            assert_eq!(*h as usize, i, "{h:?}");
        }
        assert_eq!(order.len() as u32, HELPER_COUNT);
        let table = LOADER_SOURCE
            .split("helper_table[N_HELPERS] = {")
            .nth(1)
            .and_then(|t| t.split("};").next())
            .expect("helper table");
        let names: Vec<&str> = table
            .split(',')
            .map(|e| e.trim().trim_start_matches("(uintptr_t)"))
            .filter(|e| !e.is_empty())
            .collect();
        let expected = [
            "h_array_new",
            "h_array_repeat",
            "h_array_push",
            "h_str_concat",
            "h_to_str",
            "h_print",
            "h_clock",
            "h_fuel",
            "h_str_cmp",
            "h_sin",
            "h_cos",
            "h_tan",
            "h_exp",
            "h_log",
            "h_fmod",
            "h_trap_frame",
            "h_host_call",
            "h_unsupported",
            "h_tier_up",
        ];
        assert_eq!(names, expected);
        let expect = [
            format!("#define N_HELPERS {HELPER_COUNT}u"),
            format!(
                "#define IMAGE_MAGIC \"{}\"",
                std::str::from_utf8(IMAGE_MAGIC).unwrap()
            ),
            format!("#define IMAGE_ARCH_AARCH64 {}u", Arch::Aarch64.code()),
            format!("offsetof(VmCtx, helpers) == {VMCTX_HELPERS_OFFSET}"),
            format!("offsetof(VmCtx, strings) == {VMCTX_STRINGS_OFFSET}"),
            format!("offsetof(VmCtx, fuel) == {VMCTX_FUEL_OFFSET}"),
            format!("offsetof(VmCtx, trap_code) == {VMCTX_TRAP_CODE_OFFSET}"),
            format!("offsetof(StrObj, len) == {STR_LEN_OFFSET}"),
            format!("#define FUEL_BATCH {}", waddle_opt::abi::FUEL_BATCH),
            format!("offsetof(VmCtx, tier_counters) == {VMCTX_TIER_COUNTERS_OFFSET}"),
            format!(
                "#define TIER_UP_CALLS_AGAIN {}",
                crate::helpers::TIER_UP_CALLS_AGAIN
            ),
            format!(
                "#define TIER_UP_EDGES_AGAIN {}",
                crate::helpers::TIER_UP_EDGES_AGAIN
            ),
        ];
        for e in expect {
            assert!(LOADER_SOURCE.contains(&e), "loader lacks `{e}`");
        }
    }
}
