//! The native tiers as a type, and the one factory that compiles a program
//! with any of them.
//!
//! The runtime's user-facing tier (`interp`, `baseline`, `opt`, `full`,
//! `auto`) maps its native members onto [`Tier`]; nothing crosses the crate
//! boundary as a string.

use std::fmt;

use waddle_opt::ir::Program;

use crate::{CompileError, JitOptions, NativeProgram};

/// A native code generator tier.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Tier {
    /// T1: one pass of dynasmrt code from unoptimized IR.
    Baseline,
    /// T2: Cranelift over the always-canonical pipeline's output.
    Opt,
    /// T3: like T2 for the code generator; the runtime runs the VSDG round
    /// trip before handing the IR over.
    Full,
}

impl Tier {
    /// Every native tier, lowest first.
    pub const ALL: [Tier; 3] = [Tier::Baseline, Tier::Opt, Tier::Full];

    /// The `--tier` name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Baseline => "baseline",
            Tier::Opt => "opt",
            Tier::Full => "full",
        }
    }

    /// Whether this build can compile and run the tier's code on the host
    /// (the baseline back end runs natively on x86-64 only; Cranelift on
    /// x86-64 and AArch64).
    pub fn on_host(self) -> bool {
        match self {
            Tier::Baseline => cfg!(target_arch = "x86_64"),
            Tier::Opt | Tier::Full => {
                cfg!(any(target_arch = "x86_64", target_arch = "aarch64"))
            }
        }
    }

    /// Whether the tier can generate AArch64 images for `--target aarch64`
    /// (every native tier can).
    pub fn on_aarch64_images(self) -> bool {
        true
    }

    /// The native tiers this build runs on the host, lowest first.
    pub fn host_tiers() -> impl Iterator<Item = Tier> {
        Tier::ALL.into_iter().filter(|t| t.on_host())
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Compiles every function with a body of `program` with the code
/// generator of `tier` into one unit (see [`NativeProgram`]).
pub fn compile(
    tier: Tier,
    program: &Program,
    options: &JitOptions,
) -> Result<Box<dyn NativeProgram>, CompileError> {
    if !tier.on_host() {
        return Err(CompileError::Isa(format!(
            "tier `{tier}` cannot run on this host"
        )));
    }
    match tier {
        // T3 differs from T2 in its passes only.
        Tier::Opt | Tier::Full => {
            crate::cranelift::compile(program, options).map(|p| Box::new(p) as Box<_>)
        }
        Tier::Baseline => crate::baseline::compile(program, options).map(|p| Box::new(p) as Box<_>),
    }
}
