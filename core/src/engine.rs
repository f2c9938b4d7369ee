//! `Engine`: the ports bundled with a clock and an id source, with one method per verb. Hosts
//! (the native CLI, the wasm package, tests) drive the core through it.

use crate::both;
use crate::branch::{self, ActiveBranch};
use crate::conversation;
use crate::ctx::{Limits, Ports};
use crate::files::{self, ApplyOptions, ApplyOutcome, Preview, RewindDiff, TargetOptions};
use crate::fork;
use crate::gc;
use crate::id::SessionId;
use crate::load::{self, SessionLog};
use crate::model::{Operation, Session};
use crate::ports::{Clock, IdSource, StoreWrite, TurnControl, Workspace};
use crate::record::{self, *};
use crate::recover;
use crate::resume::{self, CheckpointSummary};
use crate::revise;
use crate::shell;
use crate::undo;

/// The engine over a store and a workspace.
pub struct Engine<S, W> {
    store: S,
    workspace: W,
    clock: Box<dyn Clock>,
    ids: Box<dyn IdSource>,
    turn_control: Option<Box<dyn TurnControl>>,
    limits: Limits,
}

impl<S, W> std::fmt::Debug for Engine<S, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl<S: StoreWrite, W: Workspace> Engine<S, W> {
    /// An engine over these hosts.
    pub fn new(
        store: S,
        workspace: W,
        clock: impl Clock + 'static,
        ids: impl IdSource + 'static,
    ) -> Self {
        Self {
            store,
            workspace,
            clock: Box::new(clock),
            ids: Box::new(ids),
            turn_control: None,
            limits: Limits::default(),
        }
    }

    /// Install the hook that stops removed turns' background work.
    #[must_use]
    pub fn with_turn_control(mut self, control: impl TurnControl + 'static) -> Self {
        self.turn_control = Some(Box::new(control));
        self
    }

    /// Change the recording limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }
    /// The store, mutably (tests arm faults through it).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }
    /// The workspace.
    pub fn workspace(&self) -> &W {
        &self.workspace
    }
    /// The workspace, mutably (user edits, faults).
    pub fn workspace_mut(&mut self) -> &mut W {
        &mut self.workspace
    }
    /// Take the hosts back.
    pub fn into_parts(self) -> (S, W) {
        (self.store, self.workspace)
    }

