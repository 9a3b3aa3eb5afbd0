//! Collector stress test: every program of the language corpus runs with a
//! collection before *every* allocation, on the interpreter and on compiled
//! code (T2, whose frames are scanned conservatively), and must print
//! exactly what the interpreter prints with the normal collection policy.
//! Any root a tier or the host forgets shows up as a difference (or a
//! crash).

use std::path::{Path, PathBuf};

use waddle::{Config, OutputSink, Session, Tier};

fn corpus(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            corpus(&p, out);
        } else if p.extension().is_some_and(|x| x == "wdl") {
            out.push(p);
        }
    }
}

fn run(source: &str, tier: Tier, stress: bool, opt_level: u8) -> (Vec<u8>, Option<String>) {
    let mut engine = Session::with_config(
        &Config::new()
            .tier(tier)
            .opt_level(opt_level)
            .gc_stress(stress),
        OutputSink::Capture,
    )
    .map(|mut s| {
        s.set_fuel(Some(50_000_000));
        s
    })
    .unwrap();
    let r = engine.run("prog.wdl", source);
    (engine.take_output(), r.err().map(|e| e.render()))
}

#[test]
fn corpus_output_is_the_same_when_collecting_before_every_allocation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lang-tests/tests/programs");
    let mut files = Vec::new();
    corpus(&root, &mut files);
    files.sort();
    let mut checked = 0;
    // A large stack for the deep (but budgeted) recursion in the corpus,
    // as the CLI runs programs.
    std::thread::scope(|scope| {
        let body = || {
            for f in &files {
                let source = std::fs::read_to_string(f).unwrap();
                // Keep the stress run affordable: each collection scans every
                // frame, so collecting before every allocation is quadratic in
                // the recursion depth; the deep-recursion programs are skipped.
                let name = f.to_string_lossy();
                if name.contains("recursion") || name.contains("stack_overflow") {
                    continue;
                }
                for (tier, opt) in [(Tier::Interp, 0), (Tier::Interp, 2), (Tier::Opt, 2)] {
                    let normal = run(&source, Tier::Interp, false, opt);
                    if normal
                        .1
                        .as_deref()
                        .is_some_and(|e| e.contains("out of fuel"))
                    {
                        continue;
                    }
                    let stressed = run(&source, tier, true, opt);
                    assert_eq!(
                        String::from_utf8_lossy(&stressed.0),
                        String::from_utf8_lossy(&normal.0),
                        "stdout differs under GC stress: {} {tier} -O{opt}",
                        f.display()
                    );
                    assert_eq!(
                        stressed.1,
                        normal.1,
                        "error differs: {} {tier} -O{opt}",
                        f.display()
                    );
                    checked += 1;
                }
            }
        };
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(scope, body)
            .unwrap()
            .join()
            .unwrap();
    });
    // The corpus is another crate's; when it is present it must be used.
    if root.is_dir() {
        assert!(checked > 10, "only {checked} runs checked");
    }
}
