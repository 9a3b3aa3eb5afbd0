//! Translation validation of optimizations: does the optimized function
//! mean what the original meant? (Govereau, *Denotational Translation
//! Validation*, 2012; the plan of `seeds/digests/translation-validation.md`
//! §5.)
//!
//! [`validate`] compiles both functions into **one** shared, hash-consed
//! value graph ([`graph`], §2.2 step 3) through Monadic Gated SSA
//! ([`build`], §2.3, ch. 6 simplified by canonical form), normalizes it by
//! oriented rewrite rules that mirror what the optimizer does ([`rules`],
//! §2.4, R1–R7) alternating with maximal sharing by partition refinement
//! ([`refine`], R0, §8.0.4), and answers [`Verdict::Equal`] when the
//! results and the final effect tokens of both functions end in the same
//! class (§2.2 steps 4–5). It never builds a simulation relation and knows
//! nothing about the passes: the same check validates one pass or a whole
//! pipeline (§1, `∀O. ⊢ [[p]] ≡ [[O(p)]]`).
//!
//! # Semantic contract (digest §5.2)
//! The denotation of a function is `(ret, eff)`: its result and its final
//! effect token. One token threads every observable effect in program
//! order: loads (which read it), stores, allocations, calls and host calls
//! (uninterpreted), output, and every possible trap (division by a value
//! not known to be non-zero, bounds checks, `assert`, `pop`, allocation
//! failure). Pure operators are total, with the interpreter's semantics.
//!
//! **Guarantee:** `Equal` ⇒ for every input on which the original
//! terminates, the optimized function returns the same value and produces
//! the same effects, traps included. As in the thesis (§2.2) termination
//! itself is not preserved by default (deleting a loop that never ends
//! validates); [`Options::strict`] threads the token through every loop
//! so that it is (test F3).
//!
//! # Independence (digest §5.1)
//! The validator shares only the IR data types and the interpreter's
//! operator semantics ([`fold`] runs the interpreter). Its dominators,
//! loops and gates ([`cfg`], [`build`]) are its own.
//!
//! # Incompleteness (digest §5.7 F1–F6)
//! Reassociation and distributivity are not rules; irreducible functions
//! are [`Verdict::Unsupported`]; a loop moved to another nesting depth
//! changes its μ depth and alarms; peeling changes the shape of loops
//! beyond the rules (the thesis does not handle it, §1.2), and a loop
//! unrolled by two validates by [`unroll`]'s doubling rule only when both
//! sides' exit gates normalize alike (a loop that also exits from its body
//! may still alarm).
//!
//! # Beyond the thesis
//! - **Per-pass chains** ([`validate_pipeline`], `chain`): a function
//!   whose single before/after comparison fails is validated pass by pass
//!   over the states the pipeline took it through, and counts as
//!   validated when every link is `Equal` (transitivity; reported apart,
//!   [`ProgramValidation::chained`]).
//! - **Calls** ([`unfold`]): with the program before the transformation
//!   ([`validate_in`], [`Validator::set_program`], [`validate_program`]),
//!   calls of non-recursive functions are unfolded on both sides, so
//!   inlining validates (the thesis is intraprocedural, §2.2, §8);
//!   when the unfolding budget runs out, a second attempt unfolds only
//!   the callees whose calls the two sides disagree on
//!   ([`Callees::needed`]), with a larger budget. When calls were
//!   inlined, the unfolded attempt runs before the one with calls
//!   uninterpreted (the order changes no verdict, [`validate_in`]).
//! - **Gates** ([`gates`], [`bdd`]): boolean nodes are compared by their
//!   ROBDD over condition atoms (digest §5.4 v2), and a boolean η at a
//!   loop exit by the generalized cofactor of its value by the negated
//!   continue condition, the middle ground §8.0.4 asks for.
//! - **Unrolling** ([`unroll`]): a loop equals itself unrolled by two, by
//!   splitting its μ streams into even and odd halves (the μ-unfolding of
//!   §2.3.3 twice per trip); tried when nothing else rewrites, also
//!   when the after side has no loop left (an unrolled loop that leaves
//!   in its first trip is peeled away by R4), and when another loop that
//!   both sides kept has the same induction variable and test.
//! - **Factoring** ([`phiop`], R9): a pure operator common to every
//!   branch of a φ moves out of it (φ and `map` are pointwise, §4.0.3),
//!   so an exit value computed in each exiting block of an unrolled loop
//!   meets the same value computed after the original loop's exit.
//! - **Flattening** ([`phiop`], R10): nested φ's become one φ with the
//!   gates conjoined (φ is pointwise, §4.0.3), so the exit tokens of a
//!   loop that returns from its body compare under the return φ's gates.
//! - **Threaded gates** (`build::split`): a φ entering a block along an
//!   edge that tests a φ with the same gates (the join of a short-circuit
//!   `&&`, an unfolded call's result) is split by that test, so the block
//!   gets the gates it has once `jt` threads the join (§6.2 Def. 12 over
//!   the threaded CFG).
//! - **Observation** (`observe`, R11): a φ outside every loop is
//!   observed only under the gates above it (φ is pointwise, §4.0.3), so
//!   its gates are conjoined with them; the exit values of a loop that
//!   returns through two loop levels then compare under the return's gate.
//!   The condition is taken by its diagram, so a disjunction whose syntax
//!   reads the φ but whose diagram does not still applies; an operand of
//!   `a ∨ b` is observed where `b` is false (a boolean φ built as a
//!   junction), when the rule leaves `b` as it is.
//! - **Carried values** (`carry`, R13): `μ(op(a₀, k), op(a', k))`
//!   becomes `op(μ(a₀, a'), k)` when that μ exists (a pure operator is
//!   `map` over streams, §4.0.3), so a value the `carry` pass passes to
//!   the next iteration meets the operation it replaced.
//! - **Invariant atoms at exits** ([`gates`]): the diagram of a boolean
//!   `η_d(c, x)` keeps atoms invariant in the loop as themselves (R4's
//!   η-invariance inside the cofactor), so the exit gates of `while flag
//!   && i < n` unrolled by two relate to `flag` tested outside.

