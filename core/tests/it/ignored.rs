//! Paths the session recorded stay tracked whatever the host's ignore rules say: a snapshot
//! after a file tool wrote an ignored path neither reports it deleted nor blocks a rewind.

use super::harness::{MemEngine, engine, prompt, session, tool_edit};
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::model::Policy;
use rewind_core::shell::{Attribution, Options, Outcome};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn snap(e: &mut MemEngine, s: &SessionId, t: &TurnId) -> Outcome {
    let opts = Options {
        turn_id: t.clone(),
        command: Some("make".into()),
        tool_name: None,
        tool_call_id: None,
        tool_message_id: None,
        attribution: Attribution::Command,
    };
    e.snapshot_workspace(s, opts).expect("snapshot")
}

fn since(p: &MessageId) -> TargetOptions {
    TargetOptions {
        since: Some(p.clone()),
        ..TargetOptions::default()
    }
}

fn ignored_tree() -> MemEngine {
    let mut e = engine();
    e.workspace_mut().put("a.txt", "alpha\n");
    e.workspace_mut().ignore("logs");
    e.workspace_mut().ignore("b.log");
    e
}

#[test]
fn a_recorded_write_to_an_ignored_path_is_not_a_deletion_and_rewinds() {
    let mut e = ignored_tree();
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "write logs");
    let base = snap(&mut e, &s, &t);
    assert_eq!(base.files, 1, "the ignored paths are not walked");
    tool_edit(&mut e, &s, &t, "b.log", Some(b"made by the tool\n"));
    tool_edit(&mut e, &s, &t, "logs/run.log", Some(b"run 1\n"));

    let out = snap(&mut e, &s, &t);
    assert!(out.checkpoint_id.is_none(), "nothing changed: {out:?}");
    assert!(out.changed.deleted.is_empty(), "{:?}", out.changed.deleted);
    assert_eq!(out.files, 3, "the recorded ignored paths are tracked now");

    // Once tracked, a shell command's change to one is the command's.
    e.workspace_mut().put("logs/run.log", "run 2\n");
    let changed = snap(&mut e, &s, &t);
    let modified: Vec<&str> = changed
        .changed
        .modified
        .iter()
        .map(|p| p.as_str())
        .collect();
    assert_eq!(modified, ["logs/run.log"]);

    let preview = e.preview_file_rewind(&s, since(&p)).expect("preview");
    assert!(
        preview.can_apply && preview.unsafe_files.is_empty(),
        "{preview:?}"
    );
    let opts = ApplyOptions {
        target: since(&p),
        policy: Policy::Block,
    };
    e.apply_file_rewind(&s, opts).expect("apply");
    assert_eq!(e.workspace().get("b.log"), None);
    assert_eq!(e.workspace().get("logs/run.log"), None);
    assert_eq!(e.workspace().get("a.txt"), Some(&b"alpha\n"[..]));
}

#[test]
fn a_recorded_ignored_path_removed_from_disk_is_a_deletion() {
    let mut e = ignored_tree();
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "write a log");
    snap(&mut e, &s, &t);
    tool_edit(&mut e, &s, &t, "b.log", Some(b"x\n"));
    snap(&mut e, &s, &t);
    e.workspace_mut().delete("b.log");
    let out = snap(&mut e, &s, &t);
    let deleted: Vec<&str> = out.changed.deleted.iter().map(|p| p.as_str()).collect();
    assert_eq!(deleted, ["b.log"], "a real removal is still seen");
}
