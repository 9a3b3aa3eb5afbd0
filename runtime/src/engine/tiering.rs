//! The tiering policy: which tier runs which function, and when a
//! function moves.
//!
//! - `interp`: everything on the interpreter (T0); native code is dropped.
//! - `baseline`, `opt`, `full`: every function with a body is compiled by
//!   that tier before anything runs (a program's top-level code included).
//! - `auto` (the default) starts every function on the interpreter and
//!   promotes it to T2 (Cranelift), then to T3 (`full`), by counters
//!   ([`TierThresholds`]):
//!   - a function without a loop after `calls` calls (counted by the
//!     interpreter: a decrement and a branch per call);
//!   - a function with a loop after `loops` loop back edges in T0 (default
//!     1000): its running activation continues in T2 code at the header of
//!     the loop whose back edge ran the counter out, nested or not
//!     (*on-stack replacement*, [`waddle_opt::osr`]: the entry takes the
//!     header's block parameters, the values defined before the loop and,
//!     in a nest, the enclosing loops' values live at the header; compiled
//!     on the spot, except for functions of more than 1500 instructions,
//!     whose entry compiles on the compiler thread while the loop goes on
//!     in T0 (one per function at a time) and is entered at a back-edge
//!     check once linked; kept for later activations),
//!     and its next call starts in compiled code. With `loops = 0`,
//!     functions with a loop compile before their first run instead.
//!     When the counter runs out after `SHORT_LOOP_CALLS` (8) or more
//!     activations (short loops, many calls), the whole function is
//!     promoted like one without a loop instead, with no OSR entry; when
//!     it runs out sooner (long loops), the promotion at its next call
//!     skips T1, and its activations enter the OSR entry at their first
//!     back edge until T2 is installed.
//!   - top-level code is a function like any other: cold top-level code
//!     (`print(1 + 2)`, declarations, a REPL line) runs on the interpreter
//!     with no compile at all.
//!
//!   - T1 code of `auto` counts calls and back edges too
//!     (`JitOptions::tier_counters`, x86-64: a decrement and a branch in
//!     the prologue and on back edges); when a counter runs out the host
//!     hears about it ([`waddle_opt::interp::Host::hot`]) and promotes the
//!     function to T2, or installs its background T2 compile once done.
//!     A back-edge counter that runs out at a loop header also replaces
//!     the running T1 activation (on-stack replacement from T1,
//!     [`waddle_opt::interp::Host::osr_native`]): T1 code keeps every
//!     value in its frame slot, the helper reads the frame, and the OSR
//!     entry of that header continues the activation, as from T0; the
//!     T1 frame returns its result. (AArch64 T1 images count too, but
//!     their loader has no higher tier: it reports the run-outs.)
//!   - T2 code of `auto` counts the same way, from `full` calls and `full`
//!     back edges (x86-64 and AArch64 hosts; none when `full` is 0). When
//!     a counter runs out the function is recompiled with T3: the VSDG
//!     round trip (`waddle_opt::passes::VSDG_TAIL` over the function,
//!     whose `-O` pipeline already ran) and Cranelift, on the compiler
//!     thread, installed at the next safe point (`--jit-sync`: at once).
//!     Frames already running its T2 code (a loop) finish there; later
//!     calls, recursive ones too (counting T2 code calls itself through
//!     its entry slot), run T3 code. A
//!     function T3 cannot compile stays on T2. T3 code does not count.
//!
//!   Promotion compiles one function into its own unit and swaps its entry
//!   slot; the interpreter then calls it through [`waddle_opt::interp::Host::call_func`],
//!   and compiled code calls functions still interpreted through
//!   interpreter-entry stubs (`super::native`). Replaced code is freed when
//!   no Waddle code runs. When T2 cannot compile a function (an internal
//!   limitation) it stays on the interpreter.

use std::fmt;
use std::str::FromStr;

use waddle_opt::ir::Function;

use crate::Tier;

/// When `auto` promotes a function (see the module docs).
/// `waddle run --tier-thresholds CALLS,LOOPS[,FULL]`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TierThresholds {
    /// Calls after which a function without a loop is compiled (at least 1).
    pub calls: u32,
    /// Loop back edges in T0 after which a function with a loop continues
    /// in compiled code by on-stack replacement (and its next call is
    /// compiled); 0 compiles it before its first run instead.
    pub loops: u32,
    /// Calls, or loop back edges, counted in a function's T2 code after
    /// which it is recompiled with T3 (`full`: the VSDG round trip before
    /// Cranelift); 0 never promotes to T3 (and T2 code does not count).
    pub full: u32,
}

impl Default for TierThresholds {
    /// 1000 calls; 1000 loop back edges; T3 after 10 000 calls or back
    /// edges in T2.
    fn default() -> TierThresholds {
        TierThresholds {
            calls: 1000,
            loops: 1000,
            full: 10_000,
        }
    }
}

impl fmt::Display for TierThresholds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.calls, self.loops, self.full)
    }
}