pub mod bdd;
pub mod build;
mod carry;
pub mod cfg;
mod chain;
mod checks;
mod cones;
pub mod fold;
pub mod gates;
pub mod graph;
pub mod instrument;
mod junction;
mod loads;
mod loops;
mod observe;
pub mod phiop;
pub mod range;
pub mod refine;
mod relevance;
pub mod report;
pub mod rules;
pub mod unfold;
pub mod unroll;

#[cfg(test)]
mod mutants;
#[cfg(test)]
mod soundness;
#[cfg(test)]
mod testhost;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_carry;
#[cfg(test)]
mod tests_chains;
#[cfg(test)]
mod tests_cover;
#[cfg(test)]
mod tests_exits;
#[cfg(test)]
mod tests_load;
#[cfg(test)]
mod tests_range;
#[cfg(test)]
mod tests_shapes;
#[cfg(test)]
mod tests_thread;
#[cfg(test)]
mod tests_unroll;
#[cfg(test)]
mod tests_vsdg;

use rustc_hash::FxHashMap;

use crate::ir::Function;
use build::build_with as build_denotation;
use graph::{Graph, Id, Op, Side};
use refine::{refine, Classes};
use rules::Rules;

pub use chain::validate_pipeline;
pub use instrument::{validate_program, Finding, PassStats, ProgramValidation, Validator};
pub use report::Report;
pub use unfold::Callees;

/// The answer of [`validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both functions mean the same (see the guarantee above).
    Equal,
    /// The normal forms differ; the report names the first differing node.
    Alarm(Report),
    /// The validator cannot judge (irreducible control flow, a function
    /// that is not canonical, or the rewrite budget ran out).
    Unsupported(String),
}

impl Verdict {
    /// Whether the verdict is [`Verdict::Equal`].
    pub fn is_equal(&self) -> bool {
        matches!(self, Verdict::Equal)
    }
}

