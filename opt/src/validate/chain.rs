//! Per-pass chains: the fallback of [`validate_pipeline`] for a function
//! whose single before/after comparison ([`validate_program`], Govereau
//! §2.2, Fig. 7.2) does not validate.
//!
//! The pipeline runs again on the program as it was before it (it is
//! deterministic), and every state `s₀ … sₙ` a failing function passes
//! through is validated against the one before it: `before = s₀ ≡ s₁ ≡ … ≡
//! sₙ = after`. Each link is a [`validate_in`] of one pass, the mode the
//! thesis uses to validate single optimizations (§7.2). Only the failing
//! functions' states are kept, and their links are validated cheap and
//! likely to fail first ([`FIRST`], [`LAST`]), up to the first that does
//! not validate. A function whose whole chain
//! validates, and whose last state is exactly its optimized body, is
//! counted as validated, and reported apart ([`ProgramValidation::chained`])
//! so that the metric still says how many functions the single comparison
//! proved.
//!
//! **Why this is sound.** `Equal` is an equivalence of denotations (§2.2:
//! equal normal forms of one shared value graph mean equal functions), so
//! it is transitive. Every link is judged under one modular meaning of
//! calls: calls unfold to the bodies of the program *before* the pipeline
//! (never to an intermediate body, which no link proves equal to its
//! original), the hypothesis every single comparison rests on already
//! ([`super::unfold`]). The intermediate states come from the optimizer,
//! but they are only the points the chain goes through: no verdict trusts
//! them, and the chain must end at the optimized body itself.

use rustc_hash::FxHashMap;

use super::instrument::{validate_program, ProgramValidation};
use super::{validate_in, Callees, Options};
use crate::ir::{FuncId, Function, Program};
use crate::passes::{Instrumentation, Pipeline, PipelineOptions};

/// Validates every function of `after` (the program `pipeline` made of
/// `before`) against `before`, as [`validate_program`] does, and then
/// each function that did not validate pass by pass, by re-running
/// `pipeline` on `before`. `before` is the program before the pipeline
/// with every function in canonical form, as [`validate_program`] takes
/// it (the pipeline brings a function to canonical form first, which
/// leaves a canonical function as it is).
///
/// A function validated by its chain counts in
/// [`ProgramValidation::equal`] and in [`ProgramValidation::chained`], and
/// its finding is dropped.
pub fn validate_pipeline(
    before: &Program,
    after: &Program,
    pipeline: &Pipeline,
    opts: &Options,
) -> ProgramValidation {
    let mut out = validate_program(before, after, opts);
    if out.failed.is_empty() {
        return out;
    }
    let chained = chain(before, after, pipeline, &out.failed, opts);
    if chained.is_empty() {
        return out;
    }
    let mut kept = (Vec::new(), Vec::new());
    for (id, finding) in out.failed.drain(..).zip(out.findings.drain(..)) {
        if !chained.contains(&id) {
            kept.0.push(id);
            kept.1.push(finding);
        }
    }
    (out.failed, out.findings) = kept;
    out.chained = chained.len() as u32;
    out.equal += out.chained;
    out
}

/// The order a chain's links are validated in: the passes whose links
/// fail often and cheaply first (on generated programs, seed 80000: `jt`
/// 60 failing runs, `licm` 58, `js` 17; on the corpus `bce` and `licm`),
/// then the other passes in pipeline order, and `unroll` last: its links
/// fail often too (47), but cost the most by far (on the corpus 1–70 ms a
/// link against below 1 ms for most others), so that a chain that breaks
/// elsewhere never pays for one. The order changes the time only, never
/// the verdict (every link must be `Equal`).
const FIRST: [&str; 8] = [
    "licm", "jt", "bce", "js", "unswitch", "is", "sccp", "inline",
];

/// The pass whose links [`chain`] validates last.
const LAST: &str = "unroll";

/// The functions of `failed` whose per-pass chain from `before` to
/// `after` validates link by link.
fn chain(
    before: &Program,
    after: &Program,
    pipeline: &Pipeline,
    failed: &[FuncId],
    opts: &Options,
) -> Vec<FuncId> {
    let mut states = States {
        before,
        chains: failed.iter().map(|&id| (id, Vec::new())).collect(),
    };
    let mut program = before.clone();
    let popts = PipelineOptions {
        verify: false,
        time: false,
    };
    if pipeline.run(&mut program, &popts, &mut states).is_err() {
        return Vec::new();
    }
    let callees = Callees::new(before.clone(), opts.unfold_limit);
    let rank = |pass: &str| match FIRST.iter().position(|&p| p == pass) {
        Some(i) => i,
        None if pass == LAST => FIRST.len() + 1,
        None => FIRST.len(),
    };
    let mut out = Vec::new();
    for &id in failed {
        let (Some(states), Some(last)) = (states.chains.get(&id), after.funcs.get(id)) else {
            continue;
        };
        // The chain must end at the optimized body itself.
        if states.last().map(|(_, f)| f) != Some(last) {
            continue;
        }
        let mut links: Vec<usize> = (1..states.len()).collect();
        links.sort_by_key(|&i| rank(states[i].0));
        let holds = links.into_iter().all(|i| {
            let (a, b) = (&states[i - 1].1, &states[i].1);
            a == b || validate_in(a, b, Some(&callees), opts).is_equal()
        });
        if holds {
            out.push(id);
        }
    }
    out
}

/// Pipeline instrumentation that records every state the tracked
/// functions pass through: the original first, then the function after
/// each pass that changed it, under the pass's name.
struct States<'a> {
    /// The program before the pipeline, canonical.
    before: &'a Program,
    /// The states of each tracked function.
    chains: FxHashMap<FuncId, Vec<(&'static str, Function)>>,
}

impl Instrumentation for States<'_> {
    fn before_pass(&mut self, _: &'static str, _: &Program, id: FuncId, func: &Function) {
        let Some(states) = self.chains.get_mut(&id) else {
            return;
        };
        if !states.is_empty() {
            return;
        }
        // The first link: the original as the pipeline's canonicalization
        // left it (the same function, unless canonical form is not
        // idempotent).
        if let Some(original) = self.before.funcs.get(id) {
            states.push(("canonicalize", original.clone()));
            if original != func {
                states.push(("canonicalize", func.clone()));
            }
        }
    }

    fn after_pass(
        &mut self,
        pass: &'static str,
        _: &Program,
        id: FuncId,
        func: &Function,
        changed: bool,
    ) {
        // A pass that reports no change and changed the function anyway
        // leaves the chain short of the optimized body: not counted.
        if !changed {
            return;
        }
        if let Some(states) = self.chains.get_mut(&id).filter(|s| !s.is_empty()) {
            states.push((pass, func.clone()));
        }
    }
}
