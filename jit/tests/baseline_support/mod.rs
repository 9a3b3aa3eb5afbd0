//! Running programs on the baseline tier with the test host of `common`,
//! side by side with the interpreter.

#![allow(dead_code)]

use waddle_jit::baseline;
use waddle_jit::JitOptions;
use waddle_opt::abi::Word;
use waddle_opt::ir::Program;

use crate::common::{on_big_stack, parse, run_interp, HostSetup, Outcome, TestHost};

/// A host as `common` builds it for `p`.
pub fn host_for(p: &Program, setup: HostSetup) -> TestHost {
    let mut h = TestHost::new(p.globals.len());
    h.init_globals(p);
    h.fuel = setup.fuel;
    h.gc_every = setup.gc_every;
    h
}

/// Compiles `p` with the baseline tier and runs function `name` (on the
/// current thread).
pub fn run_baseline(
    p: &Program,
    name: &str,
    args: &[Word],
    setup: HostSetup,
    opts: &JitOptions,
) -> (Outcome, TestHost) {
    let mut host = host_for(p, setup);
    let mut bp = baseline::compile(p, opts).unwrap_or_else(|e| panic!("compile failed: {e}"));
    let f = p.func_by_name(name).expect("function");
    let result = bp.call(&mut host, f, args);
    let out = std::mem::take(&mut host.out);
    (Outcome { result, out }, host)
}

/// Runs `name` of IR text `text` on the interpreter and (on a big stack)
/// on the baseline tier, with and without fuel counting; asserts identical
/// outcomes and returns the interpreter's.
pub fn check_same(text: &str, name: &str, args: &[Word], setup: HostSetup) -> Outcome {
    let p = parse(text);
    let (expected, _) = run_interp(&p, name, args, setup);
    for fuel in [true, false] {
        if !fuel && setup.fuel.is_some() {
            continue;
        }
        let p2 = p.clone();
        let name2 = name.to_string();
        let args2 = args.to_vec();
        let opts = JitOptions {
            fuel,
            disasm: true,
            ..JitOptions::default()
        };
        let got = on_big_stack(move || run_baseline(&p2, &name2, &args2, setup, &opts).0);
        assert_eq!(got, expected, "fuel={fuel}\n{text}");
    }
    expected
}
