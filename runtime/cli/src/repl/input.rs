//! Deciding whether a REPL entry is complete or continues on the next line:
//! it continues while a `(`, `[` or `{` is open, inside a string literal, or
//! inside a (nested) block comment.

/// How far an entry got, as far as continuation is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Nothing is open: the entry can be compiled.
    Complete,
    /// A bracket is open; the innermost open one (`(`, `[` or `{`).
    Open(char),
    /// Inside a string literal.
    InString,
    /// Inside a block comment.
    InComment,
}

/// Whether `src` is a complete entry. Unbalanced closers count as complete
/// (the compiler then reports the error).
pub fn is_complete(src: &str) -> bool {
    entry_state(src) == EntryState::Complete
}

/// Scans `src` for open brackets, strings and block comments.
pub fn entry_state(src: &str) -> EntryState {
    let b = src.as_bytes();
    let mut open: Vec<u8> = Vec::new();
    let mut comment_depth = 0u32;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if comment_depth > 0 {
            match (c, next) {
                (b'/', Some(b'*')) => {
                    comment_depth += 1;
                    i += 1;
                }
                (b'*', Some(b'/')) => {
                    comment_depth -= 1;
                    i += 1;
                }
                _ => {}
            }
        } else if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match (c, next) {
                (b'/', Some(b'/')) => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                (b'/', Some(b'*')) => {
                    comment_depth = 1;
                    i += 1;
                }
                (b'"', _) => in_string = true,
                (b'(' | b'[' | b'{', _) => open.push(c),
                (b')' | b']' | b'}', _) if open.pop().is_none() => {
                    return EntryState::Complete;
                }
                _ => {}
            }
        }
        i += 1;
    }
    if comment_depth > 0 {
        EntryState::InComment
    } else if in_string {
        EntryState::InString
    } else if let Some(&c) = open.last() {
        EntryState::Open(char::from(c))
    } else {
        EntryState::Complete
    }
}

#[cfg(test)]
mod tests {
    use super::{entry_state, is_complete, EntryState};

    #[test]
    fn open_delimiters_continue() {
        assert!(is_complete("print(1);"));
        assert!(!is_complete("fn f() {"));
        assert!(!is_complete("fn f() {\n  let a = [1,\n"));
        assert!(is_complete("fn f() {\n  let a = [1,\n 2];\n}"));
        assert!(!is_complete("print(1 +"));
        assert!(is_complete("}"));
    }

    #[test]
    fn strings_and_comments() {
        assert!(is_complete("print(\"{\");"));
        assert!(!is_complete("print(\"abc"));
        assert!(is_complete("print(\"a\\\"{\");"));
        assert!(is_complete("print(1); // {"));
        assert!(!is_complete("/* outer /* inner */ still"));
        assert!(is_complete("/* outer /* inner */ done */ print(1);"));
        assert!(is_complete("let s = \"/*\";"));
    }

    #[test]
    fn innermost_opener() {
        assert_eq!(entry_state("fn f() {\n print(1,"), EntryState::Open('('));
        assert_eq!(entry_state("let a = [(1), "), EntryState::Open('['));
        assert_eq!(entry_state("fn f() { g(1);"), EntryState::Open('{'));
        assert_eq!(entry_state("print(\"a"), EntryState::InString);
        assert_eq!(entry_state("/* a"), EntryState::InComment);
        assert_eq!(entry_state("print(1);"), EntryState::Complete);
    }
}
