//! The PostgreSQL store: the same records as the SQLite store (see `crate::sqlite`), in one
//! database that several rewind processes, on one machine or many, share.
//!
//! * Bodies are the core's JSON text, stored and handed back untouched; blobs are rows of the
//!   same codecs and delta chains as SQLite's (`crate::store::blobs`), their bytes `BYTEA`.
//! * Each commit is one `READ COMMITTED` transaction that first updates the commit counter row
//!   (`meta.version`), so commits are ordered one after another, like SQLite's `BEGIN
//!   IMMEDIATE`, and every precondition is read after the previous committer finished (see
//!   `write`). Two servers racing batches with the same precondition: exactly one wins.
//! * The apply lock is a session-level advisory lock on a connection of its own (`lock`): the
//!   server drops it when that connection ends, which is what "the owner is gone" means here.
//!   That connection is only made when the lock is wanted (an apply, or journals to settle):
//!   recording and reading hold one connection.
//! * The schema is versioned in `schema_version`, migrated on open under an advisory lock, and
//!   checked once per connection (`pool`).
//! * A process that opens the store again and again (`rewind serve`) keeps idle connections for
//!   the next open ([`keep_idle_connections`]); nothing else about a store depends on how long
//!   its connection lives (see `pool`).
//!
//! Connection strings are libpq's (`postgres://user@host:port/db`, `host=/run/sock dbname=x`);
//! no TLS: a server elsewhere is reached through a unix socket, a tunnel or a trusted network.

mod apply;
mod blobs;
mod doubt;
mod error;
mod info;
mod lock;
mod pool;
mod read;
mod schema;
mod stmt;
mod write;

pub use error::redact;
pub use pool::keep_idle_connections;
pub use schema::SCHEMA_VERSION;

use crate::store::blobs::Recent;
use crate::store::lock::ApplyLock;
use postgres::{Client, Config, NoTls, Statement};
use rewind_core::{HostError, HostErrorKind};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// How long a statement waits for a row lock (another server's commit) before it is `busy`,
/// as SQLite's busy timeout.
const LOCK_WAIT: &str = "10s";

/// One connection and the statements prepared on it (a prepared statement saves a round trip
/// per query; they survive rolled-back transactions, which is PostgreSQL's rule).
struct Conn {
    client: Client,
    cache: HashMap<&'static str, Statement>,
    /// The schema version of the database as this connection found it (the latest, unless
    /// opened read-only on an older one, which it never migrates).
    schema: i32,
}

/// The store's connection, given back to the process's idle connections (see `pool`) when the
/// store is dropped, if it keeps them.
struct Pooled {
    /// `None` only while being dropped.
    conn: Option<Conn>,
    /// Where it goes back to (`None`: it closes with the store).
    key: Option<pool::Key>,
}

impl std::ops::Deref for Pooled {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn
            .as_ref()
            .expect("a store's connection is there until it is dropped")
    }
}

impl std::ops::DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("a store's connection is there until it is dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let (Some(key), Some(conn)) = (self.key.take(), self.conn.take()) {
            pool::give_back(key, conn);
        }
    }
}

/// Records kept in PostgreSQL. Implements [`rewind_core::ports::Store`] and
/// [`rewind_core::ports::StoreWrite`].
pub struct PgStore {
    /// Reads take `&self`; the client needs `&mut` for every query.
    conn: RefCell<Pooled>,
    /// To reconnect after a commit whose reply was lost (see `doubt`).
    config: Config,
    location: String,
    /// The apply lock (a read-only store never takes it: it writes no journal).
    lock: ApplyLock<lock::AdvisoryLock>,
    /// The store's facts once read (see `PgStore::info`).
    facts: RefCell<Option<info::Facts>>,
    /// No blob inflates past this when its row does not record its size.
    blob_limit: u64,
    /// Contents lately written, the likely bases of the next versions.
    recent: Recent,
}

fn parse(url: &str) -> Result<Config, HostError> {
    url.parse::<Config>().map_err(|e| {
        HostError::new(
            HostErrorKind::InvalidInput,
            format!(
                "{:?} is not a PostgreSQL connection string: {}",
                redact(url),
                error::reason(&e)
            ),
        )
        .with_source(e)
    })
}

/// A connection with the session settings every store connection has. They travel in the
/// startup packet (`options`, after any the connection string gives), which saves the round
/// trip of a `SET` after connecting.
fn connect(config: &Config, location: &str, read_only: bool) -> Result<Client, HostError> {
    let mut settings = format!("-c lock_timeout={LOCK_WAIT} -c client_min_messages=warning");
    if read_only {
        settings.push_str(" -c default_transaction_read_only=on");
    }
    let mut config = config.clone();
    let options = match config.get_options() {
        Some(given) if !given.trim().is_empty() => format!("{given} {settings}"),
        _ => settings,
    };
    config.options(&options);
    config
        .connect(NoTls)
        .map_err(|e| error::connect(location, e))
}

