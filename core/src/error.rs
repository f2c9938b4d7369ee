//! Stable error codes shared by every verb, and the opaque error a host adapter reports.

use std::fmt;

/// The stable code of a failure. It reaches the CLI (`--json`) and JavaScript (`error.code`)
/// unchanged, so the strings never change once published.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Malformed input: a bad id, an empty text, an option that makes no sense.
    InvalidInput,
    /// A path that is absolute, escapes the workspace, or is otherwise not a `WorkPath`.
    InvalidPath,
    /// An id that names nothing in the store.
    NotFound,
    /// Someone else changed the state first (generation, sequence, command id), or a guard refused.
    Conflict,
    /// The request is understood but cannot be served (no checkpoint, data dropped, not the latest turn).
    Unavailable,
    /// The store or the workspace failed.
    HostError,
    /// Stored data does not decode or does not match its hash.
    Corrupt,
    /// A failed apply could not be rolled back; the journal stays for `recover`.
    Unrecoverable,
    /// The store belongs to another workspace or user: it reads, but nothing is written to the
    /// workspace until the person trusts it.
    Untrusted,
}

impl ErrorKind {
    /// The wire code, e.g. `invalid_path`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidInput => "invalid_input",
            Self::InvalidPath => "invalid_path",
            Self::NotFound => "not_found",
            Self::Conflict => "conflict",
            Self::Unavailable => "unavailable",
            Self::HostError => "host_error",
            Self::Corrupt => "corrupt",
            Self::Unrecoverable => "unrecoverable",
            Self::Untrusted => "untrusted",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What kind of host failure happened; lets the engine tell "path refused" from "disk broken".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostErrorKind {
    /// Any I/O failure of the store or workspace.
    Io,
    /// The host refused the path (e.g. a symlink that leads outside the workspace root).
    InvalidPath,
    /// The host found stored data it cannot read back.
    Corrupt,
    /// A precondition of a batch did not hold (someone else committed first).
    PreconditionFailed,
    /// The host refuses to write: the store is not trusted for this workspace.
    Untrusted,
    /// Another process holds what this call needs (a lock) and did not let go in time.
    Busy,
    /// The host was given a setting it cannot use (a malformed connection string, one that names
    /// no server): the person's input, not a failure of the store.
    InvalidInput,
    /// A commit whose outcome the store could not learn: the connection was lost while the
    /// commit was under way and the store could not be asked afterwards. The batch may or may
    /// not have committed, so a caller must act on neither: an apply leaves its files and its
    /// journal as they are, and `recover` settles them later from what the store holds.
    InDoubt,
}

/// An adapter failure, opaque to the engine. Never equal to anything: two I/O failures are not
/// "the same" failure.
#[derive(Debug)]
pub struct HostError {
    kind: HostErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl HostError {
    /// A failure of the given kind with a readable message.
    pub fn new(kind: HostErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }
    /// Shorthand for an I/O failure.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(HostErrorKind::Io, message)
    }
    /// A commit whose outcome is unknown (see [`HostErrorKind::InDoubt`]).
    pub fn in_doubt(message: impl Into<String>) -> Self {
        Self::new(HostErrorKind::InDoubt, message)
    }
    /// Whether this is a commit whose outcome is unknown: the batch may have committed.
    pub fn is_in_doubt(&self) -> bool {
        self.kind == HostErrorKind::InDoubt
    }
    /// Attach the underlying error.
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }
    /// The failure kind.
    pub fn kind(&self) -> HostErrorKind {
        self.kind
    }
    /// The readable message.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The stable code this failure maps to.
    pub fn error_kind(&self) -> ErrorKind {
        match self.kind {
            HostErrorKind::Io | HostErrorKind::InDoubt => ErrorKind::HostError,
            HostErrorKind::InvalidInput => ErrorKind::InvalidInput,
            HostErrorKind::InvalidPath => ErrorKind::InvalidPath,
            HostErrorKind::Corrupt => ErrorKind::Corrupt,
            HostErrorKind::PreconditionFailed => ErrorKind::Conflict,
            HostErrorKind::Untrusted => ErrorKind::Untrusted,
            HostErrorKind::Busy => ErrorKind::Unavailable,
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// A failure that knows its stable code: every verb's error type. Hosts map any `Coded` error
/// to their own surface (an exit code, a JS `Error.code`) without listing the verbs.
pub trait Coded: std::error::Error {
    /// The stable code.
    fn code(&self) -> ErrorKind;
}
