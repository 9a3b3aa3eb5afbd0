// Shapes the VSDG round trip (tier `full`) changes and translation
// validation must follow (issue 14): an `if .. else { if .. }` nest of
// 20 levels whose arms each return after the round trip, arms with
// inner chains and `&&`/`||` conditions, and a flag compared after
// the branch that set it, which the round trip moves into the branch.
fn nested(x: int) -> int {
    var c = -1;
    if x == 0 { c = 0; } else { if x == 7 { c = 1; } else { if x == 14 { c = 2; } else { if x == 21 { c = 3; } else { if x == 28 { c = 4; } else { if x == 35 { c = 5; } else { if x == 42 { c = 6; } else { if x == 49 { c = 7; } else { if x == 56 { c = 8; } else { if x == 63 { c = 9; } else { if x == 70 { c = 10; } else { if x == 77 { c = 11; } else { if x == 84 { c = 12; } else { if x == 91 { c = 13; } else { if x == 98 { c = 14; } else { if x == 105 { c = 15; } else { if x == 112 { c = 16; } else { if x == 119 { c = 17; } else { if x == 126 { c = 18; } else { if x == 133 { c = 19; } else { c = x % 5; }}}}}}}}}}}}}}}}}}}}
    return c;
}
fn mixed(x: int, y: int) -> int {
    var c = -1;
    if x == 0 { if y == 0 { c = 0; } else if y == 1 { c = 100; } else { c = 200; } }
    else if x == 3 { if y == 1 { c = 1; } else if y == 2 { c = 101; } else { c = 201; } }
    else if x == 6 { if y == 2 { c = 2; } else if y == 3 { c = 102; } else { c = 202; } }
    else if x == 9 { if y == 3 { c = 3; } else if y == 4 { c = 103; } else { c = 203; } }
    else if x == 12 { if y == 4 { c = 4; } else if y == 5 { c = 104; } else { c = 204; } }
    else if x == 15 { if y == 5 { c = 5; } else if y == 6 { c = 105; } else { c = 205; } }
    else if x == 18 { if y == 6 { c = 6; } else if y == 7 { c = 106; } else { c = 206; } }
    else if x == 21 { if y == 7 { c = 7; } else if y == 8 { c = 107; } else { c = 207; } }
    else { c = c + y; }
    return c;
}
fn conds(x: int, y: int) -> int {
    if x == 1 && y != 1 { return 10; }
    else if x == 2 || y == 102 { return 20; }
    else if (x == 3 || x == 4) && y < 53 { return 30; }
    else if x > 5 && (y == 0 || y == 7) { return 40; }
    return 0;
}
fn flags(x: int, n: int) -> int {
    var y = 0;
    var seen = 0;
    while y < n {
        var c = 1;
        if x == 0 { c = 0; }
        if c == 0 { seen += y; }
        y = y + 1;
    }
    return seen;
}
var total = 0;
for x in -1..142 {
    let a = nested(x);
    total = total * 31 % 1000003 + a + 7;
    if x % 7 == 0 { print(str(x) + " " + str(a)); }
}
print(total);
var s = 0;
for x in -1..25 {
    for y in -1..10 {
        s = (s * 17 + mixed(x, y) + 1000) % 1000003;
    }
}
print(s);
var t = 0;
for x in 0..8 {
    for y in 0..104 {
        t = t + conds(x, y) * (y + 1);
    }
}
print(t);
print(flags(0, 5));
print(flags(1, 5));
print(flags(0, 0));
