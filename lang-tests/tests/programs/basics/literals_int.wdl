// Integer literals: decimal, hex, binary, `_` separators, leading zeros.
print(0);
print(123);
print(1_000_000);
print(0xff);
print(0xFF);
print(0x7fff_ffff_ffff_ffff);
print(0b101);
print(0b1111_0000);
print(007);
print(9223372036854775807);
print(-9223372036854775807 - 1);
print(0x0);
print(0b0);
print(1_2_3);
print(0xdead_beef);