/// How [`validate_with`] works.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Strict-termination mode: no rule removes a loop from the token, so
    /// deleting a loop that might not terminate is an alarm.
    pub strict: bool,
    /// Rounds of rewriting and sharing before giving up.
    pub max_rounds: usize,
    /// Rounds of the plain attempt of [`validate_in`] that runs after an
    /// unfolded attempt that alarmed ([`FALLBACK_PLAIN_ROUNDS`]).
    pub fallback_rounds: usize,
    /// Nodes the graph may grow to before giving up.
    pub max_nodes: usize,
    /// Instructions of callees that may be unfolded per side when a
    /// [`Callees`] context is given ([`validate_in`]).
    pub unfold_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            strict: false,
            max_rounds: 64,
            fallback_rounds: FALLBACK_PLAIN_ROUNDS,
            max_nodes: 400_000,
            unfold_limit: 4000,
        }
    }
}

/// Validates `after` against `before` with the default [`Options`].
pub fn validate(before: &Function, after: &Function) -> Verdict {
    validate_with(before, after, &Options::default())
}

/// Validates `after` against `before`.
pub fn validate_with(before: &Function, after: &Function, opts: &Options) -> Verdict {
    validate_in(before, after, None, opts)
}

/// Validates `after` against `before`, unfolding calls of the functions
/// of `callees` (the program before the transformation; see [`unfold`]).
/// Two attempts: with calls as uninterpreted effects ("plain", cheap),
/// and with calls unfolded; the second runs only when the first does not
/// validate.
///
/// The verdict is `Equal` when either attempt is; otherwise the unfolded
/// attempt's alarm, or the plain attempt's verdict when unfolding is
/// unsupported. Both attempts build their own graph and the plain one
/// never reads `callees`, so the order they run in changes no verdict,
/// only the time. Plain runs first, except when calls were inlined
/// ([`Callees::calls_inlined`]): then it almost never validates (on the
/// lang-test corpus, 70 functions validated only unfolded and spent 12 %
/// of the validation time in a plain attempt that alarmed), and the
/// unfolded attempt runs first; the plain attempt after its alarm has a
/// budget of [`Options::fallback_rounds`] rounds.
pub fn validate_in(
    before: &Function,
    after: &Function,
    callees: Option<&Callees>,
    opts: &Options,
) -> Verdict {
    let order = match callees {
        Some(c) if Callees::has_calls(before) || Callees::has_calls(after) => {
            if Callees::calls_inlined(before, after) {
                Order::UnfoldedFirst(c)
            } else {
                Order::PlainFirst(c)
            }
        }
        _ => return check(before, after, None, opts),
    };
    validate_in_order(before, after, order, opts)
}

