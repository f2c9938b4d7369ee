//! Forks and side chats: what is copied, ids remapped, idempotent replay, atomic commits.

use super::harness::{MemEngine, engine, prompt, session, tool_edit};
use rewind_core::ErrorKind;
use rewind_core::conversation;
use rewind_core::files::TargetOptions;
use rewind_core::fork::{Options, SideChatOptions, WorkspaceMode};
use rewind_core::hash::ContentHash;
use rewind_core::id::{CommandId, MessageId, SessionId};
use rewind_core::model::{MessageKind, OperationKind, SessionKind};
use rewind_core::ports::Store;
use rewind_core::record::{CompleteTurnOptions, ReplyOptions};
use rewind_core::testkit::{Fault, FaultOp};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

struct Parent {
    e: MemEngine,
    s: SessionId,
    p1: MessageId,
    p2: MessageId,
    p3: MessageId,
}

/// Three completed turns: a.txt edited in 1 and 3, b.txt created in 2.
fn parent() -> Parent {
    let mut e = engine();
    e.workspace_mut().put("a.txt", "a0\n");
    let s = session(&mut e);
    let mut ps = Vec::new();
    for (i, (path, after)) in [("a.txt", "a1\n"), ("b.txt", "b\n"), ("a.txt", "a3\n")]
        .into_iter()
        .enumerate()
    {
        let (t, p) = prompt(&mut e, &s, &format!("turn {}", i + 1));
        tool_edit(&mut e, &s, &t, path, Some(after.as_bytes()));
        e.record_reply(
            &s,
            ReplyOptions {
                turn_id: t.clone(),
                text: format!("done {}", i + 1),
                error: false,
                payload: None,
            },
        )
        .expect("reply");
        e.complete_turn(
            &s,
            CompleteTurnOptions {
                turn_id: t,
                failed: false,
                round_count: None,
            },
        )
        .expect("end");
        ps.push(p);
    }
    let [p1, p2, p3] = ps.try_into().expect("three prompts");
    Parent { e, s, p1, p2, p3 }
}

fn at(m: &MessageId) -> Options {
    Options {
        at: Some(m.clone()),
        ..Options::default()
    }
}

#[test]
fn a_fork_at_a_message_copies_that_turn_with_fresh_ids() {
    let Parent { mut e, s, p2, .. } = parent();
    let out = e.fork(&s, at(&p2)).expect("fork");
    assert_eq!(
        (
            out.kind,
            out.copied_messages,
            out.copied_checkpoints,
            out.replayed
        ),
        (SessionKind::Fork, 4, 2, false)
    );
    let child = e.resume(&out.child_id).expect("child");
    assert_eq!(child.session.parent_id.as_ref(), Some(&s));
    assert_eq!(child.session.title, "Fork of Untitled session");
    let parent_ids: Vec<MessageId> = e
        .resume(&s)
        .expect("parent")
        .messages
        .iter()
        .map(|m| m.id.clone())
        .collect();
    assert!(
        child.messages.iter().all(|m| !parent_ids.contains(&m.id)),
        "every id is child-local"
    );
    let kinds: Vec<MessageKind> = child.messages.iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        [
            MessageKind::Prompt,
            MessageKind::Reply,
            MessageKind::Prompt,
            MessageKind::Reply,
            MessageKind::Notice,
            MessageKind::Timeline
        ]
    );
    let notice = &child.messages[4];
    assert!(!notice.visible_to_ui && notice.visible_to_model);
    let marker = &child.messages[5];
    assert!(marker.visible_to_ui && !marker.visible_to_model);
    assert_eq!(
        e.workspace().get("a.txt"),
        Some(&b"a3\n"[..]),
        "shared mode touches no file"
    );
    // The child can rewind an inherited turn; it sees the parent's later change to a.txt on disk.
    let child_p2 = child.messages[2].id.clone();
    let preview = e
        .preview_file_rewind(
            &out.child_id,
            TargetOptions {
                since: Some(child_p2),
                ..TargetOptions::default()
            },
        )
        .expect("preview");
    assert_eq!(
        preview
            .safe_files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["b.txt"]
    );
    let ops = e.operations(&s).expect("ops").items;
    assert_eq!(ops.last().map(|o| o.kind), Some(OperationKind::Fork));
}

