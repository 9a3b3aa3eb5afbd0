//! The `waddle` command-line tool.

fn main() {}
