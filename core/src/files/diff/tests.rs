use super::build::hunks;
use super::*;
use crate::Engine;
use crate::files::TargetOptions;
use crate::id::{MessageId, TurnId};
use crate::model::CheckpointKind;
use crate::patch;
use crate::ports::Store as _;
use crate::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
use crate::testkit::{MemStore, MemWorkspace, SeqIds, TickClock};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

type MemEngine = Engine<MemStore, MemWorkspace>;

/// A session with one open turn.
fn start() -> (MemEngine, SessionId, TurnId, MessageId) {
    let mut e = Engine::new(
        MemStore::new(),
        MemWorkspace::new(),
        TickClock::default(),
        SeqIds::default(),
    );
    let s = e
        .create_session(SessionOptions::default())
        .expect("session")
        .id;
    let out = e
        .record_prompt(
            &s,
            PromptOptions {
                text: "go".into(),
                payload: None,
            },
        )
        .expect("prompt");
    (e, s, out.turn_id, out.message_id)
}

/// The tool writes `after` (`None`: deletes), then the edit is recorded.
fn tool(e: &mut MemEngine, s: &SessionId, t: &TurnId, path: &str, after: Option<&[u8]>) {
    let before = e.workspace().get(path).map(<[u8]>::to_vec);
    match after {
        Some(b) => e.workspace_mut().put(path, b),
        None => e.workspace_mut().delete(path),
    }
    let opts = EditOptions {
        turn_id: t.clone(),
        tool_name: "Edit".into(),
        tool_call_id: None,
        tool_message_id: None,
        kind: CheckpointKind::Edit,
        changes: vec![EditChange {
            path: path.into(),
            before,
            after: after.map(<[u8]>::to_vec),
            patch: None,
            before_mode: None,
            after_mode: None,
        }],
    };
    e.record_edit(s, opts).expect("edit");
}

fn since(m: &MessageId) -> TargetOptions {
    TargetOptions {
        since: Some(m.clone()),
        ..TargetOptions::default()
    }
}

/// `(kind, text)` of every line, for compact assertions.
fn lines(h: &[DiffHunk]) -> Vec<(LineKind, &str)> {
    h.iter()
        .flat_map(|h| &h.lines)
        .map(|l| (l.kind, l.text.as_str()))
        .collect()
}

#[test]
fn shows_what_the_rewind_writes_for_each_action() {
    let (mut e, s, t, m) = start();
    e.workspace_mut().put("a.txt", "one\ntwo\nthree\n");
    e.workspace_mut().put("gone.txt", "kept\n");
    tool(&mut e, &s, &t, "a.txt", Some(b"one\nTWO\nthree\n"));
    tool(&mut e, &s, &t, "new.txt", Some(b"fresh\n"));
    tool(&mut e, &s, &t, "gone.txt", None);
    let version = e.store().version().expect("version");
    let before = e.workspace().files().clone();

    let d = e.diff_file_rewind(&s, since(&m)).expect("diff");
    let paths: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.txt", "gone.txt", "new.txt"]);
    let [a, gone, new] = &d.files[..] else {
        unreachable!()
    };
    assert_eq!(a.action, Some(DiffAction::Restore));
    assert!(a.safe && !a.binary && !a.large);
    assert_eq!(
        lines(&a.hunks),
        [
            (LineKind::Context, "one"),
            (LineKind::Removed, "TWO"),
            (LineKind::Added, "two"),
            (LineKind::Context, "three"),
        ]
    );
    assert_eq!(gone.action, Some(DiffAction::Create));
    assert_eq!(lines(&gone.hunks), [(LineKind::Added, "kept")]);
    assert_eq!(new.action, Some(DiffAction::Delete));
    assert_eq!(lines(&new.hunks), [(LineKind::Removed, "fresh")]);
    assert_eq!(d.stats.files, 3);
    assert_eq!((d.stats.lines.additions, d.stats.lines.deletions), (2, 2));
    assert!(a.person_change.is_none() && a.agent_change.is_none());

    assert_eq!(e.store().version().expect("version"), version, "no commit");
    assert_eq!(e.workspace().files(), &before, "nothing written");
}