#[test]
fn a_restoring_fork_undoes_only_later_changes_and_the_parent_knows() {
    let Parent {
        mut e, s, p2, p3, ..
    } = parent();
    let out = e
        .fork(
            &s,
            Options {
                workspace_mode: WorkspaceMode::Restore,
                ..at(&p2)
            },
        )
        .expect("fork");
    assert_eq!(
        out.restored_files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["a.txt"]
    );
    assert_eq!(
        e.workspace().get("a.txt"),
        Some(&b"a1\n"[..]),
        "back to the fork point"
    );
    assert_eq!(
        e.workspace().get("b.txt"),
        Some(&b"b\n"[..]),
        "earlier changes stay"
    );
    let preview = e
        .preview_file_rewind(
            &s,
            TargetOptions {
                since: Some(p3),
                ..TargetOptions::default()
            },
        )
        .expect("preview");
    assert_eq!(
        preview.reverted_paths,
        ["a.txt"],
        "the parent's log records that the fork undid turn 3"
    );
    let op = out.operation_id.expect("op");
    e.undo(
        &s,
        rewind_core::undo::Options {
            operation_id: Some(op),
            policy: Default::default(),
        },
    )
    .expect("undo the fork's restore");
    assert_eq!(e.workspace().get("a.txt"), Some(&b"a3\n"[..]));
}

#[test]
fn a_restoring_fork_with_a_conflict_or_a_missing_blob_writes_nothing() {
    for missing_blob in [false, true] {
        let Parent { mut e, s, p1, .. } = parent();
        if missing_blob {
            e.store_mut().drop_blob(&ContentHash::of(b"a1\n"));
        } else {
            e.workspace_mut().put("b.txt", "edited by hand\n");
        }
        let before = (
            e.workspace().files().clone(),
            e.sessions().expect("sessions").items.len(),
        );
        let err = e
            .fork(
                &s,
                Options {
                    workspace_mode: WorkspaceMode::Restore,
                    ..at(&p1)
                },
            )
            .expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
        assert_eq!(
            (
                e.workspace().files().clone(),
                e.sessions().expect("sessions").items.len()
            ),
            before
        );
    }
}

#[test]
fn replaying_a_command_returns_the_same_child_and_writes_nothing() {
    let Parent { mut e, s, p1, .. } = parent();
    let cmd = CommandId::parse("cmd_fork-1").expect("valid");
    let first = e
        .fork(
            &s,
            Options {
                command_id: Some(cmd.clone()),
                ..at(&p1)
            },
        )
        .expect("fork");
    let commits = e.store().version().expect("version");
    let again = e
        .fork(
            &s,
            Options {
                command_id: Some(cmd.clone()),
                ..at(&p1)
            },
        )
        .expect("replay");
    assert!(again.replayed);
    assert_eq!(again.child_id, first.child_id);
    assert_eq!(
        e.store().version().expect("version"),
        commits,
        "a replay writes nothing at all"
    );
    let side = e
        .side_chat(
            &s,
            SideChatOptions {
                command_id: Some(cmd),
            },
        )
        .expect("same command id");
    assert_eq!(
        side.child_id, first.child_id,
        "a command id names one command per parent"
    );
}

#[test]
fn a_failed_commit_leaves_no_trace_and_a_retry_succeeds_once() {
    for mode in [WorkspaceMode::Shared, WorkspaceMode::Restore] {
        // Restore mode commits a journal, writes a.txt, then commits the bundle: fail each step.
        let steps: Vec<(FaultOp, u64)> = match mode {
            WorkspaceMode::Shared => vec![(FaultOp::Commit, 1)],
            WorkspaceMode::Restore => vec![
                (FaultOp::Commit, 1),
                (FaultOp::Write, 1),
                (FaultOp::Commit, 2),
            ],
        };
        for (op, nth) in steps {
            let Parent { mut e, s, p2, .. } = parent();
            let files = e.workspace().files().clone();
            let cmd = CommandId::parse("cmd_retry").expect("valid");
            let opts = Options {
                command_id: Some(cmd.clone()),
                workspace_mode: mode,
                ..at(&p2)
            };
            match op {
                FaultOp::Commit => e.store_mut().arm(Fault {
                    op,
                    nth,
                    sticky: false,
                }),
                _ => e.workspace_mut().arm(Fault {
                    op,
                    nth,
                    sticky: false,
                }),
            }
            assert!(e.fork(&s, opts.clone()).is_err(), "{mode:?} {op:?} {nth}");
            assert_eq!(
                e.sessions().expect("sessions").items.len(),
                1,
                "no child left behind"
            );
            assert_eq!(e.workspace().files(), &files, "workspace as before");
            assert!(e.resume(&s).expect("parent").pending_journals.is_empty());
            let ok = e.fork(&s, opts.clone()).expect("retry");
            assert!(!ok.replayed);
            assert!(e.fork(&s, opts).expect("again").replayed);
            assert_eq!(
                e.sessions().expect("sessions").items.len(),
                2,
                "exactly one child"
            );
        }
    }
}

