//! One connection, request after request: the head (under the read deadline, or the idle
//! limit between requests), the checks that need only the head (`guard`), the body (capped,
//! under the read deadline), the call (on a blocking thread, at most `--workers` at once),
//! the answer (under the write deadline). A slow or stalled peer holds its socket and this
//! task, never a worker: a worker is taken only once the whole body is in memory, and given
//! back before the answer is written. When the server stops, a connection waiting for a head
//! or a body is dropped, and one whose call runs gets its answer and closes.

use super::conn::{Conn, ReadError};
use super::reply::{Refusal, Reply};
use super::request::{Framing, Head};
use super::{Server, Stop};
use crate::serve::{Backend, jsonrpc};
use rewind_core::ErrorKind;
use rewind_host::rpc::RpcError;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::Instant;

/// How long a closing connection keeps reading what its peer still sends (see `Conn::linger`).
const LINGER: Duration = Duration::from_millis(500);

/// What became of one exchange.
enum Next {
    /// The answer is sent and the connection may carry another request.
    KeepOpen,
    /// Done: close.
    Close,
    /// Answered before the request was read whole: close gently.
    Linger,
}

/// An answer, and whether the request was read whole (so the connection can go on).
type Answer = (Reply, bool);

/// The peer went away: nothing to answer.
struct Gone;

pub(super) async fn connection(stream: TcpStream, server: Arc<Server>, mut stop: Stop) {
    let mut conn = Conn::new(stream);
    let mut idle = None;
    loop {
        let head = tokio::select! {
            head = conn.head(idle, server.limits.read) => head,
            _ = stop.wait_for(|s| *s) => return,
        };
        let refusal = match head {
            Ok(head) => match exchange(&mut conn, &head, &server, &mut stop).await {
                Next::KeepOpen => {
                    idle = Some(Instant::now() + server.limits.idle);
                    continue;
                }
                Next::Close => return,
                Next::Linger => return conn.linger(LINGER).await,
            },
            Err(ReadError::Gone) => return,
            Err(ReadError::Late) => late(server.limits.read),
            Err(ReadError::Refused(r)) => r,
        };
        if conn
            .write(
                &Reply::refused(&refusal).to_bytes(false),
                server.limits.write,
            )
            .await
        {
            conn.linger(LINGER).await;
        }
        return;
    }
}

fn late(read: Duration) -> Refusal {
    Refusal::new(
        408,
        ErrorKind::Unavailable,
        format!(
            "the request did not arrive within {:.1} s (--read-timeout)",
            read.as_secs_f64()
        ),
    )
}

fn stopping() -> Refusal {
    Refusal::new(503, ErrorKind::Unavailable, "the server is stopping")
}

async fn exchange(conn: &mut Conn, head: &Head, server: &Arc<Server>, stop: &mut Stop) -> Next {
    let (reply, whole) = match server.guard.admit(head) {
        Err(r) => (Reply::refused(&r), false),
        Ok(origin) => match route(conn, head, origin.is_some(), server, stop).await {
            Err(Gone) => return Next::Close,
            Ok(mut answer) => {
                if let Some(origin) = origin {
                    // Only a configured origin gets here (`admit`).
                    answer
                        .0
                        .headers
                        .push(("Access-Control-Allow-Origin", origin.to_owned()));
                    answer.0.headers.push(("Vary", "Origin".to_owned()));
                }
                answer
            }
        },
    };
    let keep = whole && head.keep_alive() && !*stop.borrow();
    if !conn.write(&reply.to_bytes(keep), server.limits.write).await {
        return Next::Close;
    }
    match (keep, whole) {
        (true, _) => Next::KeepOpen,
        // Stopping: no time to spend on a peer that may still be sending.
        (false, false) if !*stop.borrow() => Next::Linger,
        (false, _) => Next::Close,
    }
}

