// A file that starts with a UTF-8 byte-order mark.
print("bom skipped");
