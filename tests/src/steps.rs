//! What a scenario step does to the workspace directly (the person's edits, folders made and
//! removed, ignore rules) and what it expects to find there, on any host through the port.

use crate::call::bytes;
use rewind_core::node::Node;
use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use rewind_core::testkit::MemWorkspace;
use rewind_host::DiskWorkspace;
use serde_json::Value;
use std::collections::BTreeMap;

/// A host's own ignore rules, as a scenario's `ignorePaths` sets them: from then on its walk
/// skips the path and everything under it, the way a `.gitignore` line `/path` does.
pub trait IgnoreRules {
    /// Skip `path` from now on.
    fn ignore_path(&mut self, path: &WorkPath) -> Result<(), String>;
}

impl IgnoreRules for MemWorkspace {
    fn ignore_path(&mut self, path: &WorkPath) -> Result<(), String> {
        self.ignore(path.as_str());
        Ok(())
    }
}

/// Natively the rule goes in `.git/info/exclude` (the walk never enters `.git/`), so the
/// workspace holds no extra file the other hosts do not have.
impl IgnoreRules for DiskWorkspace {
    fn ignore_path(&mut self, path: &WorkPath) -> Result<(), String> {
        use std::io::Write as _;
        let info = self.root().join(".git/info");
        std::fs::create_dir_all(&info).map_err(|e| e.to_string())?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(info.join("exclude"))
            .map_err(|e| e.to_string())?;
        writeln!(f, "/{path}").map_err(|e| e.to_string())
    }
}

fn parse(path: &str) -> Result<WorkPath, String> {
    WorkPath::parse(path).map_err(|e| e.to_string())
}

pub(crate) fn check_files<W: Workspace>(
    ws: &mut W,
    files: &BTreeMap<String, Value>,
    what: &str,
) -> Result<(), String> {
    for (path, want) in files {
        let have = ws.read(&parse(path)?).map_err(|e| e.to_string())?;
        let want = bytes(want).map_err(|e| e.message)?;
        if have != want {
            let show = |b: &Option<Vec<u8>>| {
                b.as_ref().map_or("<absent>".into(), |b| {
                    format!("{:?}", String::from_utf8_lossy(b))
                })
            };
            return Err(format!(
                "{what}: {path} holds {}, expected {}",
                show(&have),
                show(&want)
            ));
        }
    }
    Ok(())
}

pub(crate) fn check_modes<W: Workspace>(
    ws: &mut W,
    modes: &BTreeMap<String, u32>,
) -> Result<(), String> {
    for (path, want) in modes {
        match ws.mode(&parse(path)?).map_err(|e| e.to_string())? {
            Some(have) if have != *want => {
                return Err(format!("{path} has mode {have:o}, expected {want:o}"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `true`: the path is a directory now; `false`: it is not (absent, or of another type).
pub(crate) fn check_dirs<W: Workspace>(
    ws: &mut W,
    dirs: &BTreeMap<String, bool>,
) -> Result<(), String> {
    for (path, want) in dirs {
        let node = ws.node(&parse(path)?).map_err(|e| e.to_string())?;
        let have = matches!(node, Some(Node::Dir));
        if have != *want {
            let what = match node {
                None => "absent",
                Some(Node::Dir) => "a directory",
                Some(Node::File(_)) => "a file",
                Some(Node::Symlink(_)) => "a symbolic link",
            };
            return Err(format!(
                "{path} is {what}, expected {}a directory",
                if *want { "" } else { "not " }
            ));
        }
    }
    Ok(())
}

/// Remove `path` and everything under it (`rm -r`), through the port.
fn remove_tree(ws: &mut dyn Workspace, path: &WorkPath) -> Result<(), String> {
    match ws.node(path).map_err(|e| e.to_string())? {
        None => Ok(()),
        Some(Node::File(_)) => ws.remove(path).map_err(|e| e.to_string()),
        Some(Node::Symlink(_)) => ws.remove_link(path).map_err(|e| e.to_string()),
        Some(Node::Dir) => {
            for name in ws.dir_entries(path).map_err(|e| e.to_string())? {
                remove_tree(ws, &parse(&format!("{path}/{name}"))?)?;
            }
            ws.remove_dir(path).map_err(|e| e.to_string())
        }
    }
}

/// What the person does to the workspace before a step (the step's `user*` and `ignorePaths`).
pub(crate) struct Person<'a> {
    pub(crate) remove_tree: &'a [String],
    pub(crate) delete: &'a [String],
    pub(crate) rmdir: &'a [String],
    pub(crate) mkdir: &'a [String],
    pub(crate) write: &'a BTreeMap<String, Value>,
    pub(crate) chmod: &'a BTreeMap<String, u32>,
    pub(crate) ignore: &'a [String],
}

/// Do what the person does, in this order: trees removed, files deleted, empty folders
/// removed, folders made, files written, modes changed, ignore rules added (a file replaced by
/// a folder is a delete, then a mkdir, in one step).
pub(crate) fn user_changes<W: Workspace + IgnoreRules>(
    ws: &mut W,
    step: &Person<'_>,
) -> Result<(), String> {
    for path in step.remove_tree {
        remove_tree(ws, &parse(path)?)?;
    }
    for path in step.delete {
        ws.remove(&parse(path)?).map_err(|e| e.to_string())?;
    }
    for path in step.rmdir {
        ws.remove_dir(&parse(path)?).map_err(|e| e.to_string())?;
    }
    for path in step.mkdir {
        ws.make_dir(&parse(path)?, None)
            .map_err(|e| e.to_string())?;
    }
    for (path, content) in step.write {
        let b = bytes(content).map_err(|e| e.message)?.unwrap_or_default();
        ws.write(&parse(path)?, &b).map_err(|e| e.to_string())?;
    }
    for (path, mode) in step.chmod {
        ws.set_mode(&parse(path)?, *mode)
            .map_err(|e| e.to_string())?;
    }
    for path in step.ignore {
        ws.ignore_path(&parse(path)?)?;
    }
    Ok(())
}

/// The tool's own write that a `recordEdit` records: its `after` bytes put in place (or the
/// file removed for `null`) before the call, as a real agent's tool would have done.
pub(crate) fn tool_write(ws: &mut dyn Workspace, args: &Value) -> Result<(), String> {
    let path = args
        .get("path")
        .and_then(Value::as_str)
        .ok_or("recordEdit needs a path")?;
    if let Ok(p) = WorkPath::parse(path) {
        let after = bytes(args.get("after").unwrap_or(&Value::Null)).map_err(|e| e.message)?;
        match after {
            Some(b) => ws.write(&p, &b),
            None => ws.remove(&p),
        }
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}
