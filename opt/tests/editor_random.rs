//! The Fritz §10.4 pass sequence on generated large functions (the
//! benchmark's generator) with the from-scratch checker after every
//! mutation primitive, in incremental and rebuild mode; both results must
//! verify and be canonical.

use rustc_hash::FxHashMap;
use waddle_opt::canon::check_canonical;
use waddle_opt::editor::{Editor, Mode};
use waddle_opt::ir::{verify_program, FuncId, Function};
use waddle_opt::passes;

#[path = "../benches/gen/mod.rs"]
mod gen;

#[test]
fn sequence_on_generated_functions_keeps_every_analysis_exact() {
    for seed in 0..4u64 {
        for mode in [Mode::Incremental, Mode::Rebuild] {
            let mut p = gen::generate(120, 0x5eed ^ (seed * 7919));
            let callees: FxHashMap<FuncId, Function> = passes::inline_candidates(&p);
            let big = FuncId::from_u32(1);
            let f = &mut p.funcs[big];
            let mut ed = Editor::new(f);
            ed.set_mode(mode);
            ed.set_checking(true);
            passes::inline_calls(&mut ed, big, &callees);
            passes::jump_thread(&mut ed);
            passes::jump_simplify(&mut ed);
            passes::unswitch(&mut ed);
            passes::if_simplify(&mut ed);
            passes::straighten(&mut ed);
            passes::unswitch(&mut ed);
            passes::unroll(&mut ed);
            passes::peel(&mut ed);
            passes::sccp(&mut ed);
            passes::licm(&mut ed);
            passes::gvn(&mut ed);
            passes::copy_propagate(&mut ed);
            passes::dce(&mut ed);
            passes::straighten(&mut ed);
            ed.check()
                .unwrap_or_else(|e| panic!("seed {seed} {mode:?}: {e}"));
            drop(ed);
            verify_program(&p).unwrap_or_else(|e| panic!("seed {seed} {mode:?}: {:?}", e[0]));
            check_canonical(&p.funcs[big]).unwrap();
        }
    }
}
