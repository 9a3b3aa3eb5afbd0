//! The tier configurations every corpus program runs on.
//!
//! [`CONFIGS`] is the one list to extend: a configuration runs when its tier
//! is available in this build (`interp` and `auto` always; native tiers when
//! `waddle_jit::available_tiers()` lists them) and, if the environment
//! variable `WADDLE_TEST_TIERS` is set (comma-separated configuration names
//! such as `interp-O0,opt-O2`), when it is listed there.

use waddle::driver::{RunOptions, Tier};

/// One way of running a program.
#[derive(Clone, PartialEq, Debug)]
pub struct TierConfig {
    /// Display name, e.g. `interp-O1`.
    pub name: &'static str,
    /// The `--tier` name of the tier.
    pub tier: &'static str,
    /// Optimization level.
    pub opt_level: u8,
}

/// Every configuration the corpus knows about, in run order.
pub const CONFIGS: &[TierConfig] = &[
    TierConfig {
        name: "interp-O0",
        tier: "interp",
        opt_level: 0,
    },
    TierConfig {
        name: "interp-O1",
        tier: "interp",
        opt_level: 1,
    },
    TierConfig {
        name: "interp-O2",
        tier: "interp",
        opt_level: 2,
    },
    TierConfig {
        name: "baseline-O0",
        tier: "baseline",
        opt_level: 0,
    },
    TierConfig {
        name: "opt-O1",
        tier: "opt",
        opt_level: 1,
    },
    TierConfig {
        name: "opt-O2",
        tier: "opt",
        opt_level: 2,
    },
    TierConfig {
        name: "full-O2",
        tier: "full",
        opt_level: 2,
    },
    TierConfig {
        name: "auto-O2",
        tier: "auto",
        opt_level: 2,
    },
];

impl TierConfig {
    /// Whether this build can run the configuration's tier.
    pub fn available(&self) -> bool {
        matches!(self.tier, "interp" | "auto") || waddle_jit::available_tiers().contains(&self.tier)
    }

    /// Driver options for this configuration with an optional fuel budget.
    pub fn options(&self, fuel: Option<u64>) -> RunOptions {
        let tier: Tier = self
            .tier
            .parse()
            .unwrap_or_else(|e| panic!("CONFIGS names an unknown tier: {e}"));
        RunOptions {
            tier,
            opt_level: self.opt_level,
            passes: None,
            fuel,
            memory_limit: None,
            allow_ffi: false,
        }
    }
}

/// The configurations to run now: available ones, narrowed by
/// `WADDLE_TEST_TIERS` when it is set.
pub fn selected() -> Vec<&'static TierConfig> {
    let wanted = crate::corpus::env_nonempty("WADDLE_TEST_TIERS");
    CONFIGS
        .iter()
        .filter(|c| c.available())
        .filter(|c| {
            wanted
                .as_deref()
                .is_none_or(|w| w.split(',').any(|n| n.trim() == c.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_config_names_a_known_tier() {
        for c in CONFIGS {
            assert!(c.tier.parse::<Tier>().is_ok(), "{}", c.name);
            assert!(c.opt_level <= 2, "{}", c.name);
        }
        assert!(CONFIGS.iter().any(|c| c.available()));
    }
}
