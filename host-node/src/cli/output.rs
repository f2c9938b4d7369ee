//! The one writer every byte of the CLI's output goes through. Standard output errors are
//! values, never panics: a reader that went away (`rewind log … | head`) ends the command
//! quietly with its own exit code; any other failure (`> /dev/full`) is said on stderr and
//! exits 3. Standard error is best effort.

use std::io::{self, Write};

/// Write `text` and a newline to stdout (nothing for empty text) and flush.
pub(crate) fn stdout(text: &str) -> io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
}

/// Write a line to stderr, ignoring failure (there is nowhere left to report it).
pub(crate) fn stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.write_all(b"\n");
    let _ = err.flush();
}

/// A progress line on stderr, redrawn in place (`""` clears it). Best effort, like stderr.
pub(super) fn progress(text: &str) {
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{text}");
    let _ = err.flush();
}

/// A warning on stderr.
pub(crate) fn warn(text: &str) {
    stderr(&format!("warning: {text}"));
}

/// A JSON document, pretty-printed.
pub(super) fn pretty(doc: &serde_json::Value) -> String {
    serde_json::to_string_pretty(doc).unwrap_or_else(|_| doc.to_string())
}

/// clap's help, version or usage error, through the same rules.
pub(super) fn emit_usage(e: &clap::Error) -> io::Result<()> {
    let text = e.render().to_string();
    if e.use_stderr() {
        stderr(text.trim_end());
        Ok(())
    } else {
        stdout(text.trim_end())
    }
}

/// The exit code once the output was written (or not).
pub(super) fn exit_code(printed: io::Result<()>, code: i32) -> i32 {
    match printed {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            let why = crate::disk::describe(&e);
            stderr(&format!(
                "error: the command finished (exit {code}), but its output could not be written: \
                 {why}"
            ));
            3
        }
    }
}
