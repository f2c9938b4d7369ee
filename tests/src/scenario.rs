//! JSON scenarios: a workspace before, a list of steps (calls, user edits, injected faults,
//! expectations), and the workspace after. One file, every host.

use crate::call::{bytes, call};
use crate::steps::{
    IgnoreRules, Person, check_dirs, check_files, check_modes, tool_write, user_changes,
};
use rewind_core::Engine;
use rewind_core::path::WorkPath;
use rewind_core::ports::{StoreWrite, Workspace};
use rewind_core::testkit::{Fault, FaultOp, Faulty};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// Short name.
    pub name: String,
    /// What it shows.
    pub description: String,
    /// Files before the first step (`null` entries are ignored).
    #[serde(default)]
    pub workspace: BTreeMap<String, Value>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Files after the last step; `null` = must not exist.
    #[serde(default)]
    pub workspace_after: BTreeMap<String, Value>,
}

/// Where a fault strikes.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultSpec {
    /// `read`, `write`, `remove` (workspace) or `commit` (store).
    pub op: String,
    /// The Nth call from now fails.
    pub nth: u64,
    /// And every call after it.
    #[serde(default)]
    pub sticky: bool,
}

/// One step: what the person does to the workspace first (`userRemoveTree`, `userDelete`,
/// `userRmdir`, `userMkdir`, `userWrite`, `userChmod`, `ignorePaths`, in that order), faults,
/// what must hold then (`expectWorkspace`, `expectModes`, `expectDirs`), then the `call`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    /// A verb by its JS name.
    #[serde(default)]
    pub call: Option<String>,
    /// Its arguments; strings `$name` are replaced by saved values.
    #[serde(default)]
    pub args: Value,
    /// Save result fields: variable → dotted path (`files.0.path`).
    #[serde(default)]
    pub save: BTreeMap<String, String>,
    /// The result must contain this (objects: listed keys; arrays: same length).
    #[serde(default)]
    pub expect: Option<Value>,
    /// The call must fail with this code.
    #[serde(default)]
    pub expect_error: Option<String>,
    /// For `recordEdit`: write `after` to the workspace first, as the tool did (default true).
    #[serde(default)]
    pub tool_writes: Option<bool>,
    /// A person edits files directly.
    #[serde(default)]
    pub user_write: BTreeMap<String, Value>,
    /// A person deletes files directly.
    #[serde(default)]
    pub user_delete: Vec<String>,
    /// A person (or a tool) changes permission bits directly: path → mode (e.g. 493 = 0o755).
    #[serde(default)]
    pub user_chmod: BTreeMap<String, u32>,
    /// A person makes these folders (`mkdir -p`).
    #[serde(default)]
    pub user_mkdir: Vec<String>,
    /// A person removes these empty folders (`rmdir`).
    #[serde(default)]
    pub user_rmdir: Vec<String>,
    /// A person removes these paths and all under them (`rm -r`).
    #[serde(default)]
    pub user_remove_tree: Vec<String>,
    /// The host's own ignore rules start to skip these paths and all under them (natively a
    /// `/path` line in `.git/info/exclude`, elsewhere the host's walk told so).
    #[serde(default)]
    pub ignore_paths: Vec<String>,
    /// Arm a fault.
    #[serde(default)]
    pub fault: Option<FaultSpec>,
    /// Disarm every fault.
    #[serde(default)]
    pub clear_faults: bool,
    /// These files must hold exactly this now (`null` = absent).
    #[serde(default)]
    pub expect_workspace: BTreeMap<String, Value>,
    /// These files must have exactly these permission bits now (hosts without modes skip it).
    #[serde(default)]
    pub expect_modes: BTreeMap<String, u32>,
    /// These paths must be directories now (`true`) or not (`false`: absent or another type).
    #[serde(default)]
    pub expect_dirs: BTreeMap<String, bool>,
    /// A comment.
    #[serde(default)]
    pub note: Option<String>,
}

