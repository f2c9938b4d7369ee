//! One connection's bytes, every read and write under a deadline: the head, then the body
//! (by its `Content-Length`, or chunk by chunk), each byte kept in a buffer that grows only
//! as bytes arrive and never past the cap, so no announced length is ever allocated. Bytes
//! read past one request (a pipelined next one) stay in the buffer for it.

use super::reply::Refusal;
use super::request::{self, Framing, Head, Parsed};
use rewind_core::ErrorKind;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout, timeout_at};

/// How much is asked of the socket at a time.
const CHUNK: usize = 16 << 10;
/// The longest chunk-size line or trailer line of a chunked body.
const MAX_LINE: usize = 4096;
/// The most trailer bytes after a chunked body.
const MAX_TRAILERS: usize = 16 << 10;

/// Why no (more) bytes came.
#[derive(Debug)]
pub(super) enum ReadError {
    /// The peer closed, or the socket failed: nothing to answer.
    Gone,
    /// The deadline passed.
    Late,
    /// The bytes are not a request (or too many of them): answered, then closed.
    Refused(Refusal),
}

pub(super) struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("buffered", &self.buf.len())
            .finish()
    }
}

impl Conn {
    pub(super) fn new(stream: TcpStream) -> Self {
        Self {
            stream,
            buf: Vec::new(),
        }
    }

    /// Read more into the buffer (at most `limit` bytes) before `deadline`.
    async fn fill(&mut self, limit: usize, deadline: Instant) -> Result<usize, ReadError> {
        self.buf.reserve(limit.min(CHUNK));
        let mut src = (&mut self.stream).take(limit.min(CHUNK) as u64);
        match timeout_at(deadline, src.read_buf(&mut self.buf)).await {
            Err(_) => Err(ReadError::Late),
            Ok(Ok(0) | Err(_)) => Err(ReadError::Gone),
            Ok(Ok(n)) => Ok(n),
        }
    }

    /// The next request's head, whole within `read`. On a new connection (`idle` is `None`)
    /// that time starts now; between requests the first byte may take until `idle` (the
    /// keep-alive limit) and the time starts with it. A connection that sent nothing when its
    /// time is up is `Gone` (closed without a word); one that stopped halfway is `Late`.
    pub(super) async fn head(
        &mut self,
        idle: Option<Instant>,
        read: Duration,
    ) -> Result<Head, ReadError> {
        let mut deadline = match idle {
            Some(until) if self.buf.is_empty() => until,
            _ => Instant::now() + read,
        };
        let mut waiting = idle.is_some() && self.buf.is_empty();
        // How far the buffer is known to hold no end of head: a head sent a byte at a time is
        // parsed once it is whole, not once per byte.
        let mut scanned = 0;
        loop {
            if ends_head(&self.buf, scanned) || self.buf.len() > request::MAX_HEAD {
                match request::parse(&self.buf).map_err(ReadError::Refused)? {
                    Parsed::Head(head, n) => {
                        self.buf.drain(..n);
                        return Ok(head);
                    }
                    Parsed::Partial => {}
                }
            }
            scanned = self.buf.len();
            match self.fill(CHUNK, deadline).await {
                Err(ReadError::Late) if self.buf.is_empty() => return Err(ReadError::Gone),
                Err(e) => return Err(e),
                Ok(_) if waiting => {
                    waiting = false;
                    deadline = Instant::now() + read;
                }
                Ok(_) => {}
            }
        }
    }

    /// The body as `framing` delimits it, at most `max` bytes, all before `deadline`.
    pub(super) async fn body(
        &mut self,
        framing: Framing,
        max: u64,
        deadline: Instant,
    ) -> Result<Vec<u8>, ReadError> {
        match framing {
            Framing::Length(n) if n > max => Err(ReadError::Refused(over_cap(max))),
            Framing::Length(n) => {
                let mut body = Vec::new();
                // `n` is at most the cap: a usize.
                self.take(
                    usize::try_from(n).unwrap_or(usize::MAX),
                    &mut body,
                    deadline,
                )
                .await?;
                Ok(body)
            }
            Framing::Chunked => self.chunked(max, deadline).await,
        }
    }

