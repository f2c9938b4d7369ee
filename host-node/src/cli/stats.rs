//! `rewind stats`: bytes recorded versus bytes stored.

use super::{Access, CliError, Context, Report};

#[derive(Debug, clap::Args)]
pub(super) struct Args {}

pub(super) fn run(ctx: &Context, _: Args) -> Result<Report, CliError> {
    let s = ctx.engine(Access::Read)?.stats()?;
    let ratio = |a: u64, b: u64| {
        if b == 0 {
            "-".to_owned()
        } else {
            format!("{:.1}x", a as f64 / b as f64)
        }
    };
    let text = format!(
        "{} session(s), {} checkpoint(s), {} file change(s)\nrecorded {} bytes (every before and after in full)\ndistinct {} bytes ({} saved by storing identical content once)\nstored   {} bytes in {} blob(s) ({} smaller than recorded)",
        s.sessions,
        s.checkpoints,
        s.file_changes,
        s.logical_bytes,
        s.unique_bytes,
        ratio(s.logical_bytes, s.unique_bytes),
        s.stored_bytes,
        s.blobs,
        ratio(s.logical_bytes, s.stored_bytes)
    );
    Ok(Report::new(&s, text))
}