/// A kept connection for `key` (see `pool`; its store's schema already checked: `false`), else
/// a new one (`true`).
fn kept_or_new(
    config: &Config,
    location: &str,
    key: &pool::Key,
) -> Result<(Conn, bool), HostError> {
    if let Some(conn) = pool::take(key) {
        return Ok((conn, false));
    }
    let conn = Conn {
        client: connect(config, location, key.read_only)?,
        cache: HashMap::new(),
        schema: schema::SCHEMA_VERSION,
    };
    Ok((conn, true))
}

/// Where the store is, for messages: user, hosts, ports and database, never the password.
fn describe(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            postgres::config::Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let ports: Vec<String> = config.get_ports().iter().map(u16::to_string).collect();
    let hosts = match hosts.join(",") {
        h if h.is_empty() => "(no host)".to_owned(),
        h => h,
    };
    let ports = match ports.join(",") {
        p if p.is_empty() => String::new(),
        p => format!(":{p}"),
    };
    format!(
        "postgres://{}@{hosts}{ports}/{}",
        config.get_user().unwrap_or_default(),
        config.get_dbname().unwrap_or_default()
    )
}

impl PgStore {
    /// Connect to the database `url` names and bring its schema up to date (creating it in an
    /// empty database). Fails when the server cannot be reached, or holds a schema from a newer
    /// rewind; the message names the server and database.
    pub fn open(url: &str) -> Result<Self, HostError> {
        let config = parse(url)?;
        let location = describe(&config);
        let key = pool::Key {
            url: url.to_owned(),
            read_only: false,
        };
        let (mut conn, fresh) = kept_or_new(&config, &location, &key)?;
        let mut facts = None;
        if fresh {
            let found = schema::look(&mut conn.client)?;
            schema::migrate(&mut conn.client, found.version)?;
            facts = found.facts;
        }
        Ok(Self::with(conn, key, config, location, facts))
    }

    /// Connect for reading only: nothing is created, migrated or written (every transaction of
    /// the connection is read-only). `None` when the database holds no rewind schema yet, which
    /// reads as an empty store.
    pub fn open_read_only(url: &str) -> Result<Option<Self>, HostError> {
        let config = parse(url)?;
        let location = describe(&config);
        let key = pool::Key {
            url: url.to_owned(),
            read_only: true,
        };
        let (mut conn, fresh) = kept_or_new(&config, &location, &key)?;
        let mut facts = None;
        if fresh {
            let found = schema::look(&mut conn.client)?;
            match found.version {
                None | Some(0) => return Ok(None),
                Some(v) => conn.schema = v,
            }
            facts = found.facts;
        }
        Ok(Some(Self::with(conn, key, config, location, facts)))
    }

    fn with(
        conn: Conn,
        key: pool::Key,
        config: Config,
        location: String,
        facts: Option<info::Facts>,
    ) -> Self {
        let keeping = pool::enabled();
        // The apply lock's connection is a writing one, kept apart from the store's.
        let lock_key = keeping.then(|| pool::Key {
            url: key.url.clone(),
            read_only: false,
        });
        let lock = ApplyLock::new(lock::AdvisoryLock::new(
            config.clone(),
            location.clone(),
            lock_key,
        ));
        Self {
            conn: RefCell::new(Pooled {
                conn: Some(conn),
                key: keeping.then_some(key),
            }),
            config,
            location,
            lock,
            facts: RefCell::new(facts),
            blob_limit: rewind_core::ctx::Limits::default().max_file_bytes,
            recent: Recent::default(),
        }
    }

    /// Bound for inflating a blob whose row does not record its size (the configured maximum
    /// file size).
    pub fn set_blob_limit(&mut self, bytes: u64) {
        self.blob_limit = bytes;
    }

    /// Hold the apply lock until [`PgStore::release_apply_lock`] (or drop), waiting up to
    /// `timeout` for another process's apply.
    pub fn hold_apply_lock(&mut self, timeout: std::time::Duration) -> Result<(), HostError> {
        self.lock.pin(timeout)
    }

    /// Let go of a lock taken by [`PgStore::hold_apply_lock`] (kept while a journal of this
    /// store is still pending).
    pub fn release_apply_lock(&mut self) {
        self.lock.unpin();
    }

    /// Where the store is (`postgres://user@host:port/db`, no password).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Run `f` on the connection (reads: one statement each, outside any transaction).
    fn with_conn<T>(
        &self,
        what: &str,
        f: impl FnOnce(&mut Client, &mut HashMap<&'static str, Statement>) -> Result<T, postgres::Error>,
    ) -> Result<T, HostError> {
        let mut conn = self.conn.try_borrow_mut().map_err(|_| {
            HostError::new(
                HostErrorKind::Io,
                format!("cannot read {what}: the connection is in use"),
            )
        })?;
        let Conn { client, cache, .. } = &mut **conn;
        f(client, cache).map_err(|e| error::host(&format!("cannot read {what}"), e))
    }
}

impl fmt::Debug for PgStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgStore")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}
