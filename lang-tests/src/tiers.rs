//! The tier configurations every corpus program runs on.
//!
//! [`CONFIGS`] is the one list to extend: a configuration runs when its tier
//! is available in this build (`interp` and `auto` always; native tiers when
//! [`Tier::is_available`] says so) and, if the environment
//! variable `WADDLE_TEST_TIERS` is set (comma-separated configuration names
//! such as `interp-O0,opt-O2`), when it is listed there.

use waddle::tooling::RunOptions;
use waddle::{Tier, TierThresholds};

/// `auto`'s lowest thresholds (`--tier-thresholds 1,1,1 --jit-sync`):
/// every function compiles at its first call, a loop enters OSR at its
/// first back edge, and T2 code moves to T3 at its first counted call or
/// back edge, deterministically. The `auto-eager` configurations.
pub const EAGER: TierThresholds = TierThresholds {
    calls: 1,
    loops: 1,
    full: 1,
};

/// One way of running a program.
#[derive(Clone, PartialEq, Debug)]
pub struct TierConfig {
    /// Display name, e.g. `interp-O1`.
    pub name: &'static str,
    /// The tier.
    pub tier: Tier,
    /// Optimization level.
    pub opt_level: u8,
    /// `auto`'s chaos seed (`--tier-chaos`): functions promoted at
    /// pseudo-random points to pseudo-random tiers, so every program runs
    /// with calls crossing tiers.
    pub chaos: Option<u64>,
    /// `auto`'s thresholds with `--jit-sync` ([`EAGER`]); `None`: the
    /// defaults, in the background.
    pub eager: Option<TierThresholds>,
}

/// Every configuration the corpus knows about, in run order.
pub const CONFIGS: &[TierConfig] = &[
    TierConfig {
        name: "interp-O0",
        tier: Tier::Interp,
        opt_level: 0,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "interp-O1",
        tier: Tier::Interp,
        opt_level: 1,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "interp-O2",
        tier: Tier::Interp,
        opt_level: 2,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "baseline-O0",
        tier: Tier::Baseline,
        opt_level: 0,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "opt-O1",
        tier: Tier::Opt,
        opt_level: 1,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "opt-O2",
        tier: Tier::Opt,
        opt_level: 2,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "full-O2",
        tier: Tier::Full,
        opt_level: 2,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "auto-O2",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: None,
        eager: None,
    },
    TierConfig {
        name: "auto-chaos1",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: Some(1),
        eager: None,
    },
    TierConfig {
        name: "auto-chaos2",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: Some(2),
        eager: None,
    },
    TierConfig {
        name: "auto-chaos3",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: Some(3),
        eager: None,
    },
    TierConfig {
        name: "auto-chaos5",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: Some(5),
        eager: None,
    },
    TierConfig {
        name: "auto-chaos8",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: Some(8),
        eager: None,
    },
    TierConfig {
        name: "auto-eager-O2",
        tier: Tier::Auto,
        opt_level: 2,
        chaos: None,
        eager: Some(EAGER),
    },
];

impl TierConfig {
    /// Whether this build can run the configuration's tier.
    pub fn available(&self) -> bool {
        self.tier.is_available()
    }

    /// Driver options for this configuration with an optional fuel budget.
    pub fn options(&self, fuel: Option<u64>) -> RunOptions {
        RunOptions {
            tier: self.tier,
            opt_level: self.opt_level,
            passes: None,
            fuel,
            memory_limit: None,
            allow_ffi: false,
            tier_chaos: self.chaos,
            tier_thresholds: self.eager,
            jit_sync: self.eager.is_some(),
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
            assert!(c.name.starts_with(c.tier.name()), "{}", c.name);
            assert!(c.chaos.is_none() || c.tier == Tier::Auto, "{}", c.name);
            assert!(c.opt_level <= 2, "{}", c.name);
        }
        assert!(CONFIGS.iter().any(|c| c.available()));
    }
}
