//! Shrinking a program while it keeps a property (delta debugging over
//! lines): remove chunks of lines, largest first, then unwrap blocks,
//! until no single removal keeps the property.
//!
//! Generated programs put one statement per line and close every block on
//! a line of its own, so brace-balanced line ranges are statements or
//! whole blocks; unbalanced candidates are skipped without testing.

/// Shrinks `source` while `interesting` holds for the result (it must hold
/// for `source`). Each candidate is tested once; the result is a fixpoint:
/// removing any single line or unwrapping any block loses the property.
pub fn minimize(source: &str, mut interesting: impl FnMut(&str) -> bool) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    loop {
        let before = lines.len();
        let mut chunk = (lines.len() / 2).max(1);
        loop {
            let mut i = 0;
            while i < lines.len() {
                let end = (i + chunk).min(lines.len());
                if balanced(&lines[i..end]) {
                    let candidate: Vec<String> =
                        lines[..i].iter().chain(&lines[end..]).cloned().collect();
                    if interesting(&join(&candidate)) {
                        lines = candidate;
                        continue;
                    }
                }
                i += chunk;
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
        unwrap_blocks(&mut lines, &mut interesting);
        if lines.len() == before {
            break;
        }
    }
    join(&lines)
}

/// Tries replacing each block `head { body }` by its body alone.
fn unwrap_blocks(lines: &mut Vec<String>, interesting: &mut impl FnMut(&str) -> bool) {
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end().ends_with('{') && !lines[i].trim_start().starts_with('}') {
            if let Some(close) = matching_close(lines, i) {
                let mut candidate = lines[..i].to_vec();
                candidate.extend_from_slice(&lines[i + 1..close]);
                candidate.extend_from_slice(&lines[close + 1..]);
                if interesting(&join(&candidate)) {
                    *lines = candidate;
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// The line closing the block opened at line `open`.
fn matching_close(lines: &[String], open: usize) -> Option<usize> {
    let mut depth = 0i64;
    for (k, l) in lines.iter().enumerate().skip(open) {
        depth += brace_delta(l);
        if depth == 0 {
            return (k > open && lines[k].trim() == "}").then_some(k);
        }
    }
    None
}

fn brace_delta(line: &str) -> i64 {
    let mut d = 0;
    let mut in_str = false;
    let mut escaped = false;
    for c in line.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' => d += 1,
            '}' => d -= 1,
            _ => {}
        }
    }
    d
}

/// Whether a range of lines opens and closes the same number of braces,
/// never closing more than it opened.
fn balanced(lines: &[String]) -> bool {
    let mut depth = 0;
    for l in lines {
        depth += brace_delta(l);
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

fn join(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_what_the_property_needs() {
        let src =
            "let a = 1;\nif true {\n    print(2);\n    print(\"{\");\n}\nprint(3);\nprint(4);\n";
        let out = minimize(src, |s| s.contains("print(3)"));
        assert_eq!(out, "print(3);\n");
        let out = minimize(src, |s| s.contains("print(2)") && s.contains("let a"));
        assert_eq!(out, "let a = 1;\n    print(2);\n");
    }

    #[test]
    fn braces_inside_strings_do_not_count() {
        assert!(balanced(&["print(\"}\");".to_string()]));
        assert!(!balanced(&["}".to_string(), "{".to_string()]));
    }
}
