//! Giant functions compiled in pieces: long runs of pure scalar
//! instructions become *segments*, leaf functions of their own that the
//! function calls.
//!
//! Cranelift's cost per instruction grows with the size of the function:
//! its per-function tables (values, instructions, virtual registers,
//! operands, the allocator's state) outgrow the caches. The machine-code
//! time of a 1 000 000-statement function was 2.3-2.5 s, against 1.4 s for
//! the same statements in ten functions of 100 000. A segment bounds those
//! tables by its own size, so the time per instruction stays that of a
//! small function however large the function is.
//!
//! A segment is a run of consecutive instructions of one block, each pure,
//! trap-free, helper-free and scalar (constants, copies, arithmetic,
//! comparisons: [`eligible`]). It takes the values it reads that are
//! defined before it (at most [`MAX_INPUTS`]) and returns the values it
//! defines that are read after it (at most [`MAX_OUTPUTS`], which fit the
//! return registers of every calling convention). Its instructions are
//! translated by the same code as in the function body
//! ([`super::inst::pure_unary`], [`super::inst::pure_binary`]), so the
//! results are the same bits. A segment cannot trap, call, collect or
//! touch memory: it needs no context, no stack maps, no fuel and no trap
//! check after its call; like a helper it runs in the stack reserve below
//! the stack limit (its frame holds at most one spill slot per
//! instruction, far below [`crate::abi::HELPER_STACK_RESERVE`]).

use cranelift_codegen::ir::{self, AbiParam, InstBuilder};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use cranelift_frontend::FunctionBuilder;
use waddle_opt::ir::{Block, Function, Inst, InstKind, Type, Value};

use super::inst::{is_pure_binary, is_pure_unary, pure_binary, pure_unary};
use crate::abi::native_type;

/// Values a segment may read that are defined before it.
pub const MAX_INPUTS: usize = 32;

/// Values defined in a segment that may be read after it: two results fit
/// the return registers of every calling convention (integer and float).
pub const MAX_OUTPUTS: usize = 2;

/// One segment: instructions `start..end` of `block`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// The block holding the run.
    pub block: Block,
    /// Index of the first instruction in the block.
    pub start: usize,
    /// Index after the last instruction.
    pub end: usize,
    /// Values read in the segment and defined before it, in first-read
    /// order: the segment's parameters.
    pub inputs: Vec<Value>,
    /// Values defined in the segment and read after it, in definition
    /// order: the segment's results.
    pub outputs: Vec<Value>,
}

/// Whether a value of type `t` is a scalar a segment can take or return.
fn scalar(t: Type) -> bool {
    matches!(t, Type::Int | Type::Float | Type::Bool)
}

/// Whether instruction `i` of `func` can be part of a segment: it has a
/// scalar result and is a constant, a copy of a scalar, or a unary or
/// binary operation translated inline without a trap or a helper call.
pub(crate) fn eligible(func: &Function, i: Inst) -> bool {
    let data = func.inst(i);
    let Some(r) = data.result else {
        return false;
    };
    scalar(func.value_type(r))
        && match &data.kind {
            InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_) => true,
            InstKind::Copy(a) => scalar(func.value_type(*a)),
            InstKind::Unary(op, _) => is_pure_unary(*op),
            InstKind::Binary(op, _, _) => is_pure_binary(*op),
            _ => false,
        }
}

