//! The Bash hook pair as a person's agent pays for it: `rewind hook claude-code` PreToolUse +
//! PostToolUse of one Bash call, two whole processes, on the shell scenario's real trees of
//! 10,000 and 100,000 files, beside `git status` of the same tree (plain, and with watchman's
//! fsmonitor hook when watchman is installed) and shadow git's `add -A` + `commit`, every
//! measurement sampled interleaved with the others in one run.
//!
//! Two stores in the tree: the hooks of the journal rows run as installed (the first Bash hook
//! starts the workspace's `rewind watch`, later ones ask it what changed); the walk rows run
//! with `REWIND_WATCH=0` into a database of their own, so neither side's manifest is the other's
//! starting point. After each 3-file command the walk store's hooks see the command's change
//! once, untimed, so its next timed pair again has nothing to find. After the samples both
//! stores are read back (`rewind checkpoints`): every command's 3 files must be recorded.

use crate::corpus::Corpus;
use crate::harness::{Measured, Result, Samples, ratio, run};
use crate::hook::rewind_bin;
use crate::hook_io::{checkpoints, own_store, payload, send_env};
use crate::hook_shell_rig::{self as rig, Repo};
use crate::report::{Met, Table};
use crate::shadow::ShadowGit;
use crate::shell_tree::{self, Tree, path_of};
use serde_json::json;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SIZES: &[usize] = &[10_000, 100_000];
/// The command of the unchanged rows: reads, writes nothing.
const READ_ONLY: &str = "git log -1";

/// One size's tree, stores and anchors.
struct Cx {
    bin: PathBuf,
    tree: Tree,
    files: usize,
    /// The walk rows' database (the journal rows use the workspace's own).
    walk_db: PathBuf,
    repo: Repo,
    shadow: ShadowGit,
    calls: usize,
    runs: usize,
}

/// Every measurement of one size.
#[derive(Default)]
struct Rows {
    journal: Vec<Duration>,
    walk: Vec<Duration>,
    status: Vec<Duration>,
    fsmonitor: Vec<Duration>,
    change: Vec<Duration>,
    command: Vec<Duration>,
    shadow: Vec<Duration>,
}

fn time(f: impl FnOnce() -> Result<()>) -> Result<Duration> {
    let t0 = Instant::now();
    f()?;
    Ok(t0.elapsed())
}

fn measured(times: &[Duration]) -> Measured {
    Measured {
        samples: Samples::new(times.to_vec()),
        peak_kib: None,
    }
}

