// print accepts any type.
print(1);
print(1.0);
print(true);
print("s");
print([1]);
print([1.0]);
print([true]);
print(["s"]);
print([[1]]);
print([[[["deep"]]]]);
