//! Tokenizer for the IR text format.
//!
//! Words are runs of letters, digits, `_` and `.` (plus a sign after an
//! exponent `e` in a number, and a leading `-`), covering keywords, entity
//! names (`v3`, `block0`, `fn2`, `g1`), integers and float literals. Strings
//! are double-quoted with `escape_debug`-style escapes. `;` starts a comment.

use super::ParseError;

/// A token kind.
#[derive(Clone, PartialEq, Debug)]
pub(super) enum Tok {
    /// A word: keyword, entity name, number.
    Word(String),
    /// A string literal, unescaped.
    Str(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Eq,
    /// `->`
    Arrow,
    /// `@`
    At,
    /// End of input.
    Eof,
}

impl Tok {
    /// How the token is described in error messages.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Str(_) => "a string".to_string(),
            Tok::LParen => "`(`".to_string(),
            Tok::RParen => "`)`".to_string(),
            Tok::LBrace => "`{`".to_string(),
            Tok::RBrace => "`}`".to_string(),
            Tok::LBracket => "`[`".to_string(),
            Tok::RBracket => "`]`".to_string(),
            Tok::Comma => "`,`".to_string(),
            Tok::Colon => "`:`".to_string(),
            Tok::Eq => "`=`".to_string(),
            Tok::Arrow => "`->`".to_string(),
            Tok::At => "`@`".to_string(),
            Tok::Eof => "end of input".to_string(),
        }
    }
}

/// A token and where it starts (1-based line and character column).
#[derive(Clone, Debug)]
pub(super) struct Token {
    /// The token.
    pub tok: Tok,
    /// Line of its first character.
    pub line: u32,
    /// Column of its first character.
    pub col: u32,
}

/// Character cursor with line/column tracking.
struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    col: u32,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn err(&self, msg: impl Into<String>) -> ParseError {
        ParseError::new(self.line, self.col, msg)
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Splits `text` into tokens, ending with [`Tok::Eof`].
pub(super) fn tokenize(text: &str) -> Result<Vec<Token>, ParseError> {
    let mut cur = Cursor {
        chars: text.chars().peekable(),
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    loop {
        let (line, col) = (cur.line, cur.col);
        let Some(c) = cur.peek() else {
            out.push(Token {
                tok: Tok::Eof,
                line,
                col,
            });
            return Ok(out);
        };
        let tok = match c {
            c if c.is_whitespace() => {
                cur.bump();
                continue;
            }
            ';' => {
                while cur.peek().is_some_and(|c| c != '\n') {
                    cur.bump();
                }
                continue;
            }
            '"' => {
                cur.bump();
                Tok::Str(lex_string(&mut cur, line, col)?)
            }
            '-' => {
                cur.bump();
                if cur.peek() == Some('>') {
                    cur.bump();
                    Tok::Arrow
                } else {
                    Tok::Word(lex_word(&mut cur, String::from("-")))
                }
            }
            c if is_word_char(c) => Tok::Word(lex_word(&mut cur, String::new())),
            _ => {
                cur.bump();
                match c {
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    ',' => Tok::Comma,
                    ':' => Tok::Colon,
                    '=' => Tok::Eq,
                    '@' => Tok::At,
                    _ => {
                        return Err(ParseError::new(
                            line,
                            col,
                            format!("unexpected character {c:?}"),
                        ))
                    }
                }
            }
        };
        out.push(Token { tok, line, col });
    }
}

/// The rest of a word starting with `prefix`.
fn lex_word(cur: &mut Cursor<'_>, mut word: String) -> String {
    let numeric = word.starts_with('-') || cur.peek().is_some_and(|c| c.is_ascii_digit());
    while let Some(c) = cur.peek() {
        let sign_after_exp =
            numeric && (c == '+' || c == '-') && (word.ends_with('e') || word.ends_with('E'));
        if is_word_char(c) || sign_after_exp {
            word.push(c);
            cur.bump();
        } else {
            break;
        }
    }
    word
}

/// A string literal body after the opening quote, through the closing quote.
fn lex_string(cur: &mut Cursor<'_>, line: u32, col: u32) -> Result<String, ParseError> {
    let mut s = String::new();
    loop {
        match cur.bump() {
            None => return Err(ParseError::new(line, col, "unterminated string literal")),
            Some('"') => return Ok(s),
            Some('\\') => {
                let (el, ec) = (cur.line, cur.col);
                let c = match cur.bump() {
                    Some('n') => '\n',
                    Some('r') => '\r',
                    Some('t') => '\t',
                    Some('0') => '\0',
                    Some('\\') => '\\',
                    Some('"') => '"',
                    Some('\'') => '\'',
                    Some('u') => lex_unicode_escape(cur)?,
                    Some(other) => {
                        return Err(ParseError::new(
                            el,
                            ec,
                            format!("unknown escape `\\{other}`"),
                        ))
                    }
                    None => return Err(ParseError::new(line, col, "unterminated string literal")),
                };
                s.push(c);
            }
            Some(c) => s.push(c),
        }
    }
}

/// `{HEX}` after `\u`: 1 to 6 hex digits naming a Unicode scalar value.
fn lex_unicode_escape(cur: &mut Cursor<'_>) -> Result<char, ParseError> {
    if cur.bump() != Some('{') {
        return Err(cur.err("expected `{` after `\\u`"));
    }
    let mut digits = String::new();
    loop {
        match cur.bump() {
            Some('}') => break,
            Some(c) if c.is_ascii_hexdigit() && digits.len() < 6 => digits.push(c),
            _ => return Err(cur.err("malformed `\\u{...}` escape")),
        }
    }
    u32::from_str_radix(&digits, 16)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| cur.err(format!("`\\u{{{digits}}}` is not a Unicode scalar value")))
}
