//! `rewind edit [SESSION] [--turn T] --path P [--before-file F | --created] [--after-file F | --deleted]
//! [--before-mode MODE] [--after-mode MODE]`: record what a tool changed. The after-state defaults
//! to the file now on disk. The before-state's mode is F's (a copy of an executable keeps its
//! `x` bits), unless `--before-mode` says otherwise.
//!
//! `rewind edit [SESSION] [--turn T] --stdin`: record several files as one checkpoint, described
//! by a JSON document on stdin (see [`Doc`]):
//!
//! ```json
//! { "tool": "MultiEdit", "toolCallId": "call_1",
//!   "files": [ { "path": "src/a.rs", "before": { "text": "old\n" } },
//!              { "path": "logo.png", "before": { "base64": "iVBO…" }, "after": { "file": "/tmp/new.png" } },
//!              { "path": "gone.txt", "before": { "file": "/tmp/gone.txt" }, "after": null },
//!              { "path": "new.sh", "before": null, "afterMode": 493 } ] }
//! ```
//!
//! `--external` records the change as the person's own (an editor's save), not a tool's.
//!
//! The whole document is read and every file's bytes decoded before anything is recorded: a bad
//! document records nothing.

use super::{CliError, Context, Report, SessionArg, Verb};
use base64::Engine as _;
use rewind_core::ErrorKind;
use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use rewind_core::record::{EditChange, EditOptions};
use rewind_host::native::NativeEngine;
use serde::{Deserialize, Deserializer};
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The largest `--stdin` document read; file references carry anything bigger.
const MAX_STDIN_BYTES: u64 = 256 << 20;

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("before").required(true).args(["before_file", "created", "stdin"])))]
#[command(group(clap::ArgGroup::new("after").args(["after_file", "deleted"])))]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The running turn whose tool made the change (#N, @ or an id; default: the session's one
    /// running turn).
    #[arg(long, value_name = "TURN")]
    turn: Option<String>,
    /// The file, relative to the workspace.
    #[arg(long, required_unless_present = "stdin", conflicts_with = "stdin")]
    path: Option<String>,
    /// A file holding the exact bytes before the change.
    #[arg(long, value_name = "FILE")]
    before_file: Option<PathBuf>,
    /// The tool created the file (it did not exist before).
    #[arg(long)]
    created: bool,
    /// A file holding the exact bytes after the change (default: the file now on disk).
    #[arg(long, value_name = "FILE", conflicts_with = "stdin")]
    after_file: Option<PathBuf>,
    /// The tool deleted the file.
    #[arg(long, conflicts_with = "stdin")]
    deleted: bool,
    /// The file's permission bits before the change, in octal (`755`, `0o644`); default: those
    /// of --before-file.
    #[arg(long, value_name = "MODE", value_parser = octal_mode, conflicts_with_all = ["stdin", "created"])]
    before_mode: Option<u32>,
    /// The file's permission bits after the change, in octal; default: those of the file on disk.
    #[arg(long, value_name = "MODE", value_parser = octal_mode, conflicts_with_all = ["stdin", "deleted"])]
    after_mode: Option<u32>,
    /// Read the changed files from a JSON document on stdin, all recorded as one checkpoint:
    /// `{"tool"?, "toolCallId"?, "files": [{"path", "before", "after"?, "beforeMode"?,
    /// "afterMode"?}]}`, each side `null` (absent), `{"base64": …}`, `{"text": …}` or
    /// `{"file": PATH}`; an omitted `after` is the file now on disk.
    #[arg(long)]
    stdin: bool,
    /// The tool's name (default `Edit`; with --stdin, the document's wins).
    #[arg(long)]
    tool: Option<String>,
    /// The tool call's id (with --stdin, the document's wins).
    #[arg(long, value_name = "ID")]
    tool_call_id: Option<String>,
    /// The person made the change, not a tool (an editor's save): recorded as an `external`
    /// checkpoint, which rewinds keep and show as a conflict, even while an agent's
    /// `rewind exec` runs.
    #[arg(long)]
    external: bool,
}

/// The `--stdin` document.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Doc {
    /// The tool's name (default: `--tool`, else `Edit`).
    #[serde(default)]
    tool: Option<String>,
    /// The tool call's id.
    #[serde(default)]
    tool_call_id: Option<String>,
    /// The files, each once.
    files: Vec<DocFile>,
}

