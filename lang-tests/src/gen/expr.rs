//! Expressions by type. Every compound expression is parenthesized, so
//! precedence never matters and comparisons never chain.

use super::scope::{Func, FuncKind};
use super::{Gen, Ty};

/// Integer literals at the edges of `i64` and of shift counts.
const INT_EDGES: &[&str] = &[
    "9223372036854775807",
    "(-9223372036854775807 - 1)",
    "4611686018427387904",
    "(-1)",
    "63",
    "64",
    "65",
    "0x7fffffffffffffff",
    "0b1010",
    "1_000_000",
    "(-4294967296)",
    "4294967295",
];

/// Float literals, and expressions for the values that have none.
const FLOAT_EDGES: &[&str] = &[
    "(0.0 / 0.0)",
    "(1.0 / 0.0)",
    "(-1.0 / 0.0)",
    "(-0.0)",
    "0.0",
    "1e300",
    "5e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "0.1",
    "(-2.5)",
    "1e16",
    "9007199254740993.0",
    "(-9.223372036854776e18)",
    "9.3e18",
];

/// String literals: escapes, non-ASCII text, the empty string.
const STRINGS: &[&str] = &[
    "\"\"",
    "\"a\"",
    "\"hello\"",
    "\"x y\"",
    "\"tab\\t\"",
    "\"q\\\"q\"",
    "\"back\\\\slash\"",
    "\"nl\\n\"",
    "\"nul\\0\"",
    "\"cr\\r\"",
    "\"é\"",
    "\"日本\"",
    "\"😀!\"",
    "\"Z\"",
    "\"-1\"",
];

const INT_OPS: &[&str] = &["+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%"];
const FLOAT_OPS: &[&str] = &["+", "-", "*", "/", "%"];
const ORDER_OPS: &[&str] = &["<", "<=", ">", ">=", "==", "!="];
const LIBM: &[&str] = &["sin", "cos", "tan", "exp", "log"];

