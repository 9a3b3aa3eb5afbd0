// A string literal may span lines; the raw newlines are kept.
let s = "first
second
  third";
print(s);
print(len(s));
