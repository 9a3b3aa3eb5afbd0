//! Every tier against the interpreter on generated or given programs: see
//! `waddle_lang_tests::fuzz::pipeline`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| waddle_lang_tests::fuzz::pipeline(data));