/// Which attempt of [`validate_in`] runs first.
#[derive(Clone, Copy)]
enum Order<'c> {
    /// Calls uninterpreted first, unfolded only when that is not `Equal`.
    PlainFirst(&'c Callees),
    /// Calls unfolded first, uninterpreted only when that is not `Equal`.
    UnfoldedFirst(&'c Callees),
}

/// [`validate_in`] with both attempts, in the order `order`.
fn validate_in_order(before: &Function, after: &Function, order: Order, opts: &Options) -> Verdict {
    let (plain, all) = match order {
        Order::PlainFirst(c) => {
            let plain = check(before, after, None, opts);
            if plain.is_equal() {
                return plain;
            }
            (plain, unfolded(before, after, c, opts))
        }
        Order::UnfoldedFirst(c) => {
            let all = unfolded(before, after, c, opts);
            if all.is_equal() {
                return all;
            }
            // After an alarm (not when unfolding was unsupported, where
            // the plain attempt is the only one that judges).
            let budget = Options {
                max_rounds: opts.max_rounds.min(opts.fallback_rounds),
                ..*opts
            };
            let plain_opts = if matches!(all, Verdict::Alarm(_)) {
                &budget
            } else {
                opts
            };
            (check(before, after, None, plain_opts), all)
        }
    };
    if plain.is_equal() {
        return plain;
    }
    match all {
        Verdict::Equal => Verdict::Equal,
        // Report the alarm of the unfolded functions: it says what
        // differs after inlining.
        Verdict::Alarm(r) => Verdict::Alarm(r),
        Verdict::Unsupported(_) => plain,
    }
}

/// Most rounds of the plain attempt that runs after an unfolded attempt
/// that did not validate ([`Order::UnfoldedFirst`]). Calls were inlined,
/// so the plain attempt compares an uninterpreted call with its inlined
/// body and validates only when the functions match almost as they are:
/// the plain attempts that validated after an unfolded one had failed (5
/// over the corpus and generated seed 80000) took 1, 2, 2, 2 and 5 rounds,
/// while those that alarmed ran up to 43 (`arrays/bool_layout` `.main`:
/// 40 ms, a tenth of the corpus's validation time). A deterministic
/// budget (rounds, not time), so the verdict is reproducible; running out
/// of it is `Unsupported`, and the unfolded attempt's alarm is reported.
/// Only after an alarm: when unfolding is unsupported the plain attempt
/// is the only one that judges, and keeps every round.
pub const FALLBACK_PLAIN_ROUNDS: usize = 8;

/// The attempt of [`validate_in`] with the calls of `callees` unfolded.
fn unfolded(before: &Function, after: &Function, c: &Callees, opts: &Options) -> Verdict {
    c.take_exhausted();
    let all = check(before, after, Some(c), opts);
    if !all.is_equal() && c.take_exhausted() {
        // The budget ran out, so some calls stayed uninterpreted on
        // one side and not on the other: unfold only the calls the
        // two sides disagree on ([`Callees::needed`]).
        c.restrict(Some(c.needed(before, after)));
        let some = check(before, after, Some(c), opts);
        c.restrict(None);
        if some.is_equal() {
            some
        } else {
            all
        }
    } else {
        all
    }
}

/// The rule the validator lacks for the rewrites of pass `pass`, as far
/// as its alarms on the corpus have been examined (the "Incompleteness"
/// section above; `waddle bench --validate --corpus` prints it next to
/// each function that does not validate).
pub fn missing_rule(pass: &str) -> &'static str {
    match pass {
        "unroll" => {
            "loop doubling (`unroll`) does not match this unrolled loop \
             (an exit through two loop levels, or exit gates that differ by \
             more than the enclosing φ's gates imply)"
        }
        "peel" => "loop peeling changes the loop's shape (no rule, Govereau §1.2)",
        "bce" => {
            "R8's case split on the versioning guard `n <= min(len..)` \
             proves no copy of the checked loop equal to the unchecked one \
             (a check whose length or index the facts do not reach)"
        }
        "unswitch" => "the case split on a loop-invariant condition (P12, no rule)",
        "jt" | "js" => "path gates relative to different dominators after threading",
        "licm" => "a load hoisted over a nested loop that allocates",
        "vsdg" => {
            "an effect the VSDG round trip duplicated into the arms of a branch \
             (a token φ of one effect per arm against the effect after a token φ), \
             or exit gates of nested loops"
        }
        _ => "not examined",
    }
}

#[cfg(test)]
thread_local! {
    /// The validation attempts ([`check`]) this thread ran, with calls
    /// uninterpreted and unfolded (tests count them).
    static ATTEMPTS: std::cell::Cell<[usize; 2]> = const { std::cell::Cell::new([0; 2]) };
}

#[cfg(test)]
thread_local! {
    /// The work of the validation attempts this thread ran: rounds,
    /// graph nodes made, argument slots of those nodes, and diagram nodes
    /// made over all rounds (`tests_chains` bounds their growth).
    static WORK: std::cell::Cell<[usize; 4]> = const { std::cell::Cell::new([0; 4]) };
}

/// Adds to [`WORK`] (tests only).
#[cfg(test)]
pub(crate) fn count_work(i: usize, n: usize) {
    WORK.with(|w| {
        let mut a = w.get();
        a[i] += n;
        w.set(a);
    });
}

