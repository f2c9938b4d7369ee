//! Where the database lives decides what a rewind protects: its own files always, its whole
//! directory only when that directory does not hold the workspace.

use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::model::{CheckpointKind, Policy};
use rewind_core::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
use tempfile::TempDir;

/// Record an edit of `a.txt` (one → two) and rewind it, with the database at `db`.
fn rewind_with_db_at(ws: &std::path::Path, db: &std::path::Path) -> Result<bool, String> {
    std::fs::write(ws.join("a.txt"), "two\n").expect("write");
    let (mut e, _) = rewind_host::open(ws, db).map_err(|e| e.to_string())?;
    let s = e
        .create_session(SessionOptions::default())
        .expect("session")
        .id;
    let t = e
        .record_prompt(
            &s,
            PromptOptions {
                text: "edit".into(),
                payload: None,
            },
        )
        .expect("prompt");
    e.record_edit(
        &s,
        EditOptions {
            turn_id: t.turn_id.clone(),
            tool_name: "Edit".into(),
            tool_call_id: None,
            tool_message_id: None,
            kind: CheckpointKind::Edit,
            changes: vec![EditChange {
                path: "a.txt".into(),
                before: Some(b"one\n".to_vec()),
                after: Some(b"two\n".to_vec()),
                ..EditChange::default()
            }],
        },
    )
    .expect("edit");
    let out = e
        .apply_file_rewind(
            &s,
            ApplyOptions {
                target: TargetOptions {
                    since: Some(t.message_id),
                    ..TargetOptions::default()
                },
                policy: Policy::Block,
            },
        )
        .map_err(|e| e.to_string())?;
    Ok(out.applied)
}

#[test]
fn a_database_above_the_workspace_protects_only_its_own_files() {
    let home = TempDir::new().expect("temp dir");
    let ws = home.path().join("project");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let db = home.path().join("rewind.db");
    assert_eq!(rewind_with_db_at(&ws, &db), Ok(true));
    assert_eq!(std::fs::read(ws.join("a.txt")).expect("read"), b"one\n");
    assert!(db.exists(), "the database itself is untouched");
}

#[test]
fn a_database_in_a_sibling_directory_leaves_the_workspace_writable() {
    let home = TempDir::new().expect("temp dir");
    let ws = home.path().join("project");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let db = home.path().join("stores").join("rewind.db");
    assert_eq!(rewind_with_db_at(&ws, &db), Ok(true));
    assert_eq!(std::fs::read(ws.join("a.txt")).expect("read"), b"one\n");
}
