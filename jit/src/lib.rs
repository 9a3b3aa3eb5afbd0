//! Native code generation for Waddle IR.
//!
//! This crate will hold the executable-memory code cache, the one-pass
//! baseline generator (dynasmrt, tier T1) and the Cranelift-based optimizing
//! generator (tier T2). Neither exists yet; [`available_tiers`] says so, and
//! the runtime reports a clear error for a tier that is not built.

/// Native tiers this build can compile for the host, by `--tier` name.
pub fn available_tiers() -> &'static [&'static str] {
    &[]
}
