//! The one writer every byte of the CLI's output goes through. Standard output errors are
//! values, never panics: a reader that went away (`rewind log … | head`) ends the command
//! quietly with its own exit code; any other failure (`> /dev/full`) is said on stderr and
//! exits 3. Standard error is best effort.
//!
//! Long output on a terminal is paged as git pages it: a command that reads (`diff`, `log`,
//! `ops`, `preview`, …) calls [`page`] first, and its first byte on stdout starts the pager
//! (`$REWIND_PAGER`, the config's `pager`, `$PAGER`, else `less` with `LESS=FRX`, so short
//! output prints as it is); every later byte still goes through [`stdout`], into the pager.
//! No pager with `--no-pager` / `-P`, `--json`, when stdout is not a terminal, or when the
//! pager is empty or `cat`. A pager the person quits is a closed pipe: the command ends quietly.

use std::fmt::Write as _;
use std::io::{self, IsTerminal as _, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The pager state of this process: one command, one pager at most.
struct Paging {
    /// The pager command line; `None`: never page.
    command: Option<String>,
    /// The command asked for its stdout to be paged ([`page`]); the pager starts on the
    /// first write, so an error said before any output is not paged.
    wanted: bool,
    running: Option<(Child, ChildStdin)>,
}

static PAGING: Mutex<Paging> = Mutex::new(Paging {
    command: None,
    wanted: false,
    running: None,
});

fn paging() -> MutexGuard<'static, Paging> {
    PAGING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The pager to use, by git's rules: none with `--no-pager`; else `$REWIND_PAGER`, the
/// config's `pager`, `$PAGER`, `less` (when installed), in that order; none when the one
/// found is empty or `cat`.
pub(crate) fn choose_pager(no_pager: bool, configured: Option<&str>) -> Option<String> {
    if no_pager {
        return None;
    }
    let chosen = std::env::var("REWIND_PAGER")
        .ok()
        .or_else(|| configured.map(str::to_owned))
        .or_else(|| std::env::var("PAGER").ok());
    match chosen {
        Some(c) if matches!(c.trim(), "" | "cat") => None,
        Some(c) => Some(c),
        // Only the default is looked for: a pager the person named is theirs to fix.
        None => on_path("less").then(|| "less".to_owned()),
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The pager of a command that pages (then [`page`] too) or may page (the picker), by
/// [`choose_pager`] with the workspace config's `pager` beside `db`.
pub(crate) fn set_up_paging(pages: bool, no_pager: bool, db: &std::path::Path) {
    // A config that does not read is said by the commands that read it, not here.
    let configured = rewind_host::config::Config::load(db)
        .ok()
        .and_then(|c| c.pager);
    set_pager(choose_pager(no_pager, configured.as_deref()));
    if pages {
        page();
    }
}

/// The pager this command may use (set once by the dispatch; `None`: never page).
pub(crate) fn set_pager(command: Option<String>) {
    paging().command = command;
}

/// Page this command's stdout, when a pager is set and stdout is a terminal: the opt-in of a
/// command whose output can be long. Call it before the first write.
pub(crate) fn page() {
    let mut p = paging();
    p.wanted = p.command.is_some() && io::stdout().is_terminal();
}

/// The pager process for `command`, its output going to `to`. `LESS=FRX` unless the person
/// set `LESS` (as git does): quit when it fits one screen, keep colours, leave the screen.
fn spawn(command: &str, to: Stdio) -> io::Result<(Child, ChildStdin)> {
    let mut c = if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    };
    if std::env::var_os("LESS").is_none() {
        c.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        c.env("LV", "-c");
    }
    let mut child = c.stdin(Stdio::piped()).stdout(to).spawn()?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| io::Error::other("no pager stdin"))?;
    Ok((child, stdin))
}

/// While the pager runs, Ctrl-C is the pager's (less stops a search with it): this process
/// lets it pass, as git does, rather than die under a pager still reading the terminal.
fn ignore_interrupts() {
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGQUIT] {
        let _ = signal_hook::flag::register(
            signal,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
    }
}

/// Wait for the pager, if one runs, once every byte was written: the shell's prompt comes
/// back after the person quits it, not under it.
pub(crate) fn finish() {
    let running = paging().running.take();
    if let Some((mut child, stdin)) = running {
        drop(stdin);
        let _ = child.wait();
    }
}

/// Show `text` through the pager on the terminal stderr is (the picker's screen) and wait for
/// it to end; `false` when there is no pager to use (then nothing was shown). The questions
/// that follow are then the last thing on screen.
pub(crate) fn page_on_stderr(text: &str) -> bool {
    let Some(command) = paging().command.clone() else {
        return false;
    };
    if !io::stderr().is_terminal() {
        return false;
    }
    let Some(to) = stderr_for_child() else {
        return false;
    };
    let Ok((mut child, mut stdin)) = spawn(&command, to) else {
        return false;
    };
    let text = crate::visible::terminal_safe(text);
    // The person may quit before reading it all: a closed pipe is no error here.
    let _ = stdin
        .write_all(text.as_bytes())
        .and_then(|()| stdin.write_all(b"\n"));
    drop(stdin);
    let _ = child.wait();
    true
}

/// A handle on stderr a child can write to (unix; elsewhere the picker does not page).
fn stderr_for_child() -> Option<Stdio> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd as _;
        io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(Stdio::from)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Human text (not JSON, not a script) to stdout: control characters a renderer did not make
/// visible are shown here, so no stored text reaches the terminal raw (see `visible`).
pub(super) fn human(text: &str) -> io::Result<()> {
    stdout(&crate::visible::terminal_safe(text))
}

/// Part of a command's human text, written as it is made (`rewind log` writes page by
/// page): no newline added, control characters shown as for [`human`].
pub(crate) fn human_part(text: &str) -> io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    write_parts(&[crate::visible::terminal_safe(text).as_bytes()])
}