#[test]
fn of_a_conflict_shows_the_person_and_the_agent() {
    let (mut e, s, t, m) = start();
    e.workspace_mut()
        .put("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    tool(
        &mut e,
        &s,
        &t,
        "a.txt",
        Some(b"1\nagent\n3\n4\n5\n6\n7\n8\n9\n"),
    );
    // The person edits far from the agent's line, so a merge applies.
    e.workspace_mut()
        .put("a.txt", "1\nagent\n3\n4\n5\n6\n7\n8\nmine\n");

    let d = e.diff_file_rewind(&s, since(&m)).expect("diff");
    let f = &d.files[0];
    assert!(!f.safe);
    assert_eq!(f.reason, Some(UnsafeReason::ExternalModified));
    assert!(f.mergeable && f.forceable);
    let person = f.person_change.as_deref().expect("person's change");
    assert_eq!(
        lines(person)
            .into_iter()
            .filter(|(k, _)| *k != LineKind::Context)
            .collect::<Vec<_>>(),
        [(LineKind::Removed, "9"), (LineKind::Added, "mine")]
    );
    let agent = f.agent_change.as_deref().expect("agent's change");
    assert!(lines(agent).contains(&(LineKind::Removed, "2")));
    assert!(lines(agent).contains(&(LineKind::Added, "agent")));
    // Force restores the agent's before-state, dropping the person's line too.
    assert!(lines(&f.hunks).contains(&(LineKind::Removed, "mine")));
    // Merge undoes only the agent's line.
    let merge = f.merge_hunks.as_deref().expect("mergeable");
    assert!(!lines(merge).contains(&(LineKind::Removed, "mine")));
    assert!(lines(merge).contains(&(LineKind::Added, "2")));
}

#[test]
fn names_binary_and_large_files_without_hunks() {
    let (mut e, s, t, m) = start();
    tool(&mut e, &s, &t, "img.bin", Some(b"\x89PNG\0\x01\x02"));
    let big = "a generated line\n".repeat(patch::PATCH_LIMIT / 16);
    tool(&mut e, &s, &t, "big.txt", Some(big.as_bytes()));
    tool(&mut e, &s, &t, "small.txt", Some(b"x\n"));

    let d = e.diff_file_rewind(&s, since(&m)).expect("diff");
    let by = |p: &str| d.files.iter().find(|f| f.path == p).expect(p);
    assert!(by("img.bin").binary && by("img.bin").hunks.is_empty());
    assert!(by("big.txt").large && by("big.txt").hunks.is_empty());
    assert_eq!(by("big.txt").action, Some(DiffAction::Delete));
    assert_eq!(d.stats.lines.deletions, 1, "only small.txt is counted");
}

#[test]
fn marks_a_missing_final_newline() {
    let h = hunks(Some(b"a\nb"), Some(b"a\nc\n")).expect("text");
    let removed = h[0].lines.iter().find(|l| l.text == "b").expect("b");
    assert_eq!(removed.kind, LineKind::Removed);
    assert!(removed.no_newline);
    assert!(
        h[0].lines
            .iter()
            .all(|l| l.text != "\\ No newline at end of file")
    );
    let json = serde_json::to_value(&h[0]).expect("json");
    assert_eq!(json["lines"][0]["kind"], "context");
    assert!(json["lines"][0].get("noNewline").is_none());
    assert_eq!(json["oldStart"], 1);
}

#[test]
fn skips_files_already_at_their_target() {
    let (mut e, s, t, m) = start();
    tool(&mut e, &s, &t, "tmp.txt", Some(b"x\n"));
    // The person removed the file the agent created: nothing left to undo.
    e.workspace_mut().delete("tmp.txt");
    let d = e.diff_file_rewind(&s, since(&m)).expect("diff");
    assert!(d.files.is_empty());
    assert_eq!(d.unchanged_files, ["tmp.txt"]);
    assert_eq!(d.stats, DiffStats::default());
}

#[test]
fn an_edit_between_two_agent_changes_is_the_persons_change() {
    let (mut e, s, t, m) = start();
    tool(&mut e, &s, &t, "a.txt", Some(b"agent 1\n"));
    e.workspace_mut().put("a.txt", "person\n");
    tool(&mut e, &s, &t, "a.txt", Some(b"agent 2\n"));
    let d = e.diff_file_rewind(&s, since(&m)).expect("diff");
    let person = d.files[0]
        .person_change
        .as_deref()
        .expect("person's change");
    assert_eq!(
        lines(person),
        [(LineKind::Removed, "agent 1"), (LineKind::Added, "person")]
    );
}

#[test]
fn a_mode_only_restore_has_modes_and_no_hunks() {
    let (mut e, s, t, m) = start();
    e.workspace_mut().put("run.sh", "echo hi\n");
    e.workspace_mut().chmod("run.sh", 0o755);
    let opts = EditOptions {
        turn_id: t,
        tool_name: "Bash".into(),
        tool_call_id: None,
        tool_message_id: None,
        kind: CheckpointKind::Edit,
        changes: vec![EditChange {
            path: "run.sh".into(),
            before: Some(b"echo hi\n".to_vec()),
            after: Some(b"echo hi\n".to_vec()),
            patch: None,
            before_mode: Some(0o644),
            after_mode: Some(0o755),
        }],
    };
    e.record_edit(&s, opts).expect("edit");
    let d = e.diff_file_rewind(&s, since(&m)).expect("diff");
    let f = &d.files[0];
    assert!(f.hunks.is_empty());
    assert_eq!((f.old_mode, f.new_mode), (Some(0o755), Some(0o644)));
    assert_eq!(f.action, Some(DiffAction::Restore));
}
