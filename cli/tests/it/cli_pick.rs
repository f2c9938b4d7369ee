//! The picker (`rewind pick`, bare `rewind`) driven end to end: through a real pseudo-terminal
//! with the keys a person presses, and without one as scripts run it.

#![cfg(unix)]

use crate::common;

use common::{Bench, s};
use rexpect::process::WaitStatus;
use rexpect::session::PtySession;

/// Generous: the machine is small and shared.
const TIMEOUT_MS: u64 = 60_000;
const DOWN: &str = "\x1b[B";
const ENTER: &str = "\r";
const ESC: &str = "\x1b";

/// `src/lib.rs` before the session, and after its first turn.
const ORIGINAL: &[u8] = b"a\nb\nc\nd\ne\nf\ng\n";
const AGENT: &[u8] = b"a\nb\nc\nd\ne\nF\ng\n";

/// A session with two turns: the first changes a line of `src/lib.rs` and creates
/// `notes.txt`, the second changes `notes.txt`. Returns the session and both prompt ids.
fn two_turns(b: &Bench) -> (String, String, String) {
    b.write("src/lib.rs", ORIGINAL);
    let session = s(&b.ok(&["session", "new", "--title", "picker"]), "id");
    let first = b.ok(&["prompt", &session, "--text", "capitalise f\nwith details"]);
    let t1 = s(&first, "turnId");
    b.record(&session, &t1, "src/lib.rs", Some(ORIGINAL), AGENT, &[]);
    b.record(
        &session,
        &t1,
        "notes.txt",
        None,
        b"draft\n",
        &["--tool", "Write"],
    );
    b.ok(&["reply", &session, "--turn", &t1, "--text", "done"]);
    b.ok(&["turn-end", &session, "--turn", &t1]);
    let second = b.ok(&["prompt", &session, "--text", "polish the notes"]);
    let t2 = s(&second, "turnId");
    b.record(
        &session,
        &t2,
        "notes.txt",
        Some(b"draft\n"),
        b"final\n",
        &[],
    );
    b.ok(&["reply", &session, "--turn", &t2, "--text", "polished"]);
    b.ok(&["turn-end", &session, "--turn", &t2]);
    (session, s(&first, "messageId"), s(&second, "messageId"))
}

/// `rewind --workspace <dir> ARGS` in a pseudo-terminal, plain text, no colour.
fn spawn(b: &Bench, args: &[&str]) -> PtySession {
    let mut c = b.command();
    c.args(args)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE");
    rexpect::session::spawn_command(c, Some(TIMEOUT_MS)).expect("spawn in a pty")
}

fn expect(p: &mut PtySession, text: &str) -> String {
    p.exp_string(text)
        .unwrap_or_else(|e| panic!("waiting for {text:?}: {e}"))
}

fn send(p: &mut PtySession, keys: &str) {
    p.send(keys).expect("send keys");
    p.flush().expect("flush");
}

/// Wait for the end and return the exit code.
fn finish(p: &mut PtySession) -> i32 {
    p.exp_eof().expect("the picker ends");
    match p.process().wait().expect("wait") {
        WaitStatus::Exited(_, code) => code,
        other => panic!("ended by {other:?}"),
    }
}

