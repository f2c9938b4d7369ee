//! Replay a log of committed batches (their byte form, in commit order) into an empty store:
//! how a host whose storage is asynchronous (a browser) loads. Tolerant by default, like
//! resume: a torn last batch (the typical crash) is dropped and an undecodable or
//! inapplicable batch in the middle is skipped, each with a diagnostic naming its index.
//! `strict` keeps the all-or-nothing behaviour.

use crate::batch::Batch;
use crate::error::ErrorKind;
use crate::load::Diagnostic;
use crate::ports::StoreWrite;
use serde::{Deserialize, Serialize};

/// Options of [`replay`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// Fail on the first batch that does not decode or apply, instead of skipping it.
    #[serde(default)]
    pub strict: bool,
}

/// What [`replay`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Batches in the log.
    pub batches: usize,
    /// Batches applied.
    pub applied: usize,
    /// One per batch left out (kind `batch`, id and seq = its index in the log).
    pub diagnostics: Vec<Diagnostic>,
}

/// A strict replay met a damaged batch. Nothing useful is in the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The batch does not decode or apply.
    #[error("batch {index} of the log {reason}")]
    Damaged {
        /// Its index in the log.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::Corrupt
    }
}

impl crate::Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

fn diagnostic(index: usize, reason: String) -> Diagnostic {
    Diagnostic {
        kind: "batch".into(),
        id: index.to_string(),
        seq: index as u64,
        reason,
    }
}

/// Commit every batch of `log` into `store`, in order. After a batch was left out, later
/// batches are applied without their preconditions: the log's order already serialised them,
/// and a check such as "the last seq is N" can no longer hold.
pub fn replay<S: StoreWrite, B: AsRef<[u8]>>(
    store: &mut S,
    log: &[B],
    opts: Options,
) -> Result<Outcome, Error> {
    let mut out = Outcome {
        batches: log.len(),
        ..Outcome::default()
    };
    for (index, bytes) in log.iter().enumerate() {
        let last = index + 1 == log.len();
        let mut batch = match Batch::from_bytes(bytes.as_ref()) {
            Ok(b) => b,
            Err(e) => {
                let reason = match (last, e.is_eof()) {
                    (true, true) => format!("is torn (cut off mid-write, a crash?): {e}"),
                    _ => format!("does not decode: {e}"),
                };
                if opts.strict {
                    return Err(Error::Damaged { index, reason });
                }
                out.diagnostics.push(diagnostic(index, reason));
                continue;
            }
        };
        if !out.diagnostics.is_empty() {
            batch.preconditions.clear();
        }
        match store.commit(batch) {
            Ok(()) => out.applied += 1,
            Err(e) => {
                let reason = format!("does not apply: {e}");
                if opts.strict {
                    return Err(Error::Damaged { index, reason });
                }
                out.diagnostics.push(diagnostic(index, reason));
            }
        }
    }
    Ok(out)
}

#[cfg(all(test, feature = "testkit"))]
mod tests {
    use super::*;
    use crate::batch::{Precondition, Write};
    use crate::id::SessionId;
    use crate::ports::Store;
    use crate::testkit::MemStore;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn create(id: &str) -> Vec<u8> {
        let s = SessionId::parse(id).expect("valid");
        let mut b = Batch::new();
        b.require(Precondition::SessionAbsent(s.clone()));
        b.push(Write::CreateSession {
            session: s,
            body: "{}".into(),
        });
        b.to_bytes()
    }

    #[test]
    fn a_torn_tail_and_a_bad_middle_are_reported_by_index_and_strict_refuses_them() {
        let whole = create("ses_c");
        let log = vec![
            create("ses_a"),
            b"not json".to_vec(),
            create("ses_b"),
            whole[..whole.len() / 2].to_vec(),
        ];
        let mut store = MemStore::new();
        let out = replay(&mut store, &log, Options::default()).expect("tolerant");
        assert_eq!((out.batches, out.applied), (4, 2));
        let at: Vec<_> = out.diagnostics.iter().map(|d| (d.seq, &d.kind)).collect();
        assert_eq!(at, vec![(1, &"batch".to_owned()), (3, &"batch".to_owned())]);
        assert!(out.diagnostics[0].reason.contains("does not decode"));
        assert!(
            out.diagnostics[1].reason.contains("torn"),
            "{:?}",
            out.diagnostics[1]
        );
        assert_eq!(store.sessions().expect("read").len(), 2);

        let err = replay(&mut MemStore::new(), &log, Options { strict: true })
            .expect_err("strict stops at the first damaged batch");
        assert!(matches!(err, Error::Damaged { index: 1, .. }), "{err}");
    }
}