    /// Move `n` bytes of the stream into `out`.
    async fn take(
        &mut self,
        n: usize,
        out: &mut Vec<u8>,
        deadline: Instant,
    ) -> Result<(), ReadError> {
        let mut left = n;
        while left > 0 {
            if self.buf.is_empty() {
                self.fill(left, deadline).await?;
            }
            let k = left.min(self.buf.len());
            out.extend_from_slice(&self.buf[..k]);
            self.buf.drain(..k);
            left -= k;
        }
        Ok(())
    }

    /// One line (without its CRLF), at most `MAX_LINE` bytes.
    async fn line(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..i].to_vec();
                self.buf.drain(..i + 2);
                return Ok(line);
            }
            if self.buf.len() > MAX_LINE {
                return Err(bad("a chunked body has a line that is too long"));
            }
            self.fill(CHUNK, deadline).await?;
        }
    }

    /// A chunked body: each chunk's size is checked against what the cap has left before a
    /// byte of it is read.
    async fn chunked(&mut self, max: u64, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let line = self.line(deadline).await?;
            let size = line
                .split(|&b| b == b';')
                .next()
                .unwrap_or(&[])
                .trim_ascii();
            if size.is_empty() || size.len() > 16 || !size.iter().all(u8::is_ascii_hexdigit) {
                return Err(bad("a chunked body has a malformed chunk size"));
            }
            let size = std::str::from_utf8(size)
                .ok()
                .and_then(|s| u64::from_str_radix(s, 16).ok())
                .ok_or_else(|| bad("a chunked body has a malformed chunk size"))?;
            if size == 0 {
                break;
            }
            if size > max - body.len() as u64 {
                return Err(ReadError::Refused(over_cap(max)));
            }
            self.take(
                usize::try_from(size).unwrap_or(usize::MAX),
                &mut body,
                deadline,
            )
            .await?;
            if !self.line(deadline).await?.is_empty() {
                return Err(bad("a chunk is longer than its size says"));
            }
        }
        // Trailers, read and dropped, up to the empty line.
        let mut trailers = 0;
        loop {
            let line = self.line(deadline).await?;
            if line.is_empty() {
                return Ok(body);
            }
            trailers += line.len();
            if trailers > MAX_TRAILERS {
                return Err(bad("a chunked body has too many trailers"));
            }
        }
    }

    /// Write all of `bytes` within `limit`; false when the peer is gone or too slow.
    pub(super) async fn write(&mut self, bytes: &[u8], limit: Duration) -> bool {
        let sent = async {
            self.stream.write_all(bytes).await?;
            self.stream.flush().await
        };
        matches!(timeout(limit, sent).await, Ok(Ok(())))
    }

    /// End a connection whose request may not have been read whole: say no more, then read
    /// and drop what the peer still sends for a moment, so closing does not reset the
    /// connection before the peer has read the answer.
    pub(super) async fn linger(mut self, limit: Duration) {
        let _ = self.stream.shutdown().await;
        let deadline = Instant::now() + limit;
        let mut drained = 0;
        let mut sink = [0u8; 4096];
        while drained < (1 << 20) {
            match timeout_at(deadline, self.stream.read(&mut sink)).await {
                Ok(Ok(n)) if n > 0 => drained += n,
                _ => return,
            }
        }
    }
}

/// Whether `buf` holds the blank line that ends a head (CRLF or bare LF line ends, as httparse
/// takes them), looking only from a little before `from`.
fn ends_head(buf: &[u8], from: usize) -> bool {
    let start = from.saturating_sub(2);
    buf.get(start..).is_some_and(|tail| {
        tail.windows(2).any(|w| w == b"\n\n") || tail.windows(3).any(|w| w == b"\n\r\n")
    })
}

fn bad(message: &str) -> ReadError {
    ReadError::Refused(Refusal::bad(message))
}

/// The 413 of a body over the cap.
pub(super) fn over_cap(max: u64) -> Refusal {
    Refusal::new(
        413,
        ErrorKind::InvalidInput,
        format!("a request body is at most {max} bytes (--max-body)"),
    )
}