/// One file of the document. `before` must be given (`null`: the tool created the file), so that
/// a forgotten field can never record a file as new and let a rewind delete it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DocFile {
    path: String,
    #[serde(default, deserialize_with = "present")]
    before: Option<Option<Bytes>>,
    /// Omitted: the file now on disk; `null`: the tool deleted it.
    #[serde(default, deserialize_with = "present")]
    after: Option<Option<Bytes>>,
    #[serde(default)]
    before_mode: Option<u32>,
    #[serde(default)]
    after_mode: Option<u32>,
}

/// A side's bytes: exactly one of the three.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "null, {\"base64\": …}, {\"text\": …} or {\"file\": PATH}"
)]
struct Bytes {
    /// Standard base64 (with padding).
    #[serde(default)]
    base64: Option<String>,
    /// UTF-8 text, as is.
    #[serde(default)]
    text: Option<String>,
    /// A regular file holding the exact bytes (read like `--before-file`).
    #[serde(default)]
    file: Option<PathBuf>,
}

/// A field that is there, even as `null` (`Some(None)`), against one left out (`None`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `755`, `0755` or `0o755`: permission bits (at most `7777`).
fn octal_mode(text: &str) -> Result<u32, String> {
    let digits = text.strip_prefix("0o").unwrap_or(text);
    u32::from_str_radix(digits, 8)
        .ok()
        .filter(|m| *m <= 0o7777 && !digits.is_empty())
        .ok_or_else(|| format!("{text:?} is not an octal mode such as 755 or 0644"))
}

/// The permission bits of the regular file `path`.
fn mode_of(path: &Path) -> Result<u32, CliError> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o7777)
        .map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))
}

fn invalid(message: impl Into<String>) -> CliError {
    CliError::new(ErrorKind::InvalidInput, message)
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    read_file(path).map_err(invalid)
}

fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    // Only regular files: reading a FIFO or a device could block forever or never end.
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The file as it is now in the workspace (the default after-state); `gone` says what to pass
/// when the tool removed it.
/// `workspace` (for `--path`): a path that names a file from the current directory is hinted.
fn on_disk(
    engine: &mut NativeEngine,
    workspace: Option<&Path>,
    path: &str,
    gone: &str,
) -> Result<Vec<u8>, CliError> {
    let p =
        WorkPath::parse(path).map_err(|e| CliError::new(ErrorKind::InvalidPath, e.to_string()))?;
    let now = engine
        .workspace_mut()
        .read(&p)
        .map_err(|e| CliError::from_engine(e.error_kind(), e))?;
    now.ok_or_else(
        || match workspace.and_then(|w| Some((w, from_here(w, path)?))) {
            Some((w, meant)) => invalid(format!(
                "{p} does not exist in the workspace (paths are relative to its root, {}): from \
             here that file is {meant}; pass --path {meant}",
                w.display()
            )),
            None => invalid(format!("{p} does not exist; {gone} if the tool removed it")),
        },
    )
}

/// `path` read from the current directory, as the workspace-relative path of a file that exists
/// there (`src/util.py` for `util.py` run in `src/`); `None` at the root or outside.
fn from_here(workspace: &Path, path: &str) -> Option<String> {
    let root = std::fs::canonicalize(workspace).ok()?;
    let here = std::fs::canonicalize(std::env::current_dir().ok()?).ok()?;
    let dir = here.strip_prefix(&root).ok()?;
    if dir.as_os_str().is_empty() || !here.join(path).is_file() {
        return None;
    }
    let meant = dir.join(path);
    WorkPath::parse(meant.to_str()?).ok().map(|w| w.to_string())
}

/// The document on stdin, bounded.
fn read_stdin() -> Result<Doc, CliError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| invalid(format!("cannot read stdin: {e}")))?;
    if bytes.len() as u64 > MAX_STDIN_BYTES {
        return Err(invalid(format!(
            "the --stdin document is larger than {} MiB; nothing was recorded. Pass large \
             contents as {{\"file\": PATH}} references",
            MAX_STDIN_BYTES >> 20
        )));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(invalid(
            "--stdin read nothing; pipe a JSON document {\"files\": [...]} into it",
        ));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| invalid(format!("the --stdin document is not valid: {e}")))
}

/// A side's bytes (`None`: absent), or why they cannot be had.
fn decode(side: Option<Bytes>) -> Result<Option<Vec<u8>>, String> {
    let Some(side) = side else {
        return Ok(None);
    };
    match (side.base64, side.text, side.file) {
        (Some(b), None, None) => base64::engine::general_purpose::STANDARD
            .decode(b.as_bytes())
            .map(Some)
            .map_err(|e| format!("not valid base64: {e}")),
        (None, Some(t), None) => Ok(Some(t.into_bytes())),
        (None, None, Some(f)) => read_file(&f).map(Some),
        _ => Err(
            "give exactly one of {\"base64\": …}, {\"text\": …} or {\"file\": …} (or null: \
             absent)"
                .to_owned(),
        ),
    }
}