/// The conversation as `log --json` shows it: the generation and the ids on the active branch.
fn branch(b: &Bench, session: &str) -> (u64, Vec<String>) {
    let log = b.ok(&["log", session]);
    let ids = log["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| s(m, "id"))
        .collect();
    (log["generation"].as_u64().expect("generation"), ids)
}

fn untouched(b: &Bench, session: &str) {
    assert_eq!(b.read("src/lib.rs").as_deref(), Some(AGENT));
    assert_eq!(b.read("notes.txt").as_deref(), Some(&b"final\n"[..]));
    assert_eq!(branch(b, session).0, 0, "the conversation was not rewound");
}

#[test]
fn pick_the_first_prompt_and_rewind_code_and_conversation() {
    let b = Bench::new();
    let (session, first, _) = two_turns(&b);
    let mut p = spawn(&b, &["pick"]);
    expect(&mut p, "Go back to before which prompt");
    // Newest first, numbered along the branch, the first line only, with the files changed.
    expect(&mut p, "#2");
    expect(&mut p, "polish the notes");
    expect(&mut p, "1 file +1 -1");
    expect(&mut p, "#1");
    let row = expect(&mut p, "2 files +2 -1");
    assert!(row.contains("capitalise f"), "{row}");
    assert!(!row.contains("with details"), "only the first line: {row}");
    send(&mut p, DOWN);
    send(&mut p, ENTER);
    expect(&mut p, "Going back to before #1");
    expect(&mut p, "Restore code and conversation");
    expect(&mut p, "Never mind");
    send(&mut p, ENTER);
    // The preview: what leaves the conversation, what each file becomes.
    expect(&mut p, "2 turns leave the active branch");
    expect(&mut p, "delete   notes.txt");
    expect(&mut p, "restore  src/lib.rs");
    expect(&mut p, "can apply");
    expect(&mut p, "Rewind code and conversation?");
    send(&mut p, "y");
    expect(&mut p, "rewind undo");
    expect(&mut p, "conversation rewound to before");
    assert_eq!(finish(&mut p), 0);
    assert_eq!(b.read("src/lib.rs").as_deref(), Some(ORIGINAL));
    assert_eq!(
        b.read("notes.txt"),
        None,
        "the file the session created is gone"
    );
    let (generation, ids) = branch(&b, &session);
    assert_eq!(generation, 1);
    assert!(!ids.contains(&first), "both turns left the branch: {ids:?}");
    assert!(ids.is_empty(), "{ids:?}");
}

#[test]
fn bare_rewind_on_a_terminal_is_the_picker() {
    let b = Bench::new();
    let (session, first, second) = two_turns(&b);
    let mut p = spawn(&b, &[]);
    expect(&mut p, "Go back to before which prompt");
    expect(&mut p, "#2");
    send(&mut p, ENTER);
    expect(&mut p, "Restore conversation only");
    send(&mut p, DOWN);
    send(&mut p, ENTER);
    expect(&mut p, "1 turn leave");
    expect(&mut p, "files: untouched");
    expect(&mut p, "Rewind the conversation?");
    send(&mut p, "y");
    expect(&mut p, "files untouched");
    assert_eq!(finish(&mut p), 0);
    assert_eq!(b.read("notes.txt").as_deref(), Some(&b"final\n"[..]));
    let (generation, ids) = branch(&b, &session);
    assert_eq!(generation, 1);
    assert!(ids.contains(&first) && !ids.contains(&second), "{ids:?}");
}

#[test]
fn every_way_out_changes_nothing() {
    let b = Bench::new();
    let (session, _, _) = two_turns(&b);
    // Esc at the list.
    let mut p = spawn(&b, &["pick"]);
    expect(&mut p, "Go back to before which prompt");
    send(&mut p, ESC);
    expect(&mut p, "cancelled; nothing changed");
    assert_eq!(finish(&mut p), 0);
    // "Never mind" at the scope.
    let mut p = spawn(&b, &["pick"]);
    expect(&mut p, "Go back to before which prompt");
    send(&mut p, ENTER);
    expect(&mut p, "Never mind");
    send(&mut p, &DOWN.repeat(3));
    send(&mut p, ENTER);
    expect(&mut p, "cancelled; nothing changed");
    assert_eq!(finish(&mut p), 0);
    // No at the confirmation (and Enter is no).
    for answer in ["n", ENTER] {
        let mut p = spawn(&b, &["pick", "--turn", "#1", "--scope", "both"]);
        expect(&mut p, "Rewind code and conversation?");
        send(&mut p, answer);
        expect(&mut p, "cancelled; nothing changed");
        assert_eq!(finish(&mut p), 0);
    }
    untouched(&b, &session);
}

#[test]
fn a_file_edited_since_asks_how_to_treat_it() {
    let b = Bench::new();
    let (session, _, _) = two_turns(&b);
    // The person edits another line of the agent's file: a merge keeps it.
    b.write("src/lib.rs", b"A\nb\nc\nd\ne\nF\ng\n");
    let mut p = spawn(&b, &["pick", "--scope", "code"]);
    expect(&mut p, "Go back to before which prompt");
    send(&mut p, DOWN);
    send(&mut p, ENTER);
    expect(&mut p, "CONFLICT src/lib.rs");
    expect(&mut p, "src/lib.rs was edited since the agent changed it");
    expect(&mut p, "Merge");
    expect(&mut p, "Skip");
    expect(&mut p, "Force");
    expect(&mut p, "Cancel");
    send(&mut p, ENTER);
    expect(&mut p, "Rewind the code?");
    send(&mut p, "y");
    expect(&mut p, "merged: your later edits kept");
    assert_eq!(finish(&mut p), 0);
    assert_eq!(
        b.read("src/lib.rs").as_deref(),
        Some(&b"A\nb\nc\nd\ne\nf\ng\n"[..])
    );
    assert_eq!(b.read("notes.txt"), None);
    assert_eq!(branch(&b, &session).0, 0, "code only");
}

/// Two conflicts, one that merges and one that does not: the engine refuses a merge whole unless
/// every conflict merges, so the picker does not offer one; skip names the files it leaves.
#[test]
fn a_merge_that_would_be_refused_is_not_offered() {
    let b = Bench::new();
    let (session, _, _) = two_turns(&b);
    b.write("src/lib.rs", b"A\nb\nc\nd\ne\nF\ng\n"); // merges
    b.write("notes.txt", b"mine\n"); // the rewind deletes it: does not merge
    let mut p = spawn(&b, &["pick", "--scope", "code"]);
    expect(&mut p, "Go back to before which prompt");
    send(&mut p, DOWN);
    send(&mut p, ENTER);
    expect(&mut p, "were edited since the agent changed them");
    // The first choice (the one the cursor is on) is Skip: no Merge above it.
    expect(
        &mut p,
        "> Skip: restore the other files, leave notes.txt, src/lib.rs as they are",
    );
    expect(&mut p, "Force");
    expect(&mut p, "Cancel");
    send(&mut p, ESC);
    expect(&mut p, "cancelled; nothing changed");
    assert_eq!(finish(&mut p), 0);
    assert_eq!(b.read("notes.txt").as_deref(), Some(&b"mine\n"[..]));
    assert_eq!(branch(&b, &session).0, 0);
}

#[test]
fn flags_answer_every_question_without_a_terminal() {
    let b = Bench::new();
    let (session, first, _) = two_turns(&b);
    // The JSON is the outcome of the rewind itself (here `both`'s).
    let out = b.ok(&["pick", "--turn", &first, "--scope", "both", "--yes"]);
    assert_eq!(out["rewound"], true, "{out}");
    assert_eq!(out["applied"], true, "{out}");
    assert_eq!(s(&out, "targetMessageId"), first);
    assert_eq!(b.read("src/lib.rs").as_deref(), Some(ORIGINAL));
    assert_eq!(b.read("notes.txt"), None);
    assert_eq!(branch(&b, &session).0, 1);
    // Text, through a pipe, a turn number for the prompt.
    let b = Bench::new();
    let (session, _, _) = two_turns(&b);
    let out = b.text(&["pick", "--turn", "2", "--scope", "code", "-y"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("restore  notes.txt") && text.contains("rewind undo"),
        "{text}"
    );
    assert_eq!(b.read("notes.txt").as_deref(), Some(&b"draft\n"[..]));
    assert_eq!(branch(&b, &session).0, 0);
}

#[test]
fn an_unanswered_question_without_a_terminal_is_invalid_input() {
    let b = Bench::new();
    let (session, _, _) = two_turns(&b);
    for (args, flag) in [
        (&["pick"][..], "--to"),
        (&["pick", "--turn", "1", "--scope", "both"][..], "--yes"),
        (&["pick", "--turn", "1", "--yes"][..], "--scope"),
    ] {
        let (code, doc) = b.json(args);
        assert_eq!(code, 1, "{args:?}: {doc}");
        assert_eq!(doc["error"]["code"], "invalid_input", "{args:?}: {doc}");
        let message = s(&doc["error"], "message");
        assert!(message.contains(flag), "{args:?}: {message}");
    }
    // A file edited since: the policy is a question too.
    b.write("src/lib.rs", b"mine\n");
    let (code, doc) = b.json(&["pick", "--turn", "1", "--scope", "both", "--yes"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"]["code"], "invalid_input", "{doc}");
    assert!(s(&doc["error"], "message").contains("--policy"), "{doc}");
    assert_eq!(b.read("src/lib.rs").as_deref(), Some(&b"mine\n"[..]));
    assert_eq!(b.read("notes.txt").as_deref(), Some(&b"final\n"[..]));
    assert_eq!(branch(&b, &session).0, 0);
    // Bare `rewind` with no terminal is the usage error it always was.
    let out = b.text(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: rewind"));
}

#[test]
fn the_list_stops_at_the_latest_fifty_but_any_prompt_can_be_named_by_id() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new"]), "id");
    let ids: Vec<String> = (1..=52)
        .map(|i| {
            s(
                &b.ok(&["prompt", &session, "--text", &format!("ask {i}")]),
                "messageId",
            )
        })
        .collect();
    let run = |turn: &str| b.json(&["pick", "--turn", turn, "--scope", "conversation", "--yes"]);
    let (code, doc) = run("53");
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    assert_eq!(code, 1);
    // #3 is the oldest listed; #2 by its number or its id; the engine checks either like any
    // target.
    let (code, doc) = run(&ids[1]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(s(&doc, "targetMessageId"), ids[1]);
    assert_eq!(branch(&b, &session).1, vec![ids[0].clone()]);
    let (code, doc) = run("#1");
    assert_eq!(code, 0, "{doc}");
    assert_eq!(s(&doc, "targetMessageId"), ids[0]);
    // A turn id names its prompt too.
    let b = Bench::new();
    let (session, first, _) = two_turns(&b);
    let turn = s(&b.ok(&["log", &session])["messages"][0], "turnId");
    let out = b.ok(&["pick", "--turn", &turn, "--scope", "conversation", "--yes"]);
    assert_eq!(s(&out, "targetMessageId"), first);
}

#[test]
fn the_diff_goes_through_the_pager_and_a_summary_comes_before_the_question() {
    let b = Bench::new();
    let (_, _, _) = two_turns(&b);
    b.write("src/lib.rs", b"A\nb\nc\nd\ne\nF\ng\n");
    // A pager that marks every line it shows, and says when the person "quit" it.
    let mut c = b.command();
    c.args(["pick", "--scope", "code"])
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env("REWIND_PAGER", "sed 's/^/paged: /'; echo pager-quit");
    let mut p = rexpect::session::spawn_command(c, Some(TIMEOUT_MS)).expect("spawn in a pty");
    expect(&mut p, "Go back to before which prompt");
    send(&mut p, DOWN);
    send(&mut p, ENTER);
    expect(&mut p, "paged: files:");
    expect(&mut p, "paged: CONFLICT src/lib.rs");
    let forced = expect(&mut p, "pager-quit");
    assert!(
        forced.contains("paged: --policy force would write:"),
        "{forced}"
    );
    // After the pager: the summary, then the question naming the file.
    let between = expect(&mut p, "src/lib.rs was edited since the agent changed it");
    assert!(between.contains("Going back to before #1:"), "{between}");
    assert!(
        between.contains("files: 2 files; the rewind adds"),
        "{between}"
    );
    assert!(
        !between.contains("@@"),
        "no hunk after the pager: {between}"
    );
    send(&mut p, ESC);
    expect(&mut p, "cancelled; nothing changed");
    assert_eq!(finish(&mut p), 0);
}
