//! Trap paths and runtime helper calls: cold blocks that write the trap
//! record and report the frame, the checks after calls that may have
//! recorded a trap, and the shared exit block that returns a zero result
//! (the protocol of [`crate::abi`]).

use cranelift_codegen::ir::{self, types, AbiParam, InstBuilder};
use waddle_opt::abi::{TrapCode, VMCTX_HELPERS_OFFSET, VMCTX_TRAP_CODE_OFFSET};
use waddle_opt::ir::SrcLoc;

use super::{flags, native_type, word_offset, Addressing, Pending, Sites, Translator};
use crate::helpers::Helper;

impl Translator<'_, '_> {
    /// Writes `code` into the trap record.
    pub(super) fn store_trap_code(&mut self, code: u32) {
        let c = self.b.ins().iconst(types::I32, i64::from(code));
        let ctx = self.ctx();
        self.b.ins().store(flags(), c, ctx, VMCTX_TRAP_CODE_OFFSET);
    }

    /// Reports this frame, stopped at `loc`, to the trap record: the
    /// [`Helper::TrapFrame`] helper takes `loc` as the trap's location when
    /// none is set yet and adds the frame to the stack trace (trap paths
    /// only, so the normal path pays nothing).
    pub(super) fn trap_frame(&mut self, loc: SrcLoc) {
        let fields = [self.fid.as_u32(), loc.file, loc.line, loc.col];
        let ctx = self.ctx();
        let mut args = vec![ctx];
        for v in fields {
            args.push(self.b.ins().iconst(types::I32, i64::from(v)));
        }
        self.call_helper(Helper::TrapFrame, &args, None);
    }

    /// Reports the frame stopped at `loc` and, in inlined self calls
    /// (`sites`, innermost first), the caller's frame at each call.
    /// With a tail loop, then the frames of its iterations ([`tail`]).
    pub(super) fn trap_frames(&mut self, loc: SrcLoc, sites: Sites) {
        self.trap_frame(loc);
        for site in sites.iter() {
            self.trap_frame(site);
        }
        self.tail_frames();
    }

    /// The cold block that raises `code` at `loc`.
    pub(super) fn trap_block(&mut self, code: TrapCode, loc: SrcLoc) -> ir::Block {
        let key = (code as u32, loc, self.inline_sites);
        if let Some(&bl) = self.trap_blocks.get(&key) {
            return bl;
        }
        let bl = self.b.create_block();
        self.b.set_cold_block(bl);
        self.pending
            .push(Pending::Trap(bl, code, loc, self.inline_sites));
        self.trap_blocks.insert(key, bl);
        bl
    }

