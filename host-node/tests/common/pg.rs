//! A real, throwaway PostgreSQL for tests: one cluster per test binary, made on first use with
//! the server's own tools (`initdb` into a temp directory, `pg_ctl start` listening only on a
//! unix socket in that directory), and a fresh database per test. Nothing is mocked.
//!
//! * The binaries are found under `/usr/lib/postgresql/*/bin` (Debian's layout) or on PATH;
//!   `scripts/setup` installs them. Without them every test here is skipped with a message.
//! * The server refuses to run as root, so under root (CI containers) it runs as the `postgres`
//!   user the Debian package creates (`runuser`), in a directory chowned to it.
//! * The test harness never drops statics, so a watchdog shell started beside the server
//!   stops it (`pg_ctl stop -m fast`) and removes the directory once this process is gone,
//!   however it ends.
//! * Durability is switched off (`fsync`, `synchronous_commit`): these databases die with the
//!   test, and the store's concurrency does not depend on them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A running cluster.
pub(crate) struct Cluster {
    /// Holds the data directory (`data/`), the socket and the log.
    base: PathBuf,
}

const PORT: u16 = 5432;

fn bin_dir() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").is_file() && p.join("pg_ctl").is_file())
        .collect();
    // The newest major version.
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
    });
    if let Some(dir) = found.pop() {
        return Some(dir);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// `program args…`, as the `postgres` user when we are root.
fn as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Cluster {
    fn start(bin: &Path) -> Self {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let base = std::env::temp_dir().join(format!("rewind-pg-{}-{stamp}", std::process::id()));
        std::fs::create_dir_all(&base).expect("cluster dir");
        if is_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.args(["postgres:postgres"]).arg(&base);
                    c
                },
                "chown",
            );
        }
        let data = base.join("data");
        let mut init = as_server_user(&bin.join("initdb"));
        init.arg("-D").arg(&data);
        init.args([
            "-U",
            "rewind",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        ]);
        run(init, "initdb");
        let options = format!(
            "-k {} -p {PORT} -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200",
            base.display()
        );
        let mut start = as_server_user(&bin.join("pg_ctl"));
        start.arg("-D").arg(&data).arg("-l").arg(base.join("log"));
        start.args(["-o", &options, "-w", "start"]);
        run(start, "pg_ctl start");
        // The watchdog: once this test process is gone, stop the server and clean up. It is
        // started in a session of its own and outlives the shell that starts it, which exits
        // at once (and is waited for).
        let watch = format!(
            "while [ -d /proc/{pid} ]; do sleep 0.5; done; \"$0\" -D \"$1\" stop -m fast; rm -rf \"$2\"",
            pid = std::process::id()
        );
        let script = format!(
            "setsid /bin/sh -c '{watch}' \"$0\" \"$1\" \"$2\" </dev/null >/dev/null 2>&1 &"
        );
        let mut dog = as_server_user(Path::new("/bin/sh"));
        dog.args(["-c", &script])
            .arg(bin.join("pg_ctl"))
            .arg(&data)
            .arg(&base)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        run(dog, "the watchdog");
        Self { base }
    }

    /// A connection string (key=value form) for `db`.
    pub(crate) fn conninfo(&self, db: &str) -> String {
        format!(
            "host={} port={PORT} user=rewind dbname={db}",
            self.base.display()
        )
    }

    /// A `postgres://` URL for `db` (what `rewind --store` takes).
    pub(crate) fn url(&self, db: &str) -> String {
        let host: String = self
            .base
            .display()
            .to_string()
            .bytes()
            .map(|b| match b {
                b'/' => "%2F".to_owned(),
                _ => char::from(b).to_string(),
            })
            .collect();
        format!("postgres://rewind@{host}:{PORT}/{db}")
    }

    /// The server's unix socket (what a test's TCP proxy forwards to).
    pub(crate) fn socket(&self) -> PathBuf {
        self.base.join(format!(".s.PGSQL.{PORT}"))
    }

    /// The socket directory and port, for a URL that names them itself.
    pub(crate) fn socket_dir(&self) -> &Path {
        &self.base
    }

    /// A role `name` that must log in with `password` (SCRAM), allowed into every database.
    /// The rule goes first in `pg_hba.conf` (every other role keeps `trust`) and the server
    /// reloads it.
    pub(crate) fn password_role(&self, name: &str, password: &str) {
        let hba = self.base.join("data/pg_hba.conf");
        let old = std::fs::read_to_string(&hba).expect("read pg_hba.conf");
        if !old.contains(&format!(" {name} ")) {
            let rule = format!("local all {name} scram-sha-256\n");
            std::fs::write(&hba, format!("{rule}{old}")).expect("write pg_hba.conf");
        }
        let mut admin = postgres::Client::connect(&self.conninfo("postgres"), postgres::NoTls)
            .expect("connect to the maintenance database");
        admin
            .batch_execute(&format!(
                "DO $$ BEGIN CREATE ROLE {name} LOGIN SUPERUSER; EXCEPTION WHEN duplicate_object \
                 THEN NULL; END $$; ALTER ROLE {name} PASSWORD '{password}'; \
                 SELECT pg_reload_conf();"
            ))
            .expect("make the role");
    }

    /// A new, empty database, named after the test process and a counter.
    pub(crate) fn fresh_db(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("t_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let mut admin = postgres::Client::connect(&self.conninfo("postgres"), postgres::NoTls)
            .expect("connect to the maintenance database");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        name
    }
}

/// The cluster of this test binary, started on first use; `None` (with a message, once) when
/// the PostgreSQL server binaries are not installed.
pub(crate) fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();
    CLUSTER
        .get_or_init(|| match bin_dir() {
            Some(bin) => Some(Cluster::start(&bin)),
            None => {
                eprintln!(
                    "skipping the PostgreSQL tests: no PostgreSQL server binaries (initdb, \
                     pg_ctl) under /usr/lib/postgresql/*/bin or on PATH; scripts/setup installs them"
                );
                None
            }
        })
        .as_ref()
}

/// The cluster, or end this test early (skipped) when there is none.
#[macro_export]
macro_rules! pg_or_skip {
    () => {
        match $crate::pg::cluster() {
            Some(c) => c,
            None => return,
        }
    };
}

/// A store on a fresh database (the contract tests' constructor). Without PostgreSQL the whole
/// test binary is a skip: the contract macro cannot skip one test, so the process ends here,
/// successfully, after saying why.
pub(crate) fn fresh_store() -> rewind_host::PgStore {
    let Some(c) = cluster() else {
        std::process::exit(0);
    };
    rewind_host::PgStore::open(&c.conninfo(&c.fresh_db())).expect("open the store")
}
