//! A small line diff for failure reports (`-` expected, `+` actual).

/// Lines of context shown around each change.
const CONTEXT: usize = 2;
/// Above this many lines on either side, only the first difference is shown.
const MAX_LCS_LINES: usize = 2000;
/// Report lines printed at most.
const MAX_REPORT_LINES: usize = 60;

/// A unified-style diff of `expected` against `actual`; empty when equal.
pub fn diff_lines(expected: &str, actual: &str) -> String {
    if expected == actual {
        return String::new();
    }
    let a: Vec<&str> = expected.split_inclusive('\n').collect();
    let b: Vec<&str> = actual.split_inclusive('\n').collect();
    let ops = if a.len() <= MAX_LCS_LINES && b.len() <= MAX_LCS_LINES {
        lcs_ops(&a, &b)
    } else {
        first_difference_ops(&a, &b)
    };
    render(&ops)
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op<'a> {
    Same(&'a str),
    Del(&'a str),
    Add(&'a str),
}

fn lcs_ops<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    let (n, m) = (a.len(), b.len());
    // table[i][j] = LCS length of a[i..] and b[j..]
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[at(i, j)] = if a[i] == b[j] {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same(a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || table[at(i, j + 1)] > table[at(i + 1, j)]) {
            ops.push(Op::Add(b[j]));
            j += 1;
        } else {
            ops.push(Op::Del(a[i]));
            i += 1;
        }
    }
    ops
}

fn first_difference_ops<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Op<'a>> {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let mut ops: Vec<Op<'a>> = a[..same].iter().map(|l| Op::Same(l)).collect();
    ops.extend(a[same..].iter().take(CONTEXT + 1).map(|l| Op::Del(l)));
    ops.extend(b[same..].iter().take(CONTEXT + 1).map(|l| Op::Add(l)));
    ops
}

fn render(ops: &[Op<'_>]) -> String {
    let near_change = |k: usize| {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT + 1).min(ops.len());
        ops[lo..hi].iter().any(|o| !matches!(o, Op::Same(_)))
    };
    let mut out = String::new();
    let mut lines = 0;
    let mut skipped = false;
    for (k, op) in ops.iter().enumerate() {
        if !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  ...\n");
            skipped = false;
        }
        let (mark, text) = match op {
            Op::Same(t) => (' ', t),
            Op::Del(t) => ('-', t),
            Op::Add(t) => ('+', t),
        };
        out.push(mark);
        out.push(' ');
        let body = text.strip_suffix('\n').unwrap_or(text);
        for c in body.chars() {
            if c.is_control() {
                out.extend(c.escape_debug());
            } else {
                out.push(c);
            }
        }
        if !text.ends_with('\n') {
            out.push_str(" (no newline at end)");
        }
        out.push('\n');
        lines += 1;
        if lines >= MAX_REPORT_LINES {
            out.push_str("  ... (diff truncated)\n");
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(diff_lines("a\nb\n", "a\nb\n"), "");
    }

    #[test]
    fn changed_line_is_shown() {
        let d = diff_lines("a\nb\nc\n", "a\nx\nc\n");
        assert_eq!(d, "  a\n- b\n+ x\n  c\n");
    }

    #[test]
    fn missing_newline_is_flagged() {
        let d = diff_lines("a\n", "a");
        assert_eq!(d, "- a\n+ a (no newline at end)\n");
    }
}
