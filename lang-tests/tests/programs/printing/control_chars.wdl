// Other ASCII control characters inside arrays print as \u{xx}.
// The string below contains raw bytes 0x01, 0x1b and 0x1f.
let s = "abc";
print([s]);
print(len(s));