/// One validation attempt, unfolding calls when `callees` is given.
fn check(
    before: &Function,
    after: &Function,
    callees: Option<&Callees>,
    opts: &Options,
) -> Verdict {
    #[cfg(test)]
    ATTEMPTS.with(|n| {
        let mut a = n.get();
        a[usize::from(callees.is_some())] += 1;
        n.set(a);
    });
    if before.sig != after.sig {
        return Verdict::Unsupported("the signatures differ".into());
    }
    let mut g = Graph::new();
    if let Some(c) = callees {
        c.reset();
    }
    let db = match build_denotation(&mut g, before, Side::Before, callees) {
        Ok(d) => d,
        Err(e) => return Verdict::Unsupported(format!("before: {e}")),
    };
    if let Some(c) = callees {
        c.reset();
    }
    let da = match build_denotation(&mut g, after, Side::After, callees) {
        Ok(d) => d,
        Err(e) => return Verdict::Unsupported(format!("after: {e}")),
    };
    // A call that stayed uninterpreted for want of budget on one side
    // (rarely both) almost never matches the other side: give up before
    // the rounds, [`validate_in`] retries with fewer calls unfolded.
    if callees.is_some_and(Callees::exhausted) {
        return Verdict::Unsupported("the unfolding budget ran out".into());
    }
    let mut roots = [db.ret, db.eff, da.ret, da.eff];
    // The loops doubled so far (`unroll`), each at most once.
    let mut doubled = unroll::Doubled::default();
    // The φ's R11 rewrote or made, each rewritten at most once.
    let mut observed = rustc_hash::FxHashSet::default();
    // The number of classes reached in the round where R8's exploration
    // last outgrew its budget.
    let mut r8_outgrown: Option<usize> = None;
    // R8's explorations in a row that found nothing ([`R8_MAX_EMPTY`]).
    let mut r8_empty = 0;
    let mut stall = Stall::default();
    for _ in 0..opts.max_rounds {
        let mut all = roots.to_vec();
        all.extend(g.case_roots());
        let cls = refine(&g, &all);
        if cls.same(roots[0], roots[2]) && cls.same(roots[1], roots[3]) {
            return Verdict::Equal;
        }
        if stall.stalled(cls.count) {
            return Verdict::Alarm(report::explain(&g, &cls, &roots));
        }
        let cases = g.case_count();
        #[cfg(test)]
        count_work(0, 1);
        let subst = {
            let mut rules = Rules::new(&mut g, &cls, opts.strict);
            let mut subst = rewrite(&mut rules, &cls);
            if subst.is_empty()
                && rules.g.case_count() == cases
                && r8_empty < R8_MAX_EMPTY
                && r8_may_retry(r8_outgrown, &cls)
            {
                // Nothing else simplifies: try R8's range facts, whose
                // exploration is the costliest rule of a round.
                rules.range.enabled = true;
                subst = rewrite_again(&mut rules, &cls, |op| {
                    matches!(op, Op::Phi | Op::Mu(_) | Op::Eta(_))
                });
                if rules.range.outgrown {
                    r8_outgrown = Some(cls.reached.len());
                }
                let found = !subst.is_empty() || rules.g.case_count() != cases;
                r8_empty = if found { 0 } else { r8_empty + 1 };
            }
            if subst.is_empty() && rules.g.case_count() == cases {
                // Nothing else simplifies: flatten nested φ's (R10).
                rules.flatten = true;
                subst = rewrite_again(&mut rules, &cls, |op| *op == Op::Phi);
            }
            if subst.is_empty() {
                // Nothing simplifies: try equating a loop with the after
                // side's loop unrolled by two.
                subst = rules.double_loops(&roots, &mut doubled);
            }
            if subst.is_empty() {
                // Nothing else either: restrict depth-0 φ's to where they
                // are observed (R11).
                subst = rules.restrict_observed(&all, &mut observed);
            }
            #[cfg(test)]
            count_work(3, rules.gates.bdd().len());
            subst
        };
        // A new case-split copy (R8) is compared in the next round.
        if subst.is_empty() && g.case_count() == cases {
            return Verdict::Alarm(report::explain(&g, &cls, &roots));
        }
        substitute(&mut g, &cls, &subst, &mut all);
        roots.copy_from_slice(&all[..4]);
        g.set_case_roots(&all[4..]);
        if g.len() > opts.max_nodes {
            return Verdict::Unsupported(format!("the graph outgrew {} nodes", opts.max_nodes));
        }
    }
    Verdict::Unsupported(format!("no normal form after {} rounds", opts.max_rounds))
}

