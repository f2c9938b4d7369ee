//! Claude Code's records (tested: 2.1.332). Per workspace, one transcript per session:
//! `~/.claude/projects/<cwd, every non-alphanumeric character a '-'>/<session id>.jsonl`
//! (`$CLAUDE_CONFIG_DIR` instead of `~/.claude` when set). Its `user` / `assistant` entries are
//! chained by `uuid` / `parentUuid` (a branch Claude Code's own `/rewind` left is off the chain
//! from the last entry, and is not imported); a tool's result entry keeps `toolUseResult`, which
//! for `Write` holds the file's `content` after and `originalFile` before (`null`: created), and
//! for `Edit` / `MultiEdit` `originalFile` and the replacements. With file checkpointing on (the
//! default interactively; `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1` headless) it also keeps
//! exact byte copies: `file-history-snapshot` lines (per prompt `messageId`, the
//! `trackedFileBackups` at the prompt) and, since 2.1.220, `file-history-delta` lines (a file
//! first edited mid-turn), each naming a blob `~/.claude/file-history/<session>/<hash>@v<n>`
//! (`null`: the file did not exist). A shell command's changes are in none of them.

use super::build::{Imported, Step, Turn};
use super::claude_after::{Call, after};
use super::claude_history::Backups;
use super::{Found, Which, in_workspace, major_minor, pick};
use crate::CliError;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const AGENT: &str = "claude-code";

/// The Claude Code versions whose records this reader knows (major 2).
const KNOWN_MAJOR: u64 = 2;

fn claude_home() -> Result<PathBuf, CliError> {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(d) => Ok(PathBuf::from(d)),
        None => Ok(super::home()?.join(".claude")),
    }
}

pub(super) fn read(root: &Path, which: &Which<'_>) -> Result<Vec<Imported>, CliError> {
    let home = claude_home()?;
    let dir = home.join("projects").join(super::munged(root));
    let found = pick(super::sessions_in(&dir), which, AGENT)?;
    found.into_iter().map(|f| session(root, &home, f)).collect()
}

/// One session's transcript, read whole (a transcript that cannot be read is an error).
fn session(root: &Path, home: &Path, f: Found) -> Result<Imported, CliError> {
    let (mut s, lines) = super::open_jsonl(AGENT, f)?;
    s.refused = refusal(root, &lines, s.version.as_deref());
    if s.refused.is_none() {
        let backups = Backups::of(&lines, home.join("file-history").join(&s.session_id));
        s.turns = Reader::new(root, backups, &mut s.diagnostics).turns(&lines);
    }
    Ok(s)
}

/// Why the transcript is not one to import, if it is not.
fn refusal(root: &Path, lines: &[Value], version: Option<&str>) -> Option<String> {
    let Some(version) = version else {
        return Some(
            "no record names its Claude Code version: not a transcript this reader \
                     knows"
                .into(),
        );
    };
    if major_minor(version).map(|(major, _)| major) != Some(KNOWN_MAJOR) {
        return Some(format!(
            "unknown record version {version} (known: Claude Code {KNOWN_MAJOR}.x, tested \
             2.1.332): not imported"
        ));
    }
    let cwd = lines
        .iter()
        .find_map(|v| v.get("cwd").and_then(Value::as_str))?;
    (Path::new(cwd) != root).then(|| {
        format!(
            "the session ran in {cwd}, not this workspace ({}): not imported",
            root.display()
        )
    })
}

/// Walks the transcript's chain and builds the turns.
struct Reader<'a> {
    root: &'a Path,
    backups: Backups,
    diagnostics: &'a mut Vec<String>,
}

/// An entry's id.
fn uuid(v: &Value) -> Option<&str> {
    v.get("uuid").and_then(Value::as_str)
}

/// The entries on the chain from the last entry back to the first, in file order.
/// The entries on the chain from the last entry back to the first, in file order: a branch
/// Claude Code's own `/rewind` left is off it.
fn chain(lines: &[Value]) -> Vec<&Value> {
    let by_id: HashMap<&str, &Value> = lines.iter().filter_map(|v| Some((uuid(v)?, v))).collect();
    let mut on = HashSet::new();
    let mut at = lines
        .iter()
        .rev()
        .find(|v| uuid(v).is_some() && v.get("isSidechain") != Some(&Value::Bool(true)));
    while let Some(v) = at {
        let Some(id) = uuid(v) else { break };
        if !on.insert(id) {
            break; // a cycle: damaged
        }
        at = v
            .get("parentUuid")
            .and_then(Value::as_str)
            .and_then(|p| by_id.get(p).copied());
    }
    lines
        .iter()
        .filter(|v| uuid(v).is_some_and(|id| on.contains(id)))
        .collect()
}

/// The person's prompt an entry holds, if it is one.
fn prompt_of(v: &Value) -> Option<String> {
    if v.get("type")?.as_str()? != "user" || v.get("isMeta") == Some(&Value::Bool(true)) {
        return None;
    }
    if v.get("isCompactSummary") == Some(&Value::Bool(true)) {
        return None;
    }
    let text = match v.pointer("/message/content")? {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            if parts
                .iter()
                .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                return None;
            }
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            if texts.is_empty() {
                return None;
            }
            texts.join("\n")
        }
        _ => return None,
    };
    (!text.starts_with("[Request interrupted")).then_some(text)
}

