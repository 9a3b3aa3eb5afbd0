//! Disassembly of x86-64 baseline code with iced-x86 (Intel syntax), for
//! the REPL's `:asm`.

use std::fmt::Write as _;

use iced_x86::{Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter};

/// One line per instruction: offset from the function start, bytes, text.
pub(crate) fn disassemble(code: &[u8]) -> String {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut fmt = IntelFormatter::new();
    let mut inst = Instruction::default();
    let mut text = String::new();
    let mut out = String::new();
    while decoder.can_decode() {
        decoder.decode_out(&mut inst);
        text.clear();
        fmt.format(&inst, &mut text);
        let start = inst.ip() as usize;
        let bytes = code.get(start..start + inst.len()).unwrap_or(&[]);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(out, "{start:6x}:  {hex:<24} {text}");
    }
    out
}
