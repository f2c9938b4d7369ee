//! A request's head, parsed with httparse, and how its body is framed. Only what a JSON-RPC
//! endpoint needs is taken, and every ambiguity is refused rather than guessed: both
//! `Content-Length` and `Transfer-Encoding`, differing lengths, a coding other than `chunked`,
//! a header that must be single given twice. A length is read as a number however large it
//! is, so a lying one is only ever compared with the cap, never allocated.

use super::reply::Refusal;
use rewind_core::ErrorKind;

/// The most bytes a head may take (request line and headers).
pub(super) const MAX_HEAD: usize = 64 << 10;
/// The most header lines a head may have.
const MAX_HEADERS: usize = 64;

/// A parsed request head.
#[derive(Debug)]
pub(super) struct Head {
    pub(super) method: String,
    /// The request target without its query.
    pub(super) path: String,
    /// HTTP/1.1 (else 1.0, which closes after one answer).
    pub(super) http11: bool,
    /// Names in lower case, in order.
    headers: Vec<(String, Vec<u8>)>,
}

/// How the body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    /// `Content-Length` (0 when the request has neither header). `u64::MAX` stands for any
    /// length too large to be a `u64`.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
}

/// What parsing the bytes read so far gave.
#[derive(Debug)]
pub(super) enum Parsed {
    /// A whole head, and how many bytes it took.
    Head(Head, usize),
    /// More bytes are needed.
    Partial,
}

/// Parse a head from the start of `buf`.
pub(super) fn parse(buf: &[u8]) -> Result<Parsed, Refusal> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let n = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => return Err(too_large()),
        Ok(httparse::Status::Partial) => return Ok(Parsed::Partial),
        Err(httparse::Error::TooManyHeaders) => return Err(too_large()),
        Err(httparse::Error::Version) => {
            return Err(Refusal::new(
                505,
                ErrorKind::InvalidInput,
                "only HTTP/1.0 and HTTP/1.1 are served",
            ));
        }
        Err(e) => return Err(Refusal::bad(format!("a malformed request: {e}"))),
    };
    if n > MAX_HEAD {
        return Err(too_large());
    }
    let target = req.path.unwrap_or("");
    let head = Head {
        method: req.method.unwrap_or("").to_owned(),
        path: target.split('?').next().unwrap_or("").to_owned(),
        http11: req.version == Some(1),
        headers: req
            .headers
            .iter()
            .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
            .collect(),
    };
    Ok(Parsed::Head(head, n))
}

fn too_large() -> Refusal {
    Refusal::new(
        431,
        ErrorKind::InvalidInput,
        format!("a request head is at most {MAX_HEAD} bytes and {MAX_HEADERS} headers"),
    )
}

impl Head {
    /// Every value of header `name` (lower case).
    fn all<'h, 'n>(&'h self, name: &'n str) -> impl Iterator<Item = &'h [u8]> + use<'h, 'n> {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The value of a header that may appear at most once, as text.
    pub(super) fn single<'h>(&'h self, name: &str) -> Result<Option<&'h str>, Refusal> {
        let mut values = self.all(name);
        let Some(first) = values.next() else {
            return Ok(None);
        };
        if values.next().is_some() {
            return Err(Refusal::bad(format!("the {name} header is given twice")));
        }
        std::str::from_utf8(first)
            .map(|v| Some(v.trim()))
            .map_err(|_| Refusal::bad(format!("the {name} header is not text")))
    }

    /// Whether a list header (`Connection`, `Expect`) holds `token`, ignoring case.
    pub(super) fn has_token(&self, name: &str, token: &str) -> bool {
        self.all(name).any(|v| {
            v.split(|&b| b == b',')
                .any(|t| t.trim_ascii().eq_ignore_ascii_case(token.as_bytes()))
        })
    }

    /// Whether the connection may stay open after this exchange.
    pub(super) fn keep_alive(&self) -> bool {
        if self.http11 {
            !self.has_token("connection", "close")
        } else {
            // HTTP/1.0 keep-alive is an opt-in few clients use: one answer, then close.
            false
        }
    }

    /// How the body is delimited (see the module docs).
    pub(super) fn framing(&self) -> Result<Framing, Refusal> {
        let codings: Vec<&[u8]> = self
            .all("transfer-encoding")
            .flat_map(|v| v.split(|&b| b == b','))
            .map(<[u8]>::trim_ascii)
            .filter(|c| !c.is_empty())
            .collect();
        let has_length = self.all("content-length").next().is_some();
        if !codings.is_empty() {
            if has_length {
                return Err(Refusal::bad(
                    "a request has Content-Length or Transfer-Encoding, not both",
                ));
            }
            if codings.len() == 1 && codings[0].eq_ignore_ascii_case(b"chunked") {
                return Ok(Framing::Chunked);
            }
            return Err(Refusal::new(
                501,
                ErrorKind::InvalidInput,
                "the only Transfer-Encoding served is chunked",
            ));
        }
        let mut length = None;
        for value in self
            .all("content-length")
            .flat_map(|v| v.split(|&b| b == b','))
        {
            let n = content_length(value.trim_ascii())?;
            if length.is_some_and(|l| l != n) {
                return Err(Refusal::bad(
                    "the request gives two different Content-Lengths",
                ));
            }
            length = Some(n);
        }
        Ok(Framing::Length(length.unwrap_or(0)))
    }
}

/// A Content-Length value: digits only; one too large for a `u64` is `u64::MAX` (over any cap).
fn content_length(digits: &[u8]) -> Result<u64, Refusal> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Refusal::bad("Content-Length must be a number of bytes"));
    }
    Ok(digits
        .iter()
        .try_fold(0u64, |n, &d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
        .unwrap_or(u64::MAX))
}
