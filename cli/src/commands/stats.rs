//! `rewind stats`: bytes recorded versus bytes stored, said in plain sentences.

use super::{CliError, Context, Report, Verb};
use crate::style::count;

#[derive(Debug, clap::Args)]
pub(super) struct Args {}

/// `1.4 MiB`, `512 bytes`.
pub(super) fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return count(usize::try_from(n).unwrap_or(usize::MAX), "byte");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// "12 times smaller", "1.5 times smaller", "about the same size", "1.2 times larger".
fn compared(recorded: u64, stored: u64) -> String {
    if stored == 0 {
        return "nothing stored".to_owned();
    }
    let r = recorded as f64 / stored as f64;
    if (0.95..=1.05).contains(&r) {
        "about the same size".to_owned()
    } else if r > 1.0 {
        format!("{} times smaller", trim(r))
    } else {
        format!("{} times larger", trim(1.0 / r))
    }
}

fn trim(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

pub(super) fn run(ctx: &Context, _: Args) -> Result<Report, CliError> {
    let s = ctx.engine(Verb::Stats)?.stats()?;
    let recorded = format!(
        "{}, {} and {} recorded.",
        count(s.sessions, "session"),
        count(s.checkpoints, "checkpoint"),
        count(s.file_changes, "file change"),
    );
    if s.logical_bytes == 0 {
        let text = format!("{recorded}\nNo file content is stored yet.");
        return Ok(Report::new(&s, text));
    }
    let text = format!(
        "{recorded}\n\
         Every before and after in full would take {}. The same content is kept once, which \
         leaves {}, and {} store it in {}: {} than keeping everything in full.",
        bytes(s.logical_bytes),
        bytes(s.unique_bytes),
        count(s.blobs, "compressed version"),
        bytes(s.stored_bytes),
        compared(s.logical_bytes, s.stored_bytes),
    );
    Ok(Report::new(&s, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ratios_read_as_words() {
        assert_eq!(bytes(1), "1 byte");
        assert_eq!(bytes(2048), "2.0 KiB");
        assert_eq!(bytes(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(compared(1200, 100), "12 times smaller");
        assert_eq!(compared(150, 100), "1.5 times smaller");
        assert_eq!(compared(100, 100), "about the same size");
        assert_eq!(compared(100, 200), "2.0 times larger");
    }
}
