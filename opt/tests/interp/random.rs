//! Random well-typed programs (from `tests/common`) run without panicking:
//! every function is called with zero arguments under a fuel limit and a
//! small stack budget, and whatever it does must end in a result or a trap.
//! Declaration-only callees and wrong call shapes are among the cases.

use proptest::prelude::*;
use waddle_opt::abi::Word;
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::Type;

use crate::common;
use waddle_test_support::host::{new_array, new_str, TestHost};

/// A zero value of `ty` (empty string / empty array for references).
fn zero(ty: Type) -> Word {
    match ty {
        Type::Str => new_str(""),
        Type::Array { .. } => new_array(ty.element().unwrap_or(Type::Int), &[]),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_programs_never_panic(choices in prop::collection::vec(any::<u32>(), 0..600)) {
        let p = common::random_program(&mut common::Gen::new(choices));
        let mut h = TestHost::new(p.globals.len());
        for (slot, g) in h.globals.iter_mut().zip(p.globals.values()) {
            *slot = zero(g.ty);
        }
        h.max_alloc = 1000;
        let mut it = Interpreter::new(&p, &mut h);
        it.set_stack_budget(1 << 16);
        for (id, f) in p.funcs.iter() {
            h.fuel = Some(20_000);
            let args: Vec<Word> = f.sig().params.iter().map(|&t| zero(t)).collect();
            let _ = it.call(&mut h, id, &args);
            it.update(&p, id, &mut h);
        }
    }
}
