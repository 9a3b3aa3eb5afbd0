//! The x86-64 baseline's registers beyond the slot frame: the home
//! registers that mirror the best-ranked loop values for a whole function
//! and the single-pass register cache of recently used slots (both are
//! described in the [`super`] module's documentation). Every slot is
//! written through, so both can be forgotten or reloaded at any point.

use dynasmrt::{dynasm, DynasmApi};
use waddle_opt::ir::{InstKind, UnaryOp, Value};

use super::X64;
use crate::baseline::plan::{self, slot_in};

/// Caller-saved registers that cache copies of slots between instructions
/// (`rsi`, `rdi`, `r8`, `r9`): never scratch inside an instruction's own
/// code, only written as call arguments, which [`X64::ld`] accounts for.
pub(super) const ICACHE: [u8; 4] = [6, 7, 8, 9];
/// `xmm2`–`xmm7`, caching float slots the same way.
pub(super) const FCACHE: [u8; 6] = [2, 3, 4, 5, 6, 7];
/// Home registers of integer-class values (`r12`–`r15`, saved in the
/// prologue, then `r10`, `r11`, reloaded from their slots after calls):
/// never argument or scratch registers.
pub(super) const IHOME: [u8; 6] = [12, 13, 14, 15, 10, 11];
/// How many of [`IHOME`] are callee-saved (the first ones).
pub(super) const IHOME_SAVED: usize = 4;
/// Home registers of float values (`xmm8`–`xmm15`, caller-saved: reloaded
/// from their slots after every call).
pub(super) const FHOME: [u8; 8] = [8, 9, 10, 11, 12, 13, 14, 15];

impl X64 {
    /// The home register of integer-class value `v`, if it has one.
    pub(super) fn ihome_of(&self, v: Value) -> Option<u8> {
        let i = self.ihome.iter().position(|&e| e == Some(v))?;
        Some(IHOME[i])
    }

    /// The home register of float value `v`, if it has one.
    pub(super) fn fhome_of(&self, v: Value) -> Option<u8> {
        let i = self.fhome.iter().position(|&e| e == Some(v))?;
        Some(FHOME[i])
    }

    /// The home registers of the value in slot `s`: integer, float.
    pub(super) fn homes_of_slot(&self, s: usize) -> (Option<u8>, Option<u8>) {
        let pick = |homes: &[Option<Value>], regs: &[u8]| {
            let i = homes
                .iter()
                .position(|e| e.is_some_and(|v| self.slot(v) == s))?;
            Some(regs[i])
        };
        (pick(&self.ihome, &IHOME), pick(&self.fhome, &FHOME))
    }

    /// Slot `s` was just written from integer register `r`: keep its
    /// home register (if any) equal to it.
    pub(super) fn sync_home_int(&mut self, s: usize, r: u8) {
        match self.homes_of_slot(s) {
            (Some(h), _) if h != r => dynasm!(self.ops ; .arch x64 ; mov Rq(h), Rq(r)),
            (_, Some(h)) => dynasm!(self.ops ; .arch x64 ; movq Rx(h), Rq(r)),
            _ => {}
        }
    }

    /// Slot `s` was just written from `xmm(x)`: keep its home register
    /// (if any) equal to it.
    pub(super) fn sync_home_float(&mut self, s: usize, x: u8) {
        match self.homes_of_slot(s) {
            (_, Some(h)) if h != x => dynasm!(self.ops ; .arch x64 ; movapd Rx(h), Rx(x)),
            (Some(h), _) => dynasm!(self.ops ; .arch x64 ; movq Rq(h), Rx(x)),
            _ => {}
        }
    }

    /// After a call: reloads the caller-saved home registers from their
    /// slots (which are always written through).
    pub(super) fn reload_homes(&mut self) {
        let ints = (self.ihome.iter().zip(IHOME)).skip(IHOME_SAVED);
        let ints: Vec<(Value, u8)> = ints.filter_map(|(e, r)| Some(((*e)?, r))).collect();
        let floats = self.fhome.iter().zip(FHOME);
        let floats: Vec<(Value, u8)> = floats.filter_map(|(e, x)| Some(((*e)?, x))).collect();
        for (v, r) in ints {
            let d = self.disp(v);
            dynasm!(self.ops ; .arch x64 ; mov Rq(r), QWORD [rbp + d]);
        }
        for (v, x) in floats {
            let d = self.disp(v);
            dynasm!(self.ops ; .arch x64 ; movsd Rx(x), QWORD [rbp + d]);
        }
    }