/// Where each value defined in a block of at least `min` instructions is
/// read last, relative to its definition: the largest index of an
/// instruction of the defining block that reads it, or `u32::MAX` when a
/// terminator or another block reads it (0: never read, or defined
/// elsewhere; an instruction reads only values defined before it).
fn last_reads(func: &Function, min: usize) -> SecondaryMap<Value, u32> {
    // Only values defined by instructions of blocks long enough to hold a
    // segment matter.
    let long = |b: Block| func.blocks()[b].insts.len() >= min;
    let mut def_block: SecondaryMap<Value, PackedOption<Block>> = SecondaryMap::new();
    def_block.resize(func.values().len());
    for &b in func.layout().iter().filter(|&&b| long(b)) {
        for &i in &func.blocks()[b].insts {
            if let Some(r) = func.inst(i).result {
                def_block[r] = b.into();
            }
        }
    }
    let mut last: SecondaryMap<Value, u32> = SecondaryMap::new();
    last.resize(func.values().len());
    for &b in func.layout() {
        let data = &func.blocks()[b];
        for (idx, &i) in data.insts.iter().enumerate() {
            func.inst(i).kind.for_each_arg(|a| {
                if let Some(d) = def_block[a].expand() {
                    last[a] = if d == b {
                        last[a].max(idx as u32)
                    } else {
                        u32::MAX
                    };
                }
            });
        }
        data.term.for_each_arg(|a| last[a] = u32::MAX);
    }
    last
}

/// The segments of `func`, in layout order of their blocks: every run of
/// [`eligible`] instructions is cut into segments of at most `size`
/// instructions and at least half that, where the cut leaves at most
/// [`MAX_OUTPUTS`] values read later and the segment reads at most
/// [`MAX_INPUTS`] values defined before it. Linear in the function's size:
/// a scan that cannot cut resumes after the instruction that stopped it,
/// and a cut rescans at most `size` instructions.
pub(crate) fn plan(func: &Function, size: usize) -> Vec<Segment> {
    let size = size.max(1);
    let min = size.div_ceil(2);
    let last = last_reads(func, min);
    // `stamp[v]`: the scan (numbered from 1) that saw `v` read before its
    // definition or after its last read (odd) or defined (even) in the
    // candidate segment.
    let mut stamp: SecondaryMap<Value, u32> = SecondaryMap::new();
    stamp.resize(func.values().len());
    let mut scan = 0u32;
    let mut segments = Vec::new();
    for &b in func.layout() {
        let insts = &func.blocks()[b].insts;
        if insts.len() < min {
            continue;
        }
        let mut idx = 0;
        while idx < insts.len() {
            if !eligible(func, insts[idx]) {
                idx += 1;
                continue;
            }
            scan += 1;
            let (seen, defined) = (2 * scan - 1, 2 * scan);
            let (mut inputs, mut open) = (0usize, 0usize);
            let mut cut = None;
            let mut p = idx;
            while p < insts.len() && p - idx < size && eligible(func, insts[p]) {
                let data = func.inst(insts[p]);
                data.kind.for_each_arg(|a| {
                    if stamp[a] == defined {
                        if last[a] == p as u32 {
                            // Its last read: no longer live after the cut.
                            open -= 1;
                            stamp[a] = seen;
                        }
                    } else if stamp[a] != seen {
                        stamp[a] = seen;
                        inputs += 1;
                    }
                });
                if inputs > MAX_INPUTS {
                    break;
                }
                if let Some(r) = data.result {
                    stamp[r] = defined;
                    if last[r] > p as u32 {
                        open += 1;
                    }
                }
                p += 1;
                if open <= MAX_OUTPUTS && p - idx >= min {
                    cut = Some(p);
                }
            }
            match cut {
                Some(end) => {
                    // A mark of a scan number of its own.
                    scan += 1;
                    let mark = 2 * scan - 1;
                    segments.push(segment(func, b, (idx, end), &last, (&mut stamp, mark)));
                    idx = end;
                }
                None => idx = p.max(idx + 1),
            }
        }
    }
    segments
}

/// The segment of instructions `start..end` of `block`, with its inputs
/// and outputs (`stamp`: scratch marks, `mark` not yet used in them).
fn segment(
    func: &Function,
    block: Block,
    (start, end): (usize, usize),
    last: &SecondaryMap<Value, u32>,
    (stamp, mark): (&mut SecondaryMap<Value, u32>, u32),
) -> Segment {
    let insts = &func.blocks()[block].insts[start..end];
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for &i in insts {
        let data = func.inst(i);
        data.kind.for_each_arg(|a| {
            if stamp[a] != mark {
                stamp[a] = mark;
                inputs.push(a);
            }
        });
        if let Some(r) = data.result {
            stamp[r] = mark;
            if last[r] >= end as u32 {
                outputs.push(r);
            }
        }
    }
    Segment {
        block,
        start,
        end,
        inputs,
        outputs,
    }
}

