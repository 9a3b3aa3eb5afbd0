//! Running a [`CodeImage`] under qemu-aarch64 with the loader, and decoding
//! the loader's output records (format in [`super`]).

use std::io::{Read, Write};
use std::process::{ChildStdin, Command, Stdio};

use waddle_opt::abi::{TrapCode, DEFAULT_STACK_BUDGET};
use waddle_opt::ir::{FuncId, SrcLoc, Type};

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
    /// Have the loader write its output after every `print` (for a
    /// terminal) instead of in blocks.
    pub flush_each_print: bool,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            stack_budget: DEFAULT_STACK_BUDGET as u64,
            memory_limit: DEFAULT_CROSS_MEMORY_LIMIT,
            fuel: None,
            gc_stress: false,
            flush_each_print: false,
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
#[derive(Clone, PartialEq, Eq, Debug)]
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
        /// The frames the trap left, innermost first: each function and
        /// where it stopped (the `Host::trace_frame` reports of a host run).
        trace: Vec<(FuncId, SrcLoc)>,
    },
}

/// Everything one run produced.
#[derive(Clone, PartialEq, Debug)]
pub struct CrossRun {
    /// Every `print`, in order, with the printed type.
    pub prints: Vec<(Type, PrintValue)>,
    /// How it ended.
    pub ending: Ending,
    /// Every tiering counter that ran out, in order: the function and
    /// whether it was its back-edge counter (images compiled with
    /// counters, see [`super`]).
    pub tier_ups: Vec<(FuncId, bool)>,
}

/// Runs `image` under qemu-aarch64 (building the loader first if needed)
/// and collects everything it printed.
pub fn run_image(image: &CodeImage, limits: &RunLimits) -> Result<CrossRun, CrossError> {
    let mut prints = Vec::new();
    let mut tier_ups = Vec::new();
    let ending = run_image_events(
        image,
        limits,
        &mut |ty, v| prints.push((ty, v)),
        &mut |_, _| Err(TrapCode::HostError),
        &mut |f, back_edge| tier_ups.push((f, back_edge)),
    )?;
    Ok(CrossRun {
        prints,
        ending,
        tier_ups,
    })
}

/// Runs `image` under qemu-aarch64, handing each `print` to `on_print` as
/// soon as its record arrives (the loader sends its output in blocks, or
/// after every print with [`RunLimits::flush_each_print`]). The image may
/// not call host functions (each call would be the trap `host function
/// failed`); see [`run_image_hosted`].
pub fn run_image_with(
    image: &CodeImage,
    limits: &RunLimits,
    on_print: &mut dyn FnMut(Type, PrintValue),
) -> Result<Ending, CrossError> {
    run_image_hosted(image, limits, on_print, &mut |_, _| {
        Err(TrapCode::HostError)
    })
}

/// What the host answers to a host call of the image: the result word
/// (float bits, bool 0/1, 0 for `void`), or the trap the call raises at
/// its location in the image.
pub type HostReply = Result<u64, TrapCode>;

/// [`run_image_with`] for an image that calls host functions: each call
/// (an `'H'` record, see [`super`]) is answered by `on_host(id, args)` while
/// the loader waits, with the argument words (int, float bits, bool 0/1).
pub fn run_image_hosted(
    image: &CodeImage,
    limits: &RunLimits,
    on_print: &mut dyn FnMut(Type, PrintValue),
    on_host: &mut dyn FnMut(u32, &[u64]) -> HostReply,
) -> Result<Ending, CrossError> {
    run_image_events(image, limits, on_print, on_host, &mut |_, _| {})
}

