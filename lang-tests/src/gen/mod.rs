//! A seeded generator of well-typed, terminating Waddle programs for
//! differential testing: every tier must print the same output, raise the
//! same runtime error at the same location and exit with the same status as
//! the interpreter for every program it makes.
//!
//! ```
//! use waddle_lang_tests::gen::{generate, GenConfig};
//! let source = generate(42, &GenConfig::default());
//! assert_eq!(source, generate(42, &GenConfig::default())); // deterministic
//! let outcome = waddle::tooling::run_source("gen.wdl", &source, &Default::default());
//! assert!(matches!(outcome.exit_code, 0 | 2)); // never a compile error
//! ```
//!
//! What a program contains (each feature is chosen at random, so a few
//! hundred programs cover all of them; see [`GenConfig`] for the knobs):
//! - globals of every type, declared at the top and read by functions
//!   before their declaration has run (zero values), and top-level
//!   statements, loops and blocks;
//! - functions of every signature, called in a DAG (a function calls only
//!   earlier ones) plus bounded self-recursion, `void` functions, early
//!   returns, and `while true` loops that return from inside;
//! - `int` edge arithmetic (`i64::MIN`, wrapping `+ - * <<`, `MIN / -1`,
//!   `% -1`, shift counts past 63), `float` NaN, infinities and `-0.0`
//!   through every operator and builtin, strings with escapes and non-ASCII
//!   text, `str()` of every type;
//! - arrays nested up to three levels, shared by reference and mutated
//!   through aliases (locals, globals, parameters, rows of other arrays),
//!   `push`/`pop`, repeat literals (deep copies), empty literals typed by
//!   their context;
//! - evaluation-order probes: tracer calls (`t(k)` records `k` in a global
//!   log) in operands, arguments, index targets, array literals, `for`
//!   bounds and short-circuit chains, and compound element assignments
//!   whose right side shrinks the array;
//! - loop nests with `break` and `continue`;
//! - optionally (`GenConfig::endings`) a final runtime error of each kind
//!   (`division by zero`, `index out of bounds`, `negative array length`,
//!   `pop from empty array`, `assertion failed`, `stack overflow`), raised
//!   at top level or deep inside a call chain.
//!
//! Termination is by construction: every loop has a small static trip
//! bound (`for` bounds are masked, `while` loops count), recursion depth is
//! masked, and a cost estimate (loop trip bounds times callee costs) keeps
//! each program under [`GenConfig::work_budget`] basic operations.
//!
//! The `difftest` binary (`cargo run -p waddle-lang-tests --bin difftest --
//! --count N --seed S`) runs generated programs on every tier;
//! [`crate::difftest`] is its library side.

mod expr;
mod scope;
mod stmt;

use scope::{Func, Scope};

/// Knobs of the generator. [`GenConfig::default`] is what `difftest` and
/// the CI test use.
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    /// Most generated functions (besides the fixed tracer helpers).
    pub functions: usize,
    /// Statements of top-level code (besides global declarations).
    pub statements: usize,
    /// Most statements per block.
    pub block_statements: usize,
    /// Deepest expression nesting.
    pub expr_depth: u32,
    /// Deepest loop nesting.
    pub loop_depth: u32,
    /// Deepest statement nesting (blocks, ifs, loops).
    pub stmt_depth: u32,
    /// Estimated basic operations a program may execute at most.
    pub work_budget: u64,
    /// Use `sin cos tan exp log` (whose last bit may differ between
    /// platform math libraries).
    pub libm: bool,
    /// When `libm` is on, round their results (`floor(sin(x) * 4096.0)`)
    /// so that programs print the same on every platform's libm.
    pub portable_libm: bool,
    /// Percent of programs that end with a deliberate runtime error.
    pub endings: u32,
    /// Whether a deliberate ending may be `stack overflow` (deep recursion
    /// costs a moment on every tier).
    pub stack_overflow: bool,
    /// Percent chance that an integer division or index is left unguarded
    /// (so `division by zero` and `index out of bounds` also arise
    /// naturally).
    pub raw_ops: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            functions: 7,
            statements: 24,
            block_statements: 4,
            expr_depth: 4,
            loop_depth: 3,
            stmt_depth: 4,
            work_budget: 150_000,
            libm: true,
            portable_libm: true,
            endings: 30,
            stack_overflow: true,
            raw_ops: 3,
        }
    }
}

impl GenConfig {
    /// Smaller programs (fewer functions and statements, less work): what
    /// the CI test runs, where every configuration compiles with debug
    /// assertions (the optimizer re-verifies after every mutation).
    pub fn small() -> GenConfig {
        GenConfig {
            functions: 4,
            statements: 8,
            block_statements: 3,
            work_budget: 40_000,
            ..GenConfig::default()
        }
    }
}

/// The program for `seed` under `config` (deterministic: the same seed and
/// configuration always give the same text).
pub fn generate(seed: u64, config: &GenConfig) -> String {
    Gen::new(seed, config).program()
}

