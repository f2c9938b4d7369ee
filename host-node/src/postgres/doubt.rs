//! A commit whose reply never came: the connection failed while COMMIT was under way, so the
//! server may have committed the batch or not. Guessing either way can split the log from the
//! disk (an apply rolled back whose operation is recorded), so the store asks: it reconnects
//! (bounded retries, one deadline) and looks the batch's id up in `commit_ids` under the number
//! the batch took from the commit counter (see `schema::V2`).
//!
//! Before looking, it takes the counter row's lock in share mode. The lost transaction held that
//! row's lock until it ended, so once the lock is granted the server has finished it — committed
//! or rolled back — and the lookup cannot race a COMMIT still in flight. A server that has not
//! yet noticed the dead client keeps the lock; the wait is bounded by the deadline like the rest.
//!
//! SQLite has no such case: its COMMIT is a call into the same process, which returns what
//! happened (an error from it is a rollback every reader sees).

use super::{connect, error};
use postgres::{Client, Config};
use rewind_core::HostError;
use std::time::{Duration, Instant};

/// How long a commit keeps trying to learn its outcome before reporting it in doubt.
const DEADLINE: Duration = Duration::from_secs(20);

/// One connection attempt waits at most this long (less when the deadline is nearer).
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// What the server says became of the batch.
pub(super) enum Found {
    Committed,
    NotCommitted,
    /// No answer could be had; why, in words.
    Unknown(String),
}

impl Found {
    /// The commit's result: `cause` is how the first connection failed.
    pub(super) fn settle(self, cause: postgres::Error) -> Result<(), HostError> {
        match self {
            Self::Committed => Ok(()),
            Self::NotCommitted => Err(error::host(
                "cannot commit the batch (asked again on a new connection: it did not commit)",
                cause,
            )),
            Self::Unknown(why) => Err(HostError::in_doubt(format!(
                "the connection to PostgreSQL failed while the batch was committing ({}), and \
                 whether it committed is unknown: {why}. Nothing was rolled back on a guess; \
                 `rewind recover` settles what this left pending once the server answers",
                error::reason(&cause)
            ))
            .with_source(cause)),
        }
    }
}

fn deadline() -> Duration {
    // Test-only (feature `crash-hook`): a short deadline, so a test can outlast it.
    #[cfg(feature = "crash-hook")]
    if let Some(ms) = std::env::var("REWIND_TEST_PG_RESOLVE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Duration::from_millis(ms);
    }
    DEADLINE
}

/// Ask until the deadline what became of batch `id`, which took number `version`. The new
/// connection comes back too (the store's old one is dead), when one was made.
pub(super) fn resolve(
    config: &Config,
    location: &str,
    version: i64,
    id: &str,
) -> (Found, Option<Client>) {
    let budget = deadline();
    let start = Instant::now();
    let mut pause = Duration::from_millis(50);
    let mut last = String::from("no attempt was made");
    loop {
        let left = budget.saturating_sub(start.elapsed());
        if left.is_zero() {
            let why = format!(
                "{location} gave no answer within {} s ({last})",
                budget.as_secs_f32()
            );
            return (Found::Unknown(why), None);
        }
        let mut config = config.clone();
        config.connect_timeout(left.min(CONNECT_WAIT));
        match connect(&config, location, false) {
            Ok(mut client) => match ask(&mut client, version, id, left) {
                Ok(found) => return (found, Some(client)),
                Err(e) => last = e.to_string(),
            },
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(pause.min(budget.saturating_sub(start.elapsed())));
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

fn ask(client: &mut Client, version: i64, id: &str, left: Duration) -> Result<Found, HostError> {
    let fail = |e| error::host("cannot look up the batch", e);
    let mut tx = client.transaction().map_err(fail)?;
    let ms = left.as_millis().max(1);
    tx.batch_execute(&format!("SET LOCAL lock_timeout = '{ms}ms'"))
        .map_err(fail)?;
    // Granted only once the lost transaction has ended (see the module's comment).
    let current: i64 = tx
        .query_one(
            "SELECT value FROM meta WHERE key = 'version' FOR SHARE",
            &[],
        )
        .and_then(|r| r.try_get(0))
        .map_err(fail)?;
    let filed: Option<String> = tx
        .query_opt("SELECT id FROM commit_ids WHERE version = $1", &[&version])
        .and_then(|r| r.map(|r| r.try_get(0)).transpose())
        .map_err(fail)?;
    tx.commit().map_err(fail)?;
    Ok(match filed {
        Some(f) if f == id => Found::Committed,
        // Another batch committed under this number: ours rolled back and gave it up.
        Some(_) => Found::NotCommitted,
        // Nobody has committed this number yet: ours did not.
        None if current < version => Found::NotCommitted,
        None => Found::Unknown(format!(
            "the id of commit {version} was pruned before it could be looked up"
        )),
    })
}
