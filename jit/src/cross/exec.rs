//! Running a [`CodeImage`] under qemu-aarch64 with the loader, and decoding
//! the loader's output records (format in [`super`]).

use std::io::Write;
use std::process::{Command, Stdio};

use waddle_opt::abi::{TrapCode, DEFAULT_STACK_BUDGET};
use waddle_opt::ir::{SrcLoc, Type};

use super::image::CodeImage;
use super::toolchain::{loader, qemu, CrossError};
use crate::abi::decode_type;

/// Default heap limit of a cross run in bytes (live objects at once).
pub const DEFAULT_CROSS_MEMORY_LIMIT: u64 = 2 << 30;

/// Limits of one run.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct RunLimits {
    /// Stack budget in bytes (the `stack overflow` limit).
    pub stack_budget: u64,
    /// Bytes the program's live objects may occupy at once.
    pub memory_limit: u64,
    /// Execution budget; `None` for unlimited (the image must count fuel
    /// for a budget to be enforced).
    pub fuel: Option<u64>,
    /// Collect garbage before every allocation (slow; tests the roots).
    pub gc_stress: bool,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            stack_budget: DEFAULT_STACK_BUDGET as u64,
            memory_limit: DEFAULT_CROSS_MEMORY_LIMIT,
            fuel: None,
            gc_stress: false,
        }
    }
}

/// A printed value as the loader sent it.
#[derive(Clone, PartialEq, Debug)]
pub enum PrintValue {
    /// Nothing (`void`).
    Unit,
    /// An `int`.
    Int(i64),
    /// A `float`, by its bits.
    Float(u64),
    /// A `bool`.
    Bool(bool),
    /// A `str`'s bytes.
    Str(Vec<u8>),
    /// An array's elements.
    Array(Vec<PrintValue>),
}

/// How the program ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Ending {
    /// `main` returned normally.
    Finished,
    /// A runtime error; `loc` is `None` when the code recorded no location
    /// (the caller substitutes `main`'s).
    Trap {
        /// Which error.
        code: TrapCode,
        /// Where, when recorded.
        loc: Option<SrcLoc>,
    },
}

/// Everything one run produced.
#[derive(Clone, PartialEq, Debug)]
pub struct CrossRun {
    /// Every `print`, in order, with the printed type.
    pub prints: Vec<(Type, PrintValue)>,
    /// How it ended.
    pub ending: Ending,
}

/// Runs `image` under qemu-aarch64 (building the loader first if needed).
pub fn run_image(image: &CodeImage, limits: &RunLimits) -> Result<CrossRun, CrossError> {
    let qemu = qemu()?;
    let loader = loader()?;
    let bytes = image
        .to_bytes()
        .map_err(|e| CrossError::Run(e.to_string()))?;
    let fuel = limits.fuel.map_or("-".to_string(), |f| f.to_string());
    let mut child = Command::new(&qemu)
        .arg(&loader)
        .arg(limits.stack_budget.to_string())
        .arg(limits.memory_limit.to_string())
        .arg(fuel)
        .arg(if limits.gc_stress { "1" } else { "0" })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CrossError::Run(format!("cannot start {}: {e}", qemu.display())))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| CrossError::Run("no stdin pipe".to_string()))?;
    // The loader reads the whole image before writing anything, but write
    // from a thread anyway so a loader that exits early cannot block us.
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let output = child
        .wait_with_output()
        .map_err(|e| CrossError::Run(format!("waiting for qemu-aarch64: {e}")))?;
    let written = writer.join();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(CrossError::Run(format!(
            "the loader exited with {}{}{}",
            output.status,
            if stderr.is_empty() { "" } else { ": " },
            stderr.trim_end()
        )));
    }
    if !matches!(written, Ok(Ok(()))) {
        return Err(CrossError::Run(
            "the loader did not read the whole image".to_string(),
        ));
    }
    decode(&output.stdout).map_err(CrossError::Run)
}

