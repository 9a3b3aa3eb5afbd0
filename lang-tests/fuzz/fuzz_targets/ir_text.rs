//! The IR text parser, the -O3 pipeline and both code generators on arbitrary
//! IR text: see `waddle_lang_tests::fuzz::ir_text`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| waddle_lang_tests::fuzz::ir_text(data));