/// Most explorations of R8 in a row that find nothing before R8 stops for
/// the rest of the attempt. R8 explores in every round where the other
/// rules rewrite nothing, and the rewrites that follow (R10, loop
/// doubling, R11) change the checked part of the graph, so an exploration
/// is rarely a repeat; but R8 never proves a check after more than one
/// empty exploration in a row (over the 1 800 attempts of the corpus and
/// of generated seed 80000, the only find after an empty exploration is
/// `control/nested_loops_return` `find`: found, empty, found), while
/// failing functions explore up to 13 times in a row before their alarm
/// without the bound (`arrays/bool_layout` spent a third of the corpus's
/// validation time so). Two empty explorations in a row end it: a third
/// (the bound was 3) found nothing in any of those attempts and cost
/// 4 ms in each of `bool_layout`'s. Stopping is sound: R8 is a
/// completeness rule.
const R8_MAX_EMPTY: u32 = 2;

/// Most rounds in a row an attempt may go without reaching fewer classes
/// than in every round before ([`Stall`]). An attempt that validates
/// merges the two sides' classes, and the rules that first grow the graph
/// (R8's case splits, loop doubling, R10) pay off within a few rounds:
/// over the 1 700 `Equal` attempts of the corpus and of generated seed
/// 80000 the longest such stretch was 14 rounds (12 on the corpus), while
/// failing attempts run on for up to 58 (`arrays/bool_layout` `.main`: 44
/// of its 48 rounds, a fifth of the corpus's validation time, loop
/// doubling one loop per round and R11 cycling with the normal rules on
/// ~1 400 classes). A deterministic budget (rounds, not time): the verdict
/// is reproducible, and stopping is sound (an alarm, never `Equal`).
pub const STALL_ROUNDS: usize = 20;

/// The progress of one attempt: the fewest classes reached so far and the
/// rounds since that minimum was last lowered.
#[derive(Default)]
struct Stall {
    fewest: Option<u32>,
    since: usize,
}

impl Stall {
    /// Records a round that reached `classes` classes; whether the attempt
    /// has now gone [`STALL_ROUNDS`] rounds without a new minimum.
    fn stalled(&mut self, classes: u32) -> bool {
        if self.fewest.is_none_or(|f| classes < f) {
            self.fewest = Some(classes);
            self.since = 0;
        } else {
            self.since += 1;
        }
        self.since >= STALL_ROUNDS
    }
}

/// Whether R8 may explore in a round with classes `cls`, when its
/// exploration last outgrew its budget in a round that reached
/// `outgrown` nodes. An exploration that outgrew it found nothing and
/// would outgrow it again in a round of about the same size (rounds add
/// nodes; they rarely remove contexts), so it is retried only once the
/// reached graph has shrunk by a quarter (a case split or a loop rule
/// took a large part away).
fn r8_may_retry(outgrown: Option<usize>, cls: &Classes) -> bool {
    outgrown.is_none_or(|n| cls.reached.len() * 4 <= n * 3)
}

/// The rewrites of one pass of the rules over the round's classes, keyed
/// by class.
fn rewrite(rules: &mut Rules<'_>, cls: &Classes) -> FxHashMap<u32, Id> {
    let mut subst: FxHashMap<u32, Id> = FxHashMap::default();
    for &n in &cls.reached {
        if rules.r(n) != n {
            continue;
        }
        if let Some(m) = rules.apply(n) {
            subst.insert(cls.of(n), m);
        }
    }
    rules.merge_gates(&mut subst);
    subst
}

