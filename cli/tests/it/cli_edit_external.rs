//! `rewind edit --external`: an editor records the person's save as theirs (an `external`
//! checkpoint), so a save made while an agent's `rewind exec` runs is not taken for the agent's
//! change, and a rewind of the agent's turn keeps it.

use crate::common;

use common::{Bench, s};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const BEFORE: &[u8] = b"l1\nl2\nl3\nl4\nl5\n";
const PERSON: &[u8] = b"l1\nl2\nl3\nl4\nmine\n";
const BOTH: &[u8] = b"AGENT\nl2\nl3\nl4\nmine\n";

/// A session with a.txt and a running turn.
fn turn(b: &Bench) -> String {
    b.write("a.txt", BEFORE);
    b.ok(&["session", "new"]);
    s(&b.ok(&["prompt", "--text", "change line one"]), "turnId")
}

/// `rewind exec` of a command that waits (bounded) for `go` (outside the workspace, so the
/// snapshot never sees it), then rewrites a.txt's first line as the agent.
fn agent_exec(b: &Bench, turn: &str, go: &Path) -> Child {
    let script = format!(
        "i=0; while [ ! -e '{go}' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; \
         sed 's/^l1$/AGENT/' a.txt > a.tmp && mv a.tmp a.txt",
        go = go.display()
    );
    b.command()
        .current_dir(b.ws())
        .args(["exec", "--turn", turn, "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn exec")
}

/// Wait until exec has taken its before-snapshot: its command (the only process naming `go`)
/// is running.
fn wait_for_command(go: &Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let go = go.to_string_lossy();
    while Instant::now() < deadline {
        let ps = std::process::Command::new("ps")
            .args(["-eo", "args"])
            .output()
            .expect("ps");
        let ps = String::from_utf8_lossy(&ps.stdout);
        if ps
            .lines()
            .any(|l| l.starts_with("sh -c") && l.contains(&*go))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("rewind exec did not start its command");
}

/// The person saves a.txt during the agent's command; `record` says whether the editor records
/// the save as theirs. Returns a.txt after `rewind apply --since #1 --policy merge`.
fn save_during_exec(record: bool) -> (Vec<u8>, serde_json::Value) {
    let b = Bench::new();
    let sync = tempfile::tempdir().expect("tempdir");
    let go = sync.path().join("go");
    let turn = turn(&b);
    let mut exec = agent_exec(&b, &turn, &go);
    wait_for_command(&go);
    let before = sync.path().join("a.before");
    std::fs::write(&before, BEFORE).expect("before");
    b.write("a.txt", PERSON);
    if record {
        let before = before.to_string_lossy();
        let out = b.ok(&[
            "edit",
            "--turn",
            &turn,
            "--path",
            "a.txt",
            "--before-file",
            &before,
            "--external",
        ]);
        assert_eq!(out["files"][0]["additions"], 1, "{out}");
    }
    std::fs::write(&go, b"").expect("go");
    assert!(exec.wait().expect("wait exec").success());
    assert_eq!(b.read("a.txt").as_deref(), Some(BOTH));
    let checkpoints = b.ok(&["checkpoints"]);
    b.ok(&["apply", "--since", "#1", "--policy", "merge"]);
    (b.read("a.txt").expect("a.txt"), checkpoints)
}

#[test]
fn a_save_recorded_as_the_persons_survives_rewinding_the_agents_exec() {
    let (after, checkpoints) = save_during_exec(true);
    assert_eq!(after, PERSON, "the agent's line undone, the person's kept");
    let kinds: Vec<_> = checkpoints
        .as_array()
        .expect("list")
        .iter()
        .map(|c| (c["kind"].as_str().unwrap_or(""), c["toolName"].clone()))
        .collect();
    assert_eq!(kinds[0].0, "external", "{checkpoints}");
    assert_eq!(kinds[0].1, "save", "{checkpoints}");
    assert_eq!(kinds[1].0, "shell", "{checkpoints}");
}

#[test]
fn an_unrecorded_save_during_exec_is_taken_for_the_agents() {
    // The contrast that makes the option needed: the shell snapshot sees both changes as the
    // agent's, and rewinding the turn loses the person's line.
    let (after, _) = save_during_exec(false);
    assert_eq!(after, BEFORE);
}

#[test]
fn external_with_a_wrong_turn_records_nothing() {
    let b = Bench::new();
    turn(&b);
    let before = b.path("a.txt");
    let (code, out) = b.json(&[
        "edit",
        "--turn",
        "trn_00000000000000000000000000000000",
        "--path",
        "a.txt",
        "--before-file",
        &before.to_string_lossy(),
        "--external",
    ]);
    assert_ne!(code, 0);
    assert_eq!(out["error"]["code"], "not_found", "{out}");
    assert_eq!(b.ok(&["checkpoints"]).as_array().map(Vec::len), Some(0));
}
