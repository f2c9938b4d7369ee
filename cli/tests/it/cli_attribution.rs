//! Whose a change is, through the binary with real files: `rewind exec` records what its
//! command wrote as the command's and what changed before it as the person's, however the
//! turns before it went; `rewind snapshot --as` says it for hosts that run commands themselves.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};

/// `rewind exec --turn @ -- sh -c SCRIPT` in the current session: its JSON report.
fn exec(b: &Bench, script: &str) -> serde_json::Value {
    b.ok(&["exec", "--turn", "@", "--", "sh", "-c", script])
}

/// The kinds of the session's checkpoints, oldest first, with their tool input.
fn kinds(b: &Bench) -> Vec<(String, Option<String>)> {
    let cps = b.ok(&["checkpoints"]);
    cps.as_array()
        .expect("list")
        .iter()
        .map(|c| (s(c, "kind"), c["toolInput"].as_str().map(str::to_owned)))
        .collect()
}

/// The repro: the previous turn's last snapshot covered every file (the racy window
/// passed and a later snapshot vouched for them) and nothing changed between turns; the next
/// turn's first command's own writes were recorded as the person's and a rewind left them.
#[test]
fn a_turns_first_command_is_the_commands_however_the_turn_before_ended() {
    let b = Bench::new();
    b.ok(&["session", "new"]);
    b.ok(&["prompt", "--text", "A"]);
    exec(&b, "echo b > b.txt");
    // Past the racy window, so the next snapshots vouch for b.txt by its stat data alone.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    exec(&b, "ls > /dev/null");
    b.ok(&["turn-end", "--turn", "@"]);
    let p2 = s(&b.ok(&["prompt", "--text", "B"]), "messageId");
    let c = exec(&b, "echo c > c.txt");
    assert_eq!(c["kind"], "shell", "{c}");
    assert_eq!(c["created"], serde_json::json!(["c.txt"]), "{c}");
    assert!(c.get("before").is_none(), "nothing changed before it: {c}");
    let applied = b.ok(&["apply", "--since", &p2]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("c.txt"), None, "the command's file is rewound");
    assert_eq!(
        b.read("b.txt").as_deref(),
        Some(&b"b\n"[..]),
        "turn A's stays"
    );
}

/// A file the person saves between two commands of one turn is theirs: `exec` records it
/// before the command as `external`, a rewind of the turn keeps it, and a rewind that would
/// overwrite the person's save of a file the agent wrote is a conflict.
#[test]
fn a_save_between_two_commands_of_a_turn_is_the_persons_and_kept() {
    let b = Bench::new();
    b.write("notes.md", b"n0\n");
    b.write("gen.txt", b"g0\n");
    b.ok(&["session", "new"]);
    let p1 = s(&b.ok(&["prompt", "--text", "generate"]), "messageId");
    exec(&b, "true"); // the baseline
    exec(&b, "echo g1 > gen.txt");
    b.write("notes.md", b"n0 and mine\n");
    b.write("gen.txt", b"g1 and mine\n");
    let second = exec(&b, "echo out > out.txt");
    assert_eq!(second["kind"], "shell", "{second}");
    assert_eq!(
        second["created"],
        serde_json::json!(["out.txt"]),
        "{second}"
    );
    let before = &second["before"];
    assert_eq!(before["kind"], "external", "{second}");
    assert_eq!(
        before["modified"],
        serde_json::json!(["gen.txt", "notes.md"]),
        "{second}"
    );
    assert_eq!(
        kinds(&b),
        [
            (
                "shell".to_owned(),
                Some("sh -c 'echo g1 > gen.txt'".to_owned())
            ),
            ("external".to_owned(), None),
            (
                "shell".to_owned(),
                Some("sh -c 'echo out > out.txt'".to_owned())
            ),
        ]
    );
    let preview = b.ok(&["preview", "--since", &p1]);
    let unsafe_files = preview["unsafeFiles"].as_array().expect("unsafe");
    assert_eq!(unsafe_files.len(), 1, "{preview}");
    assert_eq!(unsafe_files[0]["path"], "gen.txt", "{preview}");
    assert_eq!(unsafe_files[0]["reason"], "external_modified", "{preview}");
    let (code, blocked) = b.json(&["apply", "--since", &p1]);
    assert_ne!(code, 0, "a conflict blocks the default policy: {blocked}");
    assert_eq!(b.read("out.txt").as_deref(), Some(&b"out\n"[..]));
    let applied = b.ok(&["apply", "--since", &p1, "--policy", "skip"]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(b.read("out.txt"), None);
    assert_eq!(b.read("notes.md").as_deref(), Some(&b"n0 and mine\n"[..]));
    assert_eq!(b.read("gen.txt").as_deref(), Some(&b"g1 and mine\n"[..]));
}

/// `rewind snapshot --as` says whose the changes are, whatever the turn saw before.
#[test]
fn snapshot_as_says_whose_the_changes_are() {
    let b = Bench::new();
    b.write("a.txt", b"a0\n");
    b.ok(&["session", "new"]);
    b.ok(&["prompt", "--text", "go"]);
    let base = b.ok(&["snapshot", "--turn", "@", "--as", "external"]);
    assert_eq!(base["baseline"], true, "{base}");
    b.write("a.txt", b"a1\n");
    let mine = b.ok(&["snapshot", "--turn", "@", "--as", "external"]);
    assert_eq!(
        mine["kind"], "external",
        "same turn, yet the person's: {mine}"
    );
    b.write("a.txt", b"a2\n");
    let cmd = b.ok(&[
        "snapshot",
        "--turn",
        "@",
        "--as",
        "command",
        "--command",
        "make",
    ]);
    assert_eq!(cmd["kind"], "shell", "{cmd}");
    let (code, err) = b.json(&[
        "snapshot",
        "--turn",
        "@",
        "--as",
        "external",
        "--command",
        "x",
    ]);
    assert_ne!(code, 0, "{err}");
    assert_eq!(err["error"]["code"], "invalid_input", "{err}");
    let bad = b.text(&["snapshot", "--turn", "@", "--as", "theirs"]);
    assert!(!bad.status.success(), "an unknown --as is refused");
}
