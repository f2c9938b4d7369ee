//! Whose a snapshot's changes are: what the caller says (`Attribution`), never a guess from
//! which turn the previous snapshot was in or how fast the turns came.

use super::harness::{MemEngine, engine, prompt, session};
use rewind_core::ErrorKind;
use rewind_core::files::TargetOptions;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::CheckpointKind;
use rewind_core::record::CompleteTurnOptions;
use rewind_core::shell::{Attribution, Options, Outcome};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn snap(
    e: &mut MemEngine,
    s: &SessionId,
    t: &TurnId,
    command: Option<&str>,
    attribution: Attribution,
) -> Outcome {
    let opts = Options {
        turn_id: t.clone(),
        command: command.map(Into::into),
        tool_name: None,
        tool_call_id: None,
        tool_message_id: None,
        attribution,
    };
    e.snapshot_workspace(s, opts).expect("snapshot")
}

fn end(e: &mut MemEngine, s: &SessionId, t: &TurnId) {
    let opts = CompleteTurnOptions {
        turn_id: t.clone(),
        failed: false,
        round_count: None,
    };
    e.complete_turn(s, opts).expect("complete");
}

#[test]
fn after_a_command_its_changes_are_its_own_whatever_the_turn_before_left() {
    let mut e = engine();
    e.workspace_mut().put("a.txt", "a\n");
    let s = session(&mut e);
    let (t1, _) = prompt(&mut e, &s, "one");
    snap(&mut e, &s, &t1, None, Attribution::External);
    e.workspace_mut().put("b.txt", "b\n");
    snap(&mut e, &s, &t1, Some("echo b"), Attribution::Command);
    end(&mut e, &s, &t1);
    let (t2, _) = prompt(&mut e, &s, "two");
    // The previous snapshot is turn one's; nothing changed since. The command's write is its.
    e.workspace_mut().put("c.txt", "c\n");
    let out = snap(&mut e, &s, &t2, Some("echo c"), Attribution::Command);
    assert_eq!(out.kind, Some(CheckpointKind::Shell), "{out:?}");
    let last = e.checkpoints(&s).expect("list").pop().expect("one");
    assert_eq!(last.tool_input.as_deref(), Some("echo c"));
}

#[test]
fn before_a_command_the_changes_are_the_persons_even_inside_a_turn() {
    let mut e = engine();
    e.workspace_mut().put("gen.txt", "g0\n");
    e.workspace_mut().put("notes.md", "n0\n");
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "generate");
    snap(&mut e, &s, &t, None, Attribution::External);
    e.workspace_mut().put("gen.txt", "g1\n");
    snap(&mut e, &s, &t, Some("gen"), Attribution::Command);
    // The person saves, between two of the agent's commands.
    e.workspace_mut().put("gen.txt", "g1 and mine\n");
    e.workspace_mut().put("notes.md", "n0 and mine\n");
    let mine = snap(&mut e, &s, &t, None, Attribution::External);
    assert_eq!(mine.kind, Some(CheckpointKind::External), "{mine:?}");
    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    let preview = e.preview_file_rewind(&s, since).expect("preview");
    assert!(!preview.can_apply, "{preview:?}");
    let blocked: Vec<&str> = preview
        .unsafe_files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(
        blocked,
        ["gen.txt"],
        "the person's save over the agent's write"
    );
    let touched: Vec<&str> = preview.safe_files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        !touched.contains(&"notes.md"),
        "a file only the person changed is theirs"
    );
}

#[test]
fn auto_remembers_a_turns_first_snapshot_even_when_it_found_nothing() {
    let mut e = engine();
    e.workspace_mut().put("a.txt", "a\n");
    let s = session(&mut e);
    let (t1, _) = prompt(&mut e, &s, "one");
    snap(&mut e, &s, &t1, None, Attribution::Auto);
    snap(&mut e, &s, &t1, None, Attribution::Auto);
    end(&mut e, &s, &t1);
    let (t2, _) = prompt(&mut e, &s, "two");
    let first = snap(&mut e, &s, &t2, None, Attribution::Auto);
    assert!(first.checkpoint_id.is_none(), "{first:?}");
    e.workspace_mut().put("c.txt", "c\n");
    let out = snap(&mut e, &s, &t2, Some("echo c"), Attribution::Auto);
    assert_eq!(out.kind, Some(CheckpointKind::Shell), "{out:?}");
}

#[test]
fn an_external_snapshot_takes_no_command_and_options_default_to_auto() {
    let mut e = engine();
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "go");
    let opts = Options {
        turn_id: t.clone(),
        command: Some("make".into()),
        tool_name: None,
        tool_call_id: None,
        tool_message_id: None,
        attribution: Attribution::External,
    };
    let before = rewind_core::ports::Store::version(e.store()).expect("version");
    let err = e.snapshot_workspace(&s, opts).expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let after = rewind_core::ports::Store::version(e.store()).expect("version");
    assert_eq!(before, after, "nothing written");
    let json = format!(r#"{{"turnId":"{t}"}}"#);
    let old: Options = serde_json::from_str(&json).expect("old callers' JSON");
    assert_eq!(old.attribution, Attribution::Auto);
    let json = format!(r#"{{"turnId":"{t}","attribution":"command"}}"#);
    let said: Options = serde_json::from_str(&json).expect("json");
    assert_eq!(said.attribution, Attribution::Command);
    let json = format!(r#"{{"turnId":"{t}","attribution":"theirs"}}"#);
    assert!(serde_json::from_str::<Options>(&json).is_err());
}