/// [`run_image_hosted`] that also hands each tiering counter run-out (a
/// `'T'` record: the function, whether its back-edge counter) to
/// `on_tier_up`.
pub fn run_image_events(
    image: &CodeImage,
    limits: &RunLimits,
    on_print: &mut dyn FnMut(Type, PrintValue),
    on_host: &mut dyn FnMut(u32, &[u64]) -> HostReply,
    on_tier_up: &mut dyn FnMut(FuncId, bool),
) -> Result<Ending, CrossError> {
    let qemu = qemu()?;
    let loader = loader()?;
    let bytes = image
        .to_bytes()
        .map_err(|e| CrossError::Run(e.to_string()))?;
    let fuel = limits.fuel.map_or("-".to_string(), |f| f.to_string());
    let flag = |b: bool| if b { "1" } else { "0" };
    let mut child = Command::new(&qemu)
        .arg(&loader)
        .arg(limits.stack_budget.to_string())
        .arg(limits.memory_limit.to_string())
        .arg(fuel)
        .arg(flag(limits.gc_stress))
        .arg(flag(limits.flush_each_print))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CrossError::Run(format!("cannot start {}: {e}", qemu.display())))?;
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) = pipes else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(CrossError::Run("no pipes to the loader".to_string()));
    };
    // The loader reads the image (its length first) before writing
    // anything; writing and reading standard error from threads means no
    // pipe can block us. The writer hands standard input back for the
    // replies to host calls.
    let writer = std::thread::spawn(move || {
        stdin.write_all(&(bytes.len() as u64).to_le_bytes())?;
        stdin.write_all(&bytes)?;
        Ok::<_, std::io::Error>(stdin)
    });
    let mut writer = Some(writer);
    let mut replies = None;
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    let mut ending = None;
    let mut trace = Vec::new();
    let mut garbled = None;
    loop {
        let n = match stdout.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                garbled = Some(format!("reading the loader's output: {e}"));
                break;
            }
        };
        if garbled.is_some() || ending.is_some() {
            continue;
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut pos = 0;
        loop {
            match next_record(&buf[pos..]) {
                Ok(None) => break,
                Ok(Some((record, used))) => {
                    pos += used;
                    match record {
                        Record::Print(ty, v) => on_print(ty, v),
                        Record::Frame(f, loc) => trace.push((f, loc)),
                        Record::TierUp(f, back_edge) => on_tier_up(f, back_edge),
                        Record::HostCall(id, args) => {
                            let reply = on_host(id, &args);
                            if let Err(e) = send_reply(&mut writer, &mut replies, reply) {
                                garbled = Some(e);
                                break;
                            }
                        }
                        Record::End(e) => {
                            ending = Some(with_trace(e, std::mem::take(&mut trace)));
                            break;
                        }
                    }
                }
                Err(e) => {
                    garbled = Some(e);
                    break;
                }
            }
        }
        buf.drain(..pos);
        if ending.is_some() && !buf.is_empty() {
            garbled = Some("output after the end record".to_string());
        }
        if garbled.is_some() {
            // The loader may be waiting for a reply that will not come.
            let _ = child.kill();
        }
    }
    drop(replies);
    let status = child
        .wait()
        .map_err(|e| CrossError::Run(format!("waiting for qemu-aarch64: {e}")))?;
    let written = writer.map(|w| w.join());
    let stderr = errors.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr);
    if let Some(e) = garbled {
        return Err(CrossError::Run(e));
    }
    if !status.success() {
        return Err(CrossError::Run(format!(
            "the loader exited with {status}{}{}",
            if stderr.is_empty() { "" } else { ": " },
            stderr.trim_end()
        )));
    }
    if matches!(written, Some(Err(_) | Ok(Err(_)))) {
        return Err(CrossError::Run(
            "the loader did not read the whole image".to_string(),
        ));
    }
    ending
        .ok_or_else(|| CrossError::Run("the output ends early (the program crashed?)".to_string()))
}

/// Writes the reply to a host call to the loader's standard input (taken
/// back from the image writer at the first call).
fn send_reply(
    writer: &mut Option<std::thread::JoinHandle<std::io::Result<ChildStdin>>>,
    replies: &mut Option<ChildStdin>,
    reply: HostReply,
) -> Result<(), String> {
    let lost = || "the loader did not read the whole image".to_string();
    let stdin = match replies {
        Some(s) => s,
        None => {
            let w = writer.take().ok_or_else(lost)?;
            let s = w.join().map_err(|_| lost())?.map_err(|_| lost())?;
            replies.insert(s)
        }
    };
    let (code, word) = match reply {
        Ok(w) => (0u32, w),
        Err(c) => (c as u32, 0),
    };
    let mut msg = [0u8; 12];
    msg[..4].copy_from_slice(&code.to_le_bytes());
    msg[4..].copy_from_slice(&word.to_le_bytes());
    stdin
        .write_all(&msg)
        .map_err(|e| format!("answering a host call: {e}"))
}

/// Most arguments a host call record may carry (a bound for the decoder;
/// host functions take at most a handful).
const MAX_HOST_ARGS: usize = 1024;

/// One output record.
enum Record {
    Print(Type, PrintValue),
    /// A frame a trap left (`trap_frame` in the loader).
    Frame(FuncId, SrcLoc),
    /// A tiering counter of the function ran out (its back-edge counter
    /// when `true`).
    TierUp(FuncId, bool),
    /// A call of host function `id` with its argument words; the loader
    /// waits for the reply.
    HostCall(u32, Vec<u64>),
    End(Ending),
}

/// Why a record could not be read.
enum Short {
    /// More bytes are needed.
    Incomplete,
    /// The bytes are not a record.
    Bad(String),
}

impl From<String> for Short {
    fn from(s: String) -> Short {
        Short::Bad(s)
    }
}

/// The first record of `bytes` and its length; `None` when `bytes` holds
/// only part of one.
fn next_record(bytes: &[u8]) -> Result<Option<(Record, usize)>, String> {
    let mut r = Records { bytes, pos: 0 };
    match r.record() {
        Ok(rec) => Ok(Some((rec, r.pos))),
        Err(Short::Incomplete) => Ok(None),
        Err(Short::Bad(e)) => Err(e),
    }
}

