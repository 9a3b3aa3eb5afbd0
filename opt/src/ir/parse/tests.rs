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
