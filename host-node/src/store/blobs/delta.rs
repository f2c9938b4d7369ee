//! Deltas between versions of a blob: zstd with the base version as a raw prefix (what
//! `zstd --patch-from` does). A 12-byte edit of a 100 KB source file becomes a frame of a few
//! dozen bytes, where a compressed copy is ~17 KB. The codec lives in the host: zstd is C, and
//! rewind-core (built for wasm too) never sees a delta, only whole contents.

use zstd::zstd_safe::{CCtx, CParameter, DCtx, DParameter};

/// Smallest content stored as a delta: below this a plain copy costs a few hundred bytes at
/// most, not worth a chain to resolve on every read.
pub(super) const MIN_SIZE: usize = 512;

/// Largest content (and base) stored as a delta. Both versions sit in memory while encoding
/// and decoding, and the window must span the base; a delta row claiming more is corrupt.
pub(super) const MAX_SIZE: usize = 16 << 20;

/// zstd's default level. Measured on the storage benchmark (100 edits of 12 bytes, 100 KB
/// file): level 1 stores 15.3 bytes per byte changed, level 3 10.6, level 19 4.3; a 100 KB
/// `record_edit` takes 3.6 ms at levels 1 and 3 but 22 ms at 19 (a 10 MB one 0.26 s against
/// 5.8 s). A delta is on the record path of every edit, so level 19 does not pay.
const LEVEL: i32 = 3;

/// Window that covers base and content together (`MAX_SIZE` twice at most: 2^25).
const WINDOW_LOG_MAX: u32 = 25;

/// Why a delta could not be made or applied.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct DeltaError(pub(super) String);

fn zerr(what: &str, code: usize) -> DeltaError {
    DeltaError(format!("{what}: {}", zstd::zstd_safe::get_error_name(code)))
}

/// The window log that lets every match reach back over the whole base.
fn window_log(base: usize, content: usize) -> u32 {
    let span = (base + content).max(1 << 10);
    (usize::BITS - (span - 1).leading_zeros()).clamp(10, WINDOW_LOG_MAX)
}

/// `content` as a delta against `base`. The frame carries its content size and a checksum, so
/// applying it to any other base fails instead of producing other bytes.
pub(super) fn encode(base: &[u8], content: &[u8]) -> Result<Vec<u8>, DeltaError> {
    if base.len() > MAX_SIZE || content.len() > MAX_SIZE {
        return Err(DeltaError("too large for a delta".into()));
    }
    let mut cx = CCtx::create();
    let set = |cx: &mut CCtx<'_>, p| cx.set_parameter(p).map_err(|c| zerr("zstd parameter", c));
    set(&mut cx, CParameter::CompressionLevel(LEVEL))?;
    set(&mut cx, CParameter::ChecksumFlag(true))?;
    set(&mut cx, CParameter::ContentSizeFlag(true))?;
    set(
        &mut cx,
        CParameter::WindowLog(window_log(base.len(), content.len())),
    )?;
    cx.ref_prefix(base).map_err(|c| zerr("zstd prefix", c))?;
    let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(content.len()));
    cx.compress2(&mut out, content)
        .map_err(|c| zerr("zstd delta", c))?;
    Ok(out)
}

/// Apply `delta` to `base`. `size` is the content's recorded length: the output may not exceed
/// it, and must reach it exactly.
pub(super) fn decode(base: &[u8], delta: &[u8], size: usize) -> Result<Vec<u8>, DeltaError> {
    if size > MAX_SIZE {
        return Err(DeltaError(format!(
            "a delta row records {size} bytes, more than any delta is made for"
        )));
    }
    let mut dx = DCtx::create();
    dx.set_parameter(DParameter::WindowLogMax(WINDOW_LOG_MAX))
        .map_err(|c| zerr("zstd parameter", c))?;
    dx.ref_prefix(base).map_err(|c| zerr("zstd prefix", c))?;
    let mut out = Vec::with_capacity(size);
    dx.decompress(&mut out, delta)
        .map_err(|c| zerr("the delta does not apply", c))?;
    if out.len() != size {
        return Err(DeltaError(format!(
            "the delta yields {} bytes, its row records {size}",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("let value_{i} = compute({i}, \"{}\");\n", i * 7919 % 1000))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_small_edit_of_a_large_text_is_a_small_delta_that_applies_exactly() {
        let base = text(3000);
        let mut edited = base.clone();
        edited[50_000..50_012].copy_from_slice(b"/*edit0001*/");
        let delta = encode(&base, &edited).expect("encode");
        assert!(delta.len() < 100, "delta of {} bytes", delta.len());
        assert_eq!(decode(&base, &delta, edited.len()), Ok(edited));
    }

    #[test]
    fn a_delta_applied_to_another_base_or_size_fails_instead_of_lying() {
        let base = text(500);
        let mut edited = base.clone();
        edited[100..112].copy_from_slice(b"/*edit0001*/");
        let delta = encode(&base, &edited).expect("encode");
        let mut other = base.clone();
        other[3000] ^= 1;
        assert!(decode(&other, &delta, edited.len()).is_err());
        assert!(decode(&base, &delta, edited.len() - 1).is_err());
        assert!(decode(&base, &delta, edited.len() + 1).is_err());
        assert!(decode(&base, &delta[..delta.len() - 1], edited.len()).is_err());
        assert!(decode(&base, &delta, MAX_SIZE + 1).is_err());
    }

    #[test]
    fn the_window_spans_base_and_content() {
        assert_eq!(window_log(0, 0), 10);
        assert_eq!(window_log(100 * 1024, 100 * 1024), 18);
        assert_eq!(window_log(MAX_SIZE, MAX_SIZE), WINDOW_LOG_MAX);
    }
}
