//! Every way connecting to PostgreSQL fails, through the `rewind` binary as a person meets it:
//! each says why (the cause under the driver's "error connecting to server"), where (user, host,
//! port, database), has its stable code, and never shows the password.

use crate::common;
use crate::pg;

use common::{Bench, s};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

const SECRET: &str = "pw-Zq8r-secret";

/// `session list` on `url`: the exit code, the error code and message.
fn fails(url: &str) -> (i32, String, String) {
    let b = Bench::new();
    let (code, doc) = b.json_with(&["session", "list"], |c| {
        c.env("REWIND_STORE", url);
    });
    let error = &doc["error"];
    let message = s(error, "message");
    assert!(!message.contains(SECRET), "the password leaked: {message}");
    (code, s(error, "code"), message)
}

fn socket_url(c: &pg::Cluster, user_info: &str, db: &str) -> String {
    let dir: String = c.socket_dir().display().to_string().replace('/', "%2F");
    format!("postgres://{user_info}@{dir}:5432/{db}")
}

#[test]
fn a_missing_or_wrong_password_says_so() {
    let c = pg_or_skip!();
    c.password_role("pwuser", SECRET);
    let db = c.fresh_db();
    // The server reloads pg_hba.conf on a signal: wait until it asks for the password.
    let mut missing = fails(&socket_url(c, "pwuser", &db));
    for _ in 0..50 {
        if missing.2.contains("password") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        missing = fails(&socket_url(c, "pwuser", &db));
    }
    let (code, kind, message) = missing;
    assert_eq!((code, kind.as_str()), (3, "host_error"), "{message}");
    assert!(
        message.contains("asks for a password") && message.contains("pwuser@"),
        "{message}"
    );
    let (code, kind, message) = fails(&socket_url(c, "pwuser:wrong-one", &db));
    assert_eq!((code, kind.as_str()), (3, "host_error"), "{message}");
    assert!(
        message.contains("password authentication failed") && !message.contains("wrong-one"),
        "{message}"
    );
    // The right one works.
    let b = Bench::new();
    let (code, doc) = b.json_with(&["session", "list"], |cmd| {
        cmd.env(
            "REWIND_STORE",
            socket_url(c, &format!("pwuser:{SECRET}"), &db),
        );
    });
    assert_eq!(code, 0, "{doc}");
}

#[test]
fn a_url_without_a_host_or_malformed_is_invalid_input() {
    let (code, kind, message) = fails("postgres:///rewind");
    assert_eq!((code, kind.as_str()), (1, "invalid_input"), "{message}");
    assert!(message.contains("names no host"), "{message}");
    let (code, kind, message) = fails(&format!("postgres://me:{SECRET}@db.example:port/x"));
    assert_eq!((code, kind.as_str()), (1, "invalid_input"), "{message}");
    assert!(
        message.contains("not a PostgreSQL connection string") && message.contains("me:***@"),
        "{message}"
    );
}

#[test]
fn a_server_that_is_down_says_refused_or_no_socket() {
    // A port nobody listens on (bound, then let go).
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let url = format!("postgres://me:{SECRET}@127.0.0.1:{port}/x");
    let (code, kind, message) = fails(&url);
    assert_eq!((code, kind.as_str()), (3, "host_error"), "{message}");
    assert!(
        message.contains(&format!(
            "cannot connect to PostgreSQL at postgres://me@127.0.0.1:{port}/x"
        )) && message.contains("connection refused"),
        "{message}"
    );
    let dir = tempfile::tempdir().expect("dir");
    let socket_dir = dir.path().display().to_string().replace('/', "%2F");
    let (code, kind, message) = fails(&format!("postgres://me@{socket_dir}:5432/x"));
    assert_eq!((code, kind.as_str()), (3, "host_error"), "{message}");
    assert!(
        message.contains("no such file") && message.contains("socket"),
        "{message}"
    );
}

#[test]
fn a_database_that_does_not_exist_says_so() {
    let c = pg_or_skip!();
    let (code, kind, message) = fails(&socket_url(c, "rewind", "no_such_db"));
    assert_eq!((code, kind.as_str()), (3, "host_error"), "{message}");
    assert!(
        message.contains("database \"no_such_db\" does not exist"),
        "{message}"
    );
}

#[test]
fn a_server_that_never_answers_times_out() {
    // A listener that never accepts, its queue filled: the kernel drops the next SYN, so a
    // connection attempt waits until `connect_timeout`.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut queued = Vec::new();
    while queued.len() < 4096 {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(300)) {
            Ok(s) => queued.push(s),
            Err(_) => break,
        }
    }
    let url = format!(
        "postgres://me:{SECRET}@127.0.0.1:{}/x?connect_timeout=1",
        addr.port()
    );
    let start = std::time::Instant::now();
    let (code, kind, message) = fails(&url);
    assert_eq!((code, kind.as_str()), (3, "host_error"), "{message}");
    assert!(message.contains("timed out"), "{message}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "bounded by connect_timeout"
    );
    drop(listener);
}