async fn route(
    conn: &mut Conn,
    head: &Head,
    cors: bool,
    server: &Arc<Server>,
    stop: &mut Stop,
) -> Result<Answer, Gone> {
    let framing = match head.framing() {
        Ok(f) => f,
        Err(r) => return Ok((Reply::refused(&r), false)),
    };
    let bodiless = framing == Framing::Length(0);
    let refuse = |r: Refusal| Ok((Reply::refused(&r), bodiless));
    match (head.method.as_str(), head.path.as_str()) {
        ("GET", "/health") => Ok((Reply::json(200, r#"{"status":"ok"}"#.into()), bodiless)),
        ("OPTIONS", "/rpc") if cors => Ok((preflight(), bodiless)),
        ("POST", "/rpc") => rpc(conn, head, framing, server, stop).await,
        (_, "/rpc") => refuse(
            Refusal::new(
                405,
                ErrorKind::InvalidInput,
                "POST a JSON-RPC request to /rpc",
            )
            .with_header("Allow", "POST"),
        ),
        (_, "/health") => refuse(
            Refusal::new(405, ErrorKind::InvalidInput, "GET /health").with_header("Allow", "GET"),
        ),
        (_, path) => refuse(Refusal::new(
            404,
            ErrorKind::NotFound,
            format!("no such endpoint {path:?}: POST /rpc or GET /health"),
        )),
    }
}

/// A browser's CORS preflight from a configured origin: a JSON POST with the token may follow.
fn preflight() -> Reply {
    let mut reply = Reply::json(204, String::new());
    reply.headers.extend([
        ("Access-Control-Allow-Methods", "POST".to_owned()),
        (
            "Access-Control-Allow-Headers",
            "Authorization, Content-Type".to_owned(),
        ),
        ("Access-Control-Max-Age", "600".to_owned()),
    ]);
    reply
}

async fn rpc(
    conn: &mut Conn,
    head: &Head,
    framing: Framing,
    server: &Arc<Server>,
    stop: &mut Stop,
) -> Result<Answer, Gone> {
    let limits = &server.limits;
    let bodiless = framing == Framing::Length(0);
    if let Err(r) = server.guard.authorise_rpc(head) {
        return Ok((Reply::refused(&r), bodiless));
    }
    if let Framing::Length(n) = framing
        && n > limits.max_body
    {
        return Ok((
            Reply::refused(&super::conn::over_cap(limits.max_body)),
            false,
        ));
    }
    match head.single("expect") {
        Ok(None) => {}
        Ok(Some(e)) if e.eq_ignore_ascii_case("100-continue") => {
            if !bodiless
                && !conn
                    .write(b"HTTP/1.1 100 Continue\r\n\r\n", limits.write)
                    .await
            {
                return Err(Gone);
            }
        }
        Ok(Some(_)) => {
            let r = Refusal::new(
                417,
                ErrorKind::InvalidInput,
                "the only Expect served is 100-continue",
            );
            return Ok((Reply::refused(&r), false));
        }
        Err(r) => return Ok((Reply::refused(&r), false)),
    }
    let deadline = Instant::now() + limits.read;
    let body = tokio::select! {
        body = conn.body(framing, limits.max_body, deadline) => body,
        _ = stop.wait_for(|s| *s) => return Ok((Reply::refused(&stopping()), false)),
    };
    let body = match body {
        Ok(body) => body,
        Err(ReadError::Gone) => return Err(Gone),
        Err(ReadError::Late) => return Ok((Reply::refused(&late(limits.read)), false)),
        Err(ReadError::Refused(r)) => return Ok((Reply::refused(&r), false)),
    };
    let permit = tokio::select! {
        permit = Arc::clone(&server.workers).acquire_owned() => permit,
        _ = stop.wait_for(|s| *s) => return Ok((Reply::refused(&stopping()), true)),
    };
    let Ok(permit) = permit else {
        return Ok((Reply::refused(&stopping()), true));
    };
    let on = Arc::clone(server);
    // The permit goes with the call: it is given back when the call ends, even if this
    // connection has gone by then.
    let ran = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        run(&on.backend, &body)
    })
    .await;
    Ok(match ran {
        Ok(Some(text)) => (Reply::json(200, text), true),
        Ok(None) => (Reply::json(204, String::new()), true),
        Err(_) => {
            let r = Refusal::new(
                500,
                ErrorKind::HostError,
                "the server failed to run the request",
            );
            (Reply::refused(&r), true)
        }
    })
}

/// One body through the JSON-RPC framing. A call that panics is that call's error (the rest
/// of a batch still runs, and the server goes on).
fn run(backend: &Backend, body: &[u8]) -> Option<String> {
    let call = |call: jsonrpc::Call<'_>| {
        catch_unwind(AssertUnwindSafe(move || backend.call(call))).unwrap_or_else(|_| {
            Err(RpcError::new(
                ErrorKind::HostError,
                "internal error: the call failed unexpectedly (a bug in rewind: see the \
                 server's stderr)",
            ))
        })
    };
    jsonrpc::handle_bytes(body, &call)
}
