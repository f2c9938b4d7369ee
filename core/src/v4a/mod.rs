//! The files a V4A patch touches: the patch format of OpenAI Codex's `apply_patch` tool, also
//! used by Cline's `apply_patch{input}` and OpenCode's `apply_patch{patchText}`. A hook sees
//! only the patch text (no path field), so its paths come from the patch itself, before it is
//! applied, for the before-bytes of every file it changes.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: new.txt          (every body line starts with `+`)
//! +hello
//! *** Update File: old.txt       (hunks: `@@ context`, then ` ` / `-` / `+` lines)
//! *** Move to: renamed.txt       (optional, right after the Update line)
//! @@
//! -a
//! +b
//! *** Delete File: gone.txt
//! *** End Patch
//! ```
//!
//! The grammar is openai/codex `codex-rs/apply-patch/src/parser.rs` (rust-v0.153.4); like it,
//! marker lines are read with their surrounding whitespace trimmed. Only the file operations
//! are read here; hunk bodies are checked for shape, not applied. Paths stay as the patch
//! spells them (relative to the tool's directory, or absolute): the host resolves them.

mod heredoc;
#[cfg(test)]
mod tests;

pub use heredoc::{Heredoc, heredoc};

use crate::error::{Coded, ErrorKind};

/// What a patch does to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileOp {
    /// Creates `path` (or overwrites it) with the added lines.
    Add {
        /// The file, as the patch spells it.
        path: String,
    },
    /// Changes `path` in place, or moves it to `move_to` with the changes.
    Update {
        /// The file, as the patch spells it.
        path: String,
        /// `*** Move to:`: where the file goes.
        move_to: Option<String>,
    },
    /// Removes `path`.
    Delete {
        /// The file, as the patch spells it.
        path: String,
    },
}

impl FileOp {
    /// Every path the operation writes: a move writes two (the old one goes, the new one
    /// comes).
    pub fn paths(&self) -> Vec<&str> {
        match self {
            Self::Add { path } | Self::Delete { path } => vec![path],
            Self::Update { path, move_to } => {
                let mut paths = vec![path.as_str()];
                paths.extend(move_to.as_deref());
                paths
            }
        }
    }
}

/// A patch that is not V4A: what is wrong, and on which line (1-based).
#[allow(missing_docs)] // each variant's message says what it is
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the patch does not start with `*** Begin Patch`")]
    NoBegin,
    #[error("the patch does not end with `*** End Patch`")]
    NoEnd,
    #[error("the patch names no file to add, update or delete")]
    NoFiles,
    #[error("line {line}: `{marker}` names no file")]
    NoPath { line: usize, marker: &'static str },
    #[error("line {line}: `*** Move to:` must follow an `*** Update File:` line")]
    StrayMove { line: usize },
    #[error("line {line}: an added file's lines start with `+`, not {text:?}")]
    BadAddLine { line: usize, text: String },
    #[error("line {line}: {text:?} is not a hunk line (` `, `-`, `+`, `@@`)")]
    BadHunkLine { line: usize, text: String },
    #[error("line {line}: {text:?} comes before any file operation")]
    Outside { line: usize, text: String },
}

impl Coded for Error {
    fn code(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const UPDATE: &str = "*** Update File:";
const DELETE: &str = "*** Delete File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Where the reader is: which operation's body the next line belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    None,
    Add,
    /// An update, and whether a `*** Move to:` may still come (only right after it).
    Update {
        may_move: bool,
    },
    Delete,
}

/// The file operations of `patch`, in order. Fails on anything that is not the V4A grammar:
/// a hook must not guess which files a patch it cannot read will touch.
pub fn read(patch: &str) -> Result<Vec<FileOp>, Error> {
    let mut lines = patch.lines().enumerate().map(|(i, l)| (i + 1, l));
    let first = lines.by_ref().find(|(_, l)| !l.trim().is_empty());
    if first.map(|(_, l)| l.trim()) != Some(BEGIN) {
        return Err(Error::NoBegin);
    }
    let mut ops = Vec::new();
    let mut body = Body::None;
    let mut ended = false;
    for (line, text) in lines {
        let marker = text.trim();
        if ended {
            if marker.is_empty() {
                continue;
            }
            return Err(Error::Outside {
                line,
                text: text.to_owned(),
            });
        }
        if marker == END {
            ended = true;
        } else if let Some(rest) = marker.strip_prefix(ADD) {
            ops.push(FileOp::Add {
                path: path(rest, line, ADD)?,
            });
            body = Body::Add;
        } else if let Some(rest) = marker.strip_prefix(UPDATE) {
            ops.push(FileOp::Update {
                path: path(rest, line, UPDATE)?,
                move_to: None,
            });
            body = Body::Update { may_move: true };
        } else if let Some(rest) = marker.strip_prefix(DELETE) {
            ops.push(FileOp::Delete {
                path: path(rest, line, DELETE)?,
            });
            body = Body::Delete;
        } else if let Some(rest) = marker.strip_prefix(MOVE) {
            let Some(FileOp::Update { move_to, .. }) = ops.last_mut() else {
                return Err(Error::StrayMove { line });
            };
            if body != (Body::Update { may_move: true }) {
                return Err(Error::StrayMove { line });
            }
            *move_to = Some(path(rest, line, MOVE)?);
            body = Body::Update { may_move: false };
        } else {
            body = body_line(body, line, text)?;
        }
    }
    if !ended {
        return Err(Error::NoEnd);
    }
    if ops.is_empty() {
        return Err(Error::NoFiles);
    }
    Ok(ops)
}

fn path(rest: &str, line: usize, marker: &'static str) -> Result<String, Error> {
    let path = rest.trim();
    if path.is_empty() {
        return Err(Error::NoPath { line, marker });
    }
    Ok(path.to_owned())
}

/// Checks one line of an operation's body; returns the state after it.
fn body_line(body: Body, line: usize, text: &str) -> Result<Body, Error> {
    let owned = || text.to_owned();
    match body {
        Body::None => Err(Error::Outside {
            line,
            text: owned(),
        }),
        Body::Add if text.starts_with('+') => Ok(body),
        Body::Add => Err(Error::BadAddLine {
            line,
            text: owned(),
        }),
        Body::Update { .. } => {
            let hunk = text.is_empty()
                || text.starts_with([' ', '-', '+'])
                || text.trim_start().starts_with("@@")
                || text.trim() == END_OF_FILE;
            if hunk {
                Ok(Body::Update { may_move: false })
            } else {
                Err(Error::BadHunkLine {
                    line,
                    text: owned(),
                })
            }
        }
        // A delete has no body; only blank lines may follow it.
        Body::Delete if text.trim().is_empty() => Ok(body),
        Body::Delete => Err(Error::Outside {
            line,
            text: owned(),
        }),
    }
}
