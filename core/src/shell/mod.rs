//! Shell capture: workspace snapshots with a stat cache, and the difference between two of them
//! recorded as one checkpoint. A snapshot re-reads only files whose stat data changed (or whose
//! last read was racy), stores new contents content-addressed, and keeps its manifest as a
//! delta against the one before. The host walks and stats (`ports::Scan`); what a difference
//! means is decided here.
//!
//! Who changed what: a snapshot compares the workspace with the session's previous snapshot,
//! minus what the session recorded since (checkpoints, file rewinds). Whose the changes are is
//! not guessed from timing but said by the caller ([`Attribution`]): a snapshot taken *after* a
//! command records them as that command's, a `shell` checkpoint (with the command line as its
//! tool input when given), whatever the previous snapshot covered and however fast turns
//! follow; one taken *before* an agent action (at a turn's start, before a command, at a turn's
//! end with nothing running) records them as the person's, an `external` checkpoint, listed
//! like any other and used for conflict checks, but not rewound unless asked. A session's first
//! snapshot only sets the baseline.

mod diff;
mod journal;
mod manifest;
mod outcome;
mod record;
mod take;

pub use manifest::{Entry, Malformed, Manifest, State, Untracked};
pub use record::Changed;

use crate::ctx::Ports;
use crate::error::{Coded, ErrorKind, HostError, HostErrorKind};
use crate::hash::ContentHash;
use crate::id::{CheckpointId, MessageId, SessionId, TurnId};
use crate::load;
use crate::model::CheckpointKind;
use crate::path::WorkPath;
use crate::ports::{Scan, Store};
use serde::{Deserialize, Serialize};

/// Options of [`snapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The live turn the changes belong to.
    pub turn_id: TurnId,
    /// The command that ran since the previous snapshot: the checkpoint's tool input.
    #[serde(default)]
    pub command: Option<String>,
    /// The tool's name (default `shell`).
    #[serde(default)]
    pub tool_name: Option<String>,
    /// The tool call's id.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// The assistant message that issued the call.
    #[serde(default)]
    pub tool_message_id: Option<MessageId>,
    /// Whose the changes found are (default [`Attribution::Auto`]).
    #[serde(default)]
    pub attribution: Attribution,
}

/// What a snapshot is, which says whose the changes it finds are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Attribution {
    /// Taken after a command (`command`, `tool_name`: which one): what changed since the
    /// previous snapshot is that command's, a `shell` checkpoint. Also for background work
    /// known to be running, in the turn that started it.
    Command,
    /// Taken where no agent tool was running since the previous snapshot (a turn's start, just
    /// before an agent command, a turn's end): what changed is the person's, an `external`
    /// checkpoint. Takes no `command`.
    External,
    /// For callers that do not say: `command` when the turn already had a snapshot (any
    /// snapshot marks its turn, even one that found nothing), `external` for a turn's first
    /// one. Exact only when every agent command is bracketed and the person never writes
    /// inside a turn; hosts that know should say.
    #[default]
    Auto,
}

/// A path the snapshot saw but does not store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UntrackedFile {
    /// The path.
    pub path: String,
    /// `too_large`, `symlink`, `special`, or the host's reason (`invalid_path`, …).
    pub reason: String,
}

/// What [`snapshot`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The checkpoint it recorded, when anything changed.
    pub checkpoint_id: Option<CheckpointId>,
    /// `shell` (the agent's changes) or `external` (the person's), when it recorded one.
    pub kind: Option<CheckpointKind>,
    /// This was the session's first snapshot: it set the baseline and recorded nothing.
    pub baseline: bool,
    /// What changed.
    #[serde(flatten)]
    pub changed: Changed,
    /// Paths seen but not stored.
    pub untracked: Vec<UntrackedFile>,
    /// Files tracked now.
    pub files: u64,
    /// Files read and hashed again.
    pub reread: u64,
    /// Files whose stat data vouched for them (not read).
    pub skipped: u64,
    /// Of the re-read files, those read only because their last read was racy.
    pub racy: u64,
    /// The manifest blob.
    pub manifest: ContentHash,
}

