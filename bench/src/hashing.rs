//! The hashing floor: SHA-256 throughput of this build (`ContentHash::of`, what every recorded
//! content goes through), to compare the large `record_edit` against.

use crate::harness::{Result, measure};
use crate::report::{Met, Table};
use rewind_core::hash::ContentHash;

/// Buffer size hashed per sample.
const BYTES: usize = 64 * 1024 * 1024;

/// Run the scenario; returns the table and MB/s.
pub fn run_scenario(edit_10mb_mb_s: f64) -> Result<(Table, f64)> {
    eprintln!("bench: SHA-256 floor");
    // Not all zeros, not compressible in a trivial way (hashing speed does not care anyway).
    let buf: Vec<u8> = (0..BYTES as u64)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let m = measure(
        &mut (),
        (1, 5),
        |()| Ok(()),
        |(), ()| Ok(ContentHash::of(std::hint::black_box(&buf))),
    )?;
    let mb_s = BYTES as f64 / 1e6 / m.samples.median().as_secs_f64();
    let mut t = Table::new("Hashing floor: SHA-256 (ContentHash::of) over a 64 MiB buffer");
    t.timed("ContentHash::of, 64 MiB", &m, "", Met::None)
        .value(
            "SHA-256 throughput",
            format!("{mb_s:.0} MB/s"),
            "",
            Met::None,
        )
        .value(
            "10 MB record_edit, content per second (from the record_edit table)",
            format!(
                "{edit_10mb_mb_s:.0} MB/s ({:.0}% of the floor)",
                100.0 * edit_10mb_mb_s / mb_s
            ),
            "",
            Met::None,
        );
    t.note(
        "A 10 MB edit hashes its before and after (20 MB) and stores them compressed; the \
         percentage shows how close checkpointing large files comes to pure hashing.",
    );
    Ok((t, mb_s))
}
