//! Whether tests that need the AArch64 cross tools (qemu-aarch64 and
//! aarch64-linux-gnu-gcc) can run.
//!
//! Without the tools such a test is skipped, visibly: a `SKIP` line goes
//! straight to the process's standard error, which the test harness does
//! not capture, so it shows up in `cargo test` output even for a passing
//! test. With `WADDLE_REQUIRE_CROSS=1` (set by CI, `.ci/run`) a missing tool
//! fails the test instead, so CI can never pass without running them. The
//! decision is `waddle_jit::cross::skip_test_without_tools`, shared with the
//! code generator's own qemu tests.

/// The environment variable that turns a skip into a failure.
pub const REQUIRE_CROSS: &str = waddle_jit::cross::REQUIRE_CROSS_ENV;

/// `true` (after reporting the skip) when the cross tools are missing and
/// `test` should return without running; panics instead when
/// [`REQUIRE_CROSS`] is `1`.
pub fn skip_without_cross_tools(test: &str) -> bool {
    waddle_jit::cross::skip_test_without_tools(test)
}
