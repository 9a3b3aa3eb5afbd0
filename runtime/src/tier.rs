//! [`Tier`]: which execution tier runs Waddle code.

use std::fmt;
use std::str::FromStr;

/// Execution tiers (docs/architecture.md, "Tiers").
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Tier {
    /// T0: the IR interpreter.
    Interp,
    /// T1: the dynasmrt baseline compiler.
    Baseline,
    /// T2: always-canonical passes + Cranelift.
    Opt,
    /// T3: T2 plus the VSDG round trip.
    Full,
    /// Tiering controller picks.
    Auto,
}

impl Tier {
    /// Every tier with its `--tier` name.
    pub const ALL: [(&'static str, Tier); 5] = [
        ("interp", Tier::Interp),
        ("baseline", Tier::Baseline),
        ("opt", Tier::Opt),
        ("full", Tier::Full),
        ("auto", Tier::Auto),
    ];

    /// The `--tier` name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|&&(_, t)| t == self).unwrap().0
    }

    /// The native code generator an explicit native tier names (`None`
    /// for `interp` and `auto`, which is a policy over several).
    pub(crate) fn native(self) -> Option<waddle_jit::Tier> {
        match self {
            Tier::Interp | Tier::Auto => None,
            Tier::Baseline => Some(waddle_jit::Tier::Baseline),
            Tier::Opt => Some(waddle_jit::Tier::Opt),
            Tier::Full => Some(waddle_jit::Tier::Full),
        }
    }

    /// Whether this build can run the tier on the host (`interp` and
    /// `auto` always; a native tier when its code generator runs here).
    pub fn is_available(self) -> bool {
        self.native().is_none_or(waddle_jit::Tier::on_host)
    }

    /// Every tier this build can run, in [`Tier::ALL`] order.
    pub fn available() -> Vec<Tier> {
        (Self::ALL.iter().map(|&(_, t)| t))
            .filter(|t| t.is_available())
            .collect()
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Tier {
    type Err = String;
    fn from_str(s: &str) -> Result<Tier, String> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|&(_, t)| t)
            .ok_or_else(|| {
                format!("unknown tier `{s}` (expected interp, baseline, opt, full or auto)")
            })
    }
}
