//! Statements, function declarations and the deliberate runtime-error
//! endings.

use super::expr::capped;
use super::scope::{Func, FuncKind};
use super::{Ending, FnCtx, Gen, Ty};

/// Compound operators by operand type.
const INT_COMPOUND: &[&str] = &["+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", "/=", "%="];
const FLOAT_COMPOUND: &[&str] = &["+=", "-=", "*=", "/=", "%="];

/// Saved generator state around a function body.
struct Saved {
    out: String,
    indent: usize,
    mult: u64,
    cost: u64,
    budget: u64,
    loops: u32,
    nesting: u32,
    in_fn: Option<FnCtx>,
    self_calls: u32,
    sig: Option<Func>,
    breakable: Vec<bool>,
}

impl Gen<'_> {
    fn save(&mut self) -> Saved {
        Saved {
            out: std::mem::take(&mut self.out),
            indent: self.indent,
            mult: self.mult,
            cost: self.cost,
            budget: self.budget,
            loops: self.loops,
            nesting: self.nesting,
            in_fn: self.in_fn.take(),
            self_calls: self.self_calls,
            sig: self.current_fn_sig.take(),
            breakable: std::mem::take(&mut self.breakable),
        }
    }

    fn restore(&mut self, s: Saved) -> String {
        let text = std::mem::replace(&mut self.out, s.out);
        self.indent = s.indent;
        self.mult = s.mult;
        self.cost = s.cost;
        self.budget = s.budget;
        self.loops = s.loops;
        self.nesting = s.nesting;
        self.in_fn = s.in_fn;
        self.self_calls = s.self_calls;
        self.current_fn_sig = s.sig;
        self.breakable = s.breakable;
        text
    }

    /// Generates a function (number `k`); with `ending` a `void` function
    /// that ends in that runtime error. Registers it for later calls and
    /// returns its text.
    pub(crate) fn function(&mut self, _k: usize, ending: Option<Ending>) -> String {
        let saved = self.save();
        let name = self.fresh("f");
        let recursive = ending.is_none() && self.rng.chance(25);
        let ret = if ending.is_some() || self.rng.chance(25) {
            None
        } else {
            Some(self.any_type())
        };
        self.scope.reset_to_globals();
        self.scope.push();
        let mut params = Vec::new();
        let mut param_text = Vec::new();
        let n_params = self.rng.below(4) as usize;
        let depth_param = recursive.then(|| self.fresh("n"));
        if let Some(n) = &depth_param {
            params.push(Ty::Int);
            param_text.push(format!("{n}: int"));
            self.scope.declare(n, Ty::Int, false, true);
        }
        for _ in 0..n_params {
            let ty = self.any_type();
            let p = self.fresh("p");
            param_text.push(format!("{p}: {}", ty.text()));
            self.scope.declare(&p, ty.clone(), false, false);
            params.push(ty);
        }
        let mut head = format!("fn {name}({})", param_text.join(", "));
        if let Some(r) = &ret {
            head.push_str(&format!(" -> {}", r.text()));
        }
        let sig = Func {
            name: name.clone(),
            params: params.clone(),
            ret: ret.clone(),
            cost: 1,
            kind: if recursive {
                FuncKind::Recursive(3)
            } else {
                FuncKind::Plain
            },
        };
        self.current_fn_sig = Some(sig.clone());
        self.in_fn = Some(FnCtx {
            ret: ret.clone(),
            recursive: depth_param.clone().map(|p| (name.clone(), p)),
        });
        self.budget = (self.cfg.work_budget / 12).max(200);
        self.cost = 0;
        self.mult = 1;
        self.loops = 0;
        self.nesting = 1;
        self.self_calls = 0;
        self.indent = 0;
        self.line(&format!("{head} {{"));
        self.indent = 1;
        self.scope.push();
        if let Some(n) = &depth_param {
            let base = match &ret {
                Some(r) => format!("return {};", self.expr_ctx(r, 1, true)),
                None => "return;".to_string(),
            };
            self.line(&format!("if {n} <= 0 {{ {base} }}"));
        }
        let n = 1 + self.rng.below(self.cfg.block_statements as u64 + 2);
        for _ in 0..n {
            self.stmt();
        }
        if let Some(e) = ending {
            self.ending(e);
        }
        if let Some(r) = &ret {
            if self.rng.chance(15) {
                self.return_from_endless_loop(r);
            } else {
                let e = self.expr_ctx(r, self.cfg.expr_depth, true);
                self.line(&format!("return {e};"));
            }
        }
        self.scope.pop();
        self.scope.pop();
        self.indent = 0;
        self.line("}");
        let body_cost = self.cost.max(1);
        let (cost, kind) = match (recursive, self.self_calls) {
            (false, _) => (body_cost, FuncKind::Plain),
            (true, 0 | 1) => (body_cost.saturating_mul(8), FuncKind::Recursive(7)),
            (true, _) => (body_cost.saturating_mul(16), FuncKind::Recursive(3)),
        };
        let text = self.restore(saved);
        self.funcs.push(Func {
            name,
            params,
            ret,
            cost,
            kind,
        });
        text
    }

    /// `while true { .. return e; .. }`: a loop that counts as returning on
    /// every path (docs/language.md "Statements", returning on every path), so nothing follows it.
    fn return_from_endless_loop(&mut self, ret: &Ty) {
        let w = self.fresh("w");
        let k = 1 + self.rng.below(4);
        self.line(&format!("var {w} = 0;"));
        self.line("while true {");
        self.enter_loop(k + 1, false);
        self.scope.declare(&w, Ty::Int, true, true);
        self.line(&format!("{w} += 1;"));
        let e = self.expr_ctx(ret, 2, true);
        self.line(&format!("if {w} > {k} {{ return {e}; }}"));
        self.stmts();
        self.leave_loop(k + 1);
        self.line("}");
    }

    /// Enters a loop body of at most `trips` iterations.
    fn enter_loop(&mut self, trips: u64, breakable: bool) {
        self.mult = self.mult.saturating_mul(trips);
        self.loops += 1;
        self.nesting += 1;
        self.indent += 1;
        self.breakable.push(breakable);
        self.scope.push();
    }

    fn leave_loop(&mut self, trips: u64) {
        self.scope.pop();
        self.breakable.pop();
        self.indent -= 1;
        self.nesting -= 1;
        self.loops -= 1;
        self.mult /= trips.max(1);
    }

    /// A block's statements (in a new scope; braces are the caller's).
    fn stmts(&mut self) {
        let n = 1 + self.rng.below(self.cfg.block_statements as u64);
        for _ in 0..n {
            self.stmt();
        }
    }

    fn nested_block(&mut self) {
        self.nesting += 1;
        self.indent += 1;
        self.scope.push();
        self.stmts();
        self.scope.pop();
        self.indent -= 1;
        self.nesting -= 1;
    }

    /// Whether declarations here are top-level globals (no shadowing then).
    fn at_top_level(&self) -> bool {
        self.in_fn.is_none() && self.nesting == 0
    }

    /// One statement at the current position.
    pub(crate) fn stmt(&mut self) {
        self.charge(1);
        let can_nest = self.nesting < self.cfg.stmt_depth;
        let can_loop = can_nest && self.loops < self.cfg.loop_depth && self.affordable(40);
        let in_loop = self.loops > 0;
        let weights = [
            14,                                       // declaration
            12,                                       // assignment
            10,                                       // element assignment
            5,                                        // push
            3,                                        // pop
            10,                                       // print
            if can_nest { 8 } else { 0 },             // if
            if can_loop { 4 } else { 0 },             // while
            if can_loop { 5 } else { 0 },             // for
            if can_nest { 2 } else { 0 },             // block
            6,                                        // call
            2,                                        // assert
            if in_loop { 3 } else { 0 },              // break / continue
            if self.in_fn.is_some() { 2 } else { 0 }, // early return
        ];
        match self.rng.weighted(&weights) {
            0 => self.decl(),
            1 => self.assign(),
            2 => self.elem_assign(),
            3 => self.push_stmt(),
            4 => self.pop_stmt(),
            5 => self.print_stmt(),
            6 => self.if_stmt(),
            7 => self.while_stmt(),
            8 => self.for_stmt(),
            9 => {
                self.line("{");
                self.nested_block();
                self.line("}");
            }
            10 => self.call_stmt(),
            11 => self.assert_stmt(),
            12 => self.break_continue(),
            _ => self.early_return(),
        }
    }

    fn depth(&self) -> u32 {
        self.cfg.expr_depth
    }

    fn decl(&mut self) {
        let vars = self
            .scope
            .visible()
            .into_iter()
            .cloned()
            .collect::<Vec<_>>();
        // Aliases of existing arrays, or a fresh value of any type.
        let (ty, init) = if !vars.is_empty() && self.rng.chance(20) {
            let v = self.rng.pick(&vars).clone();
            (v.ty.clone(), v.name.clone())
        } else {
            let ty = self.any_type();
            let annotated = self.rng.chance(50);
            let init = self.expr_ctx(&ty, self.depth(), annotated);
            (ty, init)
        };
        let shadow = !self.at_top_level() && self.rng.chance(15);
        let name = if shadow {
            let inner = self.scope.innermost_names();
            let outer: Vec<String> = vars
                .iter()
                .filter(|v| !v.pinned)
                .map(|v| v.name.clone())
                .filter(|n| !inner.contains(n))
                .collect();
            if outer.is_empty() {
                self.fresh("v")
            } else {
                self.rng.pick(&outer).clone()
            }
        } else {
            self.fresh("v")
        };
        let mutable = self.rng.chance(70);
        let kw = if mutable { "var" } else { "let" };
        let needs_annotation = init.starts_with("[]") || init.contains("[[]") || init == "[]";
        let annotation = if needs_annotation || self.rng.chance(40) {
            format!(": {}", ty.text())
        } else {
            String::new()
        };
        self.line(&format!("{kw} {name}{annotation} = {init};"));
        self.scope.declare(&name, ty, mutable, false);
    }

    /// A short string for code that runs many times (no variable that may
    /// have grown, no call).
    fn small_str(&mut self) -> String {
        match self.rng.below(3) {
            0 => self.leaf_str_literal(),
            1 => format!("str({})", self.int_lit()),
            _ => {
                let i = self.pure_int();
                format!("str({i})")
            }
        }
    }

    fn leaf_str_literal(&mut self) -> String {
        let options = ["\"a\"", "\"-\"", "\"é\"", "\"\\n\"", "\"xy\""];
        self.rng.pick(&options).to_string()
    }

    /// The right side of an assignment to a place of type `ty` (strings
    /// through `cap`).
    fn rhs(&mut self, ty: &Ty) -> String {
        let e = self.expr_ctx(ty, self.depth(), true);
        capped(ty, e)
    }

    /// `op= rhs` for a place of type `ty`, or `None` for plain `=`.
    fn compound(&mut self, ty: &Ty) -> Option<String> {
        if !self.rng.chance(40) || (*ty == Ty::Str && self.mult > 8) {
            return None;
        }
        match ty {
            Ty::Int => {
                let op = *self.rng.pick(INT_COMPOUND);
                let e = self.expr(&Ty::Int, self.depth());
                if (op == "/=" || op == "%=") && !self.rng.chance(self.cfg.raw_ops) {
                    Some(format!("{op} ({e} | 1)"))
                } else {
                    Some(format!("{op} {e}"))
                }
            }
            Ty::Float => {
                let op = *self.rng.pick(FLOAT_COMPOUND);
                let e = self.expr(&Ty::Float, self.depth());
                Some(format!("{op} {e}"))
            }
            // Repeated `+=` grows a string linearly: keep the pieces short.
            Ty::Str => {
                let e = self.small_str();
                Some(format!("+= {e}"))
            }
            _ => None,
        }
    }

    fn assign(&mut self) {
        let vars = self.scope.assignable();
        if vars.is_empty() {
            return self.print_stmt();
        }
        let v = self.rng.pick(&vars).clone();
        let text = match self.compound(&v.ty) {
            Some(c) => format!("{} {c};", v.name),
            None => {
                let e = self.rhs(&v.ty);
                format!("{} = {e};", v.name)
            }
        };
        self.line(&text);
    }

    /// Element types reachable by indexing visible arrays.
    fn element_types(&self) -> Vec<Ty> {
        let mut out: Vec<Ty> = Vec::new();
        for v in self.scope.arrays() {
            let mut t = v.ty.elem().cloned();
            while let Some(e) = t {
                if !out.contains(&e) {
                    out.push(e.clone());
                }
                t = e.elem().cloned();
            }
        }
        out
    }

    /// `a[i] = e` / `a[i] op= e`, usually guarded by `len(a) > 0`; for
    /// nested arrays through a row alias (`let r = at_aT(m, i); r[j] = e;`
    /// writes into `m`).
    fn elem_assign(&mut self) {
        let types = self.element_types();
        if types.is_empty() {
            return self.push_stmt();
        }
        let ty = self.rng.pick(&types).clone();
        let direct = self.scope.of_type(&ty.clone().arr());
        let nested = self.scope.of_type(&ty.clone().arr().arr());
        let base = if !nested.is_empty() && (direct.is_empty() || self.rng.chance(35)) {
            let m = self.rng.pick(&nested).name.clone();
            if self.rng.chance(self.cfg.raw_ops * 3) {
                let r = self.pure_int();
                format!("{m}[ix({r}, len({m}))]")
            } else {
                let row = self.fresh("r");
                let i = self.expr(&Ty::Int, 2);
                let get = self.getter(&ty.clone().arr());
                self.line(&format!("let {row} = {get}({m}, {i});"));
                self.scope.declare(&row, ty.clone().arr(), false, false);
                row
            }
        } else if let Some(v) = (!direct.is_empty()).then(|| self.rng.pick(&direct).clone()) {
            v.name
        } else {
            return self.print_stmt();
        };
        let op_rhs = match self.compound(&ty) {
            Some(c) => c,
            None => format!("= {}", self.rhs(&ty)),
        };
        if self.rng.chance(self.cfg.raw_ops) {
            let i = self.expr(&Ty::Int, 2);
            self.line(&format!("{base}[{i}] {op_rhs};"));
        } else {
            let i = self.index_for(&base, 2);
            self.line(&format!("if len({base}) > 0 {{ {base}[{i}] {op_rhs}; }}"));
        }
    }

    fn push_stmt(&mut self) {
        let arrays = self.scope.arrays();
        if arrays.is_empty() {
            return self.print_stmt();
        }
        let a = self.rng.pick(&arrays).clone();
        let elem = a.ty.elem().cloned().unwrap_or(Ty::Int);
        // Pushing rows in deep loops makes huge shared structures.
        if elem.is_arr() && self.mult > 8 {
            return self.print_stmt();
        }
        let e = self.expr_ctx(&elem, self.depth() - 1, true);
        let e = capped(&elem, e);
        self.line(&format!("push({}, {e});", a.name));
    }

    fn pop_stmt(&mut self) {
        let arrays = self.scope.arrays();
        if arrays.is_empty() {
            return self.print_stmt();
        }
        let a = self.rng.pick(&arrays).name.clone();
        if self.rng.chance(self.cfg.raw_ops) {
            self.line(&format!("pop({a});"));
        } else if self.rng.chance(50) && self.mult <= 8 {
            self.line(&format!("if len({a}) > 0 {{ print(pop({a})); }}"));
        } else {
            self.line(&format!("if len({a}) > 1 {{ pop({a}); }}"));
        }
    }

    fn print_stmt(&mut self) {
        // In loops, print scalars only (arrays there may be large).
        let ty = if self.mult > 8 {
            self.rng
                .pick(&[Ty::Int, Ty::Float, Ty::Bool, Ty::Int])
                .clone()
        } else {
            self.any_type()
        };
        let e = self.expr(&ty, self.depth());
        self.line(&format!("print({e});"));
    }

    fn if_stmt(&mut self) {
        let c = self.expr(&Ty::Bool, self.depth());
        self.line(&format!("if {c} {{"));
        self.nested_block();
        let mut more = self.rng.below(3);
        while more > 0 {
            if more == 2 && self.rng.chance(50) {
                let c = self.expr(&Ty::Bool, self.depth() - 1);
                self.line(&format!("}} else if {c} {{"));
            } else {
                self.line("} else {");
                more = 1;
            }
            self.nested_block();
            more -= 1;
        }
        self.line("}");
    }

    fn while_stmt(&mut self) {
        let w = self.fresh("w");
        let k = 1 + self.rng.below(6);
        self.line(&format!("var {w} = 0;"));
        self.scope.declare(&w, Ty::Int, true, true);
        if self.rng.chance(25) {
            self.line("while true {");
            self.enter_loop(k + 1, true);
            self.line(&format!("{w} += 1;"));
            self.line(&format!("if {w} > {k} {{ break; }}"));
        } else {
            let c = self.expr(&Ty::Bool, self.depth() - 1);
            let cond = if self.rng.chance(50) {
                format!("({w} < {k}) && {c}")
            } else {
                format!("{c} && ({w} < {k})")
            };
            self.line(&format!("while {cond} {{"));
            self.enter_loop(k + 1, true);
            self.line(&format!("{w} += 1;"));
        }
        self.stmts();
        self.leave_loop(k + 1);
        self.line("}");
    }

    fn for_stmt(&mut self) {
        let i = self.fresh("i");
        let mask = *self.rng.pick(&[1u64, 3, 7]);
        let lo = if self.rng.chance(70) {
            let e = self.expr(&Ty::Int, 1);
            format!("({e} & 1)")
        } else {
            let e = self.expr(&Ty::Int, 1);
            format!("(-({e} & 3))")
        };
        let hi = {
            let e = self.expr(&Ty::Int, 2);
            format!("({e} & {mask})")
        };
        self.line(&format!("for {i} in {lo}..{hi} {{"));
        let trips = mask + 4;
        self.enter_loop(trips, true);
        self.scope.declare(&i, Ty::Int, false, false);
        self.stmts();
        self.leave_loop(trips);
        self.line("}");
    }

    fn call_stmt(&mut self) {
        let affordable: Vec<Func> = self
            .funcs
            .iter()
            .filter(|f| f.kind != FuncKind::Internal && self.affordable(f.cost))
            .cloned()
            .collect();
        if affordable.is_empty() {
            return self.print_stmt();
        }
        // Prefer functions with effects (void ones).
        let voids: Vec<Func> = affordable
            .iter()
            .filter(|f| f.ret.is_none())
            .cloned()
            .collect();
        let f = if !voids.is_empty() && self.rng.chance(60) {
            self.rng.pick(&voids).clone()
        } else {
            self.rng.pick(&affordable).clone()
        };
        let call = self.call_text(&f);
        self.line(&format!("{call};"));
    }

    fn assert_stmt(&mut self) {
        let cond = match self.rng.below(4) {
            0 => {
                let v = self.pure_int();
                format!("{v} == {v}")
            }
            1 => {
                let e = self.expr(&Ty::Int, 2);
                format!("({e} | 1) != 0")
            }
            2 => {
                let s = self.expr(&Ty::Str, 1);
                format!("len({s}) >= 0")
            }
            _ => {
                let arrays = self.scope.arrays();
                match arrays.first() {
                    Some(a) => format!("len({}) >= 0", a.name),
                    None => "true".to_string(),
                }
            }
        };
        self.line(&format!("assert({cond});"));
    }

    fn break_continue(&mut self) {
        let c = self.expr(&Ty::Bool, 2);
        let can_break = self.breakable.last().copied().unwrap_or(false);
        let kw = if can_break && self.rng.chance(50) {
            "break"
        } else {
            "continue"
        };
        self.line(&format!("if {c} {{ {kw}; }}"));
    }

    fn early_return(&mut self) {
        let Some(ctx) = self.in_fn.clone() else {
            return;
        };
        let c = self.expr(&Ty::Bool, 2);
        let value = match &ctx.ret {
            Some(r) => format!(" {}", self.expr_ctx(r, 2, true)),
            None => String::new(),
        };
        self.line(&format!("if {c} {{ return{value}; }}"));
    }

    /// Statements that end the program with runtime error `e`.
    pub(crate) fn ending(&mut self, e: Ending) {
        match e {
            Ending::DivZero => {
                let a = self.expr(&Ty::Int, 2);
                let z = self.fresh("z");
                let v = self.pure_int();
                self.line(&format!("let {z} = {v} - {v};"));
                match self.rng.below(3) {
                    0 => self.line(&format!("print({a} / {z});")),
                    1 => self.line(&format!("print({a} % {z});")),
                    _ => {
                        self.line(&format!("var {z}q = {a};"));
                        self.line(&format!("{z}q /= {z};"));
                    }
                }
            }
            Ending::IndexOob => {
                let arrays = self.scope.arrays();
                let (a, elem) = match arrays.first() {
                    Some(_) if self.rng.chance(70) => {
                        let v = self.rng.pick(&arrays).clone();
                        (v.name.clone(), v.ty.elem().cloned().unwrap_or(Ty::Int))
                    }
                    _ => ("trace".to_string(), Ty::Int),
                };
                match self.rng.below(3) {
                    0 => self.line(&format!("print({a}[len({a})]);")),
                    1 => {
                        let e = self.expr_ctx(&elem, 1, true);
                        self.line(&format!("{a}[-1 - t(7)] = {e};"));
                    }
                    _ => {
                        let k = self.rng.below(4);
                        self.line(&format!("print({a}[len({a}) + {k}]);"));
                    }
                }
            }
            Ending::NegativeLength => {
                let ty = self.any_type();
                let v = self.expr(&ty, 1);
                let n = self.expr(&Ty::Int, 1);
                self.line(&format!("print([{v}; -1 - ({n} & 3)]);"));
            }
            Ending::PopEmpty => {
                let ty = self.any_type();
                let e = self.fresh("e");
                self.line(&format!("var {e}: [{}] = [];", ty.text()));
                if self.rng.chance(50) {
                    let v = self.expr(&ty, 1);
                    self.line(&format!("push({e}, {v});"));
                    self.line(&format!("while true {{ pop({e}); }}"));
                } else {
                    self.line(&format!("print(pop({e}));"));
                }
            }
            Ending::Assert => {
                let q = self.fresh("q");
                let e = self.expr(&Ty::Int, 2);
                self.line(&format!("let {q} = {e};"));
                self.line(&format!("assert({q} != {q});"));
            }
            Ending::StackOverflow => {
                self.needs_deep = true;
                let n = self.expr(&Ty::Int, 1);
                self.line(&format!("print(deep(({n} & 7)));"));
            }
        }
    }
}
