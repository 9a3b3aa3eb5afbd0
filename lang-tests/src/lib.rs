//! Support code for the language test corpus (see `tests/`).
