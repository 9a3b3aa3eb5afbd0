//! Establishing canonical form (loop-simplified, LCSSA) from scratch.
