// String equality and byte-wise ordering.
print("abc" == "abc");
print("abc" != "abd");
print("abc" == "ab");
print("abc" < "abd");
print("ab" < "abc");
print("" < "a");
print("B" < "a");
print("a" <= "a");
print("b" > "a");
print("b" >= "c");
print("Z" < "a");
print("é" > "z");
print("a" + "b" == "ab");
print("10" < "9");
