//! The one table of rights: which [`Access`] each verb needs, whichever front end calls it
//! (a CLI command, an rpc method from `rewind serve` or the Node addon, an agent hook event).
//! Every front end names the [`Verb`] it runs and opens with `verb.access()`, so a Node
//! program, a server and the CLI hold the same locks for the same work.

use super::Access;

/// What a front end is about to do with the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    // Reads: open read-only, write nothing anywhere.
    /// List the store's sessions (`listSessions`, `rewind session list`).
    ListSessions,
    /// Read a session's conversation (`activeBranch`, `rewind log`, `rewind session use`).
    ActiveBranch,
    /// Preview a file rewind (`previewFileRewind`, `rewind preview`).
    PreviewFileRewind,
    /// The diff of a file rewind (`diffFileRewind`, `rewind diff`).
    DiffFileRewind,
    /// A session's derived state (`resume`, `rewind resume`).
    Resume,
    /// A session's checkpoints (`checkpoints`, `rewind checkpoints`).
    Checkpoints,
    /// A session's operation log (`operations`, `rewind ops`).
    Operations,
    /// Bytes recorded versus stored (`stats`, `rewind stats`).
    Stats,
    // Records: write the store, settling dead journals first.
    /// Start a session (`createSession`, `rewind session new`).
    CreateSession,
    /// `recordPrompt`, `rewind prompt`.
    RecordPrompt,
    /// `recordReply`, `rewind reply`.
    RecordReply,
    /// `recordNotice`, `rewind notice`.
    RecordNotice,
    /// `recordCompaction`, `rewind compaction`.
    RecordCompaction,
    /// A file change a tool made (`recordEdit`, `rewind edit`).
    RecordEdit,
    /// `recordFailedCapture`, `rewind failed-capture`.
    RecordFailedCapture,
    /// What changed in the workspace (`snapshotWorkspace`, `rewind snapshot`, `rewind exec`).
    SnapshotWorkspace,
    /// `completeTurn`, `rewind turn-end`.
    CompleteTurn,
    /// `retryLastReply`, `rewind retry`.
    RetryLastReply,
    /// `sideChat`, `rewind side-chat`.
    SideChat,
    /// Set a session's title (`renameSession`, `rewind session rename`).
    RenameSession,
    /// One agent hook event (`rewind hook`): a session, a prompt, an edit, a snapshot, a
    /// turn's end; it never writes workspace files.
    HookEvent,
    /// Build a session from an agent's own records (`rewind import`): sessions, prompts,
    /// replies, edits; it never writes workspace files.
    ImportAgentSession,
    /// Rewind the conversation only (`rewindConversation`, `rewind conversation`).
    RewindConversation,
    /// `rewind` (rpc) or `rewind pick`: the conversation only records, files rewrite.
    Rewind {
        /// Whether files are restored (scope `workspace` or `both`).
        files: bool,
    },
    /// `editLastPrompt`, `rewind edit-prompt`: rewinding the files too rewrites them.
    EditLastPrompt {
        /// Whether the files are rewound with the conversation (`workspace: "rewind"`).
        rewind_files: bool,
    },
    /// `fork`, `rewind fork`: restoring the workspace to the fork point rewrites it.
    Fork {
        /// Whether the workspace is restored (`workspaceMode: "restore"`).
        restore: bool,
    },
    // Rewrites: the apply lock, and a trusted store.
    /// `applyFileRewind`, `rewind apply`.
    ApplyFileRewind,
    /// `undo`, `rewind undo`, `rewind redo`.
    Undo,
    /// Settle interrupted applies (`recover`, `rewind recover`).
    Recover,
    // Maintenance: the apply lock, no workspace writes.
    /// `gc`, `rewind gc`.
    Gc,
    /// Delete a session and its rows (`removeSession`, `rewind session rm`): no workspace
    /// writes, but under the apply lock so no apply runs in it meanwhile.
    RemoveSession,
}

impl Verb {
    /// The rights the verb needs (see [`Access`]).
    pub const fn access(self) -> Access {
        match self {
            Self::ListSessions
            | Self::ActiveBranch
            | Self::PreviewFileRewind
            | Self::DiffFileRewind
            | Self::Resume
            | Self::Checkpoints
            | Self::Operations
            | Self::Stats => Access::Read,
            Self::CreateSession
            | Self::RecordPrompt
            | Self::RecordReply
            | Self::RecordNotice
            | Self::RecordCompaction
            | Self::RecordEdit
            | Self::RecordFailedCapture
            | Self::SnapshotWorkspace
            | Self::CompleteTurn
            | Self::RetryLastReply
            | Self::SideChat
            | Self::RenameSession
            | Self::HookEvent
            | Self::ImportAgentSession
            | Self::RewindConversation
            | Self::Rewind { files: false }
            | Self::EditLastPrompt {
                rewind_files: false,
            }
            | Self::Fork { restore: false } => Access::Record,
            Self::Rewind { files: true }
            | Self::EditLastPrompt { rewind_files: true }
            | Self::Fork { restore: true }
            | Self::ApplyFileRewind
            | Self::Undo
            | Self::Recover => Access::Rewrite,
            Self::Gc | Self::RemoveSession => Access::Maintain,
        }
    }
}
