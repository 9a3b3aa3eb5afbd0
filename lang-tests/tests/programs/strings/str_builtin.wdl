// str(x) is what print would write, without the newline.
print(str(42) + "|");
print(str(-1) + "|");
print(str(1.0) + "|");
print(str(0.1) + "|");
print(str(1e100) + "|");
print(str(true) + "|");
print(str("plain") + "|");
print(str([1, 2]) + "|");
print(str(["a", "b"]) + "|");
print(str([[1.5], []]) + "|");
print(len(str(1.0 / 0.0)));
print(str(str(7)) == "7");