impl<'a> Reader<'a> {
    fn new(root: &'a Path, backups: Backups, diagnostics: &'a mut Vec<String>) -> Self {
        Self {
            root,
            backups,
            diagnostics,
        }
    }

    fn turns(&mut self, lines: &[Value]) -> Vec<Turn> {
        let mut turns: Vec<Turn> = Vec::new();
        let mut prompt_id = String::new();
        let mut calls: HashMap<String, (String, Value)> = HashMap::new();
        // Per turn: the files already changed, and whether a shell command ran.
        let mut touched: HashSet<String> = HashSet::new();
        let mut shell_ran = false;
        for v in chain(lines) {
            if let Some(text) = prompt_of(v) {
                turns.push(Turn {
                    prompt: text,
                    before: v
                        .get("parentUuid")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    ..Turn::default()
                });
                prompt_id = v
                    .get("uuid")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                touched.clear();
                shell_ran = false;
                continue;
            }
            let Some(turn) = turns.last_mut() else {
                continue;
            };
            match v.get("type").and_then(Value::as_str) {
                Some("assistant") => {
                    if v.pointer("/message/model").and_then(Value::as_str) == Some("<synthetic>") {
                        continue;
                    }
                    let blocks = v.pointer("/message/content").and_then(Value::as_array);
                    let mut texts = Vec::new();
                    for b in blocks.into_iter().flatten() {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => texts.extend(b.get("text").and_then(Value::as_str)),
                            Some("tool_use") => {
                                let id = b.get("id").and_then(Value::as_str).unwrap_or_default();
                                let name =
                                    b.get("name").and_then(Value::as_str).unwrap_or_default();
                                let input = b.get("input").cloned().unwrap_or(Value::Null);
                                calls.insert(id.to_owned(), (name.to_owned(), input));
                            }
                            _ => {}
                        }
                    }
                    if !texts.is_empty() {
                        turn.reply = Some(texts.join("\n"));
                    }
                }
                Some("user") => {
                    let blocks = v.pointer("/message/content").and_then(Value::as_array);
                    for b in blocks.into_iter().flatten() {
                        if b.get("type").and_then(Value::as_str) != Some("tool_result")
                            || b.get("is_error") == Some(&Value::Bool(true))
                        {
                            continue;
                        }
                        let id = b
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let Some((tool, input)) = calls.get(id) else {
                            continue;
                        };
                        let result = v.get("toolUseResult").unwrap_or(&Value::Null);
                        let ctx = Call {
                            prompt: &prompt_id,
                            id,
                            tool,
                            input,
                            result,
                        };
                        let step = self.step(&ctx, &mut touched, &mut shell_ran);
                        turn.steps.extend(step);
                    }
                }
                _ => {}
            }
        }
        turns
    }

    /// What one finished tool call did.
    fn step(
        &mut self,
        c: &Call<'_>,
        touched: &mut HashSet<String>,
        shell_ran: &mut bool,
    ) -> Option<Step> {
        match c.tool {
            "Bash" => {
                *shell_ran = true;
                let command = c
                    .input
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                Some(Step::Notice(format!(
                    "Bash ran `{command}`: what it changed is not in Claude Code's records"
                )))
            }
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
                let file = c
                    .result
                    .get("filePath")
                    .or_else(|| c.input.get("file_path"))
                    .or_else(|| c.input.get("notebook_path"))
                    .and_then(Value::as_str)?;
                let path = match in_workspace(self.root, file) {
                    Ok(p) => p,
                    Err(why) => {
                        self.diagnostics.push(why);
                        return None;
                    }
                };
                let first = touched.insert(path.clone()) && !*shell_ran;
                Some(self.change(c, path, first))
            }
            _ => None,
        }
    }

    /// A file tool's change: exact bytes, or a failed capture saying why not.
    fn change(&mut self, c: &Call<'_>, path: String, first_in_turn: bool) -> Step {
        let failed = |reason: String| Step::Failed {
            tool: c.tool.to_owned(),
            path: path.clone(),
            reason,
        };
        if c.tool == "NotebookEdit" {
            return failed(
                "NotebookEdit: the records keep no notebook bytes after the edit".into(),
            );
        }
        // What the tool itself saw before it ran (`originalFile`; `null` for a created file).
        let seen: Option<Option<Vec<u8>>> = match c.result.get("originalFile") {
            Some(Value::String(s)) => Some(Some(s.clone().into_bytes())),
            Some(Value::Null) if c.result.get("type").and_then(Value::as_str) == Some("create") => {
                Some(None)
            }
            _ => None,
        };
        // The exact copy file-history kept when the turn first touched the file.
        let tracking = Path::new(&path).to_str().unwrap_or_default();
        let kept = first_in_turn
            .then(|| self.backups.before(c.prompt, tracking, self.diagnostics))
            .flatten();
        let before = match (seen, kept) {
            (Some(s), Some(k)) if s == k => s,
            (Some(_), Some(_)) => {
                return failed(
                    "the transcript's before-state and the file-history backup \
                               differ"
                        .into(),
                );
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => return failed("the records keep no before-state".into()),
        };
        match after(c, before.as_deref()) {
            Ok(after) => Step::Change {
                tool: c.tool.to_owned(),
                call_id: Some(c.id.to_owned()),
                path,
                before,
                after: Some(after),
            },
            Err(why) => failed(why),
        }
    }
}
