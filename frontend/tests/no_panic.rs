//! Robustness: random token soup and random mutations of valid programs,
//! fed to the parser, the checker and the renderer, must never panic and
//! always terminate.

use proptest::prelude::*;
use waddle_frontend::{check, diag, parse_only, Prelude, SourceFile, SourceMap};

const SAMPLES: [&str; 5] = [
    "fn fib(n: int) -> int {\n    if n < 2 { return n; }\n    return fib(n - 1) + fib(n - 2);\n}\nvar calls = 0;\nfn bump() { calls += 1; }\nprint(fib(20));\nbump(); bump();\nprint(calls);\n",
    "// sieve\nlet n = 100;\nvar sieve = [true; n + 1];\nvar count = 0;\nfor i in 2..n + 1 {\n    if sieve[i] {\n        count += 1;\n        var j = i * i;\n        while j <= n { sieve[j] = false; j += i; }\n    }\n}\nprint(count);\n",
    "fn mat(n: int) -> [[float]] {\n    var m: [[float]] = [];\n    for i in 0..n { push(m, [0.0; n]); m[i][i] = 1.5e-3; }\n    return m;\n}\nlet m = mat(3);\nprint(m);\nprint(len(m) == 3 && m[0][0] >= 0.0 || false);\n",
    "/* nested /* comment */ */\nlet s = \"a\\tb\\n\\\"q\\\"\\\\\";\nvar t = s + str(0xff) + str(0b101) + str(1_000);\nlet x = -9223372036854775807 - 1;\nprint(t); print(x % 7); print(x >> 3 ^ 5 & 1 | 2 << 1);\n",
    "fn f(a: [int], k: int,) -> int {\n    var acc = 0;\n    while true {\n        if k <= 0 { break; } else if k == 1 { continue; } else { acc += abs(a[0]) * min(k, 3); }\n        return acc;\n    }\n    return max(acc, int(sqrt(float(k))));\n}\nassert(f([1, 2, 3,], 4) > 0);\n;\n{ let y = clock(); print(y); }\n",
];

const TOKENS: [&str; 75] = [
    "fn",
    "let",
    "var",
    "if",
    "else",
    "while",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "true",
    "false",
    "int",
    "float",
    "bool",
    "str",
    "void",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    ":",
    "->",
    "..",
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "&=",
    "|=",
    "^=",
    "<<=",
    ">>=",
    "||",
    "&&",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "|",
    "^",
    "&",
    "<<",
    ">>",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
    "x",
    "y",
    "f",
    "print",
    "len",
    "push",
    "0",
    "1",
    "1.5",
    "\"s\"",
    "9223372036854775808",
    "1e400",
    "[]",
    "/*",
    "*/",
    "//",
];

/// Runs every frontend stage that exists on `src`; panics propagate.
fn exercise(src: &str, repl: bool) {
    let mut sm = SourceMap::default();
    sm.add(SourceFile::new("fuzz.wdl", src));
    let diags = match parse_only(&sm, repl) {
        Ok(module) => match check::check(&module, &Prelude::default(), repl) {
            Ok(typed) => {
                assert_eq!(typed.expr_types.len(), module.expr_count as usize);
                assert!(typed.decls.iter().all(|d| d.is_some()));
                return;
            }
            Err(d) => d,
        },
        Err(d) => d,
    };
    assert!(!diags.is_empty());
    let text = diag::render(&diags, &sm);
    assert!(text.starts_with("error"), "{text}");
}

fn soup() -> impl Strategy<Value = String> {
    let tok = prop_oneof![
        8 => proptest::sample::select(&TOKENS[..]).prop_map(str::to_string),
        1 => "[a-z_][a-z0-9_]{0,5}",
        1 => "[0-9]{1,22}",
    ];
    let sep = proptest::sample::select(&[" ", "\n", "", "  "][..]);
    proptest::collection::vec((tok, sep), 0..60).prop_map(|v| {
        v.into_iter()
            .map(|(t, s)| format!("{t}{s}"))
            .collect::<String>()
    })
}

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let ch = prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => proptest::sample::select(&['\n', '"', '\\', '{', '}', '/', '*', 'é', '\u{feff}', '\0', '[', ';'][..]),
    ];
    let edit = prop_oneof![
        (any::<usize>(), ch.clone()).prop_map(|(p, c)| Edit::Insert(p, c)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), ch).prop_map(|(p, c)| Edit::Replace(p, c)),
    ];
    proptest::collection::vec(edit, 1..6)
}

