//! Producing a filetest's output sections: the IR after passes, the
//! interpreter's printed output, or each function's machine code
//! disassembled.

use std::fmt::Write as _;

use waddle_jit::disasm::{decode, helper_symbols, Arch};
use waddle_jit::{baseline, cross, JitOptions};
use waddle_opt::interp::Interpreter;
use waddle_opt::ir::{parse_program, print_function, print_program, verify_program, Program};
use waddle_opt::passes::run_passes;
use waddle_test_support::tiers::{host_for, on_big_stack, NONE};

use super::{FileTest, TestKind};

/// One output section: the function (`None`: the program level) and its
/// text.
pub type Output = (Option<String>, String);

fn parse(test: &FileTest) -> Result<Program, String> {
    parse_program(&test.ir).map_err(|e| format!("input does not parse: {e}"))
}

fn verify(program: &Program, what: &str) -> Result<(), String> {
    verify_program(program).map_err(|errors| {
        let list: Vec<String> = errors.iter().map(|e| format!("  {e:?}")).collect();
        format!("{what} does not verify:\n{}", list.join("\n"))
    })
}

/// Each function's printed text, and the program-level lines before the
/// first function.
fn ir_sections(program: &Program) -> Vec<Output> {
    let text = print_program(program);
    let head: String = text
        .lines()
        .take_while(|l| !l.starts_with("fn "))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut out = vec![(None, head)];
    for (id, f) in program.funcs.iter() {
        out.push((Some(f.name().to_string()), print_function(program, id)));
    }
    out
}

/// Disassembly without addresses or bytes, one instruction per line;
/// immediates holding a runtime helper's address read `<helper>`.
fn listing(code: &[u8], arch: Arch) -> String {
    let symbols: Vec<(String, String)> = helper_symbols()
        .into_iter()
        .flat_map(|(addr, name)| {
            // iced-x86's Intel syntax: upper-case hex, `h` suffix, a leading
            // 0 when the first digit is a letter.
            [format!("0{addr:X}h"), format!("{addr:X}h")].map(|a| (a, format!("<{name}>")))
        })
        .collect();
    let mut out = String::new();
    for line in decode(code, 0, arch) {
        let mut text = line.text;
        for (addr, name) in &symbols {
            text = text.replace(addr.as_str(), name);
        }
        let _ = writeln!(out, "{text}");
    }
    out
}

/// The options native filetests compile with: what the tiers use by
/// default, without Cranelift's verifier (which does not change the code).
fn native_options() -> JitOptions {
    JitOptions {
        verify_cranelift: false,
        ..JitOptions::default()
    }
}

fn baseline_sections(program: &Program, arch: Arch) -> Result<Vec<Output>, String> {
    let opts = native_options();
    let err = |e: waddle_jit::CompileError| format!("baseline compile failed: {e}");
    let mut out = Vec::new();
    match arch {
        Arch::X86_64 => {
            let code = baseline::compile(program, &opts).map_err(err)?;
            for (id, f) in program.funcs.iter() {
                if let Some(bytes) = code.code(id) {
                    out.push((Some(f.name().to_string()), listing(bytes, arch)));
                }
            }
        }
        Arch::Aarch64 => {
            let image = baseline::compile_aarch64_image(program, &opts).map_err(err)?;
            for (id, f) in program.funcs.iter() {
                if let Some(bytes) = image.func_code(id) {
                    out.push((Some(f.name().to_string()), listing(bytes, arch)));
                }
            }
        }
    }
    Ok(out)
}

fn compile_sections(program: &Program, arch: Arch) -> Result<Vec<Output>, String> {
    let funcs = cross::compile_functions(program, &native_options(), arch)
        .map_err(|e| format!("Cranelift compile failed: {e}"))?;
    Ok(funcs
        .iter()
        .map(|f| {
            let name = program.funcs[f.func].name().to_string();
            (Some(name), listing(&f.code, arch))
        })
        .collect())
}

/// Runs `func` (default: `main`) on the interpreter; the output is the
/// printed lines and the result or trap.
fn interp_output(program: Program, func: Option<String>) -> Result<String, String> {
    let id = match &func {
        Some(name) => program.func_by_name(name),
        None => program.main,
    }
    .ok_or_else(|| format!("no function {:?} to run", func.as_deref().unwrap_or("main")))?;
    let f = &program.funcs[id];
    if !f.sig().params.is_empty() {
        return Err(format!(
            "`test interp` runs a function without parameters, {:?} has some",
            f.name()
        ));
    }
    let ret = f.sig().ret;
    on_big_stack(move || {
        let mut host = host_for(&program, NONE);
        let interp = Interpreter::new(&program, &mut host);
        let result = interp.call(&mut host, id, &[]);
        let mut out = std::mem::take(&mut host.out);
        match result {
            Ok(w) => {
                let mut v = String::new();
                host.format(ret, w, true, &mut v);
                let _ = writeln!(out, "{}", format!("return {v}").trim_end());
            }
            Err(t) => {
                let _ = writeln!(
                    out,
                    "trap: {} at {}",
                    t.code.message(),
                    program.describe_loc(t.loc)
                );
            }
        }
        Ok(out)
    })
}

/// Every output section of `test`.
pub fn outputs(test: &FileTest) -> Result<Vec<Output>, String> {
    let mut program = parse(test)?;
    match &test.kind {
        TestKind::Verify => {
            verify(&program, "the input")?;
            Ok(ir_sections(&program))
        }
        TestKind::Opt(passes) => {
            let names: Vec<&str> = passes.iter().map(String::as_str).collect();
            run_passes(&mut program, &names).map_err(|e| e.to_string())?;
            verify(&program, &format!("the output of {}", passes.join(", ")))?;
            Ok(ir_sections(&program))
        }
        TestKind::Interp(func) => {
            verify(&program, "the input")?;
            Ok(vec![(None, interp_output(program, func.clone())?)])
        }
        TestKind::Baseline(arch) => baseline_sections(&program, *arch),
        TestKind::Compile(arch) => compile_sections(&program, *arch),
    }
}

/// A `test verify` without directives: the input prints back to itself
/// (without comment lines).
pub fn round_trip(test: &FileTest) -> Result<(), String> {
    let program = parse(test)?;
    let expected: String = test
        .ir
        .lines()
        .filter(|l| !l.trim_start().starts_with(';') && !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let actual: String = print_program(&program)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "the input does not print back to itself (- input, + printed):\n{}",
            crate::diff::diff_lines(&expected, &actual)
        ))
    }
}
