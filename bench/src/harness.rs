//! The timing harness: a warm-up, N samples, median / min / max, and the peak resident memory
//! of what was measured.
//!
//! Every operation here is stateful (an apply changes the workspace, a fork adds a session, a
//! cold snapshot needs a fresh shadow repository), so each sample gets its own untimed setup
//! and exactly one timed call. In-process peaks come from the kernel's high-water mark: writing
//! `5` to `/proc/self/clear_refs` resets `VmHWM` to the current RSS, so reading `VmHWM` after the
//! samples gives the peak reached while they ran. Child processes (git, node) are timed as
//! whole processes; their peak comes from one extra run under `/usr/bin/time -f %M`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The boxed error every scenario returns.
pub type Error = Box<dyn std::error::Error>;
/// A scenario result.
pub type Result<T> = std::result::Result<T, Error>;

/// Durations of N samples, sorted.
#[derive(Clone, Debug)]
pub struct Samples {
    sorted: Vec<Duration>,
}

impl Samples {
    /// Sort the raw durations.
    pub fn new(mut raw: Vec<Duration>) -> Self {
        assert!(!raw.is_empty(), "a measurement needs at least one sample");
        raw.sort();
        Self { sorted: raw }
    }
    /// The median (mean of the two middle samples for an even count).
    pub fn median(&self) -> Duration {
        let n = self.sorted.len();
        if n % 2 == 1 {
            self.sorted[n / 2]
        } else {
            (self.sorted[n / 2 - 1] + self.sorted[n / 2]) / 2
        }
    }
    /// The fastest sample.
    pub fn min(&self) -> Duration {
        self.sorted[0]
    }
    /// The slowest sample.
    pub fn max(&self) -> Duration {
        self.sorted[self.sorted.len() - 1]
    }
    /// How many samples.
    pub fn count(&self) -> usize {
        self.sorted.len()
    }
}

/// A timed measurement: samples plus the peak memory seen while they ran.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The durations.
    pub samples: Samples,
    /// Peak resident set in KiB, when known.
    pub peak_kib: Option<u64>,
}

/// Resident-set figures of this process from `/proc/self/status` (KiB).
fn proc_status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Reset this process's peak-RSS mark to its current RSS (Linux ≥ 4.0; ignored elsewhere).
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// This process's peak RSS since the last [`reset_peak`], in KiB.
pub fn peak_kib() -> Option<u64> {
    proc_status_kib("VmHWM:")
}

/// Run `setup` (untimed) then `op` (timed) `warmup + samples` times; keep the last `samples`.
/// `op` receives what `setup` produced, so state-changing operations start fresh each time;
/// both get the shared context `cx` (an engine, the files being edited).
pub fn measure<C, S, T>(
    cx: &mut C,
    (warmup, samples): (usize, usize),
    mut setup: impl FnMut(&mut C) -> Result<S>,
    mut op: impl FnMut(&mut C, S) -> Result<T>,
) -> Result<Measured> {
    let mut times = Vec::with_capacity(samples);
    let mut peak = None::<u64>;
    for i in 0..warmup + samples {
        let state = setup(cx)?;
        reset_peak();
        let t0 = Instant::now();
        let out = op(cx, state)?;
        let dt = t0.elapsed();
        let p = peak_kib();
        std::hint::black_box(out);
        if i >= warmup {
            times.push(dt);
            peak = peak.max(p);
        }
    }
    Ok(Measured {
        samples: Samples::new(times),
        peak_kib: peak,
    })
}

/// Like [`measure`] for operations that run child processes: the timed call is the whole
/// `op`, and the peak is left for the caller to fill from [`child_peak_kib`].
pub fn measure_children<C, S>(
    cx: &mut C,
    (warmup, samples): (usize, usize),
    mut setup: impl FnMut(&mut C) -> Result<S>,
    mut op: impl FnMut(&mut C, S) -> Result<()>,
) -> Result<Measured> {
    let mut times = Vec::with_capacity(samples);
    for i in 0..warmup + samples {
        let state = setup(cx)?;
        let t0 = Instant::now();
        op(cx, state)?;
        let dt = t0.elapsed();
        if i >= warmup {
            times.push(dt);
        }
    }
    Ok(Measured {
        samples: Samples::new(times),
        peak_kib: None,
    })
}

/// Run a command to completion, failing with its stderr when it fails.
pub fn run(cmd: &mut Command) -> Result<std::process::Output> {
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok(out)
}

/// Run a `rewind --json …` command to completion: its JSON output and how long the whole
/// process took, spawn to exit. Fails with its output when it fails (stdin is empty).
pub fn rewind_json(cmd: &mut Command) -> Result<(serde_json::Value, Duration)> {
    let start = Instant::now();
    let out = cmd
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()?;
    let took = start.elapsed();
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok((serde_json::from_slice(&out.stdout)?, took))
}

/// The string field `key` of a `rewind --json` answer.
pub fn json_str(v: &serde_json::Value, key: &str) -> Result<String> {
    Ok(v[key]
        .as_str()
        .ok_or_else(|| format!("no {key} in {v}"))?
        .to_owned())
}

/// The peak RSS (KiB) of one run of `program args…`, through `/usr/bin/time -f %M`; `None`
/// when that tool is missing. The run is extra: it is not one of the timed samples.
pub fn child_peak_kib(program: &str, args: &[&std::ffi::OsStr], cwd: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out = Command::new(time)
        .args(["-f", "%M", program])
        .args(args)
        .current_dir(cwd)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    // `time` writes its figure as the last line of stderr.
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

/// Milliseconds with a sensible number of digits.
pub fn fmt_ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 10.0 {
        format!("{ms:.1} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.0} µs", ms * 1000.0)
    }
}

/// KiB as MiB.
pub fn fmt_kib(kib: Option<u64>) -> String {
    match kib {
        Some(k) => format!("{:.1} MiB", k as f64 / 1024.0),
        None => "n/a".into(),
    }
}

/// Bytes, human-readable.
pub fn fmt_bytes(b: u64) -> String {
    let f = b as f64;
    if f >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", f / 1024.0 / 1024.0)
    } else if f >= 1024.0 {
        format!("{:.1} KiB", f / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// A ratio `a / b` of two durations.
pub fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}
