//! Blob compression: content is stored compressed (zstd) when that saves space, raw otherwise.
//! Source code compresses well; already-compressed or random content is kept as it is. Rows
//! written before zstd was adopted are `deflate` and keep reading.
//!
//! Measured on six files of this repository (140 KB together): zstd level 3 makes 35.6 KB in
//! 1.1 ms, deflate level 6 (the previous codec) 34.4 KB in 4.0 ms, deflate level 1 42.2 KB in
//! 1.2 ms: nearly deflate-6's size at under a third of its time, on the record path of every
//! first version of a file.

/// Below this size compression rarely pays for its header.
const MIN_SIZE: usize = 64;

/// zstd's default level.
const LEVEL: i32 = 3;

thread_local! {
    /// One compression context per thread, reused: setting one up costs more than compressing
    /// a small file (a first workspace snapshot stores thousands).
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

fn compress(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let cx = match slot.as_mut() {
            Some(cx) => cx,
            None => slot.insert(zstd::bulk::Compressor::new(LEVEL)?),
        };
        cx.compress(bytes)
    })
}

/// `(codec, stored bytes)` for content about to be stored.
pub(super) fn encode(bytes: &[u8]) -> (&'static str, std::borrow::Cow<'_, [u8]>) {
    if bytes.len() >= MIN_SIZE
        && let Ok(packed) = compress(bytes)
        // Keep the raw bytes unless compression saves at least an eighth: decoding costs time.
        && packed.len() + bytes.len() / 8 < bytes.len()
    {
        return ("zstd", std::borrow::Cow::Owned(packed));
    }
    ("raw", std::borrow::Cow::Borrowed(bytes))
}

/// Why a stored blob cannot be decoded at all.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum DecodeError {
    /// It inflates past its recorded size, or past `limit` when no size is recorded.
    TooLarge(u64),
}

/// The content of a stored blob. Inflating stops at the row's recorded size, or at `limit` (the
/// configured maximum file size) when the row records none, so a damaged or planted row cannot
/// exhaust memory. Otherwise undecodable data is handed back as stored: it cannot hash to its
/// key, so the core reports the blob as unreadable and never restores it.
pub(super) fn decode(
    codec: &str,
    stored: Vec<u8>,
    size: Option<i64>,
    limit: u64,
) -> Result<Vec<u8>, DecodeError> {
    let bound = match size {
        Some(s) => u64::try_from(s).map_err(|_| DecodeError::TooLarge(0))?,
        None => limit,
    };
    let max = usize::try_from(bound).unwrap_or(usize::MAX);
    match codec {
        "zstd" => {
            // The frame states its content size: nothing is allocated past the bound, and a
            // frame without one is damaged (every zstd row is written with it).
            match zstd::zstd_safe::get_frame_content_size(&stored) {
                Ok(Some(n)) if n > bound => Err(DecodeError::TooLarge(bound)),
                Ok(Some(n)) => {
                    let n = usize::try_from(n).unwrap_or(max);
                    Ok(zstd::bulk::decompress(&stored, n).unwrap_or(stored))
                }
                _ => Ok(stored),
            }
        }
        "deflate" => match miniz_oxide::inflate::decompress_to_vec_with_limit(&stored, max) {
            Ok(bytes) => Ok(bytes),
            Err(e) if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                Err(DecodeError::TooLarge(bound))
            }
            Err(_) => Ok(stored),
        },
        _ => Ok(stored),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_compressed_and_comes_back_exact() {
        let text = "fn main() {\n    println!(\"hello\");\n}\n".repeat(40);
        let (codec, stored) = encode(text.as_bytes());
        assert_eq!(codec, "zstd");
        assert!(stored.len() < text.len() / 4);
        assert_eq!(
            decode(codec, stored.into_owned(), Some(text.len() as i64), 10),
            Ok(text.into_bytes())
        );
    }

    #[test]
    fn incompressible_or_tiny_content_stays_raw() {
        // xorshift64: high-entropy bytes that deflate cannot shrink.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        assert_eq!(encode(&noise).0, "raw");
        assert_eq!(encode(b"short").0, "raw");
    }

    #[test]
    fn rows_deflated_before_zstd_still_read() {
        let text = "older rows were deflated\n".repeat(100).into_bytes();
        let stored = miniz_oxide::deflate::compress_to_vec(&text, 6);
        let size = Some(text.len() as i64);
        assert_eq!(decode("deflate", stored, size, 10), Ok(text));
    }

    #[test]
    fn damaged_zstd_data_is_returned_as_stored() {
        let (_, stored) = encode(&[b'x'; 5000]);
        let mut damaged = stored.into_owned();
        let n = damaged.len();
        damaged[n - 3] ^= 0xff;
        assert_eq!(
            decode("zstd", damaged.clone(), Some(5000), 5000),
            Ok(damaged)
        );
    }

    #[test]
    fn damaged_deflate_data_is_returned_as_stored() {
        let damaged = vec![1, 2, 3, 4];
        assert_eq!(
            decode("deflate", damaged.clone(), Some(100), 100),
            Ok(damaged)
        );
    }

    #[test]
    fn inflating_stops_at_the_recorded_size_or_the_limit() {
        let big = vec![b'a'; 1 << 20];
        let (codec, stored) = encode(&big);
        assert_eq!(codec, "zstd");
        let stored = stored.into_owned();
        // A row that lies about its size, or records none, stops at its bound.
        assert_eq!(
            decode(codec, stored.clone(), Some(1000), u64::MAX),
            Err(DecodeError::TooLarge(1000))
        );
        assert_eq!(
            decode(codec, stored.clone(), None, 4096),
            Err(DecodeError::TooLarge(4096))
        );
        assert_eq!(
            decode(codec, stored.clone(), Some(-1), 4096),
            Err(DecodeError::TooLarge(0))
        );
        assert_eq!(decode(codec, stored, None, 2 << 20), Ok(big));
    }
}