/// The rewrites of another pass over the round's classes, after a pass
/// that rewrote nothing, with one more rule enabled (R8 or R10): only the
/// nodes with an operator that rule applies to (`again`) are tried. The
/// rules are functions of the graph and the classes, which the pass before
/// did not change, so on every other node they would find nothing again;
/// the gate merges of [`Rules::merge_gates`] depend on the classes alone,
/// and found nothing either.
fn rewrite_again(
    rules: &mut Rules<'_>,
    cls: &Classes,
    again: impl Fn(&Op) -> bool,
) -> FxHashMap<u32, Id> {
    let mut subst: FxHashMap<u32, Id> = FxHashMap::default();
    for &n in &cls.reached {
        if rules.r(n) != n || !again(&rules.g.node(n).op) {
            continue;
        }
        if let Some(m) = rules.apply(n) {
            subst.insert(cls.of(n), m);
        }
    }
    subst
}

/// Replaces every use of a rewritten class by its replacement.
fn substitute(g: &mut Graph, cls: &Classes, subst: &FxHashMap<u32, Id>, roots: &mut [Id]) {
    // The replacement of each class, by class number (a lookup per edge
    // of the reached graph follows).
    let mut by_class = vec![None; cls.count as usize];
    for (&c, &m) in subst {
        if let Some(slot) = by_class.get_mut(c as usize) {
            *slot = Some(m);
        }
    }
    let resolve = |x: Id| -> Id {
        let mut x = x;
        for _ in 0..64 {
            let Some(&c) = cls.class.get(x.index()) else {
                break;
            };
            match by_class.get(c as usize).copied().flatten() {
                Some(m) if m != x && c != u32::MAX => x = m,
                _ => break,
            }
        }
        x
    };
    for r in roots.iter_mut() {
        *r = resolve(*r);
    }
    let mut seen = vec![false; g.len()];
    let mut stack: Vec<Id> = roots.to_vec();
    let walk = |g: &mut Graph, stack: &mut Vec<Id>, seen: &mut [bool]| {
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n.index()], true) {
                continue;
            }
            for i in 0..g.node(n).args.len() {
                let a = g.node(n).args[i];
                let m = resolve(a);
                if m != a {
                    g.set_arg(n, i, m);
                }
                stack.push(m);
            }
        }
    };
    walk(g, &mut stack, &mut seen);
    // The continue condition recorded for each live μ (R8 reads it) follows
    // the rewrites of the η's that share it: both observe the condition at
    // every tick of the loop, so whatever equates the η's copy equates the
    // recorded one. Left alone it would fall out of the reached graph once
    // its η's are rewritten, and keep a form no rule simplifies any more.
    for (mu, cont) in g.loop_conts() {
        if !seen.get(mu.index()).copied().unwrap_or(false) {
            continue;
        }
        let m = resolve(cont);
        if m != cont {
            g.set_loop_cont(mu, m);
        }
        stack.push(m);
    }
    walk(g, &mut stack, &mut seen);
}

#[cfg(test)]
mod stall_tests {
    use super::{Stall, STALL_ROUNDS};

    /// An attempt stops after [`STALL_ROUNDS`] rounds without fewer
    /// classes than ever before, and a new minimum starts the count again
    /// (rounds that grow the graph first and merge later go on).
    #[test]
    fn an_attempt_stops_only_after_rounds_without_a_new_minimum() {
        let mut s = Stall::default();
        assert!(!s.stalled(100));
        assert!(!s.stalled(90));
        // Growing (R8's case split, loop doubling) and shrinking again to
        // above the minimum is no progress.
        for i in 1..STALL_ROUNDS {
            assert!(!s.stalled(90 + (i % 3) as u32), "round {i}");
        }
        // A new minimum on the last round before the budget resets it.
        assert!(!s.stalled(89));
        for i in 1..STALL_ROUNDS {
            assert!(!s.stalled(89), "round {i} after the new minimum");
        }
        assert!(s.stalled(89));
        assert!(s.stalled(120));
    }
}
