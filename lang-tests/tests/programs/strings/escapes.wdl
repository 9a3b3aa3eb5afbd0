// String escapes \n \t \r \\ \" \0 print as the raw bytes.
print("line1\nline2");
print("tab\there");
print("quote \" backslash \\");
print("cr\rx");
print("nul\0byte");
print("unicode: héllo, 日本, 🦆");
