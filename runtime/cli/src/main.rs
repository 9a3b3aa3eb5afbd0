//! The `waddle` command-line tool: `waddle run FILE`, the REPL and
//! `waddle bench`, built on the `waddle` library's public API.

mod bench;
mod cli;
mod repl;

fn main() {
    let code = cli::main_with_args(std::env::args_os());
    std::process::exit(code);
}