#[test]
fn a_fork_after_a_conversation_rewind_never_copies_the_old_branch() {
    let Parent { mut e, s, p2, .. } = parent();
    e.rewind_conversation(&s, conversation::Options { to: p2 })
        .expect("rewind");
    let (_, p4) = prompt(&mut e, &s, "a different turn two");
    let out = e.fork(&s, at(&p4)).expect("fork");
    let texts: Vec<String> = e
        .resume(&out.child_id)
        .expect("child")
        .messages
        .iter()
        .map(|m| m.text.clone())
        .collect();
    assert!(texts.iter().any(|t| t == "a different turn two"));
    assert!(
        !texts.iter().any(|t| t == "turn 2" || t == "turn 3"),
        "{texts:?}"
    );
}

#[test]
fn a_fork_of_a_fork_keeps_the_trace_and_chains_parents() {
    let Parent { mut e, s, p3, .. } = parent();
    let child = e.fork(&s, at(&p3)).expect("fork").child_id;
    let child_prompt = e.resume(&child).expect("child").messages[0].id.clone();
    let grandchild = e
        .fork(&child, at(&child_prompt))
        .expect("fork of fork")
        .child_id;
    let g = e.resume(&grandchild).expect("grandchild");
    assert_eq!(g.session.parent_id, Some(child));
    assert_eq!(
        g.session.trace_id,
        e.resume(&s).expect("root").session.trace_id
    );
    assert_eq!(
        g.active_checkpoints.len(),
        1,
        "turn 1's checkpoint travels down"
    );
}

#[test]
fn a_fork_at_a_turn_boundary_is_allowed_while_the_parent_runs() {
    let Parent { mut e, s, .. } = parent();
    let turn1 = e.resume(&s).expect("parent").messages[0]
        .turn_id
        .clone()
        .expect("turn");
    let (running, _) = prompt(&mut e, &s, "still working");
    let out = e
        .fork(
            &s,
            Options {
                turn: Some(turn1),
                ..Options::default()
            },
        )
        .expect("fork at the boundary");
    assert_eq!(out.copied_messages, 2);
    assert_eq!(
        out.copied_checkpoints, 0,
        "a turn-boundary fork is conversation only"
    );
    let err = e
        .fork(
            &s,
            Options {
                turn: Some(running),
                ..Options::default()
            },
        )
        .expect_err("not completed");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().contains("no stable boundary"), "{err}");
}

#[test]
fn a_side_chat_hides_the_history_and_cuts_a_running_turns_output() {
    let Parent { mut e, s, .. } = parent();
    let (t, _) = prompt(&mut e, &s, "in flight");
    e.record_reply(
        &s,
        ReplyOptions {
            turn_id: t,
            text: "partial output".into(),
            error: false,
            payload: None,
        },
    )
    .expect("reply");
    let out = e
        .side_chat(&s, SideChatOptions::default())
        .expect("side chat");
    assert_eq!(out.kind, SessionKind::SideChat);
    let child = e.resume(&out.child_id).expect("child");
    assert_eq!(child.session.title, "Side chat");
    let texts: Vec<&str> = child.messages.iter().map(|m| m.text.as_str()).collect();
    assert!(
        texts.contains(&"in flight"),
        "the running turn's real prompt is kept"
    );
    assert!(
        !texts.contains(&"partial output"),
        "its in-flight output is not"
    );
    assert!(
        child
            .messages
            .iter()
            .all(|m| !m.visible_to_ui && m.visible_to_model),
        "hidden from the UI, visible to the model"
    );
    let last = child.messages.last().expect("reminder");
    assert_eq!(last.kind, MessageKind::Reminder);
    assert!(last.text.contains("for reference only"));
    assert_eq!(child.active_checkpoints.len(), 0);
}

#[test]
fn a_ten_thousand_message_fork_is_complete() {
    let mut e = engine();
    let s = session(&mut e);
    let mut last = None;
    for i in 0..5_000 {
        let (t, p) = prompt(&mut e, &s, &format!("prompt {i}"));
        e.record_reply(
            &s,
            ReplyOptions {
                turn_id: t,
                text: format!("reply {i}"),
                error: false,
                payload: None,
            },
        )
        .expect("reply");
        last = Some(p);
    }
    let out = e.fork(&s, at(&last.expect("prompt"))).expect("fork");
    assert_eq!(out.copied_messages, 10_000);
    let child = e.resume(&out.child_id).expect("child");
    assert_eq!(child.messages.len(), 10_002);
    assert_eq!(child.turn_number, 5_000);
    assert!(child.diagnostics.is_empty());
}