/// `ending` with the trap's frames attached (a normal end has none).
fn with_trace(ending: Ending, frames: Vec<(FuncId, SrcLoc)>) -> Ending {
    match ending {
        Ending::Trap { code, loc, .. } => Ending::Trap {
            code,
            loc,
            trace: frames,
        },
        Ending::Finished => Ending::Finished,
    }
}

/// Decodes a complete record stream (everything the loader wrote).
pub fn decode(bytes: &[u8]) -> Result<CrossRun, String> {
    let mut prints = Vec::new();
    let mut trace = Vec::new();
    let mut tier_ups = Vec::new();
    let mut pos = 0;
    loop {
        match next_record(&bytes[pos..])? {
            None => return Err("the output ends early (the program crashed?)".to_string()),
            Some((Record::Print(ty, v), n)) => {
                prints.push((ty, v));
                pos += n;
            }
            Some((Record::Frame(f, loc), n)) => {
                trace.push((f, loc));
                pos += n;
            }
            Some((Record::TierUp(f, back_edge), n)) => {
                tier_ups.push((f, back_edge));
                pos += n;
            }
            Some((Record::HostCall(..), _)) => {
                return Err("a host call cannot be answered from recorded output".to_string())
            }
            Some((Record::End(ending), n)) => {
                if pos + n != bytes.len() {
                    return Err("output after the end record".to_string());
                }
                let ending = with_trace(ending, trace);
                return Ok(CrossRun {
                    prints,
                    ending,
                    tier_ups,
                });
            }
        }
    }
}

struct Records<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Records<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        let end = self.pos + N;
        let s = self.bytes.get(self.pos..end).ok_or(Short::Incomplete)?;
        self.pos = end;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, Short> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, Short> {
        Ok(u32::from_le_bytes(self.take()?))
    }

    fn u64(&mut self) -> Result<u64, Short> {
        Ok(u64::from_le_bytes(self.take()?))
    }

    /// A length that must be followed by at least that many bytes.
    fn len(&mut self) -> Result<usize, Short> {
        let n = self.u64()?;
        let n = usize::try_from(n).map_err(|_| format!("length {n} is too large"))?;
        if n > self.bytes.len() - self.pos {
            return Err(Short::Incomplete);
        }
        Ok(n)
    }

    fn record(&mut self) -> Result<Record, Short> {
        match self.u8()? {
            b'P' => {
                let code = self.u32()?;
                let ty = decode_type(code).ok_or_else(|| format!("bad type code {code:#x}"))?;
                let v = self.value(ty)?;
                Ok(Record::Print(ty, v))
            }
            b'F' => {
                let f = FuncId::from_u32(self.u32()?);
                let loc = SrcLoc {
                    file: self.u32()?,
                    line: self.u32()?,
                    col: self.u32()?,
                };
                Ok(Record::Frame(f, loc))
            }
            b'T' => {
                let f = FuncId::from_u32(self.u32()?);
                Ok(Record::TierUp(f, self.u32()? != 0))
            }
            b'H' => {
                let id = self.u32()?;
                let n = self.u32()? as usize;
                if n > MAX_HOST_ARGS {
                    return Err(Short::Bad(format!("host call with {n} arguments")));
                }
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(self.u64()?);
                }
                Ok(Record::HostCall(id, args))
            }
            b'E' => {
                let (code, loc_set) = (self.u32()?, self.u32()?);
                let loc = SrcLoc {
                    file: self.u32()?,
                    line: self.u32()?,
                    col: self.u32()?,
                };
                Ok(Record::End(match code {
                    0 => Ending::Finished,
                    c => Ending::Trap {
                        code: TrapCode::from_u32(c)
                            .ok_or_else(|| format!("unknown trap code {c}"))?,
                        loc: (loc_set != 0).then_some(loc),
                        trace: Vec::new(),
                    },
                }))
            }
            t => Err(Short::Bad(format!("unknown record tag {t:#x}"))),
        }
    }

    fn value(&mut self, ty: Type) -> Result<PrintValue, Short> {
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
        for frame in [[2, 0, 3, 9], [0, 0, 7, 5]] {
            out.push(b'F');
            for f in frame {
                out.extend_from_slice(&u32::to_le_bytes(f));
            }
        }
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
                }),
                trace: vec![
                    (
                        FuncId::from_u32(2),
                        SrcLoc {
                            file: 0,
                            line: 3,
                            col: 9
                        }
                    ),
                    (
                        FuncId::from_u32(0),
                        SrcLoc {
                            file: 0,
                            line: 7,
                            col: 5
                        }
                    ),
                ],
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
