//! The IR text parser on arbitrary text: never panics; a program that
//! parses and verifies prints back to text that parses to the same
//! program (the round trip `waddle run --emit ir` and filetests rely on).
#![no_main]

use libfuzzer_sys::fuzz_target;
use waddle_opt::ir::{parse_program, print_program, verify_program};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = parse_program(text) else {
        return;
    };
    if verify_program(&program).is_err() {
        return;
    }
    let printed = print_program(&program);
    let again = parse_program(&printed)
        .unwrap_or_else(|e| panic!("printed program does not parse: {e:?}\n{printed}"));
    assert_eq!(
        printed,
        print_program(&again),
        "print/parse round trip differs"
    );
});