impl Cx {
    fn env(&self, walk: bool) -> Vec<(&'static str, &OsStr)> {
        // The hook's 10 s limit is a safety net for the agent, not what is measured: on a
        // loaded machine a 100,000-file walk can pass it, and a hook stopped early records
        // nothing (the check after the samples then fails the scenario).
        let mut env = vec![("REWIND_HOOK_TIMEOUT_MS", OsStr::new("600000"))];
        if walk {
            env.push(("REWIND_WATCH", OsStr::new("0")));
            env.push(("REWIND_DB", self.walk_db.as_os_str()));
        }
        env
    }
    fn event(&self, walk: bool, name: &str, extra: serde_json::Value) -> Result<()> {
        let p = payload(&self.tree.root, "bench-session", name, extra);
        send_env(&self.bin, &p, &self.env(walk))
    }
    /// One Bash call's PreToolUse and PostToolUse, `between` run in between (untimed); returns
    /// the two hooks' time.
    fn pair(
        &mut self,
        walk: bool,
        line: &str,
        between: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<Duration> {
        self.calls += 1;
        let tool = json!({ "tool_name": "Bash", "tool_input": { "command": line },
                           "tool_use_id": format!("toolu_bash_{}", self.calls) });
        let pre = time(|| self.event(walk, "PreToolUse", tool.clone()))?;
        between(self)?;
        let post = time(|| self.event(walk, "PostToolUse", tool))?;
        Ok(pre + post)
    }
    /// One round: every row once, interleaved; `keep` false for the warm-up rounds.
    fn round(&mut self, rows: &mut Rows, keep: bool) -> Result<()> {
        let journal = self.pair(false, READ_ONLY, |_| Ok(()))?;
        let walk = self.pair(true, READ_ONLY, |_| Ok(()))?;
        let status = time(|| self.repo.status(false))?;
        let fsmonitor = match self.repo.fsmonitor.is_some() {
            true => Some(time(|| self.repo.status(true))?),
            false => None,
        };
        let k = self.runs + 1;
        let line = self.tree.command_line(k);
        let mut command = Duration::ZERO;
        let change = self.pair(false, &line, |cx| {
            cx.runs = k;
            command = time(|| run(&mut cx.tree.command(k)).map(drop))?;
            Ok(())
        })?;
        let shadow = time(|| self.shadow.snapshot(&format!("run {k}")))?;
        // The walk store sees the command's change now, so its next pair finds nothing.
        self.pair(true, READ_ONLY, |_| Ok(()))?;
        if keep {
            rows.journal.push(journal);
            rows.walk.push(walk);
            rows.status.push(status);
            rows.fsmonitor.extend(fsmonitor);
            rows.change.push(change);
            rows.command.push(command);
            rows.shadow.push(shadow);
        }
        Ok(())
    }
    /// Every command's three files, recorded by the journal store (as the command's) and by
    /// the walk store (as found before its next pair).
    fn check(&self) -> Result<()> {
        let want = |k: usize| {
            let mut v = vec![
                path_of(0),
                path_of(self.files / 2),
                format!("src/gen/out-{k}.txt"),
            ];
            v.sort();
            v
        };
        let journal = checkpoints(&self.bin, &self.tree.root, None)?;
        let walk = checkpoints(&self.bin, &self.tree.root, Some(&self.walk_db))?;
        for k in 1..=self.runs {
            let line = self.tree.command_line(k);
            let ok = journal.iter().any(|c| {
                // The first command also creates the directory `src/gen`, recorded with it.
                let mut p: Vec<String> = c
                    .paths
                    .iter()
                    .filter(|p| *p != "src/gen")
                    .cloned()
                    .collect();
                p.sort();
                c.input.as_deref() == Some(line.as_str()) && p == want(k)
            });
            let found = format!("src/gen/out-{k}.txt");
            let ok_walk = walk.iter().any(|c| c.paths.contains(&found));
            if !ok || !ok_walk {
                let seen: Vec<_> = journal
                    .iter()
                    .filter(|c| c.paths.contains(&found))
                    .collect();
                return Err(format!(
                    "hook-shell: command {k}'s 3 files not recorded (journal {ok}: {seen:?}, \
                     walk {ok_walk})"
                )
                .into());
            }
        }
        let stray = journal
            .iter()
            .chain(&walk)
            .filter(|c| c.input.as_deref() == Some(READ_ONLY) && !c.paths.is_empty())
            .count();
        if stray > 0 {
            return Err(format!("hook-shell: {stray} read-only calls recorded changes").into());
        }
        Ok(())
    }
}

/// Start a session in both stores and the workspace's watcher, and wait until it answers.
fn start(cx: &mut Cx) -> Result<()> {
    for walk in [false, true] {
        cx.event(walk, "SessionStart", json!({ "source": "startup" }))?;
        cx.event(
            walk,
            "UserPromptSubmit",
            json!({ "prompt": "run commands" }),
        )?;
        // The first snapshot of each store (the whole tree), untimed.
        cx.pair(walk, READ_ONLY, |_| Ok(()))?;
    }
    let sock = cx.tree.root.join(".rewind/watch/sock");
    let t0 = Instant::now();
    while !sock.exists() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    if !sock.exists() {
        return Err("hook-shell: the Bash hook started no watcher".into());
    }
    Ok(())
}

fn measure(cx: &mut Cx, samples: usize) -> Result<Rows> {
    start(cx)?;
    let mut rows = Rows::default();
    for i in 0..2 + samples {
        cx.round(&mut rows, i >= 2)?;
    }
    cx.check()?;
    Ok(rows)
}

/// Run the scenario: one table per size.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Vec<Table>> {
    let bin = rewind_bin()?;
    let mut tables = Vec::new();
    for &files in SIZES {
        let tree = shell_tree::prepare(data, corpus, files)?;
        let root = std::fs::canonicalize(&tree.root)?;
        let dir = data.join(format!("hook-shell{files}"));
        std::fs::create_dir_all(&dir)?;
        let shadow = ShadowGit {
            git_dir: dir.join("shadow.git"),
            work_tree: root.clone(),
        };
        let repo = rig::prepare(
            &root,
            &data.join(format!("hook-shell{files}-v1.done")),
            &shadow,
        )?;
        rig::stop_watchers(&root);
        let _ = std::fs::remove_dir_all(root.join(".rewind"));
        own_store(&root)?;
        let walk_db = dir.join("walk.db");
        crate::shadow::remove_db(&walk_db);
        let mut cx = Cx {
            bin: bin.clone(),
            tree,
            files,
            walk_db,
            repo,
            shadow,
            calls: 0,
            runs: 0,
        };
        eprintln!(
            "bench: hook-shell: {files} files, {} rounds",
            samples.max(9)
        );
        let rows = measure(&mut cx, samples.max(9));
        rig::stop_watchers(&root);
        cx.repo.unwatch();
        cx.tree.reset()?;
        let _ = std::fs::remove_dir_all(root.join(".rewind"));
        tables.push(table(&cx, &rows?));
    }
    Ok(tables)
}

