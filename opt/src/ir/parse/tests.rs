//! Lexer and helper unit tests.

use super::lexer::{tokenize, Tok};
use super::*;

fn words(text: &str) -> Vec<Tok> {
    tokenize(text).unwrap().into_iter().map(|t| t.tok).collect()
}

#[test]
fn lexes_numbers_arrows_and_strings() {
    assert_eq!(
        words("-5 1e-7 -inf ->x \"a\\u{1F986}\\\"\""),
        vec![
            Tok::Word("-5".into()),
            Tok::Word("1e-7".into()),
            Tok::Word("-inf".into()),
            Tok::Arrow,
            Tok::Word("x".into()),
            Tok::Str("a🦆\"".into()),
            Tok::Eof,
        ]
    );
    // A sign after `e` only continues numeric words.
    assert_eq!(
        words("type-x"),
        vec![Tok::Word("type".into()), Tok::Word("-x".into()), Tok::Eof]
    );
}

#[test]
fn token_positions_count_characters() {
    // `é` is only allowed inside strings.
    assert_eq!(
        tokenize("x é").unwrap_err().to_string(),
        "1:3: unexpected character 'é'"
    );
    let toks = tokenize("\"é\" x\n  y").unwrap();
    let pos: Vec<(u32, u32)> = toks.iter().map(|t| (t.line, t.col)).collect();
    assert_eq!(pos, vec![(1, 1), (1, 5), (2, 3), (2, 4)]);
}

#[test]
fn bad_unicode_escapes() {
    for bad in [
        "\"\\u{D800}\"",
        "\"\\u{110000}\"",
        "\"\\u{}\"",
        "\"\\u{1234567}\"",
        "\"\\u12\"",
    ] {
        assert!(tokenize(bad).is_err(), "{bad}");
    }
}

#[test]
fn entity_numbers() {
    assert_eq!(entity_number("v12", "v"), Some(12));
    assert_eq!(entity_number("v", "v"), None);
    assert_eq!(entity_number("v-1", "v"), None);
    assert_eq!(entity_number("v+1", "v"), None);
    assert_eq!(entity_number("block3", "v"), None);
    assert_eq!(entity_number("v99999999999", "v"), None);
}

/// Per row of the instruction table: its variant name, and sample text
/// for its mnemonic and operands with the values the operands use.
macro_rules! table_rows {
    (typing($($ctx:ident),*);
     $($name:tt $v:ident $(($($op:ident: $kind:ident),*))?
        { $($effects:tt)* } => $typing:block;)*) => {
        vec![$((
            stringify!($v),
            crate::ir::inst_table::table_mnemonic!($name),
            vec![$($(stringify!($kind)),*)?],
        )),*]
    };
}

/// Sample text of an operand kind; the `n`th use of a value is `v{n}`.
fn sample_operand(kind: &str, next: &mut u32, uses: &mut Vec<String>) -> (&'static str, String) {
    let mut val = || {
        let v = format!("v{next}");
        *next += 1;
        uses.push(v.clone());
        v
    };
    match kind {
        "Val" => (", ", val()),
        "Vals" => (", ", format!("[{}, {}]", val(), val())),
        "Args" => (", ", format!("({})", val())),
        "Int" => (", ", "-7".into()),
        "FloatBits" => (", ", "1.5".into()),
        "BoolLit" => (", ", "true".into()),
        "StrLit" => (", ", "\"a\\n\"".into()),
        "Cond" => (" ", "le".into()),
        "UnOp" => (" ", "fsqrt".into()),
        "BinOp" => (" ", "fcmp ge".into()),
        "Callee" => ("", "fn0 \"f\"".into()),
        "HostFn" => ("", "h0 \"h\"".into()),
        "Global" => (", ", "g0".into()),
        other => panic!("no sample for operand kind {other}"),
    }
}

/// Every row of the instruction table prints and parses back to itself,
/// and operand iteration visits the values it uses in order; every
/// `InstKind` variant has a row (the generated matches are exhaustive, so
/// this checks the rows are distinct).
#[test]
fn instruction_table_round_trips() {
    let rows = crate::ir::inst_table::inst_table!(table_rows);
    let mut variants: Vec<&str> = rows.iter().map(|r| r.0).collect();
    variants.sort_unstable();
    variants.dedup();
    assert_eq!(variants.len(), rows.len(), "a variant has two rows");
    assert!(rows.len() >= 26);
    for (variant, mnemonic, kinds) in rows {
        let mut next = 0;
        let mut uses = Vec::new();
        let mut text = mnemonic.unwrap_or_default().to_string();
        let mut sep = if text.is_empty() { "" } else { " " };
        for kind in kinds {
            let (after, operand) = sample_operand(kind, &mut next, &mut uses);
            text.push_str(sep);
            text.push_str(&operand);
            sep = after;
        }
        let params = vec!["int"; next as usize].join(", ");
        let block_params: Vec<String> = (0..next).map(|i| format!("v{i}: int")).collect();
        let label = if next == 0 {
            "block0".to_string()
        } else {
            format!("block0({})", block_params.join(", "))
        };
        let program = format!(
            "global g0 \"g\": int\nhost h0 \"h\"(int) -> void\n\n\
             fn fn0 \"f\"({params}) -> void {{\n{label}:\n    {text}\n    return\n}}\n",
        );
        let p = parse_program(&program).unwrap_or_else(|e| panic!("{variant}: {e}\n{program}"));
        assert_eq!(crate::ir::print_program(&p), program, "{variant}");
        let f = &p.funcs[crate::ir::FuncId::from_u32(0)];
        let inst = f.blocks()[f.layout()[0]].insts[0];
        let mut seen = Vec::new();
        f.insts()[inst]
            .kind
            .for_each_arg(|v| seen.push(v.to_string()));
        assert_eq!(seen, uses, "{variant}");
    }
}
