//! What a tool call returns: a result (with `isError` when it failed, so the model reads
//! why), and the reasons a call fails before or instead of running.

use super::args::ArgError;
use crate::CliError;
use serde_json::{Value, json};

/// What a tool call returns.
#[derive(Debug)]
pub(super) struct ToolResult {
    text: String,
    structured: Value,
    is_error: bool,
}

impl ToolResult {
    pub(super) fn ok(structured: Value, text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            structured,
            is_error: false,
        }
    }

    /// The same result, marked as a failure (a rewind the engine refused, nothing written).
    pub(super) fn failed(mut self) -> Self {
        self.is_error = true;
        self
    }

    /// A failed call: `code` is the stable rewind code; `extra` members join the error object.
    pub(super) fn error(code: &str, message: impl Into<String>, extra: Value) -> Self {
        let message = message.into();
        let mut error = json!({ "code": code, "message": message });
        if let (Value::Object(e), Value::Object(more)) = (&mut error, extra) {
            e.extend(more);
        }
        Self {
            text: format!("error ({code}): {message}"),
            structured: json!({ "error": error }),
            is_error: true,
        }
    }

    /// The `tools/call` result. For clients that read only `content`, the structured data is
    /// also there as JSON text, after the human text (as the spec recommends).
    pub(super) fn to_result(&self) -> Value {
        let mut content = vec![json!({ "type": "text", "text": self.text })];
        content.push(json!({ "type": "text", "text": self.structured.to_string() }));
        json!({ "content": content, "structuredContent": self.structured, "isError": self.is_error })
    }
}

/// Why a call failed.
#[derive(Debug)]
pub(super) enum ToolError {
    Arg(ArgError),
    Engine(CliError),
    /// Refused before anything was written (no confirmation, a conflict under `block`): the
    /// message says why and what to do, `detail` what would have been written.
    Refused {
        code: &'static str,
        message: String,
        detail: Value,
    },
}

impl From<ArgError> for ToolError {
    fn from(e: ArgError) -> Self {
        Self::Arg(e)
    }
}

impl From<CliError> for ToolError {
    fn from(e: CliError) -> Self {
        Self::Engine(e)
    }
}

impl ToolError {
    pub(super) fn into_result(self) -> ToolResult {
        match self {
            Self::Arg(e) => ToolResult::error(
                "invalid_input",
                format!("{} {}", e.field, e.why),
                json!({ "field": e.field }),
            ),
            Self::Engine(e) => ToolResult::error(e.kind().as_str(), e.message(), json!({})),
            Self::Refused {
                code,
                message,
                detail,
            } => ToolResult::error(code, message, json!({ "wouldWrite": detail })),
        }
    }
}

pub(super) type Outcome = Result<ToolResult, ToolError>;
