//! The example programs shipped in `runtime/examples/` (the README runs
//! `tour.wdl`) print exactly their `.out` file on every tier this build has.

use std::path::Path;
use std::process::Command;

#[test]
fn examples_print_their_expected_output_on_every_tier() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut tiers = vec!["interp"];
    tiers.extend(waddle_jit::Tier::host_tiers().map(waddle_jit::Tier::name));
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "wdl") {
            continue;
        }
        let expected = std::fs::read_to_string(path.with_extension("out"))
            .unwrap_or_else(|e| panic!("{}: missing .out file: {e}", path.display()));
        for tier in &tiers {
            let out = Command::new(env!("CARGO_BIN_EXE_waddle"))
                .args(["run", "--tier", tier])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{} on {tier}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "{} on {tier}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "no example programs found in {}",
        dir.display()
    );
}
