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

macro_rules! table_rows {
    ($($v:ident($($op:ident),*) $name:literal { $($effects:tt)* }
        ($f:ident) => $typing:block;)*) => {
        [$(($name, [$(stringify!($op)),*].len())),*]
    };
}

/// Every row of the instruction table prints and parses back to itself
/// with its operands in order.
#[test]
fn value_insts_table_round_trips() {
    let rows = crate::ir::instructions::value_insts!(table_rows);
    assert!(rows.len() >= 13);
    for (name, arity) in rows {
        let operands: Vec<String> = (0..arity).map(|i| format!("v{i}")).collect();
        let params = vec!["int"; arity].join(", ");
        let block_params: Vec<String> = (0..arity).map(|i| format!("v{i}: int")).collect();
        let text = format!(
            "fn fn0 \"f\"({params}) -> void {{\nblock0({}):\n    {name} {}\n    return\n}}\n",
            block_params.join(", "),
            operands.join(", ")
        );
        let p = parse_program(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(crate::ir::print_program(&p), text, "{name}");
        let f = &p.funcs[crate::ir::FuncId::from_u32(0)];
        let inst = f.blocks[f.layout[0]].insts[0];
        let mut seen = Vec::new();
        f.insts[inst]
            .kind
            .for_each_arg(|v| seen.push(v.to_string()));
        assert_eq!(seen, operands, "{name}");
    }
}