fn table(cx: &Cx, r: &Rows) -> Table {
    let med = |v: &[Duration]| Samples::new(v.to_vec()).median();
    let mut t = Table::new(format!(
        "Bash hook pair: `rewind hook claude-code` PreToolUse + PostToolUse, {} files",
        cx.files
    ));
    let (anchor, anchor_name) = match r.fsmonitor.is_empty() {
        false => (med(&r.fsmonitor), "`git status` with fsmonitor"),
        true => (med(&r.status), "`git status`"),
    };
    let journal = med(&r.journal);
    t.timed(
        "pair, nothing changed, watcher on (warm: `rewind watch` running)",
        &measured(&r.journal),
        &format!("< {anchor_name}"),
        Met::from(journal < anchor),
    )
    .timed(
        "pair, nothing changed, watcher off (`REWIND_WATCH=0`: the walk)",
        &measured(&r.walk),
        "",
        Met::None,
    )
    .timed(
        "anchor: `git status` (index fresh, untracked cache on)",
        &measured(&r.status),
        "",
        Met::None,
    );
    if !r.fsmonitor.is_empty() {
        t.timed(
            "anchor: `git status`, watchman fsmonitor hook (warm)",
            &measured(&r.fsmonitor),
            "",
            Met::None,
        );
    }
    let shadow = med(&r.shadow);
    let change = med(&r.change);
    t.value(
        &format!("pair, nothing changed, watcher on / {anchor_name}"),
        format!("{:.2}×", ratio(journal, anchor)),
        "< 1×",
        Met::None,
    )
    .timed(
        "pair around a command changing 3 files, watcher on (Pre + Post, command excluded)",
        &measured(&r.change),
        "≤ 1/5 of shadow git",
        Met::from(change * 5 <= shadow),
    )
    .timed(
        "the bare command (`sh`: 2 files edited with `sed -i`, 1 created)",
        &measured(&r.command),
        "",
        Met::None,
    )
    .timed(
        "anchor: shadow git `add -A` + `commit` after the same change",
        &measured(&r.shadow),
        "",
        Met::None,
    )
    .value(
        "3-file pair / shadow git",
        format!("{:.2}×", ratio(change, shadow)),
        "≤ 0.2×",
        Met::None,
    );
    t.note(
        "Whole processes, payload on stdin, as Claude Code runs hooks; one round runs every row \
         once, in the order listed, so load drift hits all alike. The watcher-on hooks use the \
         workspace's store; the walk rows a database of their own. After the samples every \
         command's 3 files are checked in both stores (`rewind checkpoints`).",
    );
    if let Some(why) = &cx.repo.no_fsmonitor {
        t.note(format!(
            "No fsmonitor row: {why}; the target is plain `git status`."
        ));
    }
    t
}
