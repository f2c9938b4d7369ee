//! rewind-cli: the `rewind` command, the front ends of the native host. It holds the CLI
//! ([`commands`]: one module per subcommand, the clap definitions and the dispatch), the agent
//! hook ([`hook`]: `rewind hook <agent>`, one hook event as JSON on stdin) and the JSON-RPC
//! server ([`serve`]: `rewind serve --stdio | --http ADDR`), over services they share at the
//! crate root: [`CliError`] and its exit codes, the one output writer (a closed pipe ends
//! quietly, a full disk is said), the text style, and the `--workspace` / `--db` / `--store`
//! flags turned into a place by `rewind_host::native::locate`.
//!
//! It never touches a store or a file by itself: every open goes through
//! `rewind_host::native::Opener` with the rights the verb's `rewind_host::native::Verb` names,
//! and every verb is `rewind_core`'s. It is a binary's library, not an API to build on: to
//! embed rewind in a Rust program use `rewind-host` (SQLite or PostgreSQL store, the real
//! workspace, `open`, the `rpc` dispatcher) or `rewind-core` (the pure engine over your own
//! ports); from Node use `rewind-node` (durable) or the wasm package `rewind-wasm`; from any
//! other language, `rewind serve`.

// Every byte of output goes through `output`, which handles a closed pipe and a full disk.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agents;
pub mod commands;
mod error;
pub mod hook;
mod locate;
pub mod mcp;
pub(crate) mod output;
pub mod serve;
mod style;
mod visible;

pub use error::CliError;

/// Parse the arguments, run, print, and return the exit code: 0 ok, 1 refused / conflict /
/// unavailable / untrusted / bad input, 2 usage, 3 host error. Output goes through one writer:
/// a closed pipe ends quietly with the command's own code; any other failure to write the output
/// (a full disk) is said on stderr and exits 3, since the person did not get the result.
pub fn main() -> i32 {
    // `COMPLETE=<shell> rewind …`: the shell asking for candidates (see `completions`).
    if commands::complete_if_asked() {
        return 0;
    }
    let cli = match commands::parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            return output::exit_code(output::emit_usage(&e), code);
        }
    };
    if let Some(e) = commands::bare_without_terminal(&cli) {
        return output::exit_code(output::emit_usage(&e), 2);
    }
    let json = cli.json();
    let (printed, code) = match commands::run(cli) {
        Ok(mut report) if report.was_printed() => (report.take_printed(), report.exit_code()),
        Ok(report) if report.raw => (output::stdout(report.text.trim_end()), 0),
        Ok(report) if json => (
            output::stdout(&output::pretty(&report.json)),
            report.exit_code(),
        ),
        Ok(report) if report.text_to_stderr => {
            output::stderr(report.text.trim_end());
            (Ok(()), report.exit_code())
        }
        Ok(report) => (output::human(report.text.trim_end()), report.exit_code()),
        Err(e) if json => (output::stdout(&output::pretty(&e.to_json())), e.exit_code()),
        Err(e) => {
            output::stderr(&format!("error: {e}"));
            (Ok(()), e.exit_code())
        }
    };
    output::exit_code(printed, code)
}
