//! Disassembly of machine code for the REPL's `:asm` and for tests, for any
//! target the native tiers emit, independent of the tier that produced the
//! bytes: x86-64 through iced-x86 (Intel syntax), AArch64 through
//! yaxpeax-arm.
//!
//! The decoders are the crate's `disasm` feature; without it only [`Arch`]
//! and [`helper_symbols`] exist (the architecture names are shared with the
//! AArch64 image builders).
//!
//! Output is one instruction per line: address, raw bytes, mnemonic and
//! operands. Bytes that do not decode are shown as `(bad)` and skipped
//! (one byte on x86-64, one 4-byte word on AArch64), so any input prints.

#[cfg(feature = "disasm")]
use std::fmt::Write as _;

/// An instruction set the disassembler understands.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arch {
    /// x86-64 (64-bit mode).
    X86_64,
    /// AArch64 (A64 instruction set).
    Aarch64,
}

impl Arch {
    /// The architecture of the machine this crate was built for, if it is
    /// one the disassembler supports.
    pub fn host() -> Option<Arch> {
        if cfg!(target_arch = "x86_64") {
            Some(Arch::X86_64)
        } else if cfg!(target_arch = "aarch64") {
            Some(Arch::Aarch64)
        } else {
            None
        }
    }
}

/// One decoded instruction.
#[cfg(feature = "disasm")]
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Line {
    /// Address of the instruction (`base` plus its offset).
    pub addr: u64,
    /// Its encoding.
    pub bytes: Vec<u8>,
    /// Mnemonic and operands, or `(bad)`.
    pub text: String,
}

/// Decodes `code` as if loaded at address `base`.
#[cfg(feature = "disasm")]
pub fn decode(code: &[u8], base: u64, arch: Arch) -> Vec<Line> {
    match arch {
        Arch::X86_64 => decode_x86(code, base),
        Arch::Aarch64 => decode_a64(code, base),
    }
}

/// Disassembles `code` (loaded at `base`) into text, one line per
/// instruction: `address: bytes  instruction`.
#[cfg(feature = "disasm")]
pub fn disassemble(code: &[u8], base: u64, arch: Arch) -> String {
    let lines = decode(code, base, arch);
    let width = lines.iter().map(|l| l.bytes.len()).max().unwrap_or(0) * 3;
    let mut out = String::new();
    for l in &lines {
        let hex: Vec<String> = l.bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(
            out,
            "{:#010x}: {:<width$} {}",
            l.addr,
            hex.join(" "),
            l.text
        );
    }
    out
}

/// The runtime helpers' addresses in this process with their names (in
/// [`crate::baseline::HELPER_NAMES`] order): code of the
/// host tiers calls helpers through immediates, so a listing that should
/// read the same in every run names them instead of printing the address.
pub fn helper_symbols() -> Vec<(u64, &'static str)> {
    let table = crate::entry::HELPER_TABLE.iter();
    table
        .zip(crate::baseline::HELPER_NAMES)
        .map(|(h, name)| (h.addr() as u64, name))
        .collect()
}

#[cfg(feature = "disasm")]
fn decode_x86(code: &[u8], base: u64) -> Vec<Line> {
    use iced_x86::{Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter};
    let mut decoder = Decoder::with_ip(64, code, base, DecoderOptions::NONE);
    let mut formatter = IntelFormatter::new();
    let mut inst = Instruction::default();
    let mut lines = Vec::new();
    while decoder.can_decode() {
        let offset = decoder.position();
        decoder.decode_out(&mut inst);
        let len = inst.len().max(1);
        let end = (offset + len).min(code.len());
        let text = if inst.is_invalid() {
            // Resynchronize one byte later.
            let _ = decoder.set_position(offset + 1);
            decoder.set_ip(base + offset as u64 + 1);
            "(bad)".to_string()
        } else {
            let mut t = String::new();
            formatter.format(&inst, &mut t);
            t
        };
        let end = if text == "(bad)" { offset + 1 } else { end };
        lines.push(Line {
            addr: base + offset as u64,
            bytes: code[offset..end].to_vec(),
            text,
        });
    }
    lines
}

#[cfg(feature = "disasm")]
fn decode_a64(code: &[u8], base: u64) -> Vec<Line> {
    use yaxpeax_arch::{Decoder, U8Reader};
    use yaxpeax_arm::armv8::a64::InstDecoder;
    let decoder = InstDecoder::default();
    let mut lines = Vec::new();
    for (k, word) in code.chunks(4).enumerate() {
        let text = if word.len() < 4 {
            "(bad)".to_string()
        } else {
            let mut reader = U8Reader::new(word);
            match decoder.decode(&mut reader) {
                Ok(inst) => inst.to_string(),
                Err(_) => "(bad)".to_string(),
            }
        };
        lines.push(Line {
            addr: base + 4 * k as u64,
            bytes: word.to_vec(),
            text,
        });
    }
    lines
}

#[cfg(all(test, feature = "disasm"))]
mod tests {
    use super::*;

    #[test]
    fn x86_prologue_and_garbage() {
        // push rbp; mov rbp, rsp; ret; then an invalid byte.
        let code = [0x55, 0x48, 0x89, 0xe5, 0xc3, 0x06];
        let lines = decode(&code, 0x1000, Arch::X86_64);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["push rbp", "mov rbp,rsp", "ret", "(bad)"]);
        assert_eq!(lines[1].addr, 0x1001);
        assert_eq!(lines[1].bytes, [0x48, 0x89, 0xe5]);
        let text = disassemble(&code, 0x1000, Arch::X86_64);
        assert!(text.contains("0x00001001: 48 89 e5"), "{text}");
    }

    #[test]
    fn a64_ret_and_partial_word() {
        // ret; add x0, x0, #1; two stray bytes.
        let code = [0xc0, 0x03, 0x5f, 0xd6, 0x00, 0x04, 0x00, 0x91, 0x01, 0x02];
        let lines = decode(&code, 0, Arch::Aarch64);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].text, "ret");
        assert!(lines[1].text.starts_with("add x0, x0"), "{}", lines[1].text);
        assert_eq!(lines[2].text, "(bad)");
    }

    #[test]
    fn empty_input() {
        assert_eq!(disassemble(&[], 0, Arch::X86_64), "");
        assert!(decode(&[], 0, Arch::Aarch64).is_empty());
    }
}
