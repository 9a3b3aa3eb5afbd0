//! Deciding whether a REPL entry is complete or continues on the next line:
//! it continues while a `(`, `[` or `{` is open, inside a string literal, or
//! inside a (nested) block comment.

/// Whether `src` is a complete entry. Unbalanced closers count as complete
/// (the compiler then reports the error).
pub fn is_complete(src: &str) -> bool {
    let b = src.as_bytes();
    let mut depth: i64 = 0;
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
                (b'(' | b'[' | b'{', _) => depth += 1,
                (b')' | b']' | b'}', _) => {
                    depth -= 1;
                    if depth < 0 {
                        return true;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    depth <= 0 && comment_depth == 0 && !in_string
}

#[cfg(test)]
mod tests {
    use super::is_complete;

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
}