/// SplitMix64: small, seedable, good enough for choosing productions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// `true` with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }

    /// A uniformly chosen element (`xs` must not be empty).
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// An index chosen with the given weights (not all zero).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut r = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if r < u64::from(w) {
                return i;
            }
            r -= u64::from(w);
        }
        weights.len() - 1
    }
}

/// A Waddle type as the generator sees it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Ty {
    Int,
    Float,
    Bool,
    Str,
    Arr(Box<Ty>),
}

impl Ty {
    /// `[self]`.
    pub(crate) fn arr(self) -> Ty {
        Ty::Arr(Box::new(self))
    }

    /// The element type of an array type.
    pub(crate) fn elem(&self) -> Option<&Ty> {
        match self {
            Ty::Arr(e) => Some(e),
            _ => None,
        }
    }

    /// Source spelling.
    pub(crate) fn text(&self) -> String {
        match self {
            Ty::Int => "int".into(),
            Ty::Float => "float".into(),
            Ty::Bool => "bool".into(),
            Ty::Str => "str".into(),
            Ty::Arr(e) => format!("[{}]", e.text()),
        }
    }

    /// Whether values of the type are heap references.
    pub(crate) fn is_arr(&self) -> bool {
        matches!(self, Ty::Arr(_))
    }
}

/// Scalar types.
const SCALARS: [Ty; 4] = [Ty::Int, Ty::Float, Ty::Bool, Ty::Str];

/// The deliberate runtime error a program ends with.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Ending {
    DivZero,
    IndexOob,
    NegativeLength,
    PopEmpty,
    Assert,
    StackOverflow,
}

/// The generator's state for one program.
pub(crate) struct Gen<'c> {
    pub(crate) rng: Rng,
    pub(crate) cfg: &'c GenConfig,
    /// Finished functions (callable by later ones and by top-level code).
    pub(crate) funcs: Vec<Func>,
    /// Names and types of the globals.
    pub(crate) scope: Scope,
    /// Counter for fresh names.
    fresh: u32,
    /// Text of the function being generated (or top-level code).
    pub(crate) out: String,
    /// Current indentation level.
    pub(crate) indent: usize,
    /// Set while generating a function body: its result type (`None` for
    /// `void`) and, for recursive ones, the name of its depth parameter.
    pub(crate) in_fn: Option<FnCtx>,
    /// Product of the trip bounds of the enclosing loops.
    pub(crate) mult: u64,
    /// Estimated cost of the code generated so far in the current body.
    pub(crate) cost: u64,
    /// Most estimated cost the current body may reach.
    pub(crate) budget: u64,
    /// Set when the program needs the `deep` function (stack overflow).
    pub(crate) needs_deep: bool,
    /// Self-calls generated in the current recursive function.
    pub(crate) self_calls: u32,
    /// The signature of the function being generated.
    pub(crate) current_fn_sig: Option<Func>,
    /// Per enclosing loop, innermost last: whether `break` may leave it
    /// (not the `while true` a function returns from).
    pub(crate) breakable: Vec<bool>,
    /// Element types whose safe getter (`at_T`) the program uses.
    pub(crate) getters: Vec<Ty>,
    /// Loop nesting of the current position.
    pub(crate) loops: u32,
    /// Statement nesting of the current position.
    pub(crate) nesting: u32,
}

/// What the generator knows about the function whose body it writes.
#[derive(Clone, Debug)]
pub(crate) struct FnCtx {
    pub(crate) ret: Option<Ty>,
    /// For a recursive function: its name and depth parameter.
    pub(crate) recursive: Option<(String, String)>,
}

