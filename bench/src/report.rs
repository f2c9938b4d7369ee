//! Markdown tables, the machine description, and BENCHMARKS.md.

use crate::harness::{Measured, fmt_kib, fmt_ms};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::process::Command;

/// Whether a row's performance target (listed at the top of BENCHMARKS.md) was met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Met {
    /// Met.
    Yes,
    /// Missed.
    No,
    /// No target for this row.
    None,
}

impl Met {
    /// `Yes` when `ok`, else `No`.
    pub fn from(ok: bool) -> Self {
        if ok { Self::Yes } else { Self::No }
    }
    fn cell(self) -> &'static str {
        match self {
            Self::Yes => "yes",
            Self::No => "**NO**",
            Self::None => "",
        }
    }
}

/// One row: a measurement, a ratio or a plain value.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Row {
    name: String,
    median: String,
    min: String,
    max: String,
    n: String,
    peak: String,
    target: String,
    met: Met,
}

/// One scenario's table (serialized when a scenario runs in its own process).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Table {
    title: String,
    notes: Vec<String>,
    rows: Vec<Row>,
}

impl Table {
    /// An empty table.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            notes: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// A line of explanation printed under the table.
    pub fn note(&mut self, text: impl Into<String>) -> &mut Self {
        self.notes.push(text.into());
        self
    }

    /// A timed row.
    pub fn timed(&mut self, name: &str, m: &Measured, target: &str, met: Met) -> &mut Self {
        self.rows.push(Row {
            name: name.into(),
            median: fmt_ms(m.samples.median()),
            min: fmt_ms(m.samples.min()),
            max: fmt_ms(m.samples.max()),
            n: m.samples.count().to_string(),
            peak: fmt_kib(m.peak_kib),
            target: target.into(),
            met,
        });
        self
    }

    /// A derived value (a ratio, a size, a throughput) in the median column.
    pub fn value(&mut self, name: &str, value: String, target: &str, met: Met) -> &mut Self {
        self.rows.push(Row {
            name: name.into(),
            median: value,
            min: "–".into(),
            max: "–".into(),
            n: "–".into(),
            peak: "–".into(),
            target: target.into(),
            met,
        });
        self
    }

    /// Render as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = format!("### {}\n\n", self.title);
        s.push_str(
            "| measurement | median | min | max | n | peak RSS | target | met? |\n\
             |---|---:|---:|---:|---:|---:|---|---|\n",
        );
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r.name,
                r.median,
                r.min,
                r.max,
                r.n,
                r.peak,
                r.target,
                r.met.cell()
            );
        }
        for n in &self.notes {
            let _ = write!(s, "\n{n}\n");
        }
        s
    }

    /// Rows whose target was missed, as `title: row`.
    pub fn misses(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.met == Met::No)
            .map(|r| {
                format!(
                    "{}: {} ({}, target {})",
                    self.title, r.name, r.median, r.target
                )
            })
            .collect()
    }
}

fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "not found".into())
}

/// Date, CPU, cores and tool versions, as a Markdown list.
pub fn environment() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let date = first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]);
    let kernel = first_line("uname", &["-sr"]);
    // Other work on the machine skews every figure; say how busy it was.
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into());
    format!(
        "- date: {date}\n- CPU: {cpu}, {cores} cores available\n- OS: {kernel}\n- load average (1, 5, 15 min) at start: {load}\n\
         - rustc: {}\n- git: {}\n- SQLite: {} (bundled by rusqlite, what rewind uses); system \
         sqlite3: {}\n- node: {}\n",
        first_line("rustc", &["--version"]),
        first_line("git", &["--version"]),
        rusqlite::version(),
        first_line("sqlite3", &["--version"])
            .split_whitespace()
            .next()
            .unwrap_or("not found"),
        first_line("node", &["--version"]),
    )
}
