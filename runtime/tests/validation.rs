//! Validated tier-up through the embedding API: with
//! `Config::validation(Validation::Guard)` every optimized function is
//! checked by translation validation, a function that does not validate
//! keeps its unoptimized IR, and the module's pass log says why; the
//! program's behaviour is unchanged on every tier.

use waddle::Validation;
use waddle::{Config, Engine, Module, OutputSink, Store, Tier};

const PROGRAM: &str = r#"
fn triple(x: int) -> int { let unused = x * 7; return x + x + x; }
fn sum(n: int) -> int { var s = 0; for i in 0..n { s += triple(i); } return s; }
print(sum(10));
"#;

#[test]
fn guarded_modules_run_and_log_their_validation() {
    for tier in Tier::available() {
        for mode in [Validation::Report, Validation::Guard] {
            let engine = Engine::new(&Config::new().tier(tier).validation(mode)).unwrap();
            let module = Module::new(&engine, "guard.wdl", PROGRAM).unwrap();
            let mut store = Store::with_output(&engine, OutputSink::Capture);
            store.instantiate(&module).unwrap();
            assert_eq!(store.take_output(), b"135\n", "{tier} {mode:?}");
            let log = module.pass_log().validation.clone();
            let log = log.unwrap_or_else(|| panic!("{tier}: no validation log"));
            // `triple` (dead code, folding) always validates.
            assert!(log.total >= 3 && log.validated >= 1, "{tier}: {log:?}");
            assert_eq!(
                log.findings.len() as u32,
                log.total - log.validated,
                "{tier}: {log:?}"
            );
            if mode == Validation::Guard {
                assert!(
                    log.findings.iter().all(|f| f.contains("kept unoptimized")),
                    "{log:?}"
                );
            }
            assert!(module.pass_log().render().contains("validated "));
        }
    }
}
