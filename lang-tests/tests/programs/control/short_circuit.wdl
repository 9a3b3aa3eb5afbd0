// && and || short-circuit.
var trace = "";
fn t(tag: str) -> bool { trace += tag; return true; }
fn f(tag: str) -> bool { trace += tag; return false; }
print(f("a") && t("b"));
print(t("c") || f("d"));
print(t("e") && f("f"));
print(f("g") || t("h"));
print(f("i") || f("j") || t("k") || t("l"));
print(t("m") && t("n") && f("o") && t("p"));
print(trace);
let xs = [1, 2];
var i = 5;
print(i < len(xs) && xs[i] > 0);
print(i >= len(xs) || xs[i] > 0);
