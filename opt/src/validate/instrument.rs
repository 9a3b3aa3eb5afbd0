//! Validation modes (digest §5.1): per pass, as pipeline
//! [`Instrumentation`] that validates every function after every pass
//! against its state before the pass (this localizes a bug to a pass), and
//! per pipeline ([`validate_program`]), comparing each function of the
//! unoptimized program with the optimized one, as LLVM M.D.'s `vopt`
//! does (Govereau §2.2, Fig. 7.2).

use std::time::{Duration, Instant};

use cranelift_entity::EntityRef as _;

use super::{validate_in, Callees, Options, Verdict};
use crate::ir::{FuncId, Function, Program};
use crate::passes::Instrumentation;

/// Validation figures of one pass (summed over functions and positions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// The pass.
    pub name: &'static str,
    /// Functions it ran on.
    pub runs: u32,
    /// Runs that changed the function.
    pub changed: u32,
    /// Changed runs validated `Equal`.
    pub equal: u32,
    /// Changed runs with an alarm.
    pub alarms: u32,
    /// Changed runs the validator could not judge.
    pub unsupported: u32,
    /// Time spent validating.
    pub time: Duration,
}

/// A function that did not validate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The pass (or `pipeline`).
    pub pass: &'static str,
    /// The function's name.
    pub func: String,
    /// The verdict (an alarm or unsupported).
    pub verdict: Verdict,
    /// One line saying why, with source locations.
    pub message: String,
}

/// Pipeline instrumentation that validates every changed function after
/// every pass.
#[derive(Default)]
pub struct Validator {
    /// How to validate.
    pub opts: Options,
    /// One row per pass, in order of first appearance.
    pub stats: Vec<PassStats>,
    /// Every alarm and unsupported verdict.
    pub findings: Vec<Finding>,
    saved: Option<Function>,
    callees: Option<Callees>,
}

impl Validator {
    /// A validator with options `opts`.
    pub fn new(opts: Options) -> Validator {
        Validator {
            opts,
            ..Validator::default()
        }
    }

    /// Unfolds calls of the functions of `program` (the program the
    /// pipeline is about to run on, as it is before the run) in the
    /// following validations; without it calls stay uninterpreted.
    pub fn set_program(&mut self, program: &Program) {
        self.callees = Some(Callees::new(program.clone(), self.opts.unfold_limit));
    }

    fn row(&mut self, name: &'static str) -> &mut PassStats {
        let i = match self.stats.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.stats.push(PassStats {
                    name,
                    ..PassStats::default()
                });
                self.stats.len() - 1
            }
        };
        &mut self.stats[i]
    }
}

impl Instrumentation for Validator {
    fn inline_body(&mut self, id: FuncId, body: &Function) {
        // Calls of `id` in functions optimized from now on unfold to the
        // body their inliner inlines.
        if let Some(callees) = self.callees.as_mut() {
            callees.replace(id, body);
        }
    }

    fn before_pass(&mut self, _: &'static str, _: &Program, _: FuncId, func: &Function) {
        self.saved = Some(func.clone());
    }

    fn after_pass(
        &mut self,
        pass: &'static str,
        program: &Program,
        _: FuncId,
        func: &Function,
        changed: bool,
    ) {
        let before = self.saved.take();
        let row = self.row(pass);
        row.runs += 1;
        if !changed {
            return;
        }
        row.changed += 1;
        let Some(before) = before else { return };
        let t = Instant::now();
        let verdict = validate_in(&before, func, self.callees.as_ref(), &self.opts);
        let elapsed = t.elapsed();
        let row = self.row(pass);
        row.time += elapsed;
        match &verdict {
            Verdict::Equal => row.equal += 1,
            Verdict::Alarm(_) => row.alarms += 1,
            Verdict::Unsupported(_) => row.unsupported += 1,
        }
        if let Some(message) = describe(&verdict, Some(program)) {
            self.findings.push(Finding {
                pass,
                func: func.name.clone(),
                verdict,
                message,
            });
        }
    }
}

/// One line for a verdict that is not `Equal`.
pub fn describe(v: &Verdict, program: Option<&Program>) -> Option<String> {
    match v {
        Verdict::Equal => None,
        Verdict::Alarm(r) => Some(format!("alarm: {}", r.render(program))),
        Verdict::Unsupported(why) => Some(format!("unsupported: {why}")),
    }
}

/// The outcome of validating a whole optimized program.
#[derive(Clone, Debug, Default)]
pub struct ProgramValidation {
    /// Functions with a body compared.
    pub total: u32,
    /// Functions validated `Equal`.
    pub equal: u32,
    /// Of those, the functions validated only by their per-pass chain
    /// ([`super::validate_pipeline`]; always 0 from [`validate_program`]).
    pub chained: u32,
    /// The others, with reasons.
    pub findings: Vec<Finding>,
    /// The ids of the functions that did not validate.
    pub failed: Vec<FuncId>,
}

/// Validates every function of `after` against the same function of
/// `before` (the program before the pipeline ran), unfolding calls where
/// that is needed ([`super::unfold`]).
///
/// Functions are validated callees first. A call unfolds to the callee's
/// `before` body until the callee's `after` body is proven equal to it,
/// and to that `after` body from then on: the two mean the same, and the
/// `after` body is what a bottom-up inliner put in place of the call.
pub fn validate_program(before: &Program, after: &Program, opts: &Options) -> ProgramValidation {
    let mut callees = Callees::new(before.clone(), opts.unfold_limit);
    let mut verdicts: Vec<Option<Verdict>> = (0..after.funcs.len()).map(|_| None).collect();
    for id in callees.bottom_up() {
        let (Some(fa), Some(fb)) = (after.funcs.get(id), before.funcs.get(id)) else {
            continue;
        };
        if fa.is_declaration() || fb.is_declaration() {
            continue;
        }
        let verdict = if fa == fb {
            Verdict::Equal
        } else {
            let v = validate_in(fb, fa, Some(&callees), opts);
            if v.is_equal() {
                callees.replace(id, fa);
            }
            v
        };
        verdicts[id.index()] = Some(verdict);
    }
    let mut out = ProgramValidation::default();
    for (id, fa) in after.funcs.iter() {
        let Some(verdict) = verdicts[id.index()].take() else {
            continue;
        };
        out.total += 1;
        match describe(&verdict, Some(after)) {
            None => out.equal += 1,
            Some(message) => {
                out.failed.push(id);
                out.findings.push(Finding {
                    pass: "pipeline",
                    func: fa.name.clone(),
                    verdict,
                    message,
                });
            }
        }
    }
    out
}
