//! Lowering and canonicalization of generated programs: random nests of
//! `if`/`while`/`for`, `break`/`continue`/`return` and assignments, each
//! lowered, verified, canonicalized, checked canonical and verified again.

use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::canon::{canonicalize_program, check_canonical};
use waddle_opt::interp::{Host, Interpreter};
use waddle_opt::ir::{print_program, verify_program, Program, Type};

use crate::{CompileOptions, SourceFile, SourceMap};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const VARS: [&str; 3] = ["a", "b", "c"];

struct Gen {
    rng: Rng,
    out: String,
    loop_depth: u32,
    for_vars: u32,
}

impl Gen {
    fn var(&mut self) -> &'static str {
        VARS[self.rng.below(3) as usize]
    }

    fn expr(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("{}", self.rng.below(10)),
            1 => self.var().to_string(),
            2 => format!("{} + {}", self.var(), self.var()),
            _ => format!("{} * {}", self.var(), self.rng.below(5)),
        }
    }

    fn cond(&mut self) -> String {
        match self.rng.below(10) {
            0..=3 => format!("{} < {}", self.var(), self.expr()),
            4 | 5 => format!("{} == {} && {} > 0", self.var(), self.expr(), self.var()),
            6 | 7 => format!("{} != 0 || {} < {}", self.var(), self.var(), self.expr()),
            8 => format!("!({} >= {})", self.var(), self.expr()),
            _ => "true".to_string(),
        }
    }

    fn block(&mut self, depth: u32) {
        self.out.push_str("{\n");
        let n = self.rng.below(4);
        for _ in 0..n {
            self.stmt(depth);
        }
        self.out.push_str("}\n");
    }

    fn stmt(&mut self, depth: u32) {
        let choice = if depth == 0 {
            self.rng.below(4)
        } else {
            self.rng.below(10)
        };
        match choice {
            0 | 1 => {
                let (v, e) = (self.var(), self.expr());
                let op = ["=", "+=", "-="][self.rng.below(3) as usize];
                self.out.push_str(&format!("{v} {op} {e};\n"));
            }
            2 => {
                let v = self.var();
                if self.rng.below(2) == 0 {
                    self.out.push_str(&format!("print({v});\n"));
                } else {
                    self.out.push_str(&format!("g += {v}; {v} = g % 7;\n"));
                }
            }
            3 if self.loop_depth > 0 => {
                let kw = if self.rng.below(2) == 0 {
                    "break"
                } else {
                    "continue"
                };
                let c = self.cond();
                self.out.push_str(&format!("if {c} {{ {kw}; }}\n"));
            }
            3 => {
                let v = self.var();
                self.out
                    .push_str(&format!("if {v} > 100 {{ return {v}; }}\n"));
            }
            4 | 5 => {
                let c = self.cond();
                self.out.push_str(&format!("if {c} "));
                self.block(depth - 1);
                if self.rng.below(2) == 0 {
                    self.out.push_str("else ");
                    self.block(depth - 1);
                }
            }
            6 | 7 => {
                let c = self.cond();
                self.out.push_str(&format!("while tick() && ({c}) "));
                self.loop_depth += 1;
                self.block(depth - 1);
                self.loop_depth -= 1;
            }
            8 => {
                self.for_vars += 1;
                let (lo, hi) = (self.expr(), self.expr());
                let i = format!("i{}", self.for_vars);
                self.out.push_str(&format!(
                    "for {i} in {lo}..{hi} {{ if !tick() {{ break; }} a += {i};\n"
                ));
                self.loop_depth += 1;
                self.block(depth - 1);
                self.loop_depth -= 1;
                self.out.push_str("}\n");
            }
            _ => {
                let v = self.var();
                let kw = match self.rng.below(3) {
                    0 if self.loop_depth > 0 => "break;",
                    1 if self.loop_depth > 0 => "continue;",
                    _ => "return a;",
                };
                self.out.push_str(&format!("{{ {v} += 1; {kw} }}\n"));
            }
        }
    }
}

