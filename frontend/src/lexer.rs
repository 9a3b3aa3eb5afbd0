//! Tokens and the lexer (docs/language.md, "Lexical structure").
//!
//! [`lex`] turns one source file into a token vector that always ends with
//! [`TokenKind::Eof`]. Lexical errors (bad literals, stray characters,
//! unterminated strings or comments) become [`Diagnostic`]s with spans and
//! lexing continues, producing a best-effort token so the parser can go on.

use crate::ast::{FileId, Span};
use crate::diag::Diagnostic;
use crate::name::Name;

/// A lexical token kind.
#[derive(Clone, PartialEq, Debug)]
pub enum TokenKind {
    /// An identifier (not a keyword).
    Ident(Name),
    /// An integer literal that fits in `i64`.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal with escapes decoded.
    Str(String),
    /// `fn`
    Fn,
    /// `let`
    Let,
    /// `var`
    Var,
    /// `if`
    If,
    /// `else`
    Else,
    /// `while`
    While,
    /// `for`
    For,
    /// `in`
    In,
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return`
    Return,
    /// `true`
    True,
    /// `false`
    False,
    /// `int`
    IntTy,
    /// `float`
    FloatTy,
    /// `bool`
    BoolTy,
    /// `str`
    StrTy,
    /// `void`
    VoidTy,
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
    /// `;`
    Semi,
    /// `:`
    Colon,
    /// `->`
    Arrow,
    /// `..`
    DotDot,
    /// `=`
    Assign,
    /// `+ - * / % & | ^ << >>` followed by `=`.
    OpAssign(crate::ast::BinOp),
    /// `||`
    OrOr,
    /// `&&`
    AndAnd,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `|`
    Pipe,
    /// `^`
    Caret,
    /// `&`
    Amp,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `!`
    Bang,
    /// End of the file.
    Eof,
}

impl TokenKind {
    /// A short human-readable description for "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Ident(n) => format!("identifier `{n}`"),
            TokenKind::Int(_) => "integer literal".into(),
            TokenKind::Float(_) => "float literal".into(),
            TokenKind::Str(_) => "string literal".into(),
            TokenKind::Eof => "end of file".into(),
            k => match keyword_text(k) {
                Some(kw) => format!("keyword `{kw}`"),
                None => format!("`{}`", punct_text(k)),
            },
        }
    }
}

const KEYWORDS: [(&str, TokenKind); 17] = [
    ("fn", TokenKind::Fn),
    ("let", TokenKind::Let),
    ("var", TokenKind::Var),
    ("if", TokenKind::If),
    ("else", TokenKind::Else),
    ("while", TokenKind::While),
    ("for", TokenKind::For),
    ("in", TokenKind::In),
    ("break", TokenKind::Break),
    ("continue", TokenKind::Continue),
    ("return", TokenKind::Return),
    ("true", TokenKind::True),
    ("false", TokenKind::False),
    ("int", TokenKind::IntTy),
    ("float", TokenKind::FloatTy),
    ("bool", TokenKind::BoolTy),
    ("str", TokenKind::StrTy),
];

/// Whether `word` is a reserved word (a keyword or a type name).
pub fn is_keyword(word: &str) -> bool {
    word == "void" || KEYWORDS.iter().any(|(s, _)| *s == word)
}

fn keyword_text(k: &TokenKind) -> Option<&'static str> {
    if *k == TokenKind::VoidTy {
        return Some("void");
    }
    KEYWORDS.iter().find(|(_, t)| t == k).map(|(s, _)| *s)
}

/// Source spelling of a punctuation token (`?` for non-punctuation).
fn punct_text(k: &TokenKind) -> &'static str {
    use crate::ast::BinOp as B;
    use TokenKind as T;
    match k {
        T::LParen => "(",
        T::RParen => ")",
        T::LBrace => "{",
        T::RBrace => "}",
        T::LBracket => "[",
        T::RBracket => "]",
        T::Comma => ",",
        T::Semi => ";",
        T::Colon => ":",
        T::Arrow => "->",
        T::DotDot => "..",
        T::Assign => "=",
        T::OpAssign(op) => match op {
            B::Add => "+=",
            B::Sub => "-=",
            B::Mul => "*=",
            B::Div => "/=",
            B::Rem => "%=",
            B::BitAnd => "&=",
            B::BitOr => "|=",
            B::BitXor => "^=",
            B::Shl => "<<=",
            B::Shr => ">>=",
            _ => "?=",
        },
        T::OrOr => "||",
        T::AndAnd => "&&",
        T::EqEq => "==",
        T::NotEq => "!=",
        T::Lt => "<",
        T::Le => "<=",
        T::Gt => ">",
        T::Ge => ">=",
        T::Pipe => "|",
        T::Caret => "^",
        T::Amp => "&",
        T::Shl => "<<",
        T::Shr => ">>",
        T::Plus => "+",
        T::Minus => "-",
        T::Star => "*",
        T::Slash => "/",
        T::Percent => "%",
        T::Bang => "!",
        _ => "?",
    }
}

/// A token with its span.
#[derive(Clone, PartialEq, Debug)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

/// Lexes one file. The result always ends with an [`TokenKind::Eof`] token;
/// lexical errors are appended to `diags`.
pub fn lex(text: &str, file: FileId, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    lex_file(text, file, diags).0
}

/// Like [`lex`], also telling whether the file ended inside an
/// unterminated string or block comment (so the parser can stay quiet
/// about the missing rest of the program).
pub fn lex_file(text: &str, file: FileId, diags: &mut Vec<Diagnostic>) -> (Vec<Token>, bool) {
    let mut stream = TokenStream::new(text, file);
    let mut toks = Vec::new();
    stream.fill(&mut toks, usize::MAX);
    let (lexed, unterminated) = stream.finish();
    diags.extend(lexed);
    (toks, unterminated)
}

/// The tokens of one file, lexed on demand: the parser holds a window of
/// them instead of the whole file's (48 bytes a token, nine a statement:
/// 430 MB for a generated program of a million statements, alive with its
/// syntax tree). Lexing a file in pieces gives the same tokens and the
/// same diagnostics as lexing it at once.
pub(crate) struct TokenStream<'a> {
    lx: Lexer<'a>,
    /// The [`TokenKind::Eof`] token was produced.
    done: bool,
}

impl<'a> TokenStream<'a> {
    /// The tokens of `text` (file `file`).
    pub(crate) fn new(text: &'a str, file: FileId) -> TokenStream<'a> {
        let mut lx = Lexer {
            src: text.as_bytes(),
            text,
            pos: 0,
            file,
            toks: Vec::new(),
            diags: Vec::new(),
            unterminated: false,
        };
        if text.starts_with('\u{feff}') {
            lx.pos = 3;
        }
        TokenStream { lx, done: false }
    }

    /// Appends the next tokens to `out`: at least one, about `limit`, the
    /// last one [`TokenKind::Eof`] at the end of the file (nothing once
    /// that was produced).
    pub(crate) fn fill(&mut self, out: &mut Vec<Token>, limit: usize) {
        if self.done {
            return;
        }
        // The lexer pushes onto `out` itself (it is empty between calls):
        // appending its own buffer copied every token once more.
        std::mem::swap(&mut self.lx.toks, out);
        let limit = self.lx.toks.len().saturating_add(limit.max(1));
        self.lx.run(limit);
        if self.lx.pos >= self.lx.src.len() {
            let end = self.lx.text.len() as u32;
            self.lx.toks.push(Token {
                kind: TokenKind::Eof,
                span: Span {
                    file: self.lx.file,
                    start: end,
                    end,
                },
            });
            self.done = true;
        }
        std::mem::swap(&mut self.lx.toks, out);
    }

    /// Whether the file ends inside an unterminated string or block
    /// comment; lexes (and drops) the rest of the file first.
    pub(crate) fn unterminated(&mut self) -> bool {
        self.skip_rest();
        self.lx.unterminated
    }

    /// The file's lexical errors, and whether it ends inside an
    /// unterminated string or comment; lexes (and drops) the rest first.
    pub(crate) fn finish(mut self) -> (Vec<Diagnostic>, bool) {
        self.skip_rest();
        (self.lx.diags, self.lx.unterminated)
    }

    /// Lexes the rest of the file, dropping its tokens.
    fn skip_rest(&mut self) {
        let mut rest = Vec::new();
        while !self.done {
            rest.clear();
            self.fill(&mut rest, 4096);
        }
    }
}

struct Lexer<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    file: FileId,
    toks: Vec<Token>,
    diags: Vec<Diagnostic>,
    unterminated: bool,
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.src.get(self.pos + k).copied().unwrap_or(0)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span {
            file: self.file,
            start: start as u32,
            end: end as u32,
        }
    }

    fn error(&mut self, msg: impl Into<String>, start: usize, end: usize) {
        let span = self.span(start, end);
        self.diags.push(Diagnostic::error(msg, span));
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        let span = self.span(start, self.pos);
        self.toks.push(Token { kind, span });
    }

    /// Lexes until `limit` tokens are buffered or the text ends.
    fn run(&mut self, limit: usize) {
        while self.pos < self.src.len() && self.toks.len() < limit {
            let c = self.src[self.pos];
            let start = self.pos;
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'"' => self.string(),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => {
                    self.pos += 1;
                    while is_ident_char(self.peek(0)) {
                        self.pos += 1;
                    }
                    self.error(
                        "a float literal needs a digit before `.` (write `0.5`, not `.5`)",
                        start,
                        self.pos,
                    );
                    self.push(TokenKind::Float(0.0), start);
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    while is_ident_char(self.peek(0)) {
                        self.pos += 1;
                    }
                    let word = &self.text[start..self.pos];
                    let kind = match word {
                        "void" => TokenKind::VoidTy,
                        _ => KEYWORDS
                            .iter()
                            .find(|(s, _)| *s == word)
                            .map(|(_, k)| k.clone())
                            .unwrap_or_else(|| TokenKind::Ident(Name::new(word))),
                    };
                    self.push(kind, start);
                }
                _ => self.punct(),
            }
        }
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        let mut depth = 1usize;
        while self.pos < self.src.len() {
            if self.peek(0) == b'/' && self.peek(1) == b'*' {
                depth += 1;
                self.pos += 2;
            } else if self.peek(0) == b'*' && self.peek(1) == b'/' {
                depth -= 1;
                self.pos += 2;
                if depth == 0 {
                    return;
                }
            } else {
                self.pos += 1;
            }
        }
        self.error("unterminated block comment", start, start + 2);
        self.unterminated = true;
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            if self.pos >= self.src.len() {
                self.error("unterminated string literal", start, start + 1);
                self.unterminated = true;
                break;
            }
            let c = self.src[self.pos];
            if c == b'"' {
                self.pos += 1;
                break;
            }
            if c == b'\\' {
                let esc = self.peek(1);
                let decoded = match esc {
                    b'n' => Some('\n'),
                    b't' => Some('\t'),
                    b'r' => Some('\r'),
                    b'\\' => Some('\\'),
                    b'"' => Some('"'),
                    b'0' => Some('\0'),
                    _ => None,
                };
                match decoded {
                    Some(ch) => {
                        out.push(ch);
                        self.pos += 2;
                    }
                    None if self.pos + 1 >= self.src.len() => {
                        self.pos += 1;
                    }
                    None => {
                        let ch_len = self.char_len_at(self.pos + 1);
                        let shown = &self.text[self.pos + 1..self.pos + 1 + ch_len];
                        let msg = format!("unknown escape sequence `\\{shown}`");
                        self.error(msg, self.pos, self.pos + 1 + ch_len);
                        self.pos += 1 + ch_len;
                    }
                }
                continue;
            }
            let len = self.char_len_at(self.pos);
            out.push_str(&self.text[self.pos..self.pos + len]);
            self.pos += len;
        }
        self.push(TokenKind::Str(out), start);
    }

    /// Byte length of the UTF-8 character starting at `at` (1 if `at` is not
    /// a character boundary, which cannot happen for valid `&str` input).
    fn char_len_at(&self, at: usize) -> usize {
        self.text
            .get(at..)
            .and_then(|s| s.chars().next())
            .map(|c| c.len_utf8())
            .unwrap_or(1)
    }

    /// Consumes a run of digits of `radix` and underscores; returns the digits
    /// (underscores removed) and whether the underscores were well placed
    /// (only between two digits).
    fn digits(&mut self, radix: u32) -> (String, bool) {
        let mut digits = String::new();
        let mut ok = true;
        let mut prev_digit = false;
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            if (c as char).is_digit(radix) {
                digits.push(c as char);
                prev_digit = true;
            } else if c == b'_' {
                let next_digit = (self.peek(1) as char).is_digit(radix);
                if !prev_digit || !next_digit {
                    ok = false;
                }
                prev_digit = false;
            } else {
                break;
            }
            self.pos += 1;
        }
        (digits, ok)
    }

    /// The common integer literal, read without building its text: decimal
    /// digits that fit in `i64`, not followed by anything that makes it
    /// another literal or an error (`_`, `.`, an exponent, a suffix). Then
    /// consumes it and returns its value; otherwise consumes nothing and
    /// leaves the literal to the general path of [`Lexer::number`].
    fn plain_decimal(&mut self) -> Option<i64> {
        let mut end = self.pos;
        let mut v: i64 = 0;
        while let Some(&c) = self.src.get(end).filter(|c| c.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            end += 1;
        }
        let next = self.src.get(end).copied().unwrap_or(0);
        if next == b'.' || is_ident_char(next) {
            return None;
        }
        self.pos = end;
        Some(v)
    }

    fn number(&mut self) {
        let start = self.pos;
        let radix = match (self.peek(0), self.peek(1)) {
            (b'0', b'x') => 16,
            (b'0', b'b') => 2,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
        } else if let Some(v) = self.plain_decimal() {
            self.push(TokenKind::Int(v), start);
            return;
        }
        let (int_digits, mut ok) = self.digits(radix);
        let mut is_float = false;
        let mut text = int_digits.clone();
        if radix == 10 {
            if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
                self.pos += 1;
                let (frac, frac_ok) = self.digits(10);
                ok &= frac_ok;
                text.push('.');
                text.push_str(&frac);
                is_float = true;
            } else if self.peek(0) == b'.' && self.peek(1) != b'.' {
                self.pos += 1;
                self.error(
                    "expected a digit after `.` in float literal (write `1.0`, not `1.`)",
                    start,
                    self.pos,
                );
                is_float = true;
            }
            let e = self.peek(0);
            if e == b'e' || e == b'E' {
                let (sign, first) = (self.peek(1), self.peek(2));
                let has_sign = sign == b'+' || sign == b'-';
                if sign.is_ascii_digit() || (has_sign && first.is_ascii_digit()) {
                    self.pos += if has_sign { 2 } else { 1 };
                    let (exp, exp_ok) = self.digits(10);
                    ok &= exp_ok;
                    text.push('e');
                    if sign == b'-' {
                        text.push('-');
                    }
                    text.push_str(&exp);
                    is_float = true;
                }
            }
        }
        if is_ident_char(self.peek(0)) {
            let suffix_start = self.pos;
            while is_ident_char(self.peek(0)) {
                self.pos += 1;
            }
            let suffix = &self.text[suffix_start..self.pos];
            let msg = format!("invalid suffix `{suffix}` on numeric literal");
            self.error(msg, start, self.pos);
            let kind = if is_float {
                TokenKind::Float(0.0)
            } else {
                TokenKind::Int(0)
            };
            self.push(kind, start);
            return;
        }
        if !ok {
            self.error(
                "`_` in a numeric literal may only stand between two digits",
                start,
                self.pos,
            );
        }
        if int_digits.is_empty() {
            let msg = if radix == 16 {
                "hexadecimal literal has no digits"
            } else {
                "binary literal has no digits"
            };
            self.error(msg, start, self.pos);
            self.push(TokenKind::Int(0), start);
            return;
        }
        if is_float {
            let v = if text.ends_with('.') {
                0.0
            } else {
                text.parse::<f64>().unwrap_or(0.0)
            };
            self.push(TokenKind::Float(v), start);
            return;
        }
        let v = match u64::from_str_radix(&int_digits, radix) {
            Ok(v) if v <= i64::MAX as u64 => v as i64,
            _ => {
                self.error("integer literal is too large", start, self.pos);
                0
            }
        };
        self.push(TokenKind::Int(v), start);
    }

    fn punct(&mut self) {
        use crate::ast::BinOp as B;
        use TokenKind as T;
        let start = self.pos;
        let (c0, c1, c2) = (self.peek(0), self.peek(1), self.peek(2));
        let (kind, len) = match (c0, c1, c2) {
            (b'<', b'<', b'=') => (T::OpAssign(B::Shl), 3),
            (b'>', b'>', b'=') => (T::OpAssign(B::Shr), 3),
            (b'<', b'<', _) => (T::Shl, 2),
            (b'>', b'>', _) => (T::Shr, 2),
            (b'<', b'=', _) => (T::Le, 2),
            (b'>', b'=', _) => (T::Ge, 2),
            (b'=', b'=', _) => (T::EqEq, 2),
            (b'!', b'=', _) => (T::NotEq, 2),
            (b'&', b'&', _) => (T::AndAnd, 2),
            (b'|', b'|', _) => (T::OrOr, 2),
            (b'-', b'>', _) => (T::Arrow, 2),
            (b'.', b'.', _) => (T::DotDot, 2),
            (b'+', b'=', _) => (T::OpAssign(B::Add), 2),
            (b'-', b'=', _) => (T::OpAssign(B::Sub), 2),
            (b'*', b'=', _) => (T::OpAssign(B::Mul), 2),
            (b'/', b'=', _) => (T::OpAssign(B::Div), 2),
            (b'%', b'=', _) => (T::OpAssign(B::Rem), 2),
            (b'&', b'=', _) => (T::OpAssign(B::BitAnd), 2),
            (b'|', b'=', _) => (T::OpAssign(B::BitOr), 2),
            (b'^', b'=', _) => (T::OpAssign(B::BitXor), 2),
            (b'<', _, _) => (T::Lt, 1),
            (b'>', _, _) => (T::Gt, 1),
            (b'=', _, _) => (T::Assign, 1),
            (b'!', _, _) => (T::Bang, 1),
            (b'&', _, _) => (T::Amp, 1),
            (b'|', _, _) => (T::Pipe, 1),
            (b'^', _, _) => (T::Caret, 1),
            (b'+', _, _) => (T::Plus, 1),
            (b'-', _, _) => (T::Minus, 1),
            (b'*', _, _) => (T::Star, 1),
            (b'/', _, _) => (T::Slash, 1),
            (b'%', _, _) => (T::Percent, 1),
            (b'(', _, _) => (T::LParen, 1),
            (b')', _, _) => (T::RParen, 1),
            (b'{', _, _) => (T::LBrace, 1),
            (b'}', _, _) => (T::RBrace, 1),
            (b'[', _, _) => (T::LBracket, 1),
            (b']', _, _) => (T::RBracket, 1),
            (b',', _, _) => (T::Comma, 1),
            (b';', _, _) => (T::Semi, 1),
            (b':', _, _) => (T::Colon, 1),
            _ => {
                let len = self.char_len_at(start);
                let shown: String = self.text[start..start + len].escape_debug().collect();
                self.error(
                    format!("unexpected character `{shown}`"),
                    start,
                    start + len,
                );
                self.pos += len;
                return;
            }
        };
        self.pos += len;
        self.push(kind, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> (Vec<TokenKind>, Vec<Diagnostic>) {
        let mut d = Vec::new();
        let toks = lex(src, FileId(0), &mut d);
        (toks.into_iter().map(|t| t.kind).collect(), d)
    }

    #[test]
    fn lexing_onto_a_window_with_tokens_left_gives_the_tokens_of_the_whole_file() {
        let src = "let a1 = b + 2.5; // c\n\"s\\n\" 0x 9999999999999999999 ?";
        let (whole, whole_diags) = kinds(src);
        for limit in [1, 2, 3, 7] {
            // A parser's window: fill, consume all but the last token, fill.
            let mut stream = TokenStream::new(src, FileId(0));
            let (mut window, mut seen) = (Vec::new(), Vec::new());
            loop {
                stream.fill(&mut window, limit);
                if window.len() <= 1 && stream.done {
                    break;
                }
                seen.extend(window.drain(..window.len() - 1).map(|t| t.kind));
            }
            seen.extend(window.into_iter().map(|t| t.kind));
            let (diags, _) = stream.finish();
            assert_eq!(seen, whole, "limit {limit}");
            assert_eq!(diags.len(), whole_diags.len(), "limit {limit}");
        }
    }

    fn ok(src: &str) -> Vec<TokenKind> {
        let (k, d) = kinds(src);
        assert!(d.is_empty(), "{src}: {d:?}");
        k
    }

    fn err(src: &str) -> String {
        let (_, d) = kinds(src);
        assert!(!d.is_empty(), "{src} should fail");
        d[0].message.clone()
    }

    #[test]
    fn integers() {
        assert_eq!(ok("123")[0], TokenKind::Int(123));
        assert_eq!(ok("0xff")[0], TokenKind::Int(255));
        assert_eq!(ok("0b101")[0], TokenKind::Int(5));
        assert_eq!(ok("1_000_000")[0], TokenKind::Int(1_000_000));
        assert_eq!(ok("007")[0], TokenKind::Int(7));
        assert_eq!(ok("9223372036854775807")[0], TokenKind::Int(i64::MAX));
        assert_eq!(ok("0x7fffffffffffffff")[0], TokenKind::Int(i64::MAX));
        assert!(err("9223372036854775808").contains("too large"));
        assert!(err("0xffffffffffffffff").contains("too large"));
        assert!(err("99999999999999999999999").contains("too large"));
        assert!(err("1_").contains("between"));
        assert!(err("0x_1").contains("between"));
        assert!(err("1__0").contains("between"));
        assert!(err("12abc").contains("suffix"));
        assert!(err("0X1").contains("suffix"));
        assert!(err("0b102").contains("suffix"));
        assert!(err("0x").contains("no digits"));
    }

    #[test]
    fn floats() {
        assert_eq!(ok("1.5")[0], TokenKind::Float(1.5));
        assert_eq!(ok("1e10")[0], TokenKind::Float(1e10));
        assert_eq!(ok("2.5e-3")[0], TokenKind::Float(2.5e-3));
        assert_eq!(ok("3.0E+2")[0], TokenKind::Float(300.0));
        assert_eq!(ok("1_000.5")[0], TokenKind::Float(1000.5));
        assert_eq!(ok("1e400")[0], TokenKind::Float(f64::INFINITY));
        assert!(err("1.").contains("digit after"));
        assert!(err(".5").contains("digit before"));
        assert!(err("1.5x").contains("suffix"));
        assert!(err("1e").contains("suffix"));
        assert_eq!(
            ok("0..10"),
            vec![
                TokenKind::Int(0),
                TokenKind::DotDot,
                TokenKind::Int(10),
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn strings_and_comments() {
        assert_eq!(
            ok("\"a\\n\\t\\r\\\\\\\"\\0b\"")[0],
            TokenKind::Str("a\n\t\r\\\"\0b".into())
        );
        assert_eq!(ok("\"x\ny\"")[0], TokenKind::Str("x\ny".into()));
        assert_eq!(ok("\"héllo\"")[0], TokenKind::Str("héllo".into()));
        assert!(err("\"a\\q\"").contains("unknown escape"));
        assert!(err("\"abc").contains("unterminated string"));
        assert_eq!(
            ok("/* a /* b */ c */ x // y\n")[0],
            TokenKind::Ident("x".into())
        );
        assert!(err("/* /* */").contains("unterminated block"));
        assert_eq!(ok("\u{feff}let")[0], TokenKind::Let);
    }

    #[test]
    fn operators_and_keywords() {
        use crate::ast::BinOp as B;
        let k = ok("<<= >>= << >> <= >= == != && || -> .. += -= *= /= %= &= |= ^= fn void x_1");
        assert_eq!(
            k,
            vec![
                TokenKind::OpAssign(B::Shl),
                TokenKind::OpAssign(B::Shr),
                TokenKind::Shl,
                TokenKind::Shr,
                TokenKind::Le,
                TokenKind::Ge,
                TokenKind::EqEq,
                TokenKind::NotEq,
                TokenKind::AndAnd,
                TokenKind::OrOr,
                TokenKind::Arrow,
                TokenKind::DotDot,
                TokenKind::OpAssign(B::Add),
                TokenKind::OpAssign(B::Sub),
                TokenKind::OpAssign(B::Mul),
                TokenKind::OpAssign(B::Div),
                TokenKind::OpAssign(B::Rem),
                TokenKind::OpAssign(B::BitAnd),
                TokenKind::OpAssign(B::BitOr),
                TokenKind::OpAssign(B::BitXor),
                TokenKind::Fn,
                TokenKind::VoidTy,
                TokenKind::Ident("x_1".into()),
                TokenKind::Eof,
            ]
        );
    }

    #[test]
    fn errors_continue_and_have_spans() {
        let (k, d) = kinds("a @ b # c");
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].span.start, d[0].span.end), (2, 3));
        assert_eq!(k.len(), 4);
        let (_, d) = kinds("é");
        assert_eq!(d.len(), 1);
    }
}
