//! Phase 1: structural well-formedness (see the parent module).

use cranelift_entity::{EntitySet, SecondaryMap};

use super::Reporter;
use crate::ir::entities::{Block, Inst, Value};
use crate::ir::function::ValueDef;
use crate::ir::types::Type;

/// Where each instruction sits, for the dominance phase.
pub(super) struct Layout {
    /// Block and index within it of every instruction in the layout.
    pub inst_pos: SecondaryMap<Inst, Option<(Block, u32)>>,
}

/// Runs the structural checks. Returns `None` for a declaration (nothing
/// further to check).
pub(super) fn check(r: &mut Reporter<'_>) -> Option<Layout> {
    let f = r.func;
    for (i, &t) in f.sig.params.iter().enumerate() {
        if t == Type::Unit {
            r.func_error(format!("signature parameter {i} has type void"));
        }
    }
    if f.is_declaration() {
        return None;
    }
    // Sized once: growing an entity map index by index was a third of the
    // verifier's time on large functions.
    let mut inst_pos = SecondaryMap::with_capacity(f.insts.len());
    inst_pos.resize(f.insts.len());
    let mut layout = Layout { inst_pos };
    let mut in_layout = EntitySet::<Block>::with_capacity(f.blocks.len());
    let mut defined = EntitySet::<Value>::with_capacity(f.values.len());
    for &b in &f.layout {
        let Some(bd) = f.blocks.get(b) else {
            r.func_error(format!("layout lists {b}, which is not in the block arena"));
            continue;
        };
        if in_layout.contains(b) {
            r.block_error(b, "block appears twice in the layout");
            continue;
        }
        in_layout.insert(b);
        for (i, &v) in bd.params.iter().enumerate() {
            define(r, &mut defined, v, ValueDef::Param(b, i as u32), b, None);
        }
        for (i, &inst) in bd.insts.iter().enumerate() {
            let Some(data) = f.insts.get(inst) else {
                r.block_error(b, format!("{inst} is not in the instruction arena"));
                continue;
            };
            if let Some((ob, _)) = layout.inst_pos[inst] {
                r.inst_error(b, inst, format!("{inst} also appears in {ob}"));
                continue;
            }
            layout.inst_pos[inst] = Some((b, i as u32));
            if let Some(v) = data.result {
                define(r, &mut defined, v, ValueDef::Inst(inst), b, Some(inst));
            }
        }
    }
    check_entry(r);
    // Operands and edge targets, now that every definition is known.
    for &b in &f.layout {
        let Some(bd) = f.blocks.get(b) else { continue };
        for &inst in &bd.insts {
            let Some(data) = f.insts.get(inst) else {
                continue;
            };
            let mut undefined = Vec::new();
            data.kind.for_each_arg(|v| {
                if !defined.contains(v) {
                    undefined.push(v);
                }
            });
            for v in undefined {
                r.inst_error(b, inst, format!("operand {v} is not defined in the layout"));
            }
        }
        let mut undefined = Vec::new();
        bd.term.for_each_arg(|v| {
            if !defined.contains(v) {
                undefined.push(v);
            }
        });
        for v in undefined {
            r.term_error(b, format!("operand {v} is not defined in the layout"));
        }
        for call in bd.term.successors() {
            if !in_layout.contains(call.block) {
                r.term_error(
                    b,
                    format!("edge target {} is not in the layout", call.block),
                );
            }
        }
    }
    Some(layout)
}

/// Records the definition of `v` at `def`, reporting duplicates, values
/// missing from the arena, a disagreeing `ValueDef`, and void types.
fn define(
    r: &mut Reporter<'_>,
    defined: &mut EntitySet<Value>,
    v: Value,
    def: ValueDef,
    b: Block,
    inst: Option<Inst>,
) {
    let report = |r: &mut Reporter<'_>, msg: String| match inst {
        Some(i) => r.inst_error(b, i, msg),
        None => r.block_error(b, msg),
    };
    let Some(vd) = r.func.values.get(v) else {
        report(r, format!("{v} is not in the value arena"));
        return;
    };
    if defined.contains(v) {
        report(r, format!("{v} is defined more than once"));
        return;
    }
    defined.insert(v);
    if vd.def != def {
        report(
            r,
            format!(
                "{v} records its definition as {:?}, but it is defined here ({def:?})",
                vd.def
            ),
        );
    }
    if vd.ty == Type::Unit {
        report(r, format!("{v} has type void"));
    }
}

/// The entry block's parameters must match the signature.
fn check_entry(r: &mut Reporter<'_>) {
    let f = r.func;
    let entry = f.entry();
    let Some(bd) = f.blocks.get(entry) else {
        return;
    };
    let types: Vec<Option<Type>> = bd
        .params
        .iter()
        .map(|&v| f.values.get(v).map(|d| d.ty))
        .collect();
    let expected: Vec<Option<Type>> = f.sig.params.iter().map(|&t| Some(t)).collect();
    if types != expected {
        let show = |ts: &[Option<Type>]| {
            ts.iter()
                .map(|t| t.map_or("?".to_string(), |t| t.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        r.block_error(
            entry,
            format!(
                "entry block parameters ({}) do not match the signature ({})",
                show(&types),
                show(&expected)
            ),
        );
    }
}
