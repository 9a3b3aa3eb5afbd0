//! The embedding examples under `runtime/examples/` run as tests, so the
//! code the README points embedders at cannot rot.

#[path = "../examples/embed.rs"]
mod embed;

/// `examples/embed.rs`: a module shared by four worker threads, a deadline
/// and an interrupt (the example asserts the trap codes itself).
#[test]
fn embed_example_runs() {
    embed::main().expect("the embed example failed");
}
