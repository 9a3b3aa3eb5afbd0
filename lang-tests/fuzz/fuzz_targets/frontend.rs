//! The frontend on arbitrary text: see `waddle_lang_tests::fuzz::frontend`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| waddle_lang_tests::fuzz::frontend(data));
