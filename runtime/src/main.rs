//! The `waddle` command-line tool: `waddle run FILE` and the REPL.

fn main() {
    let code = waddle::cli::main_with_args(std::env::args_os());
    std::process::exit(code);
}
