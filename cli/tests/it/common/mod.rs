//! Driving the real `rewind` binary from tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch workspace with its own database.
pub(crate) struct Bench {
    pub(crate) dir: tempfile::TempDir,
}

impl Bench {
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub(crate) fn ws(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub(crate) fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, bytes).expect("write");
    }

    pub(crate) fn read(&self, rel: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(rel)).ok()
    }

    pub(crate) fn command(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rewind"));
        c.arg("--workspace")
            .arg(self.ws())
            .env_remove("REWIND_DB")
            .env_remove("REWIND_STORE")
            .env_remove("REWIND_TEST_PAUSE_AFTER_WRITE")
            // No pager in a pseudo-terminal unless a test asks for one (a real `less` would
            // wait for a key there).
            .env("REWIND_PAGER", "cat")
            .env_remove("PAGER");
        c
    }

    /// Run with `--json`; return the exit code and the parsed document.
    pub(crate) fn json(&self, args: &[&str]) -> (i32, serde_json::Value) {
        self.json_with(args, |_| {})
    }

    /// [`Bench::json`] with the command adjusted first (its environment).
    pub(crate) fn json_with(
        &self,
        args: &[&str],
        adjust: impl FnOnce(&mut Command),
    ) -> (i32, serde_json::Value) {
        let mut c = self.command();
        adjust(&mut c);
        let out = c.arg("--json").args(args).output().expect("run rewind");
        let code = out.status.code().expect("exit code");
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: stdout is not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (code, doc)
    }

    /// Run with `--json`, expect success, return the document.
    pub(crate) fn ok(&self, args: &[&str]) -> serde_json::Value {
        let (code, doc) = self.json(args);
        assert_eq!(code, 0, "{args:?} failed: {doc}");
        doc
    }

    /// The agent's tool changed `path` from `before` (`None`: created it) to `after`: write
    /// `after` into the workspace and record it with `rewind edit` (plus `extra` arguments).
    /// The before-bytes go through a file outside the workspace.
    pub(crate) fn record(
        &self,
        session: &str,
        turn: &str,
        path: &str,
        before: Option<&[u8]>,
        after: &[u8],
        extra: &[&str],
    ) -> serde_json::Value {
        self.write(path, after);
        let before_file = before.map(|bytes| {
            let f = tempfile::NamedTempFile::new().expect("temp file");
            std::fs::write(f.path(), bytes).expect("write before");
            // `rewind edit` records the before-file's mode: make it the 0644 of an ordinary
            // file, as `cp -p` of one would (a temp file is 0600).
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(0o644))
                .expect("chmod before");
            f
        });
        let before_path = before_file.as_ref().map(|f| f.path().display().to_string());
        let mut args = vec!["edit", session, "--turn", turn, "--path", path];
        match &before_path {
            Some(p) => args.extend(["--before-file", p.as_str()]),
            None => args.push("--created"),
        }
        args.extend(extra);
        self.ok(&args)
    }

    /// Run without `--json`.
    pub(crate) fn text(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run rewind")
    }
}

/// The agents' project-directory variables, which choose a hook's workspace.
pub(crate) const PROJECT_VARS: [&str; 4] = [
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "GEMINI_CWD",
    "QWEN_PROJECT_DIR",
];

/// The documented hook payload `name` of `agent` (tests/fixtures/hooks/, sources in SOURCES.md).
pub(crate) fn fixture(agent: &str, name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(agent)
        .join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture is JSON")
}

pub(crate) fn s(v: &serde_json::Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
        .to_owned()
}

/// Feed one hook event to `hook` (a process set up the way an agent runs its hooks) on stdin,
/// and expect the answer every agent reads as "continue, nothing to add": `{}` on stdout, exit
/// 0, nothing on stderr.
pub(crate) fn expect_hook_continues(mut hook: Command, payload: &serde_json::Value) {
    use std::io::Write as _;
    use std::process::Stdio;
    // The agents' project-directory variables choose the workspace: one a test does not set
    // must not come from wherever the tests run (inside an agent's session).
    for var in PROJECT_VARS {
        if !hook.get_envs().any(|(k, _)| k == var) {
            hook.env_remove(var);
        }
    }
    let mut child = hook
        .current_dir(std::env::temp_dir())
        .env_remove("REWIND_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let body = serde_json::to_vec(payload).expect("json");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&body)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{payload}");
    assert_eq!(out.stdout, b"{}\n", "{payload}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
// A TCP proxy between the binary and PostgreSQL that cuts connections (pg_doubt.rs).
pub(crate) mod pg_proxy;
pub(crate) mod serve;
// The HTTP attacks' tools (serve_attack.rs, serve_slow.rs).
pub(crate) mod serve_attack;

impl Bench {
    /// The agent's tool changed `path` from `before` to `after`, recorded with `rewind edit` on
    /// the PostgreSQL store `url` (the before-bytes through a file outside the workspace).
    pub(crate) fn record_with_store(
        &self,
        url: &str,
        session: &str,
        turn: &str,
        path: &str,
        before: &[u8],
        after: &[u8],
    ) -> serde_json::Value {
        self.write(path, after);
        let f = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(f.path(), before).expect("write before");
        let file = f.path().display().to_string();
        let args = [
            "edit",
            session,
            "--turn",
            turn,
            "--path",
            path,
            "--before-file",
            &file,
        ];
        let (code, doc) = self.json_with(&args, |c| {
            c.env("REWIND_STORE", url);
        });
        assert_eq!(code, 0, "{args:?} failed: {doc}");
        doc
    }
}
