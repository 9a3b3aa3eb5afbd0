// What counts as returning on every path (docs/language.md "Statements", returning on every path).
fn by_if_else(b: bool) -> int {
    if b { return 1; } else { return 2; }
}
fn by_else_if(n: int) -> int {
    if n < 0 { return -1; } else if n == 0 { return 0; } else { return 1; }
}
fn by_block(n: int) -> int {
    {
        let m = n * 2;
        return m;
    }
}
fn by_while_true(n: int) -> int {
    var k = n;
    while true {
        k += 1;
        if k % 7 == 0 { return k; }
    }
}
fn nested_loop_break_inner(n: int) -> int {
    while true {
        for i in 0..3 {
            if i == 1 { break; }
        }
        while n > 100 { break; }
        return n;
    }
}
fn code_after_return(n: int) -> int {
    return n + 1;
    print("unreachable");
}
fn after_while_true() -> str {
    while true { return "w"; }
    let x = 1;
}
print(by_if_else(true));
print(by_if_else(false));
print(by_else_if(-3));
print(by_else_if(0));
print(by_else_if(9));
print(by_block(21));
print(by_while_true(15));
print(nested_loop_break_inner(5));
print(code_after_return(41));
print(after_while_true());