fn apply(src: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for e in edits {
        let n = chars.len();
        match *e {
            Edit::Insert(p, c) => chars.insert(p % (n + 1), c),
            Edit::Delete(p) if n > 0 => {
                chars.remove(p % n);
            }
            Edit::Replace(p, c) if n > 0 => chars[p % n] = c,
            _ => {}
        }
    }
    chars.into_iter().collect()
}

#[test]
fn samples_are_valid() {
    for s in SAMPLES {
        let mut sm = SourceMap::default();
        sm.add(SourceFile::new("s.wdl", s));
        let m = parse_only(&sm, false).unwrap_or_else(|d| panic!("{}", diag::render(&d, &sm)));
        if let Err(d) = check::check(&m, &Prelude::default(), false) {
            panic!("{}", diag::render(&d, &sm));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(src in soup(), repl in any::<bool>()) {
        exercise(&src, repl);
    }

    #[test]
    fn mutated_programs_never_panic(i in 0..SAMPLES.len(), e in edits(), repl in any::<bool>()) {
        exercise(&apply(SAMPLES[i], &e), repl);
    }
}

#[test]
fn pathological_inputs_terminate() {
    let cases = [
        "(".repeat(20_000),
        "[".repeat(20_000),
        "{".repeat(20_000),
        "-".repeat(20_000),
        "!".repeat(20_000),
        "/*".repeat(20_000),
        format!("let x = {};", vec!["1"; 20_000].join("+")),
        format!("let x = a{};", "[0]".repeat(20_000)),
        format!("let x: {}int{} = 1;", "[".repeat(100), "]".repeat(100)),
        format!("let x = {}1{};", "[".repeat(100), "]".repeat(100)),
        "if a { } else ".repeat(10_000),
        "\"".to_string(),
        "\u{feff}".to_string(),
        String::new(),
        "fn".to_string(),
        "fn f(".to_string(),
        "let".to_string(),
        "}}}}".to_string(),
    ];
    for c in &cases {
        exercise(c, false);
        exercise(c, true);
    }
}

#[test]
fn deepest_accepted_nesting_checks_without_overflow() {
    // For each shape, find the deepest nesting the parser accepts and check
    // it (on the default 2 MiB test thread stack).
    let shapes: [fn(usize) -> String; 6] = [
        |d| format!("let x = {}1;", "-".repeat(d)),
        |d| format!("let x = {}1{};", "1 + (".repeat(d), ")".repeat(d)),
        |d| format!("let x = {};", vec!["1"; d].join(" + ")),
        |d| format!("{}print(1);{}", "{ ".repeat(d), " }".repeat(d)),
        |d| format!("{}print(1);{}", "if true { ".repeat(d), " }".repeat(d)),
        |d| {
            format!(
                "fn f(x: int) -> int {{ return x; }}\nlet x = {}1{};",
                "f(".repeat(d),
                ")".repeat(d)
            )
        },
    ];
    for shape in shapes {
        let mut d = waddle_frontend::parser::MAX_DEPTH as usize;
        let (sm, m) = loop {
            let mut sm = SourceMap::default();
            sm.add(SourceFile::new("deep.wdl", shape(d)));
            if let Ok(m) = parse_only(&sm, false) {
                break (sm, m);
            }
            assert!(d > 60, "even shallow nesting was rejected: {}", shape(d));
            d -= 1;
        };
        if let Err(e) = check::check(&m, &Prelude::default(), false) {
            panic!("{}", diag::render(&e, &sm));
        }
    }
}