/// How far a long snapshot has come (for a progress line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Entries looked at.
    pub done: u64,
    /// Entries listed.
    pub total: u64,
    /// Files read so far.
    pub reread: u64,
}

/// Failures of [`snapshot`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session, its turn or its records could not be read, or the turn is not live.
    #[error(transparent)]
    Record(#[from] crate::record::Error),
    /// The workspace host cannot list files.
    #[error("this workspace cannot be scanned: its host offers no file listing")]
    Unsupported,
    /// Walking the workspace failed.
    #[error("listing the workspace failed: {0}")]
    Scan(HostError),
    /// A changed file could not be read.
    #[error("reading {path} failed: {source}")]
    Read {
        /// The file.
        path: WorkPath,
        /// Why.
        source: HostError,
    },
    /// The store failed.
    #[error("reading the store failed: {0}")]
    Store(HostError),
    /// The previous snapshot's manifest is missing or unreadable.
    #[error("the workspace snapshot of session {session} is unreadable: {reason}")]
    Corrupt {
        /// The session.
        session: SessionId,
        /// Why.
        reason: String,
    },
    /// Other writers kept recording into the session; the snapshot was retried and still lost.
    #[error("session {0} kept changing while taking a snapshot; try again")]
    Busy(SessionId),
    /// The store failed to commit.
    #[error("committing the snapshot failed: {0}")]
    Commit(HostError),
}

impl Error {
    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Record(e) => e.kind(),
            Self::Unsupported => ErrorKind::Unavailable,
            Self::Scan(e) | Self::Store(e) | Self::Commit(e) => e.error_kind(),
            Self::Read { source, .. } => source.error_kind(),
            Self::Corrupt { .. } => ErrorKind::Corrupt,
            Self::Busy(_) => ErrorKind::Conflict,
        }
    }
}

impl Coded for Error {
    fn code(&self) -> ErrorKind {
        self.kind()
    }
}

impl From<load::Error> for Error {
    fn from(e: load::Error) -> Self {
        Self::Record(e.into())
    }
}

const ATTEMPTS: usize = 4;
/// Contents held before they are committed in a batch of their own: a first snapshot of a big
/// tree never holds the whole tree in memory.
const FLUSH_BYTES: usize = 32 << 20;

mod chain;
use chain::{head, load_manifest};

/// Take a workspace snapshot in `opts.turn_id` and record what changed since the session's
/// previous one. Durable when it returns.
pub fn snapshot(
    p: &mut Ports<'_>,
    session: &SessionId,
    opts: Options,
    progress: &mut dyn FnMut(Progress),
) -> Result<Outcome, Error> {
    if p.workspace.scanner().is_none() {
        return Err(Error::Unsupported);
    }
    if opts.command.as_deref().is_some_and(|c| c.trim().is_empty()) {
        return Err(crate::record::Error::InvalidInput("command must not be empty".into()).into());
    }
    if opts.attribution == Attribution::External && opts.command.is_some() {
        let why = "a snapshot with attribution `external` records the person's changes: it takes \
                   no command";
        return Err(crate::record::Error::InvalidInput(why.into()).into());
    }
    for _ in 0..ATTEMPTS {
        if let Some(out) = attempt(p, session, &opts, progress)? {
            return Ok(out);
        }
    }
    Err(Error::Busy(session.clone()))
}

mod attempt;
mod codec;
use attempt::attempt;

fn scanner<'a>(p: &'a mut Ports<'_>) -> &'a mut dyn Scan {
    p.workspace.scanner().expect("checked by snapshot")
}

fn committed(r: Result<(), HostError>) -> Result<bool, Error> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == HostErrorKind::PreconditionFailed => Ok(false),
        Err(e) => Err(Error::Commit(e)),
    }
}

/// Everything gc must keep for the session's latest snapshot: its manifest chain and every
/// content it lists.
pub fn live_hashes(store: &dyn Store, session: &SessionId) -> Result<Vec<ContentHash>, Error> {
    let Some(h) = head(store, session)? else {
        return Ok(Vec::new());
    };
    let (manifest, chain) = load_manifest(store, session, &h.manifest)?;
    let mut out = chain;
    out.extend(manifest.hashes().cloned());
    Ok(out)
}
