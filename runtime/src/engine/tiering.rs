//! The tiering policy: which tier runs which function.
//!
//! - `interp`: everything on the interpreter; native code is dropped.
//! - `opt`: every function with a body is compiled by T2 before anything
//!   runs (a program's top-level code included).
//! - `auto` (the default): T2 for every function when this build has it;
//!   the one exception is an entry's top-level code that is *cold by
//!   construction* (no loop and no call of a Waddle function: it runs each
//!   statement once, e.g. a REPL line `print(1 + 2)` or a declaration), which
//!   the interpreter runs at once instead of paying a Cranelift compile.
//!   When T2 cannot compile a program (an internal limitation), auto falls
//!   back to the interpreter for it instead of failing.
//!
//! The invariant behind this policy: the set of natively compiled functions
//! is closed under calls (it is either empty or every bodied function except
//! cold top-level code), because compiled code calls its callees through
//! entry slots and the interpreter cannot be entered from there; the
//! interpreter can run any function, so it is always kept up to date. A
//! function's native code is dropped when its body changes and recompiled
//! before the next execution.
//!
//! Why not counters yet: counter-driven promotion (interpret first, compile
//! a function when its call or loop counter crosses a threshold, swap its
//! entry slot) needs the interpreter to call compiled code, and without
//! on-stack replacement a function whose hot loop is already running on the
//! interpreter (typically a program's top-level code or a kernel called
//! once) could never be promoted, which would make `waddle run` several
//! times slower than compiling up front (T2 compiles a 70-line program in
//! a few milliseconds). The entry slots and per-unit code freeing of
//! [`super::native`] are what such a controller will use.

use waddle_opt::ir::{Function, InstKind, Terminator};

use crate::driver::Tier;

/// The native tier `tier` compiles with, `None` for interpreter-only.
pub(crate) fn native_tier(tier: Tier) -> Option<Tier> {
    match tier {
        Tier::Interp => None,
        Tier::Auto => Tier::Opt.is_available().then_some(Tier::Opt),
        t => t.is_available().then_some(t),
    }
}

/// Whether `f` runs each instruction at most once and calls no Waddle
/// function: no edge goes to a block at the same or an earlier layout
/// position, and there is no `call`.
pub(crate) fn is_straight_line(f: &Function) -> bool {
    let pos = |b| f.layout().iter().position(|&x| x == b);
    for (i, &b) in f.layout().iter().enumerate() {
        let block = &f.blocks()[b];
        if block
            .insts
            .iter()
            .any(|&inst| matches!(f.inst(inst).kind, InstKind::Call(..)))
        {
            return false;
        }
        if let Terminator::Switch { .. } = &block.term {
            if block
                .term
                .successors()
                .any(|s| pos(s.block).is_none_or(|p| p <= i))
            {
                return false;
            }
        }
    }
    true
}

/// Whether `auto` leaves top-level code `main` on the interpreter.
pub(crate) fn interpret_main(tier: Tier, main: &Function) -> bool {
    tier == Tier::Auto && is_straight_line(main)
}

#[cfg(test)]
mod tests {
    use super::*;
    use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};

    fn main_of(src: &str) -> Function {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new("t.wdl", src));
        let c = compile(&sources, &CompileOptions::default()).unwrap();
        let main = c.program.main.unwrap();
        c.program.funcs[main].clone()
    }

    #[test]
    fn straight_line_detection() {
        assert!(is_straight_line(&main_of("print(1 + 2); let a = [1, 2];")));
        assert!(is_straight_line(&main_of(
            "if 1 < 2 { print(1); } else { print(2); }"
        )));
        assert!(!is_straight_line(&main_of(
            "var i = 0; while i < 3 { i += 1; }"
        )));
        assert!(!is_straight_line(&main_of("fn f() {} f();")));
        assert!(!interpret_main(Tier::Opt, &main_of("print(1);")));
    }
}