fn generate(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        out: String::new(),
        loop_depth: 0,
        for_vars: 0,
    };
    g.out.push_str(
        "fn tick() -> bool { budget -= 1; return budget > 0; }\n\
         fn f(p: int) -> int {\nbudget = 300; var a = p; var b = 0; var c = 1;\n",
    );
    for _ in 0..4 {
        g.stmt(4);
    }
    g.out.push_str(
        "return a + b + c;\n}\nvar g = 1;\nvar budget = 0;\nprint(f(3));\nprint(f(g));\n",
    );
    g.out
}

#[test]
fn generated_programs_lower_and_canonicalize() {
    for seed in 0..300 {
        let src = generate(seed);
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new("gen.wdl", src.clone()));
        let compiled = match crate::compile(&sources, &CompileOptions::default()) {
            Ok(c) => c,
            Err(d) => panic!("seed {seed}: compile error {d:?}\n{src}"),
        };
        let mut p = compiled.program;
        super::tests::check_program(&p);
        let before = run(&p);
        canonicalize_program(&mut p);
        let printed = print_program(&p);
        for (_, f) in p.funcs.iter() {
            if let Err(e) = check_canonical(f) {
                panic!("seed {seed}: {e}\n{src}\n{printed}");
            }
        }
        if let Err(e) = verify_program(&p) {
            panic!("seed {seed}: verifier after canon: {e:?}\n{src}\n{printed}");
        }
        let after = run(&p);
        same_behaviour(&before, &after)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}\n{printed}"));
    }
}

/// A host for int-only programs: prints into a vector, bounded fuel.
struct IntHost {
    globals: Vec<Word>,
    out: Vec<i64>,
    fuel: u64,
}

impl Host for IntHost {
    fn intern_str(&mut self, _s: &str) -> Word {
        0
    }
    fn globals(&mut self) -> &mut [Word] {
        &mut self.globals
    }
    fn array_new(&mut self, _: Type, _: &[Word], _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn array_repeat(&mut self, _: Type, _: Word, _: i64, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn array_push(&mut self, _: Word, _: Word, _: &[Word]) -> Result<(), TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn str_concat(&mut self, _: Word, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn to_str(&mut self, _: Type, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn print(&mut self, _: Type, value: Word) {
        self.out.push(value as i64);
    }
    fn clock(&mut self) -> f64 {
        0.0
    }
    fn consume_fuel(&mut self, units: u64) -> Result<(), TrapCode> {
        self.fuel = self.fuel.checked_sub(units).ok_or(TrapCode::OutOfFuel)?;
        Ok(())
    }
}

/// Runs `.main` with a fuel budget; returns the output and how it ended.
fn run(p: &Program) -> (Vec<i64>, Result<Word, Trap>) {
    let mut host = IntHost {
        globals: vec![0; p.globals.len()],
        out: Vec::new(),
        fuel: 100_000_000,
    };
    let interp = Interpreter::new(p, &mut host);
    let r = interp.call(&mut host, p.main.expect("main"), &[]);
    (host.out, r)
}

/// Same output and outcome; when fuel ran out on either side, one output
/// must be a prefix of the other.
fn same_behaviour(
    a: &(Vec<i64>, Result<Word, Trap>),
    b: &(Vec<i64>, Result<Word, Trap>),
) -> Result<(), String> {
    let fuel = |r: &Result<Word, Trap>| matches!(r, Err(t) if t.code == TrapCode::OutOfFuel);
    if fuel(&a.1) || fuel(&b.1) {
        let n = a.0.len().min(b.0.len());
        if a.0[..n] != b.0[..n] {
            return Err(format!("outputs differ: {:?} vs {:?}", a.0, b.0));
        }
        return Ok(());
    }
    if a != b {
        return Err(format!("behaviour differs: {a:?} vs {b:?}"));
    }
    Ok(())
}