impl<'c> Gen<'c> {
    fn new(seed: u64, cfg: &'c GenConfig) -> Gen<'c> {
        Gen {
            rng: Rng::new(seed),
            cfg,
            funcs: Vec::new(),
            scope: Scope::default(),
            fresh: 0,
            out: String::new(),
            indent: 0,
            in_fn: None,
            mult: 1,
            cost: 0,
            budget: cfg.work_budget,
            needs_deep: false,
            self_calls: 0,
            current_fn_sig: None,
            breakable: Vec::new(),
            getters: Vec::new(),
            loops: 0,
            nesting: 0,
        }
    }

    /// A fresh identifier with `prefix`.
    pub(crate) fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    /// Appends one line at the current indentation.
    pub(crate) fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A random type: mostly scalars and one-level arrays.
    pub(crate) fn any_type(&mut self) -> Ty {
        match self.rng.weighted(&[5, 3, 3, 3, 4, 2, 1]) {
            0 => Ty::Int,
            1 => Ty::Float,
            2 => Ty::Bool,
            3 => Ty::Str,
            4 => self.rng.pick(&SCALARS).clone().arr(),
            5 => self.rng.pick(&[Ty::Int, Ty::Str]).clone().arr().arr(),
            _ => Ty::Int.arr().arr().arr(),
        }
    }

    /// The whole program.
    fn program(mut self) -> String {
        let mut text = String::new();
        text.push_str(&format!(
            "// generated by waddle_lang_tests::gen (seed and config in the runner)\n{}",
            PRELUDE
        ));
        for f in scope::prelude_funcs() {
            self.funcs.push(f);
        }
        // Globals: names and types first so functions can use them.
        let n_globals = 3 + self.rng.below(5) as usize;
        let mut globals = Vec::new();
        for _ in 0..n_globals {
            let ty = self.any_type();
            let name = self.fresh("g");
            let mutable = self.rng.chance(80);
            self.scope.declare_global(&name, ty.clone(), mutable);
            globals.push((name, ty, mutable));
        }
        let ending = (self.rng.chance(self.cfg.endings)).then(|| self.pick_ending());
        // The ending may live in a function that top-level code calls last.
        let ending_in_fn = ending.is_some() && self.rng.chance(50);
        let n_funcs = 1 + self.rng.below(self.cfg.functions as u64) as usize;
        for k in 0..n_funcs {
            let f = self.function(k, None);
            text.push_str(&f);
        }
        let mut tail_call = None;
        if let Some(e) = ending.filter(|_| ending_in_fn) {
            let k = self.funcs.len();
            let f = self.function(k, Some(e));
            text.push_str(&f);
            tail_call = self.funcs.last().cloned();
        }
        // Top-level code: early peeks at globals before their declarations,
        // then the declarations (initializers may call functions), then
        // statements.
        self.out.clear();
        self.indent = 0;
        self.mult = 1;
        self.cost = 0;
        if self.rng.chance(40) {
            let pick = self.rng.below(globals.len() as u64) as usize;
            let g = globals[pick].0.clone();
            self.line(&format!("print({g});"));
        }
        self.budget = self.cfg.work_budget;
        for (name, ty, mutable) in &globals {
            let kw = if *mutable { "var" } else { "let" };
            self.scope.set_hidden(name, true);
            let init = self.expr_ctx(ty, self.cfg.expr_depth.min(2), true);
            self.scope.set_hidden(name, false);
            self.line(&format!("{kw} {name}: {} = {init};", ty.text()));
        }
        self.scope.push();
        for _ in 0..self.cfg.statements {
            self.stmt();
        }
        if self.rng.chance(70) {
            self.line("print(trace);");
        }
        for (name, _, _) in &globals {
            if self.rng.chance(50) {
                self.line(&format!("print({name});"));
            }
        }
        if let Some(f) = tail_call {
            let call = self.call_text(&f);
            self.line(&format!("{call};"));
        } else if let Some(e) = ending {
            self.ending(e);
        }
        self.scope.pop();
        text.push_str(&self.out);
        if self.needs_deep {
            text.push_str(DEEP);
        }
        for elem in std::mem::take(&mut self.getters) {
            text.push_str(&getter_text(&elem));
        }
        text
    }

    fn pick_ending(&mut self) -> Ending {
        let mut all = vec![
            Ending::DivZero,
            Ending::IndexOob,
            Ending::NegativeLength,
            Ending::PopEmpty,
            Ending::Assert,
        ];
        if self.cfg.stack_overflow {
            all.push(Ending::StackOverflow);
        }
        *self.rng.pick(&all)
    }
}

/// Helpers every program has: tracers for evaluation-order probes, a safe
/// index function, and `cap`, which keeps stored strings short (every
/// string store goes through it, so no loop can grow a string
/// exponentially).
const PRELUDE: &str = "\
var trace: [int] = [];
fn t(k: int) -> int { push(trace, k); return k; }
fn tb(k: int, b: bool) -> bool { push(trace, k); return b; }
fn ts(k: int, s: str) -> str { push(trace, k); return s; }
fn ix(i: int, n: int) -> int {
    if n <= 0 { return 0; }
    let r = i % n;
    if r < 0 { return r + n; }
    return r;
}
fn cap(s: str) -> str {
    if len(s) > 200 { return \"<long>\"; }
    return s;
}
";

/// The safe getter for arrays of `elem`: the element at `ix(i, len(a))`,
/// or the type's zero value when `a` is empty.
fn getter_text(elem: &Ty) -> String {
    let name = elem.text().replace('[', "a").replace(']', "");
    let zero = match elem {
        Ty::Int => "0",
        Ty::Float => "0.0",
        Ty::Bool => "false",
        Ty::Str => "\"\"",
        Ty::Arr(_) => "[]",
    };
    let t = elem.text();
    format!(
        "fn at_{name}(a: [{t}], i: int) -> {t} {{\n    if len(a) == 0 {{ return {zero}; }}\n    return a[ix(i, len(a))];\n}}\n"
    )
}

/// Unbounded recursion for the `stack overflow` ending.
const DEEP: &str = "\
fn deep(n: int) -> int {
    if n < 0 { return 0; }
    return deep(n + 1) + 1;
}
";

#[cfg(test)]
mod tests;
