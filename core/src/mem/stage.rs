//! A store that holds new sessions back until they are whole: verbs run over a [`Staged`] store
//! read the real store underneath, but their commits land in memory; [`Staged::finish`] then
//! gives the real store back with one batch that writes everything at once. So a caller that
//! builds a session from many verbs (an import of an agent's history) commits it in one
//! transaction: a failure part-way writes nothing, and a second run starts from nothing.
//!
//! Only new sessions can be staged: a commit that touches a session of the real store is
//! refused (its preconditions could not be kept once the batches are merged).

use super::MemStore;
use crate::batch::{Batch, Precondition, Write};
use crate::hash::ContentHash;
use crate::id::{CheckpointId, CommandId, MessageId, SessionId, TurnId};
use crate::ports::{BlobInfo, Row, SeqRange, Store, StoreWrite};
use crate::{HostError, HostErrorKind};

/// The real store `S` under an in-memory layer holding the sessions created through it.
#[derive(Debug)]
pub struct Staged<S> {
    base: S,
    layer: MemStore,
    /// Commits to refuse from this one on (tests: a failure part-way through).
    fail_at: Option<u64>,
}

impl<S: StoreWrite> Staged<S> {
    /// Stage commits over `base`.
    pub fn new(base: S) -> Self {
        Self {
            base,
            layer: MemStore::with_log(),
            fail_at: None,
        }
    }

    /// Refuse the `n`th commit (1-based) and every later one, as a store failing part-way would.
    #[must_use]
    pub fn failing_at(mut self, n: Option<u64>) -> Self {
        self.fail_at = n;
        self
    }

    /// The real store back, with everything staged as one batch (empty when nothing was).
    /// Its preconditions are that each staged session is still absent: the staged batches'
    /// own checks held in the layer, which nobody else writes.
    pub fn finish(self) -> (S, Batch) {
        let mut batch = Batch::new();
        for staged in self.layer.committed() {
            for w in &staged.writes {
                if let Write::CreateSession { session, .. } = w {
                    batch.require(Precondition::SessionAbsent(session.clone()));
                }
                batch.push(w.clone());
            }
        }
        (self.base, batch)
    }

    /// Give the real store back, dropping everything staged.
    pub fn abandon(self) -> S {
        self.base
    }

    fn staged(&self, session: &SessionId) -> bool {
        matches!(self.layer.session(session), Ok(Some(_)))
    }

    /// Which store answers for `session`.
    fn owner(&self, session: &SessionId) -> &dyn Store {
        if self.staged(session) {
            &self.layer
        } else {
            &self.base
        }
    }
}

impl<S: StoreWrite> Store for Staged<S> {
    fn session(&self, id: &SessionId) -> Result<Option<Row>, HostError> {
        self.owner(id).session(id)
    }
    fn sessions(&self) -> Result<Vec<Row>, HostError> {
        let mut rows = self.base.sessions()?;
        rows.extend(self.layer.sessions()?);
        Ok(rows)
    }
    fn messages(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.owner(s).messages(s)
    }
    fn turn(&self, s: &SessionId, t: &TurnId) -> Result<Option<Row>, HostError> {
        self.owner(s).turn(s, t)
    }
    fn turns(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.owner(s).turns(s)
    }
    fn checkpoints(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.owner(s).checkpoints(s)
    }
    fn operations(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.owner(s).operations(s)
    }
    fn journals(&self) -> Result<Vec<Row>, HostError> {
        self.base.journals()
    }
    fn blob(&self, h: &ContentHash) -> Result<Option<Vec<u8>>, HostError> {
        match self.layer.blob(h)? {
            Some(bytes) => Ok(Some(bytes)),
            None => self.base.blob(h),
        }
    }
    fn last_seq(&self, s: &SessionId) -> Result<u64, HostError> {
        self.owner(s).last_seq(s)
    }
    fn command_fact(&self, p: &SessionId, c: &CommandId) -> Result<Option<Row>, HostError> {
        self.owner(p).command_fact(p, c)
    }
    fn blobs(&self) -> Result<Vec<BlobInfo>, HostError> {
        let mut all = self.base.blobs()?;
        all.extend(self.layer.blobs()?);
        Ok(all)
    }
    fn version(&self) -> Result<u64, HostError> {
        Ok(self.base.version()? + self.layer.version()?)
    }
    fn message(&self, s: &SessionId, id: &MessageId) -> Result<Option<Row>, HostError> {
        self.owner(s).message(s, id)
    }
    fn messages_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        self.owner(s).messages_in(s, r)
    }
    fn last_messages_in(
        &self,
        s: &SessionId,
        r: SeqRange,
        n: usize,
    ) -> Result<Vec<Row>, HostError> {
        self.owner(s).last_messages_in(s, r, n)
    }
    fn message_count_in(&self, s: &SessionId, r: SeqRange) -> Result<u64, HostError> {
        self.owner(s).message_count_in(s, r)
    }
    fn boundaries(&self, s: &SessionId) -> Result<Vec<Row>, HostError> {
        self.owner(s).boundaries(s)
    }
    fn turns_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        self.owner(s).turns_in(s, r)
    }
    fn checkpoint(&self, s: &SessionId, id: &CheckpointId) -> Result<Option<Row>, HostError> {
        self.owner(s).checkpoint(s, id)
    }
    fn checkpoints_in(&self, s: &SessionId, r: SeqRange) -> Result<Vec<Row>, HostError> {
        self.owner(s).checkpoints_in(s, r)
    }
    fn turn_checkpoints(&self, s: &SessionId, t: &TurnId) -> Result<Vec<Row>, HostError> {
        self.owner(s).turn_checkpoints(s, t)
    }
    fn session_bytes(&self, s: &SessionId) -> Result<u64, HostError> {
        self.owner(s).session_bytes(s)
    }
    fn workspace_snapshot(&self, s: &SessionId) -> Result<Option<Row>, HostError> {
        self.owner(s).workspace_snapshot(s)
    }
    fn has_blob(&self, h: &ContentHash) -> Result<bool, HostError> {
        Ok(self.layer.has_blob(h)? || self.base.has_blob(h)?)
    }
}

