//! The `rewind` command: a thin shell over the rewind-cli library.

fn main() {
    std::process::exit(rewind_cli::main());
}
