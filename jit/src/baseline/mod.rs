//! The baseline code generator (tier T1): one linear pass over unoptimized
//! Waddle IR emitting x86-64 or AArch64 machine code with dynasmrt.
