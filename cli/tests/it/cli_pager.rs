//! The pager, as git's: long output on a terminal goes through `$REWIND_PAGER`, the config's
//! `pager`, `$PAGER` or `less`; never with `--no-pager` / `-P`, `--json`, without a terminal,
//! or when the pager is `cat`; a pager quit early ends the command quietly.

#![cfg(unix)]

use crate::common;

use common::{Bench, s};
use rexpect::process::WaitStatus;
use std::process::Command;

const TIMEOUT_MS: u64 = 60_000;
/// A pager that marks each line it shows.
const MARKING: &str = "sed 's/^/paged: /'";

/// A session whose first turn changed `a.txt`; its prompt id.
fn one_turn(b: &Bench) -> String {
    b.write("a.txt", b"one\ntwo\n");
    let session = s(&b.ok(&["session", "new", "--title", "pager"]), "id");
    let first = b.ok(&["prompt", &session, "--text", "change a"]);
    let t = s(&first, "turnId");
    b.record(&session, &t, "a.txt", Some(b"one\ntwo\n"), b"one\n2\n", &[]);
    s(&first, "messageId")
}

/// `rewind ARGS` in a pseudo-terminal, the environment adjusted by `env`; all it printed and
/// its exit code.
fn run_in_pty(b: &Bench, args: &[&str], env: impl FnOnce(&mut Command)) -> (String, i32) {
    let mut c = b.command();
    c.args(args).env("TERM", "xterm").env("NO_COLOR", "1");
    env(&mut c);
    let mut p = rexpect::session::spawn_command(c, Some(TIMEOUT_MS)).expect("spawn in a pty");
    let out = p.exp_eof().expect("the command ends");
    let code = match p.process().wait().expect("wait") {
        WaitStatus::Exited(_, code) => code,
        other => panic!("ended by {other:?}"),
    };
    (out, code)
}

#[test]
fn diff_log_and_preview_on_a_terminal_go_through_the_pager() {
    let b = Bench::new();
    let m = one_turn(&b);
    for args in [
        vec!["diff", "--since", &m],
        vec!["preview", "--since", &m],
        vec!["log"],
        vec!["ops"],
    ] {
        let (out, code) = run_in_pty(&b, &args, |c| {
            c.env("REWIND_PAGER", MARKING);
        });
        assert_eq!(code, 0, "{args:?}: {out}");
        let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(!lines.is_empty(), "{args:?} printed nothing");
        assert!(
            lines.iter().all(|l| l.starts_with("paged: ")),
            "{args:?}: every line through the pager:\n{out}"
        );
    }
    let (out, _) = run_in_pty(&b, &["diff", "--since", &m], |c| {
        c.env("REWIND_PAGER", MARKING);
    });
    assert!(out.contains("paged: diff --git a/a.txt b/a.txt"), "{out}");
}

#[test]
fn no_pager_flags_json_cat_and_no_terminal_print_directly() {
    let b = Bench::new();
    let m = one_turn(&b);
    for flag in ["--no-pager", "-P"] {
        let (out, code) = run_in_pty(&b, &[flag, "diff", "--since", &m], |c| {
            c.env("REWIND_PAGER", MARKING);
        });
        assert_eq!(code, 0);
        assert!(
            out.contains("diff --git") && !out.contains("paged:"),
            "{out}"
        );
    }
    let (out, _) = run_in_pty(&b, &["diff", "--since", &m, "--json"], |c| {
        c.env("REWIND_PAGER", MARKING);
    });
    assert!(
        out.contains("\"sessionId\"") && !out.contains("paged:"),
        "{out}"
    );
    // `cat` (or empty) means no pager, whichever variable says it.
    for pager in ["cat", ""] {
        let (out, _) = run_in_pty(&b, &["diff", "--since", &m], |c| {
            c.env_remove("REWIND_PAGER").env("PAGER", pager);
        });
        assert!(
            out.contains("diff --git") && !out.contains("paged:"),
            "{out}"
        );
    }
    // Not a terminal: a pipe gets the bytes themselves.
    let out = b
        .command()
        .args(["diff", "--since", &m])
        .env("REWIND_PAGER", MARKING)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("diff --git"), "{text}");
}

#[test]
fn pager_comes_from_rewind_pager_then_config_then_pager() {
    let b = Bench::new();
    let m = one_turn(&b);
    let (out, _) = run_in_pty(&b, &["diff", "--since", &m], |c| {
        c.env_remove("REWIND_PAGER").env("PAGER", MARKING);
    });
    assert!(out.contains("paged: diff --git"), "$PAGER: {out}");
    b.ok(&["config", "--pager", "sed 's/^/config: /'"]);
    let (out, _) = run_in_pty(&b, &["diff", "--since", &m], |c| {
        c.env_remove("REWIND_PAGER").env("PAGER", MARKING);
    });
    assert!(
        out.contains("config: diff --git"),
        "the config over $PAGER: {out}"
    );
    let (out, _) = run_in_pty(&b, &["diff", "--since", &m], |c| {
        c.env("REWIND_PAGER", MARKING);
    });
    assert!(
        out.contains("paged: diff --git"),
        "$REWIND_PAGER over all: {out}"
    );
    let shown = b.ok(&["config", "--pager", "default"]);
    assert!(shown.get("pager").is_none(), "{shown}");
}

#[test]
fn a_pager_quit_early_ends_the_command_quietly() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new", "--title", "long"]), "id");
    for i in 0..200 {
        b.ok(&["prompt", &session, "--text", &format!("prompt {i}")]);
    }
    // `true` reads nothing and exits: every write after it finds the pipe closed.
    let (out, code) = run_in_pty(&b, &["log"], |c| {
        c.env("REWIND_PAGER", "true");
    });
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("error"), "{out}");
}
