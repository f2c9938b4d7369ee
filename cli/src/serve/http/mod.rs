//! `rewind serve --http ADDR`: the stdio protocol as `POST /rpc` (one request or a batch per
//! body; 204 with no body when it held only notifications), plus `GET /health`. Made to be
//! left running on a machine with a browser and other users:
//!
//! - `/rpc` always needs the token (`token`), and every request a `Host` that is a loopback
//!   name or a configured one and no `Origin` but a configured one (`guard`), all decided
//!   from the head, before a body byte is read or a store is opened;
//! - a body is capped (`--max-body`) before anything is allocated, and every read and write
//!   has a deadline (`--read-timeout`, `--write-timeout`, `--idle-timeout`), so a slow or
//!   stalled peer costs one socket (there are at most `--max-connections`), never one of the
//!   `--workers` that run calls;
//! - every answer but a result is a JSON-RPC error object with the stable code (`reply`);
//! - SIGINT/SIGTERM stop accepting, drop the connections that wait for a head or a body, let
//!   running calls (an apply halfway through its files) finish and answer, and exit 0 at most
//!   `GRACE` after the last of them; a second signal exits at once (1).
//!
//! The HTTP/1.1 itself is tokio's sockets and timers with httparse reading the head, not
//! hyper: hyper answers what it cannot parse itself (a `Content-Length` of 2^64-1, a
//! malformed or oversized head, a head that came too late) with a bodiless 400/431 or a bare
//! close, where this server owes a JSON-RPC error (413, 400, 431, 408) with `error.data.code`.

mod conn;
mod exchange;
mod guard;
mod reply;
mod request;
mod token;

pub(crate) use token::Given;

use super::Backend;
use crate::{CliError, output};
use guard::Guard;
use rewind_core::ErrorKind;
use std::net::{SocketAddr, ToSocketAddrs as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};

/// How long the server waits, once the last running call has ended, for answers to be
/// written before it exits anyway.
const GRACE: Duration = Duration::from_secs(2);
/// How often the accept loop looks at the stop flag the signal handlers set.
const POLL: Duration = Duration::from_millis(50);

/// The HTTP server's options (`rewind serve --help`).
#[derive(Debug, clap::Args)]
pub(crate) struct Options {
    /// Requests the HTTP server runs at once.
    #[arg(long, value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    workers: u16,
    /// A `Host` the HTTP server answers besides localhost, 127.0.0.1 and [::1]: `NAME` (on
    /// the bound port) or `NAME:PORT` (repeatable; also "hosts" in --config). Any other
    /// `Host` is refused (403), which stops DNS rebinding.
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub(crate) allow_hosts: Vec<String>,
    /// A browser origin allowed to call the HTTP server, as `scheme://host[:port]`
    /// (repeatable; also "origins" in --config). A request with any other `Origin` is refused.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allow_origins: Vec<String>,
    /// The largest request body, in bytes (default 16 MiB); a larger one is refused (413)
    /// before it is read.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20, requires = "http",
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    max_body: u64,
    /// Seconds a request's head, and then its body, may take to arrive (408 after).
    #[arg(long, value_name = "SECS", default_value = "10", requires = "http",
          value_parser = seconds)]
    read_timeout: Duration,
    /// Seconds an answer may take to be written before the connection is dropped.
    #[arg(long, value_name = "SECS", default_value = "10", requires = "http",
          value_parser = seconds)]
    write_timeout: Duration,
    /// Seconds an open connection may wait for its next request.
    #[arg(long, value_name = "SECS", default_value = "30", requires = "http",
          value_parser = seconds)]
    idle_timeout: Duration,
    /// Connections open at once; one more is answered 503 and closed.
    #[arg(long, value_name = "N", default_value_t = 256, requires = "http",
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    max_connections: u32,
}

/// A number of seconds, fractions allowed (`0.5`), more than 0 and at most a day.
fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err("a number of seconds above 0 and at most 86400".into()),
    }
}

/// The deadlines and caps of every connection.
#[derive(Debug)]
struct Limits {
    max_body: u64,
    read: Duration,
    write: Duration,
    idle: Duration,
}

/// What every connection shares.
#[derive(Debug)]
struct Server {
    backend: Backend,
    guard: Guard,
    limits: Limits,
    /// One permit per call that may run at once (`--workers`).
    workers: Arc<Semaphore>,
    /// How many permits `workers` has.
    worker_count: u16,
}

/// Becomes true when the server stops.
type Stop = watch::Receiver<bool>;

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

