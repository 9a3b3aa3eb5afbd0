// len of a string counts bytes.
print(len(""));
print(len("abc"));
print(len("héllo"));
print(len("日本"));
print(len("🦆"));
print(len("a\nb"));
print(len("\0"));
print(len(str(12345)));