/// The native signature of `seg` of `func`.
pub(crate) fn signature(func: &Function, seg: &Segment, call_conv: CallConv) -> ir::Signature {
    let native = |v: &Value| {
        AbiParam::new(native_type(func.value_type(*v)).expect("segment values are scalars"))
    };
    let mut sig = ir::Signature::new(call_conv);
    sig.params.extend(seg.inputs.iter().map(native));
    sig.returns.extend(seg.outputs.iter().map(native));
    sig
}

/// Translates `seg` of `func` into `b`'s function (which has
/// [`signature`]) and finalizes the builder. `vals` maps Waddle values to
/// the Cranelift values of the function being built; it is shared by all
/// segments of a function (each writes its inputs and definitions before
/// reading them and clears them after), so a segment costs its own size,
/// not the function's.
pub(crate) fn translate(
    func: &Function,
    seg: &Segment,
    vals: &mut SecondaryMap<Value, PackedOption<ir::Value>>,
    mut b: FunctionBuilder,
    frontend: TargetFrontendConfig,
) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    for (k, &v) in seg.inputs.iter().enumerate() {
        vals[v] = b.block_params(entry)[k].into();
    }
    let val = |vals: &SecondaryMap<Value, PackedOption<ir::Value>>, v: Value| {
        vals[v].expect("a segment defines or takes every value it reads")
    };
    for &i in &func.blocks()[seg.block].insts[seg.start..seg.end] {
        let data = func.inst(i);
        let r = data.result.expect("segment instructions have results");
        let v = match &data.kind {
            InstKind::IConst(n) => b.ins().iconst(ir::types::I64, *n),
            InstKind::FConst(bits) => b.ins().f64const(ir::immediates::Ieee64::with_bits(*bits)),
            InstKind::BConst(v) => b.ins().iconst(ir::types::I8, i64::from(*v)),
            InstKind::Copy(a) => val(vals, *a),
            InstKind::Unary(op, a) => {
                let x = val(vals, *a);
                pure_unary(&mut b, *op, x).expect("an eligible unary operation")
            }
            InstKind::Binary(op, a, c) => {
                let (x, y) = (val(vals, *a), val(vals, *c));
                pure_binary(&mut b, func, *op, (*a, x), (*c, y))
                    .expect("an eligible binary operation")
            }
            _ => unreachable!("not an eligible instruction"),
        };
        vals[r] = v.into();
    }
    let results: Vec<ir::Value> = seg.outputs.iter().map(|&v| val(vals, v)).collect();
    b.ins().return_(&results);
    b.finalize(frontend);
    // Forget this segment's values, so a value another segment reads
    // without taking it fails loudly instead of naming a value of this one.
    let insts = &func.blocks()[seg.block].insts[seg.start..seg.end];
    let defined = insts.iter().filter_map(|&i| func.inst(i).result);
    for v in seg.inputs.iter().copied().chain(defined) {
        vals[v] = None.into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;
    use std::fmt::Write as _;
    use waddle_opt::ir::{parse_program, FuncId};

    /// `v(j+1) = v(j) * 3 + j` for `k` links from the parameter, then a
    /// call (not eligible) and a second chain reading the first chain's
    /// end; returns the sum with the middle link `v(3k/2 + 4)`.
    fn chains(k: usize) -> Function {
        let mut s = String::from(
            "file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n    v1: int = iconst 3\n",
        );
        let mut last = 0;
        let mut n = 2;
        for j in 0..k {
            let _ = writeln!(s, "    v{n}: int = iconst {j}");
            let _ = writeln!(s, "    v{}: int = imul v{last}, v1", n + 1);
            let _ = writeln!(s, "    v{}: int = iadd v{}, v{n}", n + 2, n + 1);
            last = n + 2;
            n += 3;
        }
        let first_end = last;
        let _ = writeln!(s, "    v{n}: int = call fn1 \"g\"(v{last})");
        last = n;
        n += 1;
        for _ in 0..k {
            let _ = writeln!(s, "    v{n}: int = iadd v{last}, v{first_end}");
            last = n;
            n += 1;
        }
        let _ = writeln!(
            s,
            "    v{n}: int = iadd v{last}, v{}\n    return v{n}\n}}\n\nfn fn1 \"g\"(int) -> int {{\nblock0(v0: int):\n    return v0\n}}",
            3 * (k / 2) + 4
        );
        let p = parse_program(&s).expect("valid IR");
        p.funcs[FuncId::new(0)].clone()
    }

    /// Each segment's inputs are exactly the values it reads before
    /// defining them, in first-read order.
    fn check_inputs(f: &Function, segs: &[Segment]) {
        for s in segs {
            let mut expected: Vec<Value> = Vec::new();
            let mut defined = Vec::new();
            for &i in &f.blocks()[s.block].insts[s.start..s.end] {
                f.inst(i).kind.for_each_arg(|a| {
                    if !defined.contains(&a) && !expected.contains(&a) {
                        expected.push(a);
                    }
                });
                defined.extend(f.inst(i).result);
            }
            assert_eq!(s.inputs, expected, "{s:?}");
        }
    }

    #[test]
    fn runs_are_cut_into_bounded_segments_with_their_live_values() {
        let f = chains(300);
        let segs = plan(&f, 100);
        assert!(segs.len() >= 8, "{}", segs.len());
        let insts = &f.blocks()[segs[0].block].insts;
        let mut prev_end = 0;
        for s in &segs {
            assert!(s.end - s.start <= 100 && s.end - s.start >= 50, "{s:?}");
            assert!(s.start >= prev_end);
            prev_end = s.end;
            assert!(s.inputs.len() <= MAX_INPUTS && s.outputs.len() <= MAX_OUTPUTS);
            assert!(insts[s.start..s.end].iter().all(|&i| eligible(&f, i)));
            // Every output is read after the segment; every input is
            // defined before it.
            for &o in &s.outputs {
                let read_later = insts[s.end..].iter().any(|&i| {
                    let mut r = false;
                    f.inst(i).kind.for_each_arg(|a| r |= a == o);
                    r
                }) || {
                    let mut r = false;
                    f.blocks()[s.block].term.for_each_arg(|a| r |= a == o);
                    r
                };
                assert!(read_later, "{o} of {s:?}");
            }
            for &v in &s.inputs {
                let inside = insts[s.start..s.end]
                    .iter()
                    .any(|&i| f.inst(i).result == Some(v));
                assert!(!inside, "{v} of {s:?}");
            }
        }
        check_inputs(&f, &segs);
        // The middle link, read at the end, leaves the segment defining it
        // as a second output.
        let mid = Value::new(3 * 150 + 4);
        assert!(segs.iter().any(|s| s.outputs.contains(&mid)));
    }

    #[test]
    fn no_cut_where_too_many_values_stay_live() {
        // 60 constants, then a chain of sums adding them in reverse
        // order.
        let mut s =
            String::from("file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"() -> int {\nblock0:\n");
        for j in 0..60 {
            let _ = writeln!(s, "    v{j}: int = iconst {j}");
        }
        let mut last = 0;
        for j in 1..60 {
            let _ = writeln!(s, "    v{}: int = iadd v{last}, v{}", 59 + j, 60 - j);
            last = 59 + j;
        }
        let _ = writeln!(s, "    return v{last}\n}}");
        let p = parse_program(&s).expect("valid IR");
        let f = &p.funcs[FuncId::new(0)];
        // Segments of 10: the constants' run keeps too many live, while
        // the sums' run (each read by the next) can be cut.
        let segs = plan(f, 10);
        assert!(segs.iter().all(|s| s.start >= 50), "{segs:?}");
        assert!(!segs.is_empty());
        // After scans that found no cut, the marks of the segments' own
        // scans are still unique.
        check_inputs(f, &segs);
    }
}
