//! `rewind serve --http ADDR`: the stdio protocol as `POST /rpc` (one request or a batch per
//! body; 204 with no body when it held only notifications), plus `GET /health`. Bound to
//! 127.0.0.1 unless told otherwise; a configured token (`REWIND_SERVE_TOKEN` or `token` in
//! --config) is required as `Authorization: Bearer …` on `/rpc`, and a server on a
//! non-loopback address refuses to start without one. A pool of worker threads runs requests
//! at once, each opening the store for itself (see `backend`). SIGINT/SIGTERM stop taking
//! requests, let the running ones (an apply halfway through its files) finish, and exit 0; a
//! second signal exits at once (1).

use super::{Backend, jsonrpc};
use crate::cli::{CliError, output};
use rewind_core::ErrorKind;
use std::io::Read as _;
use std::net::{SocketAddr, ToSocketAddrs as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tiny_http::{Header, Method, Request, Response, Server};

/// The largest request body read (a `recordEdit` of a large file, in base64).
const MAX_BODY: u64 = 256 << 20;
/// How often an idle worker looks at the stop flag.
const POLL: Duration = Duration::from_millis(100);

/// `HOST:PORT`, `:PORT` or `PORT` (the last two on 127.0.0.1).
fn address(addr: &str) -> Result<SocketAddr, CliError> {
    let bad = |why: String| CliError::new(ErrorKind::InvalidInput, format!("--http {addr}: {why}"));
    let port = addr.strip_prefix(':').unwrap_or(addr);
    if let Ok(port) = port.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    addr.to_socket_addrs()
        .map_err(|e| bad(e.to_string()))?
        .next()
        .ok_or_else(|| bad("names no address".into()))
}

pub(super) fn serve(
    backend: &Backend,
    addr: &str,
    token: Option<String>,
    workers: usize,
) -> Result<(), CliError> {
    let addr = address(addr)?;
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(CliError::new(
            ErrorKind::InvalidInput,
            format!(
                "--http {addr} is reachable from other machines: set a token first \
                 ({} or \"token\" in --config)",
                super::TOKEN_ENV
            ),
        ));
    }
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // The first signal sets the flag; a second one, with the flag set, exits at once.
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&stop))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&stop)))
            .map_err(|e| CliError::host(format!("cannot handle signals: {e}")))?;
    }
    let server =
        Server::http(addr).map_err(|e| CliError::host(format!("cannot listen on {addr}: {e}")))?;
    let bound = server.server_addr().to_ip().unwrap_or(addr);
    output::stderr(&format!("rewind serve: listening on http://{bound}"));
    let roots: Vec<String> = backend
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    output::stderr(&format!("rewind serve: roots {}", roots.join(", ")));
    let auth = token.map(|t| format!("Bearer {t}"));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    match server.recv_timeout(POLL) {
                        Ok(Some(request)) => handle(request, backend, auth.as_deref()),
                        Ok(None) => {}
                        Err(e) => output::warn(&format!("rewind serve: {e}")),
                    }
                }
            });
        }
    });
    // Every worker has finished its request; dropping the server closes the listener.
    drop(server);
    output::stderr("rewind serve: stopped");
    Ok(())
}

fn json_header() -> Header {
    // A constant, valid header: `from_bytes` cannot fail on it.
    Header::from_bytes("Content-Type", "application/json").unwrap_or_else(|()| unreachable!())
}

/// A JSON body with a status.
fn reply(request: Request, status: u16, body: String) {
    // Always a Content-Length (the whole reply is in memory anyway): the simplest clients
    // need not read chunked bodies.
    let response = Response::from_string(body)
        .with_chunked_threshold(usize::MAX)
        .with_status_code(status)
        .with_header(json_header());
    // A client that went away is no error of the server's.
    let _ = request.respond(response);
}

/// An HTTP-level refusal, in the CLI's `--json` error shape.
fn refuse(request: Request, status: u16, code: ErrorKind, message: &str) {
    let body = serde_json::json!({ "error": { "code": code.as_str(), "message": message } });
    reply(request, status, body.to_string());
}

/// Whether the `Authorization` header is `expected`, compared in constant time.
fn authorised(request: &Request, expected: &str) -> bool {
    let given = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Authorization"))
        .map(|h| h.value.as_str().as_bytes());
    let Some(given) = given else {
        return false;
    };
    let expected = expected.as_bytes();
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn handle(mut request: Request, backend: &Backend, auth: Option<&str>) {
    let path = request.url().split('?').next().unwrap_or("").to_owned();
    match (request.method(), path.as_str()) {
        (Method::Get, "/health") => reply(request, 200, r#"{"status":"ok"}"#.to_owned()),
        (Method::Post, "/rpc") => {
            if auth.is_some_and(|e| !authorised(&request, e)) {
                return refuse(
                    request,
                    401,
                    ErrorKind::Untrusted,
                    "a bearer token is required: Authorization: Bearer <token>",
                );
            }
            let mut body = Vec::new();
            let read = request
                .as_reader()
                .take(MAX_BODY + 1)
                .read_to_end(&mut body);
            if let Err(e) = read {
                return refuse(request, 400, ErrorKind::InvalidInput, &e.to_string());
            }
            if body.len() as u64 > MAX_BODY {
                return refuse(
                    request,
                    413,
                    ErrorKind::InvalidInput,
                    &format!("a request body is at most {MAX_BODY} bytes"),
                );
            }
            let run = |call: jsonrpc::Call<'_>| backend.call(call);
            match jsonrpc::handle_bytes(&body, &run) {
                Some(text) => reply(request, 200, text),
                None => {
                    let _ = request.respond(Response::empty(204));
                }
            }
        }
        (_, "/rpc") => refuse(
            request,
            405,
            ErrorKind::InvalidInput,
            "POST a JSON-RPC request",
        ),
        (_, "/health") => refuse(request, 405, ErrorKind::InvalidInput, "GET /health"),
        _ => refuse(
            request,
            404,
            ErrorKind::NotFound,
            "no such endpoint: POST /rpc or GET /health",
        ),
    }
}
