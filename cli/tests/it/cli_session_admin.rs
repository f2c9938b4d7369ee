//! `rewind session rename` and `rewind session rm`: what they change and print, what they
//! refuse (and that a refusal changes nothing), and the shell completion of real ids.

use crate::common;

use common::{Bench, s};
use std::process::Command;

/// A session with two turns that edit `a.txt`, a fork of it at `#1`, and a side chat of the
/// fork: (session, fork, side chat).
fn family(b: &Bench) -> (String, String, String) {
    b.write("a.txt", b"a0\n");
    let ses = s(&b.ok(&["session", "new", "--title", "parser work"]), "id");
    for (i, text) in ["write the parser", "test the parser"].iter().enumerate() {
        let t = s(&b.ok(&["prompt", &ses, "--text", text]), "turnId");
        let before = format!("a{i}\n");
        let after = format!("a{}\n", i + 1);
        b.record(
            &ses,
            &t,
            "a.txt",
            Some(before.as_bytes()),
            after.as_bytes(),
            &[],
        );
        b.ok(&["reply", &ses, "--turn", &t, "--text", "done"]);
        b.ok(&["turn-end", &ses, "--turn", &t]);
    }
    let fork = s(&b.ok(&["fork", &ses, "--at", "#1"]), "childId");
    let side = s(&b.ok(&["side-chat", &fork]), "childId");
    b.ok(&["session", "use", &ses]);
    (ses, fork, side)
}

/// `text` with each id (whole or as the CLI's 8-digit short form) replaced by its name.
fn named(text: &str, names: &[(&str, &str)]) -> String {
    let mut t = text.to_owned();
    for (id, name) in names {
        t = t.replace(id, name);
        t = t.replace(&id[..12], name);
    }
    t
}

fn text(b: &Bench, args: &[&str]) -> (i32, String) {
    let out = b
        .command()
        .args(["--color", "never"])
        .args(args)
        .output()
        .expect("run");
    let mut t = String::from_utf8(out.stdout).expect("utf8");
    t.push_str(&String::from_utf8(out.stderr).expect("utf8"));
    (out.status.code().expect("code"), t)
}

fn error_code(b: &Bench, args: &[&str]) -> (i32, String, String) {
    let (code, doc) = b.json(args);
    let e = &doc["error"];
    (
        code,
        e["code"].as_str().unwrap_or_default().to_owned(),
        e["message"].as_str().unwrap_or_default().to_owned(),
    )
}

/// Every session's id and title, and the parent's whole log, to compare before and after.
fn state(b: &Bench, ses: &str) -> (serde_json::Value, serde_json::Value, serde_json::Value) {
    let list = b.ok(&["session", "list"]);
    (list, b.ok(&["log", ses]), b.ok(&["ops", ses]))
}

#[test]
fn rename_changes_the_title_only_and_bad_titles_change_nothing() {
    let b = Bench::new();
    let (ses, _, _) = family(&b);
    let log = b.ok(&["log", &ses]);
    let out = b.ok(&["session", "rename", &ses, "  parser and tests  "]);
    assert_eq!(
        (
            s(&out, "title"),
            s(&out, "previousTitle"),
            out["changed"].as_bool()
        ),
        ("parser and tests".into(), "parser work".into(), Some(true))
    );
    assert_eq!(
        b.ok(&["log", &ses])["turns"],
        log["turns"],
        "no turn changed"
    );
    // No session given: the current one.
    let out = b.ok(&["session", "rename", "renamed again"]);
    assert_eq!(s(&out, "sessionId"), ses);

    let before = state(&b, &ses);
    for bad in ["", "   ", "two\nlines", &"x".repeat(501)] {
        let (code, kind, _) = error_code(&b, &["session", "rename", &ses, bad]);
        assert_eq!((code, kind.as_str()), (1, "invalid_input"), "{bad:?}");
    }
    let (code, kind, msg) = error_code(&b, &["session", "rename", &ses[..6], "t"]);
    assert_eq!((code, kind.as_str()), (1, "invalid_input"), "{msg}");
    assert!(msg.contains("too short"), "{msg}");
    assert_eq!(state(&b, &ses), before, "nothing changed");
    let (code, t) = text(&b, &["session", "rename", &ses, "final title"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("rename", named(&t, &[(&ses, "ses_A")]));
}

#[test]
fn rm_refuses_forks_then_removes_leaves_and_clears_the_current_session() {
    let b = Bench::new();
    let (ses, fork, side) = family(&b);
    let names = [
        (ses.as_str(), "ses_A"),
        (fork.as_str(), "ses_B"),
        (side.as_str(), "ses_C"),
    ];
    let before = state(&b, &ses);

    let (code, kind, msg) = error_code(&b, &["session", "rm", &ses]);
    assert_eq!((code, kind.as_str()), (1, "conflict"), "{msg}");
    assert!(
        msg.contains(&fork) && msg.contains(&side) && msg.contains("--with-forks"),
        "{msg}"
    );
    let (code, kind, _) = error_code(&b, &["session", "rm", &ses[..7]]);
    assert_eq!(
        (code, kind.as_str()),
        (1, "invalid_input"),
        "a 3-digit prefix is too short"
    );
    let (code, kind, _) = error_code(&b, &["session", "rm", "ses_0123456789abcdef"]);
    assert_eq!((code, kind.as_str()), (1, "not_found"));
    let (code, t) = text(&b, &["session", "rm", &ses, "--with-forks", "--dry-run"]);
    assert_eq!(code, 0, "{t}");
    insta::assert_snapshot!("rm_dry_run", named(&t, &names));
    assert_eq!(
        state(&b, &ses),
        before,
        "refusals and a dry run change nothing"
    );

    // The side chat, then the fork: the parent stays exactly as it was.
    let (code, t) = text(&b, &["session", "rm", &side]);
    assert_eq!(code, 0, "{t}");
    insta::assert_snapshot!("rm_side_chat", named(&t, &names));
    let out = b.ok(&["session", "rm", &fork]);
    assert_eq!(out["applied"].as_bool(), Some(true));
    let (list, log, ops) = state(&b, &ses);
    assert_eq!((log, ops), (before.1, before.2), "the parent is exact");
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    b.ok(&["preview", &ses, "--to", "#1"]);

    // Removing the current session clears the pointer: the next command says there is none.
    let current = b.path(".rewind/current-session");
    assert!(current.exists());
    let out = b.ok(&["session", "rm", &ses]);
    assert_eq!(out["removed"][0]["turns"].as_u64(), Some(2));
    assert!(!current.exists(), "the current session is cleared");
    assert_eq!(b.ok(&["session", "list"]), serde_json::json!([]));
    let gc = b.ok(&["gc"]);
    assert!(
        gc["plan"]["totals"]["blobs"]["count"].as_u64() > Some(0),
        "{gc}"
    );
}

/// `COMPLETE=fish rewind -- rewind …`: the candidates the shell gets, `value\thelp` per line.
fn complete(b: &Bench, dir: &std::path::Path, words: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_rewind"))
        .current_dir(dir)
        .env("COMPLETE", "fish")
        .env_remove("REWIND_DB")
        .env_remove("REWIND_STORE")
        .arg("--")
        .arg("rewind")
        .args(words)
        .output()
        .expect("run");
    let _ = b;
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "a completion says nothing on stderr: {out:?}"
    );
    String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .filter(|l| !l.starts_with('-'))
        .map(str::to_owned)
        .collect()
}

fn listing(dir: &std::path::Path) -> Vec<(String, u64)> {
    let mut l: Vec<(String, u64)> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().expect("meta").len(),
            )
        })
        .collect();
    l.sort();
    l
}