/// `$name`, or `$name[from:to]`: the characters `from..to` of a saved string (either end may
/// be left out), to type an id the way people do (`$p1[4:]` is the id without `msg_`).
fn variable(s: &str, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    let (name, slice) = match s[1..].split_once('[') {
        Some((name, rest)) => (name, rest.strip_suffix(']')),
        None => (&s[1..], None),
    };
    let value = vars
        .get(name)
        .cloned()
        .ok_or_else(|| format!("variable {s} is not set"))?;
    let Some(slice) = slice else {
        return Ok(value);
    };
    let text = value.as_str().ok_or_else(|| format!("{s}: not a string"))?;
    let (from, to) = slice
        .split_once(':')
        .ok_or_else(|| format!("{s}: write [from:to]"))?;
    let bound = |n: &str, default: usize| -> Result<usize, String> {
        match n {
            "" => Ok(default),
            n => n.parse().map_err(|_| format!("{s}: bad slice")),
        }
    };
    let (from, to) = (bound(from, 0)?, bound(to, text.len())?);
    text.get(from..to)
        .map(|t| Value::String(t.to_owned()))
        .ok_or_else(|| format!("{s}: out of range"))
}

fn substitute(v: &Value, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) if s.starts_with('$') => variable(s, vars)?,
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| substitute(x, vars))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| Ok((k.clone(), substitute(x, vars)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn pick<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, key| match v {
        Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
        Value::Object(o) => o.get(key),
        _ => None,
    })
}

/// `actual` contains `expected`: listed object keys match, arrays match element-wise.
pub fn contains(actual: &Value, expected: &Value, at: &str) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (k, ev) in e {
                let av = a.get(k).unwrap_or(&Value::Null);
                contains(av, ev, &format!("{at}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) => {
            if a.len() != e.len() {
                return Err(format!(
                    "{at}: expected {} items, got {}: {}",
                    e.len(),
                    a.len(),
                    Value::Array(a.clone())
                ));
            }
            a.iter()
                .zip(e)
                .enumerate()
                .try_for_each(|(i, (av, ev))| contains(av, ev, &format!("{at}.{i}")))
        }
        (a, e) if a == e => Ok(()),
        (a, e) => Err(format!("{at}: expected {e}, got {a}")),
    }
}

fn fault(spec: &FaultSpec) -> Result<(FaultOp, Fault), String> {
    let op = match spec.op.as_str() {
        "read" => FaultOp::Read,
        "write" => FaultOp::Write,
        "remove" => FaultOp::Remove,
        "commit" => FaultOp::Commit,
        other => return Err(format!("unknown fault op {other:?}")),
    };
    Ok((
        op,
        Fault {
            op,
            nth: spec.nth,
            sticky: spec.sticky,
        },
    ))
}

impl Step {
    fn person(&self) -> Person<'_> {
        Person {
            remove_tree: &self.user_remove_tree,
            delete: &self.user_delete,
            rmdir: &self.user_rmdir,
            mkdir: &self.user_mkdir,
            write: &self.user_write,
            chmod: &self.user_chmod,
            ignore: &self.ignore_paths,
        }
    }
}