    /// Branches to a trap raising `code` at `loc` when `cond` is non-zero;
    /// continues in a fresh block otherwise.
    pub(super) fn trap_if(&mut self, cond: ir::Value, code: TrapCode, loc: SrcLoc) {
        let tb = self.trap_block(code, loc);
        let cont = self.b.create_block();
        self.b.ins().brif(cond, tb, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Raises `code` at `loc` unconditionally; later instructions of the
    /// block are translated into an unreachable block.
    pub(super) fn trap_always(&mut self, code: TrapCode, loc: SrcLoc) {
        let tb = self.trap_block(code, loc);
        self.b.ins().jump(tb, &[]);
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
    }

    /// After a call that may have recorded a trap: returns (setting `loc`
    /// if no location is recorded yet, or leaving it for the caller when
    /// `loc` is `None`) when the record holds one.
    pub(super) fn check_trap(&mut self, loc: Option<SrcLoc>) {
        let ctx = self.ctx();
        let code = self
            .b
            .ins()
            .load(types::I32, flags(), ctx, VMCTX_TRAP_CODE_OFFSET);
        let target = match loc {
            None => self.exit,
            Some(loc) => self.propagate_block(loc),
        };
        let cont = self.b.create_block();
        self.b.ins().brif(code, target, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// The cold block that reports this frame at `loc` to the trap record
    /// (which takes `loc` unless a location is already set), then exits.
    pub(super) fn propagate_block(&mut self, loc: SrcLoc) -> ir::Block {
        let key = (loc, self.inline_sites);
        if let Some(&bl) = self.propagate_blocks.get(&key) {
            return bl;
        }
        let bl = self.b.create_block();
        self.b.set_cold_block(bl);
        self.pending
            .push(Pending::Propagate(bl, loc, self.inline_sites));
        self.propagate_blocks.insert(key, bl);
        bl
    }

    /// Calls a runtime helper; helpers that can fail are followed by a trap
    /// check pointing at `loc` (or at the caller when `None`).
    pub(super) fn call_helper(
        &mut self,
        h: Helper,
        args: &[ir::Value],
        loc: Option<SrcLoc>,
    ) -> Option<ir::Value> {
        let sig = match self.helper_sigs.get(&h) {
            Some(&s) => s,
            None => {
                let hs = h.sig();
                let mut sig = ir::Signature::new(self.env.call_conv);
                sig.params
                    .extend(hs.params.iter().map(|&t| AbiParam::new(t)));
                sig.returns.extend(hs.ret.map(AbiParam::new));
                let s = self.b.import_signature(sig);
                self.helper_sigs.insert(h, s);
                s
            }
        };
        let addr = self.helper_addr(h);
        let call = self.b.ins().call_indirect(sig, addr, args);
        let result = self.b.inst_results(call).first().copied();
        if h.may_trap() {
            self.check_trap(loc);
        }
        result
    }

    /// The code address of helper `h`: a constant, or entry `h` of the
    /// context's helper table under [`Addressing::Tables`].
    pub(super) fn helper_addr(&mut self, h: Helper) -> ir::Value {
        match self.env.addressing {
            Addressing::Absolute => self.b.ins().iconst(types::I64, h.addr() as i64),
            Addressing::Tables => {
                let ctx = self.ctx();
                let table = self
                    .b
                    .ins()
                    .load(types::I64, flags(), ctx, VMCTX_HELPERS_OFFSET);
                let off = word_offset(h as usize).unwrap_or(i32::MAX);
                self.b
                    .ins()
                    .load(types::I64, flags().with_readonly(), table, off)
            }
        }
    }

    /// Fills the blocks queued in `pending` (filling one may queue more).
    pub(super) fn fill_pending(&mut self) {
        while let Some(p) = self.pending.pop() {
            match p {
                Pending::Trap(bl, code, loc, site) => {
                    self.b.switch_to_block(bl);
                    self.store_trap_code(code as u32);
                    self.trap_frames(loc, site);
                    self.b.ins().jump(self.exit, &[]);
                }
                Pending::Propagate(bl, loc, site) => {
                    self.b.switch_to_block(bl);
                    self.trap_frames(loc, site);
                    self.b.ins().jump(self.exit, &[]);
                }
                Pending::Edge(bl, target, args, tick, site) => {
                    self.b.switch_to_block(bl);
                    if tick {
                        let outer = std::mem::replace(&mut self.inline_sites, site);
                        self.fuel_tick(Some(self.func.loc()));
                        self.inline_sites = outer;
                        self.counter_tick(true);
                    }
                    self.b.ins().jump(target, &args);
                }
            }
        }
    }

    /// Fills the shared exit block: return a zero result (after unwinding
    /// the self calls to the shell, which never returns here, under
    /// `unwind`).
    pub(super) fn finish_exit(&mut self) {
        self.b.switch_to_block(self.exit);
        if let Some(table) = self.unwind {
            let mut sig = ir::Signature::new(self.env.call_conv);
            sig.params
                .extend([AbiParam::new(types::I64), AbiParam::new(types::I64)]);
            let sig = self.b.import_signature(sig);
            let addr = self
                .b
                .ins()
                .iconst(types::I64, super::super::unwind::entry_addr() as i64);
            let table = self.b.ins().iconst(types::I64, table as i64);
            let ctx = self.ctx();
            self.b.ins().call_indirect(sig, addr, &[ctx, table]);
        }
        self.restore_pinned();
        match native_type(self.func.sig().ret) {
            Some(t) => {
                let z = self.zero(t);
                self.b.ins().return_(&[z]);
            }
            None => {
                self.b.ins().return_(&[]);
            }
        }
    }
}
