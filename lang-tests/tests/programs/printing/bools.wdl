// Bools print as true / false.
print(true);
print(false);
print(!true);
print(1 < 2);
print("a" == "b");
print(str(true) + str(false));
