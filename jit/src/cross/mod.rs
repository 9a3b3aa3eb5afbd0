//! Cross-execution: compiling a whole program for a foreign target
//! (AArch64) and running it under emulation.