/// Run a scenario on an engine whose hosts can take faults.
pub fn run<S: StoreWrite, W: Workspace + IgnoreRules>(
    sc: &Scenario,
    engine: &mut Engine<Faulty<S>, Faulty<W>>,
) -> Result<(), String> {
    for (path, content) in &sc.workspace {
        if let Some(b) = bytes(content).map_err(|e| e.message)? {
            let p = WorkPath::parse(path).map_err(|e| e.to_string())?;
            engine
                .workspace_mut()
                .inner_mut()
                .write(&p, &b)
                .map_err(|e| e.to_string())?;
        }
    }
    let mut vars: BTreeMap<String, Value> = BTreeMap::new();
    for (i, step) in sc.steps.iter().enumerate() {
        let here = |m: String| {
            format!(
                "{}: step {} ({}): {m}",
                sc.name,
                i + 1,
                step.call.as_deref().unwrap_or("-")
            )
        };
        user_changes(engine.workspace_mut().inner_mut(), &step.person()).map_err(here)?;
        if let Some(spec) = &step.fault {
            let (op, f) = fault(spec).map_err(here)?;
            match op {
                FaultOp::Commit => engine.store_mut().arm(f),
                _ => engine.workspace_mut().arm(f),
            }
        }
        if step.clear_faults {
            engine.store_mut().clear_faults();
            engine.workspace_mut().clear_faults();
        }
        check_files(
            engine.workspace_mut().inner_mut(),
            &step.expect_workspace,
            "workspace",
        )
        .map_err(here)?;
        check_modes(engine.workspace_mut().inner_mut(), &step.expect_modes).map_err(here)?;
        check_dirs(engine.workspace_mut().inner_mut(), &step.expect_dirs).map_err(here)?;
        let Some(name) = &step.call else { continue };
        let args = substitute(&step.args, &vars).map_err(here)?;
        let has_after = args.get("after").is_some();
        if name == "recordEdit" && step.tool_writes != Some(false) && has_after {
            tool_write(engine.workspace_mut().inner_mut(), &args).map_err(here)?;
        }
        let result = call(engine, name, args);
        match (&step.expect_error, result) {
            (Some(code), Err(e)) if &e.code == code => continue,
            (Some(code), Err(e)) => {
                return Err(here(format!(
                    "expected error {code}, got {} ({})",
                    e.code, e.message
                )));
            }
            (Some(code), Ok(v)) => return Err(here(format!("expected error {code}, got {v}"))),
            (None, Err(e)) => return Err(here(format!("failed with {}: {}", e.code, e.message))),
            (None, Ok(value)) => {
                if let Some(expect) = &step.expect {
                    let expect = substitute(expect, &vars).map_err(here)?;
                    contains(&value, &expect, "result")
                        .map_err(|m| here(format!("{m}\nfull result: {value}")))?;
                }
                for (var, path) in &step.save {
                    let v = pick(&value, path)
                        .ok_or_else(|| here(format!("result has no {path}: {value}")))?;
                    vars.insert(var.clone(), v.clone());
                }
            }
        }
    }
    check_files(
        engine.workspace_mut().inner_mut(),
        &sc.workspace_after,
        "workspace after",
    )
    .map_err(|m| format!("{}: {m}", sc.name))
}

/// Every scenario file under `dir`, sorted by file name.
pub fn load_dir(dir: &std::path::Path) -> Vec<(String, Scenario)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("scenario directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable scenario");
            let sc: Scenario =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (
                p.file_name().expect("file").to_string_lossy().into_owned(),
                sc,
            )
        })
        .collect()
}

/// Run every scenario of `tests/scenarios/` on a fresh engine from `make` (which may also hand
/// back a guard, e.g. a temp dir, kept alive for the scenario), and fail with every failure
/// listed. Returns how many scenarios ran.
pub fn run_all<S: StoreWrite, W: Workspace + IgnoreRules, G>(
    mut make: impl FnMut() -> (Engine<Faulty<S>, Faulty<W>>, G),
) -> Result<usize, String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenarios = load_dir(&dir);
    if scenarios.len() < 10 {
        return Err(format!(
            "expected the scenario suite, found {} files",
            scenarios.len()
        ));
    }
    let mut failures = Vec::new();
    for (file, sc) in &scenarios {
        let (mut engine, _guard) = make();
        if let Err(e) = run(sc, &mut engine) {
            failures.push(format!("{file}: {e}"));
        }
    }
    match failures.is_empty() {
        true => Ok(scenarios.len()),
        false => Err(format!(
            "{} scenario(s) failed:\n{}",
            failures.len(),
            failures.join("\n\n")
        )),
    }
}