/// The changes a document describes, every given byte decoded (file references read), and the
/// indexes of those whose after-state is the file now on disk, still to be read (see
/// [`from_disk`]).
fn changes_of(files: Vec<DocFile>) -> Result<(Vec<EditChange>, Vec<usize>), CliError> {
    let mut changes = Vec::with_capacity(files.len());
    let mut from_disk = Vec::new();
    for (i, f) in files.into_iter().enumerate() {
        let at =
            |side: &str, why: String| invalid(format!("files[{i}] ({}): {side}: {why}", f.path));
        let Some(before) = f.before else {
            return Err(at(
                "before",
                "missing; give the bytes before the change, or null if the tool created the \
                 file"
                    .to_owned(),
            ));
        };
        let before = decode(before).map_err(|why| at("before", why))?;
        let after = match f.after {
            Some(side) => decode(side).map_err(|why| at("after", why))?,
            None => {
                from_disk.push(i);
                None
            }
        };
        changes.push(EditChange {
            path: f.path,
            before,
            after,
            patch: None,
            before_mode: f.before_mode,
            after_mode: f.after_mode,
        });
    }
    Ok((changes, from_disk))
}

/// Fill in the after-states that are the files now on disk.
fn from_disk(
    engine: &mut NativeEngine,
    changes: &mut [EditChange],
    which: Vec<usize>,
) -> Result<(), CliError> {
    for i in which {
        let c = &mut changes[i];
        let now = on_disk(engine, None, &c.path, "give \"after\": null")
            .map_err(|e| e.context(&format!("files[{i}]")))?;
        c.after = Some(now);
    }
    Ok(())
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let turn = super::open_turn::check(a.turn.as_deref())?;
    // The document is read and decoded before the store is even opened.
    let doc = if a.stdin {
        let doc = read_stdin()?;
        Some((doc.tool, doc.tool_call_id, changes_of(doc.files)?))
    } else {
        None
    };
    let mut engine = ctx.engine(Verb::RecordEdit)?;
    let session = ctx.session(&engine, &a.session)?;
    let turn_id = super::open_turn::resolve(ctx, &engine, &session, turn.as_ref())?;
    let (tool, tool_call_id, changes) = match doc {
        Some((tool, tool_call_id, (mut changes, pending))) => {
            from_disk(&mut engine, &mut changes, pending)?;
            (tool.or(a.tool), tool_call_id.or(a.tool_call_id), changes)
        }
        None => {
            // clap requires --path unless --stdin.
            let path = a.path.unwrap_or_default();
            let before = a.before_file.as_deref().map(read).transpose()?;
            let after = match (&a.after_file, a.deleted) {
                (Some(f), _) => Some(read(f)?),
                (None, true) => None,
                (None, false) => Some(on_disk(
                    &mut engine,
                    Some(&ctx.workspace),
                    &path,
                    "pass --deleted",
                )?),
            };
            let before_mode = match (a.before_mode, &a.before_file) {
                (Some(m), _) => Some(m),
                (None, Some(f)) => Some(mode_of(f)?),
                (None, None) => None,
            };
            let change = EditChange {
                path,
                before,
                after,
                patch: None,
                before_mode,
                after_mode: a.after_mode,
            };
            (a.tool, a.tool_call_id, vec![change])
        }
    };
    let (kind, default_tool) = match a.external {
        true => (rewind_core::model::CheckpointKind::External, "save"),
        false => (rewind_core::record::kind_for(&changes), "Edit"),
    };
    let opts = EditOptions {
        turn_id,
        tool_name: tool.unwrap_or_else(|| default_tool.to_owned()),
        tool_call_id,
        tool_message_id: None,
        kind,
        changes,
    };
    let out = engine.record_edit(&session, opts)?;
    let mut text = format!("checkpoint {}", out.checkpoint_id);
    for f in &out.files {
        let _ = write!(
            text,
            "\n  {}  +{} -{}",
            crate::style::visible(f.path.as_str()),
            f.stats.additions,
            f.stats.deletions
        );
        if let Some(why) = &f.capture_failed {
            let why = crate::style::visible(why);
            let _ = write!(text, "  (not restorable: {why})");
        }
    }
    Ok(Report::new(&out, text))
}