/// Decodes the loader's record stream.
pub fn decode(bytes: &[u8]) -> Result<CrossRun, String> {
    let mut r = Records { bytes, pos: 0 };
    let mut prints = Vec::new();
    loop {
        match r.u8()? {
            b'P' => {
                let code = r.u32()?;
                let ty = decode_type(code).ok_or_else(|| format!("bad type code {code:#x}"))?;
                let v = r.value(ty)?;
                prints.push((ty, v));
            }
            b'E' => {
                let (code, loc_set) = (r.u32()?, r.u32()?);
                let loc = SrcLoc {
                    file: r.u32()?,
                    line: r.u32()?,
                    col: r.u32()?,
                };
                if r.pos != bytes.len() {
                    return Err("output after the end record".to_string());
                }
                let ending = match code {
                    0 => Ending::Finished,
                    c => Ending::Trap {
                        code: TrapCode::from_u32(c)
                            .ok_or_else(|| format!("unknown trap code {c}"))?,
                        loc: (loc_set != 0).then_some(loc),
                    },
                };
                return Ok(CrossRun { prints, ending });
            }
            t => return Err(format!("unknown record tag {t:#x} at byte {}", r.pos - 1)),
        }
    }
}

struct Records<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Records<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let end = self.pos + N;
        let s = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| "the output ends early (the program crashed?)".to_string())?;
        self.pos = end;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take()?))
    }

    fn len(&mut self) -> Result<usize, String> {
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len() - self.pos)
            .ok_or_else(|| format!("length {n} exceeds the output"))
    }

    fn value(&mut self, ty: Type) -> Result<PrintValue, String> {
        Ok(match ty {
            Type::Unit => PrintValue::Unit,
            Type::Int => PrintValue::Int(self.u64()? as i64),
            Type::Float => PrintValue::Float(self.u64()?),
            Type::Bool => PrintValue::Bool(self.u64()? != 0),
            Type::Str => {
                let n = self.len()?;
                let s = self.bytes[self.pos..self.pos + n].to_vec();
                self.pos += n;
                PrintValue::Str(s)
            }
            Type::Array { .. } => {
                let elem = ty.element().unwrap_or(Type::Unit);
                let n = self.len()?;
                let mut elems = Vec::with_capacity(n.min(1 << 16));
                for _ in 0..n {
                    elems.push(self.value(elem)?);
                }
                PrintValue::Array(elems)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::encode_type;

    fn rec(out: &mut Vec<u8>, ty: Type, payload: &[u64]) {
        out.push(b'P');
        out.extend_from_slice(&encode_type(ty).to_le_bytes());
        for w in payload {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    fn end(out: &mut Vec<u8>, fields: [u32; 5]) {
        out.push(b'E');
        for f in fields {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }

    #[test]
    fn records_decode() {
        let mut out = Vec::new();
        rec(&mut out, Type::Int, &[(-5i64) as u64]);
        let arr = Type::Int.array_of().unwrap();
        rec(&mut out, arr, &[2, 7, 8]);
        out.push(b'P');
        out.extend_from_slice(&encode_type(Type::Str).to_le_bytes());
        out.extend_from_slice(&2u64.to_le_bytes());
        out.extend_from_slice(b"hi");
        end(&mut out, [1, 1, 0, 3, 9]);
        let run = decode(&out).unwrap();
        assert_eq!(
            run.prints,
            vec![
                (Type::Int, PrintValue::Int(-5)),
                (
                    arr,
                    PrintValue::Array(vec![PrintValue::Int(7), PrintValue::Int(8)])
                ),
                (Type::Str, PrintValue::Str(b"hi".to_vec())),
            ]
        );
        assert_eq!(
            run.ending,
            Ending::Trap {
                code: TrapCode::DivisionByZero,
                loc: Some(SrcLoc {
                    file: 0,
                    line: 3,
                    col: 9
                })
            }
        );
    }

    #[test]
    fn truncated_or_garbled_output_is_an_error() {
        let mut out = Vec::new();
        rec(&mut out, Type::Int, &[1]);
        assert!(decode(&out).is_err());
        assert!(decode(b"Z").is_err());
        let mut out = Vec::new();
        out.push(b'P');
        out.extend_from_slice(&encode_type(Type::Str).to_le_bytes());
        out.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode(&out).is_err());
    }
}
