//! The one writer every byte of the CLI's output goes through. Standard output errors are
//! values, never panics: a reader that went away (`rewind log … | head`) ends the command
//! quietly with its own exit code; any other failure (`> /dev/full`) is said on stderr and
//! exits 3. Standard error is best effort.

use std::fmt::Write as _;
use std::io::{self, Write};

/// Human text (not JSON, not a script) to stdout: control characters a renderer did not make
/// visible are shown here, so no stored text reaches the terminal raw (see `visible`).
pub(super) fn human(text: &str) -> io::Result<()> {
    stdout(&crate::visible::terminal_safe(text))
}

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

/// Write a line to stderr, ignoring failure (there is nowhere left to report it). Always
/// human text: control characters are shown, as for [`human`].
pub(crate) fn stderr(text: &str) {
    let text = crate::visible::terminal_safe(text);
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

/// A JSON document, pretty-printed. Exact, and safe on a terminal too: the encoder escapes
/// C0 controls (`\u001b`), and DEL and C1 controls (which JSON allows raw, and some terminals
/// obey) are written as `\u007f`…`\u009f` here: the same strings to every JSON reader.
pub(super) fn pretty(doc: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(doc).unwrap_or_else(|_| doc.to_string());
    // Outside strings the encoder writes ASCII only, so every such character is in a string.
    if !text.contains(|c| matches!(c, '\x7f'..='\u{9f}')) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\x7f'..='\u{9f}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
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
            let why = rewind_host::disk::describe(&e);
            stderr(&format!(
                "error: the command finished (exit {code}), but its output could not be written: \
                 {why}"
            ));
            3
        }
    }
}
