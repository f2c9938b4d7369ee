//! Stored text cannot drive the terminal: a session whose prompt, reply, title, tool name,
//! capture reason and file content hold escape sequences (OSC retitle + BEL, clear screen, the
//! one-character C1 CSI) is shown by every command with those characters made visible, with
//! colour on (a real pseudo-terminal) and off (a pipe), while `--json` carries them exactly.
#![cfg(unix)]

use crate::common;

use common::{Bench, s};

const RETITLE: &str = "\x1b]0;pwned\x07";
const CLEAR: &str = "\x1b[2J";
const C1_CSI: &str = "\u{9b}31m";

fn hostile(what: &str) -> String {
    format!("{what} {RETITLE} {CLEAR} {C1_CSI} end")
}

/// Every control character in `out` other than newline, tab and the CLI's own SGR colour
/// sequences (`ESC [ digits m`), with where it is.
fn raw_controls(out: &str) -> Vec<(usize, char)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(c) = out[at..].chars().next() {
        if c == '\x1b' {
            let rest = &out[at + 1..];
            let params = rest.strip_prefix('[').map(|r| {
                r.bytes()
                    .take_while(|b| b.is_ascii_digit() || *b == b';')
                    .count()
            });
            if let Some(n) = params
                && rest.as_bytes().get(1 + n) == Some(&b'm')
            {
                at += 1 + 1 + n + 1;
                continue;
            }
        }
        let control = matches!(c, '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}');
        if control && c != '\n' && c != '\t' && c != '\r' {
            found.push((at, c));
        }
        at += c.len_utf8();
    }
    found
}

/// A session full of hostile text: (session, prompt id).
fn hostile_session(b: &Bench) -> (String, String) {
    b.write("a.txt", b"one\n");
    let session = s(
        &b.ok(&["session", "new", "--title", &hostile("title")]),
        "id",
    );
    let p = b.ok(&["prompt", &session, "--text", &hostile("prompt")]);
    let turn = s(&p, "turnId");
    let content = format!("{}\n", hostile("line"));
    b.record(
        &session,
        &turn,
        "a.txt",
        Some(b"one\n"),
        content.as_bytes(),
        &["--tool", &hostile("tool")],
    );
    b.ok(&[
        "failed-capture",
        &session,
        "--turn",
        &turn,
        "--path",
        "b.txt",
        "--reason",
        &hostile("reason"),
    ]);
    b.ok(&[
        "notice",
        &session,
        "--turn",
        &turn,
        "--text",
        &hostile("notice"),
        "--show",
    ]);
    b.ok(&[
        "reply",
        &session,
        "--turn",
        &turn,
        "--text",
        &hostile("reply"),
    ]);
    b.ok(&["turn-end", &session, "--turn", &turn]);
    (session, s(&p, "messageId"))
}

/// The human commands that show stored text.
fn commands(session: &str, prompt: &str) -> Vec<Vec<String>> {
    let cmds: [&[&str]; 9] = [
        &["log", session],
        &["log", session, "--all"],
        &["checkpoints", session],
        &["ops", session],
        &["session", "list"],
        &["resume", session],
        &["preview", session, "--since", prompt],
        &["diff", session, "--since", prompt],
        &["diff", session, "--since", prompt, "--stat"],
    ];
    cmds.iter()
        .map(|c| c.iter().map(|a| (*a).to_owned()).collect())
        .collect()
}

#[test]
fn no_command_writes_stored_control_characters_through_a_pipe() {
    let b = Bench::new();
    let (session, prompt) = hostile_session(&b);
    for args in commands(&session, &prompt) {
        for color in ["never", "always"] {
            let out = b
                .command()
                .args(["--color", color])
                .args(&args)
                .output()
                .expect("run");
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let text = String::from_utf8(out.stdout).expect("utf8");
            assert_eq!(raw_controls(&text), [], "{args:?} --color {color}:\n{text}");
            if color == "never" {
                assert!(
                    !text.contains('\x1b'),
                    "{args:?}: no escapes at all without colour"
                );
            }
        }
    }
    let log = b.text(&["--color", "never", "log", &session]);
    let log = String::from_utf8(log.stdout).expect("utf8");
    assert!(
        log.contains("prompt ^[]0;pwned^G ^[[2J \\x9b31m end"),
        "{log}"
    );
    let diff = b.text(&["--color", "never", "diff", &session, "--since", &prompt]);
    let diff = String::from_utf8(diff.stdout).expect("utf8");
    assert!(
        diff.contains("-line ^[]0;pwned^G ^[[2J") || diff.contains("+line ^[]0;pwned^G"),
        "{diff}"
    );
}

#[test]
fn json_carries_the_exact_text() {
    let b = Bench::new();
    let (session, _) = hostile_session(&b);
    let out = b
        .command()
        .args(["--json", "log", &session])
        .output()
        .expect("run");
    let raw = String::from_utf8(out.stdout).expect("utf8");
    // Escaped by the JSON encoding, not changed: a JSON reader gets every byte back.
    assert_eq!(raw_controls(&raw), [], "{raw}");
    let doc: serde_json::Value = serde_json::from_str(&raw).expect("json");
    let texts: Vec<&str> = doc["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["text"].as_str())
        .collect();
    for what in ["prompt", "reply", "notice"] {
        assert!(texts.contains(&hostile(what).as_str()), "{what}: {texts:?}");
    }
    let cps = b.ok(&["checkpoints", &session]);
    assert_eq!(cps[0]["toolName"], hostile("tool"));
    assert_eq!(b.ok(&["session", "list"])[0]["title"], hostile("title"));
}

#[test]
fn an_error_quoting_a_hostile_path_shows_it_visible() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = s(&b.ok(&["prompt", &session, "--text", "p"]), "turnId");
    let path = format!("a{RETITLE}b");
    let out = b
        .command()
        .args(["edit", &session, "--turn", &t, "--path", &path, "--created"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).expect("utf8");
    assert!(err.contains("control character"), "{err}");
    assert_eq!(raw_controls(&err), [], "{err}");
}

#[test]
fn log_on_a_real_terminal_with_colour_shows_no_raw_control() {
    let b = Bench::new();
    let (session, prompt) = hostile_session(&b);
    for args in commands(&session, &prompt) {
        let mut c = b.command();
        c.args(&args)
            .env("TERM", "xterm")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        let mut p = rexpect::session::spawn_command(c, Some(60_000)).expect("spawn in a pty");
        let out = p.exp_eof().expect("ends");
        assert_eq!(raw_controls(&out), [], "{args:?}:\n{out:?}");
        if args[0] == "log" {
            assert!(out.contains("\x1b["), "colour is on at a terminal: {out:?}");
            assert!(out.contains("^[]0;pwned^G"), "{out:?}");
        }
    }
}

#[test]
fn the_picker_draws_a_hostile_prompt_visible() {
    let b = Bench::new();
    hostile_session(&b);
    let mut c = b.command();
    c.arg("pick")
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE");
    let mut p = rexpect::session::spawn_command(c, Some(60_000)).expect("spawn in a pty");
    // The picker moves the cursor itself; what matters is that the stored sequences are shown.
    let before = p
        .exp_string("prompt ^[]0;pwned^G ^[[2J \\x9b31m end")
        .expect("the row");
    p.send("\x1b").expect("esc");
    p.flush().expect("flush");
    let rest = p.exp_eof().expect("ends");
    let all = format!("{before}{rest}");
    for raw in [RETITLE, CLEAR, "\u{9b}", "\x07"] {
        assert!(!all.contains(raw), "{raw:?} reached the terminal: {all:?}");
    }
}
