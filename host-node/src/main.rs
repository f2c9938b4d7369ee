//! The `rewind` command: a thin shell over the rewind-host library.

fn main() {
    std::process::exit(rewind_host::cli::main());
}