/// Write `text` and a newline to stdout (nothing for empty text) and flush.
pub(crate) fn stdout(text: &str) -> io::Result<()> {
    if text.is_empty() {
        return Ok(());
    }
    write_parts(&[text.as_bytes(), b"\n"])
}

/// Write `parts` to stdout, or into the pager when this command pages (starting it on the
/// first write), and flush.
fn write_parts(parts: &[&[u8]]) -> io::Result<()> {
    let mut p = paging();
    if p.wanted && p.running.is_none() {
        p.wanted = false;
        // A pager that cannot start is no reason to lose the output: it goes to stdout.
        let command = p.command.clone().unwrap_or_default();
        p.running = spawn(&command, Stdio::inherit()).ok();
        if p.running.is_some() {
            ignore_interrupts();
        }
    }
    if let Some((_, pager)) = &mut p.running {
        return write_to(pager, parts);
    }
    drop(p);
    write_to(&mut io::stdout().lock(), parts)
}

fn write_to(out: &mut impl Write, parts: &[&[u8]]) -> io::Result<()> {
    for part in parts {
        out.write_all(part)?;
    }
    out.flush()
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

/// One JSON document written to stdout as it is encoded (`rewind log --json`, whose size
/// follows the session): the bytes [`pretty`] gives, DEL and C1 controls escaped the same way,
/// in chunks of [`JSON_CHUNK`]. Call `flush` at the end: it writes what is left.
#[derive(Debug, Default)]
pub(crate) struct JsonStream {
    buf: Vec<u8>,
    /// The last byte seen was 0xC2, the lead byte of U+0080..U+00FF, held back until the next.
    lead: bool,
}

/// Bytes a [`JsonStream`] collects before it writes them.
const JSON_CHUNK: usize = 64 * 1024;

impl Write for JsonStream {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for &b in bytes {
            if std::mem::take(&mut self.lead) {
                if (0x80..=0x9f).contains(&b) {
                    let _ = write!(self.buf, "\\u{b:04x}");
                    continue;
                }
                self.buf.push(0xc2);
            }
            match b {
                0xc2 => self.lead = true,
                0x7f => self.buf.extend_from_slice(b"\\u007f"),
                b => self.buf.push(b),
            }
        }
        if self.buf.len() >= JSON_CHUNK {
            write_parts(&[&self.buf])?;
            self.buf.clear();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.lead) {
            self.buf.push(0xc2);
        }
        let written = write_parts(&[&self.buf]);
        self.buf.clear();
        written
    }
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
    finish();
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