impl FromStr for TierThresholds {
    type Err = String;
    /// `CALLS,LOOPS[,FULL]`, e.g. `1000,0` or `1000,1000,0`; FULL defaults
    /// to [`TierThresholds::default`]'s.
    fn from_str(s: &str) -> Result<TierThresholds, String> {
        let bad = || {
            format!(
                "invalid tier thresholds `{s}` (expected CALLS,LOOPS[,FULL], e.g. 1000,0 or 1000,1000,10000)"
            )
        };
        let parts: Vec<&str> = s.split(',').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(bad());
        }
        let num = |p: &str| -> Result<u32, String> {
            match p.trim().parse::<u32>() {
                Ok(n) if n <= i32::MAX as u32 => Ok(n),
                _ => Err(bad()),
            }
        };
        let calls = num(parts[0])?;
        let loops = num(parts[1])?;
        let full = match parts.get(2) {
            Some(p) => num(p)?,
            None => TierThresholds::default().full,
        };
        if calls == 0 {
            return Err(bad());
        }
        Ok(TierThresholds { calls, loops, full })
    }
}

/// One promotion, as `--trace-tiers` prints it and
/// [`TierHook`] receives it.
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub struct TierEvent {
    /// The function.
    pub function: String,
    /// The tier it ran on before.
    pub from: Tier,
    /// The tier it runs on now.
    pub to: Tier,
    /// What triggered it: `calls`, `loop` (back edges; in T0, T1 or T2
    /// code, whichever it ran on), `first run` (a
    /// function with a loop, compiled before it runs), `osr` (an
    /// interpreted activation continued in compiled code at a loop header,
    /// `to` is the tier of the entry) or `osr, compiled before` (the same
    /// with an entry compiled for an earlier activation).
    pub reason: &'static str,
    /// Time spent in the code generator.
    pub compile: std::time::Duration,
    /// Bytes of machine code of the new unit.
    pub code_bytes: usize,
    /// Whether it was compiled on the background compiler thread.
    pub background: bool,
}

impl fmt::Display for TierEvent {
    /// `tier: NAME FROM -> TO (REASON), compiled in N us[ in the background], B bytes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tier: {} {} -> {} ({}), compiled in {} us{}, {} bytes",
            self.function,
            self.from,
            self.to,
            self.reason,
            self.compile.as_micros(),
            if self.background {
                " in the background"
            } else {
                ""
            },
            self.code_bytes
        )
    }
}

/// A callback the engine calls for every promotion (an `Engine` hook;
/// the CLI's `--trace-tiers` prints each event to standard error).
#[derive(Clone)]
pub struct TierHook(pub std::sync::Arc<dyn Fn(&TierEvent) + Send + Sync>);

impl fmt::Debug for TierHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TierHook(..)")
    }
}

/// How the tiering controller runs (besides [`TierThresholds`]).
#[derive(Clone, Debug, Default)]
pub struct TierOptions {
    /// When `auto` promotes.
    pub thresholds: TierThresholds,
    /// Compile promotions on the calling thread, at once (deterministic:
    /// `--jit-sync`); otherwise T2 compiles on a background thread and is
    /// installed at the next safe point.
    pub sync: bool,
    /// Called for every promotion.
    pub hook: Option<TierHook>,
    /// Chaos mode (`--tier-chaos SEED`): promotion points, tiers (T1, T2
    /// or T3), OSR points, whether a compile runs at once or in the
    /// background, and background installation are picked pseudo-randomly
    /// from the seed.
    pub chaos: Option<u64>,
}

/// The native tier `tier` compiles with, `None` for interpreter-only.
pub(crate) fn native_tier(tier: Tier) -> Option<Tier> {
    match tier {
        Tier::Interp => None,
        Tier::Auto => Tier::Opt.is_available().then_some(Tier::Opt),
        t => t.is_available().then_some(t),
    }
}

/// Whether `f` has a loop: an edge to a block at the same or an earlier
/// layout position (the interpreter's back-edge rule).
pub(crate) fn has_loop(f: &Function) -> bool {
    let pos = |b| f.layout().iter().position(|&x| x == b);
    f.layout().iter().enumerate().any(|(i, &b)| {
        f.blocks()[b]
            .term
            .successors()
            .any(|s| pos(s.block).is_none_or(|p| p <= i))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};

    fn main_of(src: &str) -> Function {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new("t.wdl", src));
        let c = compile(&sources, &CompileOptions::default()).unwrap();
        let main = c.program.main.unwrap();
        c.program.funcs[main].clone()
    }

    #[test]
    fn loop_detection() {
        assert!(!has_loop(&main_of("print(1 + 2); let a = [1, 2];")));
        assert!(!has_loop(&main_of(
            "if 1 < 2 { print(1); } else { print(2); }"
        )));
        assert!(has_loop(&main_of("var i = 0; while i < 3 { i += 1; }")));
        assert!(!has_loop(&main_of("fn f() {} f();")));
    }

    #[test]
    fn thresholds_parse_and_print() {
        let t: TierThresholds = "10,0".parse().unwrap();
        assert_eq!(
            t,
            TierThresholds {
                calls: 10,
                loops: 0,
                full: 10_000,
            }
        );
        assert_eq!(t.to_string(), "10,0,10000");
        let t: TierThresholds = " 1, 2 ,0".parse().unwrap();
        assert_eq!((t.calls, t.loops, t.full), (1, 2, 0));
        assert_eq!(t.to_string().parse::<TierThresholds>(), Ok(t));
        for bad in [
            "",
            "1",
            "0,0",
            "a,b",
            "1,2,3,4",
            "-1,2",
            "1,2,x",
            "1,2,",
            "1,2,4294967295",
        ] {
            assert!(bad.parse::<TierThresholds>().is_err(), "{bad}");
        }
    }
}