/// SIGINT/SIGTERM: the first sets the flag; a second one, with the flag set, exits at once.
fn on_signals() -> Result<Arc<AtomicBool>, CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&stop))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&stop)))
            .map_err(|e| CliError::host(format!("cannot handle signals: {e}")))?;
    }
    Ok(stop)
}

pub(super) fn serve(
    backend: Backend,
    addr: &str,
    given: Option<Given>,
    opts: Options,
) -> Result<(), CliError> {
    let addr = address(addr)?;
    if !addr.ip().is_loopback() && given.is_none() {
        return Err(CliError::new(
            ErrorKind::InvalidInput,
            format!(
                "--http {addr} is reachable from other machines: give the token yourself \
                 ({} or \"token\" in --config)",
                super::TOKEN_ENV
            ),
        ));
    }
    guard::check_configured(&opts.allow_hosts, &opts.allow_origins)
        .map_err(|why| CliError::new(ErrorKind::InvalidInput, why))?;
    let root = backend.roots().first().cloned().unwrap_or_default();
    let token = token::resolve(given, &root)?;
    let signalled = on_signals()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(usize::from(opts.workers) + 1)
        .build()
        .map_err(|e| CliError::host(format!("cannot start the server: {e}")))?;
    let listener = std::net::TcpListener::bind(addr)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| CliError::host(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener.local_addr().unwrap_or(addr);
    output::stderr(&format!("rewind serve: listening on http://{bound}"));
    let roots: Vec<String> = backend
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    output::stderr(&format!("rewind serve: roots {}", roots.join(", ")));
    output::stderr(&token.banner);
    let server = Arc::new(Server {
        backend,
        guard: Guard {
            port: bound.port(),
            hosts: opts.allow_hosts,
            origins: opts.allow_origins,
            token: token.token,
            token_hint: token.hint,
        },
        limits: Limits {
            max_body: opts.max_body,
            read: opts.read_timeout,
            write: opts.write_timeout,
            idle: opts.idle_timeout,
        },
        workers: Arc::new(Semaphore::new(usize::from(opts.workers))),
        worker_count: opts.workers,
    });
    let connections = Arc::new(Semaphore::new(opts.max_connections as usize));
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| CliError::host(format!("cannot listen on {addr}: {e}")))?;
        accept(listener, &server, &connections, &signalled).await;
        Ok::<(), CliError>(())
    })?;
    // Whatever is left (connections still writing to a peer that does not read) is dropped.
    runtime.shutdown_timeout(Duration::from_millis(100));
    output::stderr("rewind serve: stopped");
    Ok(())
}

/// Accept until a signal, then stop as the module docs say.
async fn accept(
    listener: tokio::net::TcpListener,
    server: &Arc<Server>,
    connections: &Arc<Semaphore>,
    signalled: &AtomicBool,
) {
    let (stop_tx, stop) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    let mut poll = tokio::time::interval(POLL);
    while !signalled.load(Ordering::SeqCst) {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    let Ok(slot) = Arc::clone(connections).try_acquire_owned() else {
                        too_many(stream);
                        continue;
                    };
                    let (server, stop) = (Arc::clone(server), stop.clone());
                    tasks.spawn(async move {
                        exchange::connection(stream, server, stop).await;
                        drop(slot);
                    });
                }
                Err(e) => {
                    // Out of descriptors, most likely: wait for some to close.
                    output::warn(&format!("rewind serve: {e}"));
                    tokio::time::sleep(POLL).await;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            _ = poll.tick() => {}
        }
    }
    // No new connection: a client sees a refused connect, not a wait.
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = async { while tasks.join_next().await.is_some() {} };
    let calls_ended = async {
        // Every permit back: no call runs (and none can start: connections see the stop).
        let _all = server
            .workers
            .acquire_many(u32::from(server.worker_count))
            .await;
        tokio::time::sleep(GRACE).await;
    };
    tokio::select! {
        () = drained => {}
        () = calls_ended => {}
    }
}

/// Over `--max-connections`: a 503 into the socket's buffer if it fits at once, then close.
fn too_many(stream: tokio::net::TcpStream) {
    let r = reply::Refusal::new(
        503,
        ErrorKind::Unavailable,
        "too many connections (--max-connections): try again",
    );
    // A plain non-blocking write: tokio's own `try_write` refuses until the runtime has seen
    // the new socket become writable, which it may not have yet.
    if let Ok(mut s) = stream.into_std() {
        let _ = std::io::Write::write(&mut s, &reply::Reply::refused(&r).to_bytes(false));
    }
}