impl<S: StoreWrite> StoreWrite for Staged<S> {
    fn commit(&mut self, batch: Batch) -> Result<(), HostError> {
        let n = self.layer.version()? + 1;
        if self.fail_at.is_some_and(|at| n >= at) {
            return Err(HostError::io(format!(
                "staged commit {n} refused (injected)"
            )));
        }
        let creates: Vec<&SessionId> = batch
            .writes
            .iter()
            .filter_map(|w| match w {
                Write::CreateSession { session, .. } => Some(session),
                _ => None,
            })
            .collect();
        let foreign = batch
            .writes
            .iter()
            .filter_map(Write::session)
            .find(|s| !creates.contains(s) && !self.staged(s));
        if let Some(s) = foreign {
            return Err(HostError::new(
                HostErrorKind::Io,
                format!("session {s} is not staged: a staged commit writes only new sessions"),
            ));
        }
        if creates
            .iter()
            .any(|s| matches!(self.base.session(s), Ok(Some(_))))
        {
            return Err(HostError::io(
                "the staged session already exists in the store",
            ));
        }
        self.layer.commit(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Engine;
    use crate::record::{PromptOptions, SessionOptions};
    use crate::testkit::{MemWorkspace, SeqIds, TickClock};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    type Over = Engine<Staged<MemStore>, MemWorkspace>;

    fn staged(base: MemStore, fail_at: Option<u64>, ids: u64) -> Over {
        let store = Staged::new(base).failing_at(fail_at);
        let ids = SeqIds::starting_after(ids);
        Engine::new(store, MemWorkspace::new(), TickClock::default(), ids)
    }

    fn two_prompts(e: &mut Over) -> Result<SessionId, crate::record::Error> {
        let s = e.create_session(SessionOptions::default())?.id;
        for text in ["one", "two"] {
            let opts = PromptOptions {
                text: text.into(),
                payload: None,
            };
            e.record_prompt(&s, opts)?;
        }
        Ok(s)
    }

    #[test]
    fn nothing_reaches_the_store_until_finish_and_then_all_of_it_in_one_commit() {
        let mut e = staged(MemStore::new(), None, 0);
        let s = two_prompts(&mut e).expect("staged");
        assert_eq!(e.store().base.sessions().expect("read").len(), 0);
        assert_eq!(e.store().messages(&s).expect("read").len(), 2);
        let (store, _) = e.into_parts();
        let (mut base, batch) = store.finish();
        base.commit(batch).expect("commit");
        assert_eq!(base.version().expect("v"), 1);
        assert_eq!(base.messages(&s).expect("read").len(), 2);
    }

    #[test]
    fn a_failure_part_way_leaves_nothing_and_a_second_run_writes_it_whole() {
        let mut e = staged(MemStore::new(), Some(3), 0);
        assert!(two_prompts(&mut e).is_err());
        let (store, _) = e.into_parts();
        let base = store.abandon();
        assert_eq!(base.sessions().expect("read").len(), 0);
        let mut e = staged(base, None, 100);
        let s = two_prompts(&mut e).expect("staged");
        let (store, _) = e.into_parts();
        let (mut base, batch) = store.finish();
        base.commit(batch).expect("commit");
        assert_eq!(base.messages(&s).expect("read").len(), 2);
    }

    #[test]
    fn a_staged_commit_may_not_touch_a_session_of_the_real_store() {
        let mut base = MemStore::new();
        let mut e = staged(MemStore::new(), None, 0);
        let s = two_prompts(&mut e).expect("staged");
        let (store, _) = e.into_parts();
        let (_, batch) = store.finish();
        base.commit(batch).expect("commit");
        let mut e = staged(base, None, 100);
        let opts = PromptOptions {
            text: "three".into(),
            payload: None,
        };
        assert!(e.record_prompt(&s, opts).is_err());
        let (store, _) = e.into_parts();
        let (base, batch) = store.finish();
        assert!(batch.is_empty());
        assert_eq!(base.messages(&s).expect("read").len(), 2);
    }
}
