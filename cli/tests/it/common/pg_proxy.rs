//! A real TCP proxy between rewind and the test cluster's unix socket, which reads the
//! PostgreSQL wire protocol as it forwards it and can break one connection at the worst moment:
//! at the COMMIT of the transaction that clears a journal (an apply's final batch). It either
//! drops that COMMIT and cuts the connection (the server never commits), or forwards it, drops
//! the server's reply and cuts the connection once the reply is complete (the server committed,
//! rewind never hears it). It can also refuse every new connection for a while (the server
//! looks unreachable). Nothing is simulated inside rewind: it sees a real socket die.
//!
//! The frontend messages it reads: the untyped startup message, then typed ones (`P` Parse names
//! a statement and its text, `B` Bind runs a named statement, `Q` a simple query, which is how
//! the client sends COMMIT). URLs through it use `sslmode=disable`, so no SSLRequest comes first.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// A poisoned lock still holds a plain value: a panicking test thread does not change it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What to do at the final COMMIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Forward everything.
    None,
    /// Do not forward the COMMIT; cut the connection (the server rolls back).
    CutBeforeCommit,
    /// Forward the COMMIT, drop the reply, cut the connection after it (the server committed).
    LoseCommitReply,
}

struct State {
    socket: PathBuf,
    fault: Mutex<Fault>,
    /// Refuse new connections until this instant.
    down_until: Mutex<Option<Instant>>,
    /// How long to stay down after the fault fired.
    down_after_fault: Mutex<Duration>,
    fired: AtomicBool,
}

/// A running proxy (its threads live as long as the test process).
pub(crate) struct Proxy {
    port: u16,
    state: Arc<State>,
}

impl Proxy {
    /// Listen on a free loopback port, forwarding to the server socket `socket`.
    pub(crate) fn start(socket: PathBuf) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("addr").port();
        let state = Arc::new(State {
            socket,
            fault: Mutex::new(Fault::None),
            down_until: Mutex::new(None),
            down_after_fault: Mutex::new(Duration::ZERO),
            fired: AtomicBool::new(false),
        });
        let s = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let down = lock(&s.down_until).is_some_and(|t| Instant::now() < t);
                if down {
                    drop(client);
                    continue;
                }
                let s = Arc::clone(&s);
                std::thread::spawn(move || serve(&s, client));
            }
        });
        Self { port, state }
    }

    /// The URL of database `db` through the proxy.
    pub(crate) fn url(&self, db: &str) -> String {
        format!(
            "postgres://rewind@127.0.0.1:{}/{db}?sslmode=disable",
            self.port
        )
    }

    /// Break the next final COMMIT (once); afterwards refuse connections for `down`.
    pub(crate) fn arm(&self, fault: Fault, down: Duration) {
        *lock(&self.state.down_after_fault) = down;
        self.state.fired.store(false, Ordering::SeqCst);
        *lock(&self.state.fault) = fault;
    }

    /// Whether the armed fault happened.
    pub(crate) fn fired(&self) -> bool {
        self.state.fired.load(Ordering::SeqCst)
    }

    /// Wait until the proxy accepts connections again.
    pub(crate) fn wait_up(&self) {
        let until = *lock(&self.state.down_until);
        if let Some(t) = until {
            std::thread::sleep(t.saturating_duration_since(Instant::now()));
        }
    }
}

/// The two sockets of one proxied connection; shutting both ends it for both peers.
struct Pair {
    client: TcpStream,
    server: UnixStream,
    /// Set once the COMMIT went through: every byte the server sends from now is dropped.
    drop_replies: AtomicBool,
}

impl Pair {
    fn cut(&self) {
        let _ = self.client.shutdown(Shutdown::Both);
        let _ = self.server.shutdown(Shutdown::Both);
    }
}

fn serve(state: &Arc<State>, client: TcpStream) {
    // Each message is forwarded with its own write: without this, Nagle's algorithm holds
    // every small reply for the peer's delayed ACK.
    let _ = client.set_nodelay(true);
    let Ok(server) = UnixStream::connect(&state.socket) else {
        return;
    };
    let pair = Arc::new(Pair {
        client,
        server,
        drop_replies: AtomicBool::new(false),
    });
    let back = Arc::clone(&pair);
    std::thread::spawn(move || backend(&back));
    frontend(state, &pair);
}

/// One message: its type byte (0 for the untyped startup message) and its whole bytes.
fn read_message(r: &mut impl Read, typed: bool) -> Option<(u8, Vec<u8>)> {
    let mut head = vec![0u8; if typed { 5 } else { 4 }];
    r.read_exact(&mut head).ok()?;
    let at = usize::from(typed);
    let len = u32::from_be_bytes(head[at..at + 4].try_into().ok()?) as usize;
    let mut body = vec![0u8; len.checked_sub(4)?];
    r.read_exact(&mut body).ok()?;
    let kind = if typed { head[0] } else { 0 };
    head.extend_from_slice(&body);
    Some((kind, head))
}

/// The NUL-terminated strings at the start of a message body.
fn strings(message: &[u8], skip: usize) -> Vec<String> {
    message[skip..]
        .split(|b| *b == 0)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

fn frontend(state: &Arc<State>, pair: &Pair) {
    let (Ok(mut from), Ok(mut to)) = (pair.client.try_clone(), pair.server.try_clone()) else {
        return;
    };
    let mut statements = std::collections::HashMap::<String, String>::new();
    let mut clears_journal = false;
    let mut typed = false;
    while let Some((kind, bytes)) = read_message(&mut from, typed) {
        typed = true;
        match kind {
            b'P' => {
                let s = strings(&bytes, 5);
                statements.insert(s[0].clone(), s.get(1).cloned().unwrap_or_default());
            }
            b'B' => {
                let s = strings(&bytes, 5);
                let query = statements.get(s.get(1).map_or("", String::as_str));
                clears_journal |= query.is_some_and(|q| q.contains("DELETE FROM journals"));
            }
            b'Q' => {
                let query = strings(&bytes, 5)[0].trim().to_ascii_uppercase();
                let ends = query.starts_with("COMMIT") || query.starts_with("ROLLBACK");
                let fault = *lock(&state.fault);
                if query.starts_with("COMMIT")
                    && clears_journal
                    && fault != Fault::None
                    && !state.fired.swap(true, Ordering::SeqCst)
                {
                    let down = *lock(&state.down_after_fault);
                    *lock(&state.down_until) = Some(Instant::now() + down);
                    if fault == Fault::CutBeforeCommit {
                        pair.cut();
                        return;
                    }
                    pair.drop_replies.store(true, Ordering::SeqCst);
                }
                if ends {
                    clears_journal = false;
                }
            }
            _ => {}
        }
        if to.write_all(&bytes).is_err() {
            break;
        }
    }
    pair.cut();
}

fn backend(pair: &Pair) {
    let (Ok(mut from), Ok(mut to)) = (pair.server.try_clone(), pair.client.try_clone()) else {
        return;
    };
    while let Some((kind, bytes)) = read_message(&mut from, true) {
        if pair.drop_replies.load(Ordering::SeqCst) {
            // The reply to COMMIT ends with ReadyForQuery: the server has committed. Cut.
            if kind == b'Z' {
                break;
            }
            continue;
        }
        if to.write_all(&bytes).is_err() {
            break;
        }
    }
    pair.cut();
}