impl Gen<'_> {
    /// Charges `units` of estimated work at the current loop multiplier.
    pub(crate) fn charge(&mut self, units: u64) {
        self.cost = self.cost.saturating_add(self.mult.saturating_mul(units));
    }

    /// Whether `units` more (at the current multiplier) fit the budget.
    pub(crate) fn affordable(&self, units: u64) -> bool {
        self.cost
            .saturating_add(self.mult.saturating_mul(units))
            .saturating_add(self.mult * 8)
            <= self.budget
    }

    /// An expression of type `ty` (never an empty array literal).
    pub(crate) fn expr(&mut self, ty: &Ty, depth: u32) -> String {
        self.expr_ctx(ty, depth, false)
    }

    /// An expression of type `ty`; with `typed_ctx` the context gives an
    /// empty array literal its type, so `[]` may be produced.
    pub(crate) fn expr_ctx(&mut self, ty: &Ty, depth: u32, typed_ctx: bool) -> String {
        self.charge(1);
        if depth == 0 {
            return self.leaf(ty, typed_ctx);
        }
        // A call, a tracer or an element read of the right type.
        if self.rng.chance(14) {
            if let Some(c) = self.call_returning(ty, depth) {
                return c;
            }
        }
        if self.rng.chance(10) {
            if let Some(e) = self.element_of(ty, depth) {
                return e;
            }
        }
        match ty {
            Ty::Int => self.int_expr(depth),
            Ty::Float => self.float_expr(depth),
            Ty::Bool => self.bool_expr(depth),
            Ty::Str => self.str_expr(depth),
            Ty::Arr(elem) => self.arr_expr(elem, depth, typed_ctx),
        }
    }

    /// A variable or literal of type `ty`.
    fn leaf(&mut self, ty: &Ty, typed_ctx: bool) -> String {
        let vars = self.scope.of_type(ty);
        if !vars.is_empty() && self.rng.chance(60) {
            return self.rng.pick(&vars).name.clone();
        }
        match ty {
            Ty::Int => self.int_lit(),
            Ty::Float => self.float_lit(),
            Ty::Bool => self.rng.pick(&["true", "false"]).to_string(),
            Ty::Str => self.rng.pick(STRINGS).to_string(),
            Ty::Arr(elem) => {
                if typed_ctx && self.rng.chance(20) {
                    return "[]".to_string();
                }
                let e = self.leaf(elem, false);
                if self.rng.chance(50) {
                    format!("[{e}]")
                } else {
                    let n = self.rng.below(4);
                    format!("[{e}; {n}]")
                }
            }
        }
    }

    pub(crate) fn int_lit(&mut self) -> String {
        match self.rng.weighted(&[12, 3, 2, 3]) {
            0 => self.rng.below(10).to_string(),
            1 => format!("(-{})", 1 + self.rng.below(20)),
            2 => ((self.rng.next_u64() >> 1) >> self.rng.below(63)).to_string(),
            _ => self.rng.pick(INT_EDGES).to_string(),
        }
    }

    fn float_lit(&mut self) -> String {
        match self.rng.weighted(&[6, 3, 3]) {
            0 => format!("{:?}", (self.rng.below(64) as f64) / 4.0),
            1 => {
                let bits = self.rng.next_u64();
                let f = f64::from_bits(bits);
                if f.is_finite() {
                    if f < 0.0 || (f == 0.0 && f.is_sign_negative()) {
                        format!("({f:?})")
                    } else {
                        format!("{f:?}")
                    }
                } else {
                    "1.5".to_string()
                }
            }
            _ => self.rng.pick(FLOAT_EDGES).to_string(),
        }
    }

    /// A small tracer id.
    fn tag(&mut self) -> u64 {
        self.rng.below(100)
    }

    fn int_expr(&mut self, depth: u32) -> String {
        let d = depth - 1;
        match self.rng.weighted(&[10, 3, 4, 3, 2, 2, 2, 2, 2]) {
            0 => {
                let op = *self.rng.pick(INT_OPS);
                let a = self.expr(&Ty::Int, d);
                let b = self.expr(&Ty::Int, d);
                if (op == "/" || op == "%") && !self.rng.chance(self.cfg.raw_ops) {
                    format!("({a} {op} ({b} | 1))")
                } else {
                    format!("({a} {op} {b})")
                }
            }
            1 => format!("(-{})", self.expr(&Ty::Int, d)),
            2 => format!("t({})", self.tag()),
            3 => {
                let arr = self.any_array_expr(d);
                format!("len({arr})")
            }
            4 => format!("len({})", self.expr(&Ty::Str, d)),
            5 => {
                let f = *self.rng.pick(&["abs", "min", "max"]);
                if f == "abs" {
                    format!("abs({})", self.expr(&Ty::Int, d))
                } else {
                    let a = self.expr(&Ty::Int, d);
                    let b = self.expr(&Ty::Int, d);
                    format!("{f}({a}, {b})")
                }
            }
            6 => format!("int({})", self.expr(&Ty::Float, d)),
            7 => {
                let ty = self.any_type();
                format!("len(str({}))", self.expr(&ty, d))
            }
            _ => self.leaf(&Ty::Int, false),
        }
    }

    fn float_expr(&mut self, depth: u32) -> String {
        let d = depth - 1;
        match self.rng.weighted(&[10, 2, 3, 3, 3, 2, 2]) {
            0 => {
                let op = *self.rng.pick(FLOAT_OPS);
                let a = self.expr(&Ty::Float, d);
                let b = self.expr(&Ty::Float, d);
                format!("({a} {op} {b})")
            }
            1 => format!("(-{})", self.expr(&Ty::Float, d)),
            2 => format!("float({})", self.expr(&Ty::Int, d)),
            3 => {
                let f = *self.rng.pick(&["sqrt", "floor", "ceil", "abs"]);
                format!("{f}({})", self.expr(&Ty::Float, d))
            }
            4 => {
                let f = *self.rng.pick(&["min", "max"]);
                let a = self.expr(&Ty::Float, d);
                let b = self.expr(&Ty::Float, d);
                format!("{f}({a}, {b})")
            }
            5 if self.cfg.libm => {
                let f = *self.rng.pick(LIBM);
                let a = self.expr(&Ty::Float, d);
                if self.cfg.portable_libm {
                    format!("floor(({f}({a}) * 4096.0))")
                } else {
                    format!("{f}({a})")
                }
            }
            _ => self.leaf(&Ty::Float, false),
        }
    }

    fn bool_expr(&mut self, depth: u32) -> String {
        let d = depth - 1;
        match self.rng.weighted(&[5, 3, 2, 2, 4, 2, 2, 1]) {
            0 => {
                let op = *self.rng.pick(ORDER_OPS);
                let a = self.expr(&Ty::Int, d);
                let b = self.expr(&Ty::Int, d);
                format!("({a} {op} {b})")
            }
            1 => {
                let op = *self.rng.pick(ORDER_OPS);
                let a = self.expr(&Ty::Float, d);
                let b = self.expr(&Ty::Float, d);
                format!("({a} {op} {b})")
            }
            2 => {
                let op = *self.rng.pick(ORDER_OPS);
                let a = self.expr(&Ty::Str, d);
                let b = self.expr(&Ty::Str, d);
                format!("({a} {op} {b})")
            }
            3 => {
                let op = *self.rng.pick(&["==", "!="]);
                let a = self.expr(&Ty::Bool, d);
                let b = self.expr(&Ty::Bool, d);
                format!("({a} {op} {b})")
            }
            4 => {
                // Short-circuit chains with side effects.
                let op = *self.rng.pick(&["&&", "||"]);
                let a = self.expr(&Ty::Bool, d);
                let b = if self.rng.chance(50) {
                    let k = self.tag();
                    let inner = self.expr(&Ty::Bool, d.saturating_sub(1));
                    format!("tb({k}, {inner})")
                } else {
                    self.expr(&Ty::Bool, d)
                };
                format!("({a} {op} {b})")
            }
            5 => format!("(!{})", self.expr(&Ty::Bool, d)),
            6 => {
                let k = self.tag();
                let inner = self.expr(&Ty::Bool, d);
                format!("tb({k}, {inner})")
            }
            _ => self.leaf(&Ty::Bool, false),
        }
    }

    fn str_expr(&mut self, depth: u32) -> String {
        let d = depth - 1;
        match self.rng.weighted(&[5, 4, 2, 2]) {
            0 => {
                let a = self.expr(&Ty::Str, d);
                let b = self.expr(&Ty::Str, d);
                format!("({a} + {b})")
            }
            1 => {
                let ty = self.any_type();
                format!("str({})", self.expr(&ty, d))
            }
            2 => {
                let k = self.tag();
                let inner = self.expr(&Ty::Str, d);
                format!("ts({k}, {inner})")
            }
            _ => self.leaf(&Ty::Str, false),
        }
    }

    fn arr_expr(&mut self, elem: &Ty, depth: u32, typed_ctx: bool) -> String {
        let d = depth - 1;
        let ty = elem.clone().arr();
        match self.rng.weighted(&[4, 4, 2, 1]) {
            0 => {
                // Literal; nested ones may hold `[]` after a typed sibling.
                let n = 1 + self.rng.below(3);
                let mut parts = Vec::new();
                for k in 0..n {
                    let e = self.expr_ctx(elem, d, k > 0 && elem.is_arr());
                    parts.push(capped(elem, e));
                }
                format!("[{}]", parts.join(", "))
            }
            1 => {
                let vars = self.scope.of_type(&ty);
                if vars.is_empty() {
                    self.leaf(&ty, typed_ctx)
                } else {
                    self.rng.pick(&vars).name.clone()
                }
            }
            2 => {
                let v = self.expr(elem, d);
                let v = capped(elem, v);
                let n = self.expr(&Ty::Int, d.min(1));
                if self.rng.chance(self.cfg.raw_ops) {
                    format!("[{v}; ({n} % 3)]")
                } else {
                    format!("[{v}; ({n} & 3)]")
                }
            }
            _ => self.leaf(&ty, typed_ctx),
        }
    }

    /// An expression of some array type (for `len`).
    fn any_array_expr(&mut self, depth: u32) -> String {
        let arrays = self.scope.arrays();
        if !arrays.is_empty() && self.rng.chance(70) {
            return self.rng.pick(&arrays).name.clone();
        }
        let ty = self.rng.pick(&super::SCALARS).clone().arr();
        self.expr(&ty, depth)
    }

    /// An index expression `i` valid for array `base` (a side-effect-free
    /// expression): `ix(e, len(base))`, or occasionally a raw one.
    pub(crate) fn index_for(&mut self, base: &str, depth: u32) -> String {
        if self.rng.chance(self.cfg.raw_ops) {
            return self.expr(&Ty::Int, depth);
        }
        let e = self.expr(&Ty::Int, depth);
        format!("ix({e}, len({base}))")
    }

    /// An element read of type `ty` from a variable's array: mostly
    /// through the generated safe getter (`at_T(a, i)`, the type's zero
    /// value for an empty array), sometimes directly as `a[ix(i, len(a))]`.
    fn element_of(&mut self, ty: &Ty, depth: u32) -> Option<String> {
        let d = depth.saturating_sub(1);
        let direct = self.scope.of_type(&ty.clone().arr());
        let nested = self.scope.of_type(&ty.clone().arr().arr());
        if !nested.is_empty() && (direct.is_empty() || self.rng.chance(30)) {
            let m = self.rng.pick(&nested).name.clone();
            let row_idx = self.expr(&Ty::Int, d);
            let row = format!("{}({m}, {row_idx})", self.getter(&ty.clone().arr()));
            let col = self.expr(&Ty::Int, d);
            return Some(format!("{}({row}, {col})", self.getter(ty)));
        }
        if direct.is_empty() {
            return None;
        }
        let a = self.rng.pick(&direct).name.clone();
        if self.rng.chance(25) {
            let i = self.index_for(&a, d);
            Some(format!("{a}[{i}]"))
        } else {
            let i = self.expr(&Ty::Int, d);
            Some(format!("{}({a}, {i})", self.getter(ty)))
        }
    }

    /// The name of the safe getter for arrays of `elem` (emitted at the
    /// end of the program).
    pub(crate) fn getter(&mut self, elem: &Ty) -> String {
        let name = format!("at_{}", elem.text().replace('[', "a").replace(']', ""));
        if !self.getters.contains(elem) {
            self.getters.push(elem.clone());
        }
        name
    }

    /// A side-effect-free int expression (a literal or an int variable).
    pub(crate) fn pure_int(&mut self) -> String {
        let vars = self.scope.of_type(&Ty::Int);
        if !vars.is_empty() && self.rng.chance(60) {
            self.rng.pick(&vars).name.clone()
        } else {
            self.rng.below(8).to_string()
        }
    }

    /// A call of a function returning `ty` whose cost fits, if any.
    fn call_returning(&mut self, ty: &Ty, depth: u32) -> Option<String> {
        // Bounded self-recursion inside a recursive function.
        if let Some(ctx) = self.in_fn.clone() {
            if let Some((name, param)) = &ctx.recursive {
                if ctx.ret.as_ref() == Some(ty)
                    && self.loops == 0
                    && self.self_calls < 2
                    && self.rng.chance(50)
                {
                    self.self_calls += 1;
                    let f = self.current_fn_sig.clone()?;
                    let mut args = Vec::new();
                    for (k, p) in f.params.iter().enumerate() {
                        if k == 0 {
                            args.push(format!("({param} - 1)"));
                        } else {
                            args.push(self.expr_ctx(p, depth.saturating_sub(1), true));
                        }
                    }
                    return Some(format!("{name}({})", args.join(", ")));
                }
            }
        }
        let candidates: Vec<Func> = self
            .funcs
            .iter()
            .filter(|f| f.ret.as_ref() == Some(ty) && f.kind != FuncKind::Internal)
            .filter(|f| self.affordable(f.cost))
            .cloned()
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let f = self.rng.pick(&candidates).clone();
        Some(self.call_text_at(&f, depth))
    }

    /// A call of `f` with generated arguments (for statements).
    pub(crate) fn call_text(&mut self, f: &Func) -> String {
        let d = self.cfg.expr_depth.min(2);
        self.call_text_at(f, d)
    }

    fn call_text_at(&mut self, f: &Func, depth: u32) -> String {
        self.charge(f.cost);
        let d = depth.saturating_sub(1);
        let args: Vec<String> = match &f.kind {
            FuncKind::Tracer => {
                let k = self.tag();
                std::iter::once(k.to_string())
                    .chain(f.params[1..].iter().map(|p| self.expr(p, d)))
                    .collect()
            }
            FuncKind::Recursive(mask) => {
                let n = self.expr(&Ty::Int, d.min(1));
                let mut args = vec![format!("({n} & {mask})")];
                for p in &f.params[1..] {
                    args.push(self.expr_ctx(p, d, true));
                }
                args
            }
            _ => f.params.iter().map(|p| self.expr_ctx(p, d, true)).collect(),
        };
        format!("{}({})", f.name, args.join(", "))
    }
}

/// `cap(e)` for a string expression that may be long (anything but a
/// literal or a variable), `e` otherwise.
pub(crate) fn capped(ty: &Ty, e: String) -> String {
    let simple = e.starts_with('"') || e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if *ty == Ty::Str && !simple {
        format!("cap({e})")
    } else {
        e
    }
}
