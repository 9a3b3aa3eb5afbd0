//! Text format tests: golden output, parse errors with locations, and the
//! print → parse → print round trip on random programs.

mod common;

use proptest::prelude::*;
use waddle_opt::ir::{parse_program, print_program, verify_program};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Printing, parsing and printing again gives the same text, and the
    /// parsed program equals the original (arena numbering preserved).
    #[test]
    fn roundtrip(choices in prop::collection::vec(any::<u32>(), 0..600)) {
        let p = common::random_program(&mut common::Gen::new(choices));
        let text = print_program(&p);
        let q = parse_program(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(print_program(&q), text.clone());
        prop_assert_eq!(&q, &p, "{}", text);
    }

    /// Generated programs are well-formed (checks the generator and the
    /// verifier against each other).
    #[test]
    fn generated_programs_verify(choices in prop::collection::vec(any::<u32>(), 0..600)) {
        let p = common::random_program(&mut common::Gen::new(choices));
        if let Err(errs) = verify_program(&p) {
            let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
            prop_assert!(false, "{}\n{}", msgs.join("\n"), print_program(&p));
        }
    }
}
