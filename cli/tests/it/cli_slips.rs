//! Slips that cost work, refused or made harmless: a too-short prefix for a command that changes
//! anything, `--keep 0`, a rewind with nothing to restore (a success), `gc` with no store (a
//! no-op), and `edit --before-file` keeping the file's mode.

use crate::common;

use common::{Bench, s};
use std::os::unix::fs::PermissionsExt as _;

/// One turn that created `one.txt`, rewound: returns (session, prompt, the rewind's operation).
fn rewound(b: &Bench) -> (String, String, String) {
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "make one"]);
    let (turn, prompt) = (s(&t, "turnId"), s(&t, "messageId"));
    b.record(&session, &turn, "one.txt", None, b"one\n", &[]);
    b.ok(&["turn-end", &session, "--turn", &turn]);
    let out = b.ok(&["apply", &session, "--since", &prompt]);
    (session, prompt, s(&out, "operationId"))
}

fn error_code(doc: &serde_json::Value) -> &str {
    doc["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn a_short_prefix_is_refused_by_commands_that_change_anything() {
    let b = Bench::new();
    let (session, _, op) = rewound(&b);
    assert!(b.read("one.txt").is_none(), "the rewind removed it");
    let hex = &op["op_".len()..];
    for short in [&hex[..1], &hex[..3], &op[..6]] {
        let (code, doc) = b.json(&["undo", &session, short]);
        assert_eq!(
            (code, error_code(&doc)),
            (1, "invalid_input"),
            "{short}: {doc}"
        );
        let message = doc["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains("at least 4"), "{message}");
        assert!(b.read("one.txt").is_none(), "{short}: nothing was undone");
    }
    // Reading commands still take any unique prefix; four characters are enough to change.
    let listed = b.ok(&["ops", &session]);
    assert!(listed.to_string().contains(&op));
    let (code, doc) = b.json(&["resume", &session[..5]]);
    assert_eq!(code, 0, "a read takes a short session prefix: {doc}");
    let (code, doc) = b.json(&["undo", &session[..6], &hex[..4]]);
    assert_eq!(
        (code, error_code(&doc)),
        (1, "invalid_input"),
        "a short session: {doc}"
    );
    b.ok(&["undo", &session, &hex[..4]]);
    assert_eq!(b.read("one.txt").as_deref(), Some(&b"one\n"[..]));
}

#[test]
fn keep_zero_is_refused_like_older_than_zero() {
    let b = Bench::new();
    let (session, _, _) = rewound(&b);
    let before = b.ok(&["config"]);
    for args in [&["config", "--keep", "0"][..], &["gc", "--keep", "0"]] {
        let (code, doc) = b.json(args);
        assert_eq!(
            (code, error_code(&doc)),
            (1, "invalid_input"),
            "{args:?}: {doc}"
        );
    }
    assert_eq!(b.ok(&["config"]), before, "the setting is unchanged");
    assert_eq!(
        b.ok(&["checkpoints", &session]).as_array().map(Vec::len),
        Some(1)
    );
    // A config file edited by hand to keep 0 is refused by gc too, deleting nothing.
    b.ok(&["config", "--keep", "5"]);
    let config = b.path(".rewind/config.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&config).expect("config written"))
            .expect("config json");
    assert_eq!(doc["keep"], 5);
    doc["keep"] = 0.into();
    std::fs::write(&config, doc.to_string()).expect("write config");
    let (code, out) = b.json(&["gc"]);
    assert_eq!((code, error_code(&out)), (1, "invalid_input"), "{out}");
    assert_eq!(
        b.ok(&["checkpoints", &session]).as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn nothing_to_restore_is_a_success_said_plainly() {
    let b = Bench::new();
    let (session, prompt, _) = rewound(&b);
    // Rewinding the same turn again: its change is already undone.
    let (code, doc) = b.json(&["apply", &session, "--since", &prompt]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["applied"], false);
    let text = b.text(&["apply", &session, "--since", &prompt]);
    assert_eq!(text.status.code(), Some(0));
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(said.contains("nothing to restore"), "{said}");
    assert!(!said.contains("not applied"), "{said}");
    // A real refusal still exits 1: a conflict under the default policy.
    b.ok(&["undo", &session]);
    b.write("one.txt", b"mine\n");
    let (code, doc) = b.json(&["apply", &session, "--since", &prompt]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(b.read("one.txt").as_deref(), Some(&b"mine\n"[..]));
}

#[test]
fn gc_without_a_store_has_nothing_to_collect() {
    let b = Bench::new();
    let out = b.text(&["gc"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to collect"));
    let (code, doc) = b.json(&["gc", "--dry-run"]);
    assert_eq!(code, 0);
    assert_eq!(doc["applied"], false);
    assert!(!b.path(".rewind").exists(), "gc created no store");
}

#[test]
fn edit_before_file_keeps_its_mode_and_before_mode_sets_it() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "remove the scripts"]);
    let (turn, prompt) = (s(&t, "turnId"), s(&t, "messageId"));
    let saved = b.path("saved");
    std::fs::create_dir(&saved).expect("mkdir");
    for (name, mode) in [("run.sh", 0o755), ("env.sh", 0o640)] {
        let copy = saved.join(name);
        std::fs::write(&copy, b"#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let run = saved.join("run.sh").display().to_string();
    let env = saved.join("env.sh").display().to_string();
    b.ok(&[
        "edit",
        &session,
        "--turn",
        &turn,
        "--path",
        "run.sh",
        "--before-file",
        &run,
        "--deleted",
    ]);
    b.ok(&[
        "edit",
        &session,
        "--turn",
        &turn,
        "--path",
        "env.sh",
        "--before-file",
        &env,
        "--before-mode",
        "600",
        "--deleted",
    ]);
    b.ok(&["turn-end", &session, "--turn", &turn]);
    b.ok(&["apply", &session, "--since", &prompt]);
    let mode = |p: &str| {
        std::fs::metadata(b.path(p))
            .expect("restored")
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(
        mode("run.sh"),
        0o755,
        "the executable comes back executable"
    );
    assert_eq!(mode("env.sh"), 0o600, "--before-mode wins over the file's");
    for bad in ["9", "rwx", "77777", ""] {
        let out = b.text(&[
            "edit",
            &session,
            "--turn",
            &turn,
            "--path",
            "x",
            "--created",
            "--after-mode",
            bad,
        ]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "--after-mode {bad:?} is a usage error"
        );
    }
}

/// Whether this process may mount a scratch filesystem in a mount namespace of its own (root,
/// as CI is); elsewhere the full-disk test says it is skipped.
fn can_mount() -> bool {
    std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_full_disk_under_the_store_says_disk_full() {
    if !can_mount() {
        eprintln!("skipped: cannot mount a small tmpfs here (needs root)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // A 4 MiB filesystem of its own, in a mount namespace that ends with the script: a store,
    // then the disk filled, then a command that must grow the store.
    let script = r#"
        set -u
        mount -t tmpfs -o size=4m tmpfs "$D" || exit 90
        cd "$D"
        "$R" session new >/dev/null || exit 91
        "$R" prompt --text "before the disk filled" >/dev/null || exit 92
        dd if=/dev/zero of="$D/fill" bs=16k 2>/dev/null
        "$R" --json prompt --text "$(head -c 100000 /dev/zero | tr '\0' x)"
        echo "exit=$?"
    "#;
    let out = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", script])
        .env("D", dir.path())
        .env("R", env!("CARGO_BIN_EXE_rewind"))
        .env_remove("REWIND_DB")
        .env_remove("REWIND_STORE")
        .output()
        .expect("run the script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("exit=3"),
        "a host error: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout.split("exit=").next().unwrap_or("");
    let doc: serde_json::Value = serde_json::from_str(json).expect("json error");
    assert_eq!(doc["error"]["code"], "host_error", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("disk full"), "{message}");
}

/// `edit --path` is relative to the workspace root: from `src/`, `--path util.py` names no file,
/// and the error says which path was meant instead of suggesting the file was deleted.
#[test]
fn an_edit_path_given_from_a_subdirectory_names_the_path_meant() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    b.ok(&["prompt", &session, "--text", "edit util"]);
    b.write("src/util.py", b"new\n");
    let before = b.path("before.txt");
    std::fs::write(&before, b"old\n").expect("write before");
    let out = b
        .command()
        .current_dir(b.path("src"))
        .args([
            "--json",
            "edit",
            &session,
            "--path",
            "util.py",
            "--before-file",
        ])
        .arg(&before)
        .output()
        .expect("run rewind");
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let message = doc["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("util.py does not exist in the workspace")
            && message.ends_with("from here that file is src/util.py; pass --path src/util.py"),
        "{message}"
    );
    // From the root, the same path is the plain slip it is.
    let (code, doc) = b.json(&["edit", &session, "--path", "util.py", "--created"]);
    assert_eq!(code, 1, "{doc}");
    let message = doc["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("pass --deleted"), "{message}");
}

/// `--since`, the file rewinds' old spelling of `--to`, is taken by every rewind alike: one
/// learned from `preview` is not refused by `conversation`, `both` or `pick`.
#[test]
fn every_rewind_takes_since_for_to() {
    for verb in [
        &["conversation"][..],
        &["both"],
        &["pick", "--scope", "both", "--yes"],
    ] {
        let b = Bench::new();
        let (session, prompt, _) = rewound(&b);
        b.ok(&["undo", &session]); // the file rewind taken back: one.txt is there again
        let mut args = verb.to_vec();
        args.extend([session.as_str(), "--since", prompt.as_str()]);
        let out = b.ok(&args);
        assert_eq!(out["rewound"], true, "{verb:?}: {out}");
        assert_eq!(s(&out, "targetMessageId"), prompt, "{verb:?}");
    }
}
