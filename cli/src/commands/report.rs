//! What a command produced: one JSON document for `--json`, short text for people, and the
//! exit code.

use serde::Serialize;

/// What a command produced.
#[derive(Debug)]
pub struct Report {
    pub(crate) json: serde_json::Value,
    pub(crate) text: String,
    /// The request was refused (a conflict, nothing applied): exit code 1.
    refused: bool,
    /// An exit code of its own (`exec` exits with the command's).
    exit: Option<i32>,
    /// Text goes to stderr (`exec`: stdout is the command's).
    pub(crate) text_to_stderr: bool,
    /// The text is the output, whatever the format (see [`Report::raw`]).
    pub(crate) raw: bool,
    /// The command wrote its output itself, as it made it (see [`Report::printed`]): how that
    /// went.
    printed: Option<std::io::Result<()>>,
}

impl Report {
    pub(crate) fn new(value: &impl Serialize, text: impl Into<String>) -> Self {
        Self {
            // Outcomes are plain data (string keys), which always serialise.
            json: serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
            text: text.into(),
            refused: false,
            exit: None,
            text_to_stderr: false,
            raw: false,
            printed: None,
        }
    }
    /// Output the command already wrote through the output writer, page by page (`rewind
    /// log`), and how writing it went: nothing is left to print.
    pub(crate) fn printed(result: std::io::Result<()>) -> Self {
        let mut r = Self::new(&serde_json::Value::Null, String::new());
        r.printed = Some(result);
        r
    }
    /// Whether the command wrote its output itself ([`Report::printed`]).
    pub(crate) fn was_printed(&self) -> bool {
        self.printed.is_some()
    }
    /// How writing the command's own output went (`Ok` when it wrote none).
    pub(crate) fn take_printed(&mut self) -> std::io::Result<()> {
        self.printed.take().unwrap_or(Ok(()))
    }
    /// Text that is the output itself (a script, a man page): printed as it is, also with
    /// `--json`, which has nothing to add to it.
    pub(crate) fn raw(text: String) -> Self {
        let mut r = Self::new(&serde_json::Value::Null, text);
        r.raw = true;
        r
    }
    pub(crate) fn refused(mut self, refused: bool) -> Self {
        self.refused = refused;
        self
    }
    pub(crate) fn with_exit(mut self, code: i32) -> Self {
        self.exit = Some(code);
        self
    }
    pub(crate) fn on_stderr(mut self) -> Self {
        self.text_to_stderr = true;
        self
    }
    pub(crate) fn exit_code(&self) -> i32 {
        self.exit.unwrap_or(i32::from(self.refused))
    }
}