#[test]
fn completion_offers_real_ids_and_writes_nothing() {
    let b = Bench::new();
    let (ses, fork, _) = family(&b);
    let op = s(&b.ok(&["apply", &ses, "--to", "#2"]), "operationId");
    let store = listing(&b.path(".rewind"));

    let sessions = complete(&b, b.ws(), &["session", "use", ""]);
    assert!(
        sessions
            .iter()
            .any(|l| l.starts_with(&format!("{ses}\tparser work"))),
        "{sessions:?}"
    );
    assert!(
        sessions.iter().any(|l| l.starts_with(&fork)),
        "{sessions:?}"
    );
    let short = complete(&b, b.ws(), &["session", "rm", &ses[4..10]]);
    assert_eq!(
        short.len(),
        1,
        "a short id completes to the whole one: {short:?}"
    );
    assert!(short[0].starts_with(&ses));
    let turns = complete(&b, b.ws(), &["preview", "--to", ""]);
    assert_eq!(turns, ["#1\twrite the parser", "#2\ttest the parser"]);
    let turns = complete(&b, b.ws(), &["conversation", &fork, "--to", "#"]);
    assert_eq!(
        turns,
        ["#1\twrite the parser"],
        "the session named on the line"
    );
    let ops = complete(&b, b.ws(), &["undo", &ses, ""]);
    assert!(
        ops.iter()
            .any(|l| l.starts_with(&format!("{op}\tfile_rewind"))),
        "{ops:?}"
    );
    assert_eq!(
        listing(&b.path(".rewind")),
        store,
        "completion wrote nothing"
    );

    // No store: no candidates, nothing created.
    let empty = tempfile::tempdir().expect("tempdir");
    assert!(complete(&b, empty.path(), &["session", "use", ""]).is_empty());
    assert!(complete(&b, empty.path(), &["undo", ""]).is_empty());
    assert_eq!(
        listing(empty.path()),
        Vec::<(String, u64)>::new(),
        "nothing created"
    );
}

#[test]
fn the_documented_bash_setup_completes_ids() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md"))
        .expect("docs/cli.md");
    let setup = doc
        .lines()
        .find(|l| l.contains("COMPLETE=bash rewind"))
        .and_then(|l| l.split("echo '").nth(1)?.split("' >>").next())
        .expect("the bash setup line in docs/cli.md")
        .to_owned();
    assert_eq!(setup, "source <(COMPLETE=bash rewind)");
    let b = Bench::new();
    let (ses, _, _) = family(&b);
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_rewind"))
        .parent()
        .expect("dir")
        .display()
        .to_string();
    // What bash does on `rewind session use <TAB>`: the registered function fills COMPREPLY.
    let script = format!(
        "{setup}\nCOMP_WORDS=(rewind session use '')\nCOMP_CWORD=3\nCOMP_TYPE=9\n\
         _clap_complete_rewind rewind '' use\nprintf '%s\\n' \"${{COMPREPLY[@]}}\""
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(b.ws())
        .env(
            "PATH",
            format!("{bin}:{}", std::env::var("PATH").unwrap_or_default()),
        )
        .env_remove("REWIND_DB")
        .output()
        .expect("bash");
    let got = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        got.lines().any(|l| l == ses),
        "{got}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