    fn ports(&mut self) -> Ports<'_> {
        Ports {
            store: &mut self.store,
            workspace: &mut self.workspace,
            clock: self.clock.as_ref(),
            ids: self.ids.as_mut(),
            turn_control: self
                .turn_control
                .as_deref_mut()
                .map(|t| t as &mut dyn TurnControl),
            limits: self.limits,
        }
    }

    /// Start a session.
    pub fn create_session(&mut self, opts: SessionOptions) -> Result<Session, record::Error> {
        record::create_session(&mut self.ports(), opts)
    }
    /// Every session.
    pub fn sessions(&self) -> Result<load::Decoded<Session>, load::Error> {
        load::sessions(&self.store)
    }
    /// Record a prompt (starts a turn).
    pub fn record_prompt(
        &mut self,
        s: &SessionId,
        opts: PromptOptions,
    ) -> Result<PromptOutcome, record::Error> {
        record::prompt(&mut self.ports(), s, opts)
    }
    /// Record a reply.
    pub fn record_reply(
        &mut self,
        s: &SessionId,
        opts: ReplyOptions,
    ) -> Result<MessageOutcome, record::Error> {
        record::reply(&mut self.ports(), s, opts)
    }
    /// Record a notice.
    pub fn record_notice(
        &mut self,
        s: &SessionId,
        opts: NoticeOptions,
    ) -> Result<MessageOutcome, record::Error> {
        record::notice(&mut self.ports(), s, opts)
    }
    /// Record a compaction summary.
    pub fn record_compaction(
        &mut self,
        s: &SessionId,
        opts: CompactionOptions,
    ) -> Result<MessageOutcome, record::Error> {
        record::compaction(&mut self.ports(), s, opts)
    }
    /// Record a tool's file changes.
    pub fn record_edit(
        &mut self,
        s: &SessionId,
        opts: EditOptions,
    ) -> Result<EditOutcome, record::Error> {
        record::edit(&mut self.ports(), s, opts)
    }
    /// Record a failed capture.
    pub fn record_failed_capture(
        &mut self,
        s: &SessionId,
        opts: FailedCaptureOptions,
    ) -> Result<EditOutcome, record::Error> {
        record::failed_capture(&mut self.ports(), s, opts)
    }
    /// Take a workspace snapshot and record what changed since the session's previous one
    /// (shell capture; the workspace host must offer a `Scan`).
    pub fn snapshot_workspace(
        &mut self,
        s: &SessionId,
        opts: shell::Options,
    ) -> Result<shell::Outcome, shell::Error> {
        shell::snapshot(&mut self.ports(), s, opts, &mut |_| {})
    }
    /// [`Engine::snapshot_workspace`], reporting progress while it reads files.
    pub fn snapshot_workspace_with_progress(
        &mut self,
        s: &SessionId,
        opts: shell::Options,
        progress: &mut dyn FnMut(shell::Progress),
    ) -> Result<shell::Outcome, shell::Error> {
        shell::snapshot(&mut self.ports(), s, opts, progress)
    }
    /// Complete a turn (writes its stable boundary).
    pub fn complete_turn(
        &mut self,
        s: &SessionId,
        opts: CompleteTurnOptions,
    ) -> Result<CompleteTurnOutcome, record::Error> {
        record::complete_turn(&mut self.ports(), s, opts)
    }
    /// The active branch.
    pub fn active_branch(&mut self, s: &SessionId) -> Result<ActiveBranch, load::Error> {
        branch::active_branch(&self.ports(), s)
    }
    /// Preview a file rewind.
    pub fn preview_file_rewind(
        &mut self,
        s: &SessionId,
        opts: TargetOptions,
    ) -> Result<Preview, files::Error> {
        files::preview(&mut self.ports(), s, opts)
    }
    /// The line diff of a file rewind: what it would write, and both sides of each conflict.
    pub fn diff_file_rewind(
        &mut self,
        s: &SessionId,
        opts: TargetOptions,
    ) -> Result<RewindDiff, files::Error> {
        files::diff(&mut self.ports(), s, opts)
    }
    /// Apply a file rewind.
    pub fn apply_file_rewind(
        &mut self,
        s: &SessionId,
        opts: ApplyOptions,
    ) -> Result<ApplyOutcome, files::Error> {
        files::apply(&mut self.ports(), s, opts)
    }
    /// Rewind the conversation.
    pub fn rewind_conversation(
        &mut self,
        s: &SessionId,
        opts: conversation::Options,
    ) -> Result<conversation::Outcome, conversation::Error> {
        conversation::rewind(&mut self.ports(), s, opts)
    }
    /// Rewind conversation and files as one unit.
    pub fn rewind_both(
        &mut self,
        s: &SessionId,
        opts: both::Options,
    ) -> Result<both::Outcome, both::Error> {
        both::rewind(&mut self.ports(), s, opts)
    }
    /// Rewind in a scope: conversation, workspace or both.
    pub fn rewind(
        &mut self,
        s: &SessionId,
        opts: crate::rewind::Options,
    ) -> Result<crate::rewind::Outcome, crate::rewind::Error> {
        crate::rewind::rewind(&mut self.ports(), s, opts)
    }
    /// Undo a rewind (files, conversation cursor or both) or an undo; no operation: the latest
    /// rewind still in effect.
    pub fn undo(
        &mut self,
        s: &SessionId,
        opts: undo::Options,
    ) -> Result<undo::Outcome, undo::Error> {
        undo::undo(&mut self.ports(), s, opts)
    }
    /// Redo: take back the latest undo still in effect.
    pub fn redo(
        &mut self,
        s: &SessionId,
        opts: undo::RedoOptions,
    ) -> Result<undo::Outcome, undo::Error> {
        undo::redo(&mut self.ports(), s, opts)
    }
    /// Edit the latest prompt.
    pub fn edit_last_prompt(
        &mut self,
        s: &SessionId,
        opts: revise::EditOptions,
    ) -> Result<revise::Outcome, revise::Error> {
        revise::edit_last_prompt(&mut self.ports(), s, opts)
    }
    /// Retry the latest reply.
    pub fn retry_last_reply(
        &mut self,
        s: &SessionId,
        opts: revise::RetryOptions,
    ) -> Result<revise::Outcome, revise::Error> {
        revise::retry_last_reply(&mut self.ports(), s, opts)
    }
    /// Derive a session's state.
    pub fn resume(&mut self, s: &SessionId) -> Result<resume::State, load::Error> {
        resume::resume(&self.ports(), s)
    }
    /// Settle journals left by a crash.
    pub fn recover(&mut self, s: Option<&SessionId>) -> Result<recover::Outcome, recover::Error> {
        recover::recover(&mut self.ports(), s)
    }
    /// Stop treating a stuck journal as pending; its record stays in the operation log.
    pub fn abandon_journal(
        &mut self,
        journal: &crate::id::JournalId,
    ) -> Result<recover::Abandoned, recover::Error> {
        recover::abandon(&mut self.ports(), journal)
    }
    /// Fork a session.
    pub fn fork(
        &mut self,
        s: &SessionId,
        opts: fork::Options,
    ) -> Result<fork::Outcome, fork::Error> {
        fork::fork(&mut self.ports(), s, opts)
    }
    /// Open a side chat.
    pub fn side_chat(
        &mut self,
        s: &SessionId,
        opts: fork::SideChatOptions,
    ) -> Result<fork::Outcome, fork::Error> {
        fork::side_chat(&mut self.ports(), s, opts)
    }
    /// Garbage-collect: plan, and unless `dry_run`, apply.
    pub fn gc(&mut self, opts: gc::Options, dry_run: bool) -> Result<gc::Outcome, gc::Error> {
        gc::gc(&mut self.ports(), opts, dry_run)
    }
    /// Set a session's title (see [`crate::rename`]).
    pub fn rename_session(
        &mut self,
        s: &SessionId,
        opts: crate::rename::Options,
    ) -> Result<crate::rename::Outcome, crate::rename::Error> {
        crate::rename::rename(&mut self.ports(), s, opts)
    }
    /// Delete a session, and with `with_forks` its forks (see [`crate::remove`]).
    pub fn remove_session(
        &mut self,
        s: &SessionId,
        opts: crate::remove::Options,
    ) -> Result<crate::remove::Outcome, crate::remove::Error> {
        crate::remove::remove(&mut self.ports(), s, opts)
    }
    /// Bytes recorded versus bytes stored.
    pub fn stats(&mut self) -> Result<crate::stats::Stats, load::Error> {
        crate::stats::stats(&self.ports())
    }
    /// The recording limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }
    /// Every checkpoint of a session, with undone files marked.
    pub fn checkpoints(&self, s: &SessionId) -> Result<Vec<CheckpointSummary>, load::Error> {
        let log = SessionLog::load(&self.store, s)?;
        let undone = files::undone_changes(&log.operations);
        Ok(log
            .checkpoints
            .iter()
            .map(|c| CheckpointSummary::of(c, &undone))
            .collect())
    }
    /// The operation log of a session.
    pub fn operations(&self, s: &SessionId) -> Result<load::Decoded<Operation>, load::Error> {
        load::operations(&self.store, s)
    }
}
