//! CLI failures: a stable code from the engine, a message, and the exit code it maps to.

use rewind_core::ErrorKind;
use rewind_host::native::OpenError;
use std::fmt;

/// A failed command.
#[derive(Debug)]
pub struct CliError {
    kind: ErrorKind,
    message: String,
    /// An exit code of its own (127: `exec` could not start the command).
    exit: Option<i32>,
    /// The ids an ambiguous prefix matched (`error.candidates` in `--json`).
    candidates: Vec<String>,
}

impl CliError {
    /// A failure with its stable code.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            exit: None,
            candidates: Vec::new(),
        }
    }

    /// The ids an ambiguous prefix matched.
    #[must_use]
    pub fn with_candidates(mut self, ids: Vec<String>) -> Self {
        self.candidates = ids;
        self
    }

    /// The stable code.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without its code.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Exit with this code instead of the one the kind implies.
    #[must_use]
    pub fn with_exit(mut self, code: i32) -> Self {
        self.exit = Some(code);
        self
    }

    /// Say what had already happened when it failed.
    #[must_use]
    pub fn context(mut self, what: &str) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// A host failure (exit 3).
    pub fn host(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::HostError, message)
    }

    /// Opening the workspace or database failed.
    pub(crate) fn open(e: OpenError) -> Self {
        Self::new(e.kind(), e.to_string())
    }

    /// From any engine error that knows its code.
    pub(crate) fn from_engine(kind: ErrorKind, e: impl fmt::Display) -> Self {
        Self::new(kind, e.to_string())
    }

    /// 1 for refusals and bad input, 3 for host failures.
    pub fn exit_code(&self) -> i32 {
        if let Some(code) = self.exit {
            return code;
        }
        match self.kind {
            ErrorKind::HostError | ErrorKind::Corrupt | ErrorKind::Unrecoverable => 3,
            _ => 1,
        }
    }

    /// `{"error": {"code", "message"}}`, plus `candidates` for an ambiguous id.
    pub fn to_json(&self) -> serde_json::Value {
        let mut error = serde_json::json!({ "code": self.kind.as_str(), "message": self.message });
        if !self.candidates.is_empty() {
            error["candidates"] = serde_json::json!(self.candidates);
        }
        serde_json::json!({ "error": error })
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.kind)
    }
}

impl std::error::Error for CliError {}

/// `?` on any engine result: every verb error knows its stable code.
impl<E: rewind_core::Coded> From<E> for CliError {
    fn from(e: E) -> Self {
        Self::from_engine(e.code(), e)
    }
}