    /// Callee-saved home registers in use (saved by the prologue).
    pub(super) fn saved_homes(&self) -> usize {
        self.ihome[..IHOME_SAVED]
            .iter()
            .filter(|e| e.is_some())
            .count()
    }

    /// Forgets every cached register copy (at labels and after calls).
    pub(super) fn forget_all(&mut self) {
        self.icache = [None; ICACHE.len()];
        self.fcache = [None; FCACHE.len()];
    }

    /// Forgets the cached copies of the value in slot `s` (its slot is
    /// being overwritten).
    pub(super) fn forget_slot(&mut self, s: usize) {
        for e in self.icache.iter_mut().chain(self.fcache.iter_mut()) {
            if e.is_some_and(|v| slot_in(&self.slot_of, v) == s) {
                *e = None;
            }
        }
    }

    /// The register holding an integer-class copy of `v` (its home or a
    /// cache register).
    pub(super) fn icached(&self, v: Value) -> Option<u8> {
        if let Some(h) = self.ihome_of(v) {
            return Some(h);
        }
        let i = self.icache.iter().position(|&e| e == Some(v))?;
        Some(ICACHE[i])
    }

    /// The register holding a float copy of `v` (its home or a cache
    /// register).
    pub(super) fn fcached(&self, v: Value) -> Option<u8> {
        if let Some(h) = self.fhome_of(v) {
            return Some(h);
        }
        let i = self.fcache.iter().position(|&e| e == Some(v))?;
        Some(FCACHE[i])
    }

    /// Register `r` is about to be overwritten: drop what it caches.
    pub(super) fn clobber_int(&mut self, r: u8) {
        if let Some(i) = ICACHE.iter().position(|&c| c == r) {
            self.icache[i] = None;
        }
    }

    /// `xmm(x)` is about to be overwritten: drop what it caches.
    pub(super) fn clobber_float(&mut self, x: u8) {
        if let Some(i) = FCACHE.iter().position(|&c| c == x) {
            self.fcache[i] = None;
        }
    }

    /// Whether the lowering of `kind` calls a helper or a function.
    pub(super) fn calls_out(&self, kind: &InstKind) -> bool {
        match kind {
            InstKind::Unary(op, _) => {
                matches!(
                    op,
                    UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog
                ) || (!self.sse41 && matches!(op, UnaryOp::FFloor | UnaryOp::FCeil))
            }
            _ => plan::calls_helper(kind),
        }
    }

    /// Calls the code at absolute address `addr`.
    pub(super) fn call_addr(&mut self, addr: usize) {
        let a = addr as i64;
        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD a ; call rax);
        self.forget_all();
        self.reload_homes();
    }

    /// A register holding the word of slot `s`: its integer home or cache
    /// register, else `Rq(tmp)` loaded from its float home or the slot.
    pub(super) fn slot_to_reg(&mut self, s: usize, tmp: u8) -> u8 {
        match self.homes_of_slot(s) {
            (Some(h), _) => return h,
            (_, Some(h)) => {
                dynasm!(self.ops ; .arch x64 ; movq Rq(tmp), Rx(h));
                return tmp;
            }
            _ => {}
        }
        if let Some(i) = self
            .icache
            .iter()
            .position(|e| e.is_some_and(|v| self.slot(v) == s))
        {
            return ICACHE[i];
        }
        let d = self.slot_disp(s);
        dynasm!(self.ops ; .arch x64 ; mov Rq(tmp), QWORD [rbp + d]);
        tmp
    }

    /// A register holding integer-class value `v`: its home or cache
    /// register, else `Rq(tmp)` loaded from its slot (without filling the
    /// cache, which could evict a register returned for another operand).
    pub(super) fn ireg(&mut self, v: Value, tmp: u8) -> u8 {
        if let Some(c) = self.icached(v) {
            return c;
        }
        let d = self.disp(v);
        dynasm!(self.ops ; .arch x64 ; mov Rq(tmp), QWORD [rbp + d]);
        self.clobber_int(tmp);
        tmp
    }
}
