//! Shell capture on the memory hosts: snapshots, stat-cache skips, shell and external
//! checkpoints, and rewinds of them restoring every byte and mode.

use super::harness::{MemEngine, engine, prompt, session, tool_edit};
use rewind_core::ErrorKind;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::gc;
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::{CheckpointKind, Policy};
use rewind_core::shell::{Attribution, Options, Outcome};
use rewind_core::undo;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn snap(e: &mut MemEngine, s: &SessionId, t: &TurnId, command: Option<&str>) -> Outcome {
    e.snapshot_workspace(
        s,
        Options {
            turn_id: t.clone(),
            command: command.map(Into::into),
            tool_name: None,
            tool_call_id: None,
            tool_message_id: None,
            attribution: Attribution::Auto,
        },
    )
    .expect("snapshot")
}

/// Apply a file rewind to before `prompt`, under the default policy.
fn apply_since(e: &mut MemEngine, s: &SessionId, prompt: &rewind_core::id::MessageId) {
    let target = TargetOptions {
        since: Some(prompt.clone()),
        ..TargetOptions::default()
    };
    let policy = Policy::Block;
    e.apply_file_rewind(s, ApplyOptions { target, policy })
        .expect("apply");
}

fn names(paths: &[rewind_core::path::WorkPath]) -> Vec<&str> {
    paths.iter().map(|p| p.as_str()).collect()
}

fn tree(e: &mut MemEngine) {
    let ws = e.workspace_mut();
    ws.put("a.txt", "alpha\n");
    ws.put("b.txt", "beta\n");
    ws.put("gone.txt", "doomed\n");
    ws.put("run.sh", "echo hi\n");
    for i in 0..20 {
        ws.put(&format!("src/f{i}.rs"), format!("fn f{i}() {{}}\n"));
    }
}

#[test]
fn a_command_becomes_one_shell_checkpoint_and_rewinds_byte_and_mode_exact() {
    let mut e = engine();
    tree(&mut e);
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "tidy up");
    let first = snap(&mut e, &s, &t, None);
    assert!(first.baseline && first.checkpoint_id.is_none());
    assert_eq!((first.reread, first.files), (24, 24));

    let ws = e.workspace_mut();
    ws.put("a.txt", "ALPHA\n");
    ws.put("b.txt", "BETA\n");
    ws.delete("gone.txt");
    ws.put("new.txt", "fresh\n");
    ws.chmod("run.sh", 0o755);
    let out = snap(
        &mut e,
        &s,
        &t,
        Some("sed -i s/a/A/ a.txt b.txt && rm gone.txt"),
    );
    assert_eq!(out.kind, Some(CheckpointKind::Shell));
    assert_eq!(names(&out.changed.created), ["new.txt"]);
    assert_eq!(names(&out.changed.modified), ["a.txt", "b.txt", "run.sh"]);
    assert_eq!(names(&out.changed.deleted), ["gone.txt"]);
    // The chmod moved run.sh's ctime: it is read again (and found the same bytes).
    assert_eq!(
        out.reread, 4,
        "only the files whose stat data changed are read"
    );
    assert_eq!(out.skipped, 20);
    let ckp = e.checkpoints(&s).expect("checkpoints");
    let shell = ckp.last().expect("one");
    assert_eq!(shell.tool_name, "shell");

    let since = TargetOptions {
        since: Some(p),
        ..TargetOptions::default()
    };
    let preview = e.preview_file_rewind(&s, since.clone()).expect("preview");
    assert!(preview.can_apply, "{preview:?}");
    let done = e
        .apply_file_rewind(
            &s,
            ApplyOptions {
                target: since,
                policy: Policy::Block,
            },
        )
        .expect("apply");
    let ws = e.workspace();
    assert_eq!(ws.get("a.txt"), Some(&b"alpha\n"[..]));
    assert_eq!(ws.get("b.txt"), Some(&b"beta\n"[..]));
    assert_eq!(ws.get("gone.txt"), Some(&b"doomed\n"[..]));
    assert_eq!(ws.get("new.txt"), None);
    assert_eq!(ws.mode_of("run.sh"), Some(0o644));

    // The rewind's own writes are not a change of the agent's.
    let after_rewind = snap(&mut e, &s, &t, None);
    assert!(after_rewind.checkpoint_id.is_none(), "{after_rewind:?}");

    let op = done.operation_id.expect("applied");
    e.undo(
        &s,
        undo::Options {
            operation_id: Some(op),
            policy: Policy::Block,
        },
    )
    .expect("undo");
    assert_eq!(e.workspace().get("a.txt"), Some(&b"ALPHA\n"[..]));
    assert_eq!(e.workspace().mode_of("run.sh"), Some(0o755));
    assert!(snap(&mut e, &s, &t, None).checkpoint_id.is_none());
}

#[test]
fn nothing_changed_reads_nothing_and_records_nothing() {
    let mut e = engine();
    tree(&mut e);
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "look");
    snap(&mut e, &s, &t, None);
    let version = rewind_core::ports::Store::version(e.store()).expect("version");
    let again = snap(&mut e, &s, &t, Some("ls"));
    assert_eq!((again.reread, again.skipped), (0, 24));
    assert!(again.checkpoint_id.is_none());
    let now = rewind_core::ports::Store::version(e.store()).expect("version");
    assert_eq!(
        now, version,
        "a snapshot that found nothing commits nothing"
    );
}

#[test]
fn the_persons_changes_between_turns_are_external_and_kept_by_a_rewind() {
    let mut e = engine();
    tree(&mut e);
    let s = session(&mut e);
    let (t1, p1) = prompt(&mut e, &s, "one");
    snap(&mut e, &s, &t1, None);
    e.workspace_mut().put("a.txt", "agent\n");
    snap(&mut e, &s, &t1, Some("gen"));
    // Between turns the person edits a.txt and b.txt.
    e.workspace_mut().put("a.txt", "person\n");
    e.workspace_mut().put("b.txt", "person b\n");
    let (t2, _) = prompt(&mut e, &s, "two");
    let seen = snap(&mut e, &s, &t2, None);
    assert_eq!(seen.kind, Some(CheckpointKind::External));
    assert_eq!(names(&seen.changed.modified), ["a.txt", "b.txt"]);

    let since = TargetOptions {
        since: Some(p1),
        ..TargetOptions::default()
    };
    let preview = e.preview_file_rewind(&s, since.clone()).expect("preview");
    assert!(
        !preview.can_apply,
        "the person's edit of a.txt is in the way"
    );
    assert_eq!(preview.unsafe_files.len(), 1);
    assert_eq!(preview.unsafe_files[0].path, "a.txt");
    assert!(
        preview.safe_files.is_empty(),
        "b.txt is the person's alone: not rewound"
    );

    let all = TargetOptions {
        include_external: true,
        ..since
    };
    let preview = e.preview_file_rewind(&s, all.clone()).expect("preview");
    assert!(preview.can_apply, "{preview:?}");
    e.apply_file_rewind(
        &s,
        ApplyOptions {
            target: all,
            policy: Policy::Block,
        },
    )
    .expect("apply");
    assert_eq!(e.workspace().get("a.txt"), Some(&b"alpha\n"[..]));
    assert_eq!(e.workspace().get("b.txt"), Some(&b"beta\n"[..]));
}

#[test]
fn an_edit_recorded_between_snapshots_is_not_counted_twice() {
    let mut e = engine();
    tree(&mut e);
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "edit then run");
    snap(&mut e, &s, &t, None);
    tool_edit(&mut e, &s, &t, "a.txt", Some(b"edited\n"));
    e.workspace_mut().put("b.txt", "by the command\n");
    let out = snap(&mut e, &s, &t, Some("make"));
    assert_eq!(names(&out.changed.modified), ["b.txt"]);
    apply_since(&mut e, &s, &p);
    assert_eq!(e.workspace().get("a.txt"), Some(&b"alpha\n"[..]));
    assert_eq!(e.workspace().get("b.txt"), Some(&b"beta\n"[..]));
}

#[test]
fn too_large_files_are_listed_untracked_and_their_changes_never_restored_blindly() {
    let mut e = engine().with_limits(rewind_core::ctx::Limits {
        max_file_bytes: 16,
        session_quota_bytes: None,
    });
    e.workspace_mut().put("small.txt", "ok\n");
    e.workspace_mut().put("big.bin", vec![7u8; 64]);
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "go");
    let first = snap(&mut e, &s, &t, None);
    assert_eq!(first.untracked.len(), 1);
    assert_eq!(
        (
            first.untracked[0].path.as_str(),
            first.untracked[0].reason.as_str()
        ),
        ("big.bin", "too_large")
    );
    e.workspace_mut().put("small.txt", vec![1u8; 40]);
    let out = snap(&mut e, &s, &t, Some("grow"));
    assert_eq!(names(&out.changed.uncaptured), ["small.txt"]);
}

#[test]
fn a_workspace_that_cannot_list_is_unavailable_and_nothing_is_written() {
    struct Blind(rewind_core::testkit::MemWorkspace);
    impl rewind_core::ports::Workspace for Blind {
        fn read(
            &mut self,
            p: &rewind_core::path::WorkPath,
        ) -> Result<Option<Vec<u8>>, rewind_core::HostError> {
            self.0.read(p)
        }
        fn write(
            &mut self,
            p: &rewind_core::path::WorkPath,
            b: &[u8],
        ) -> Result<(), rewind_core::HostError> {
            self.0.write(p, b)
        }
        fn remove(
            &mut self,
            p: &rewind_core::path::WorkPath,
        ) -> Result<(), rewind_core::HostError> {
            self.0.remove(p)
        }
    }
    let mut e = rewind_core::Engine::new(
        rewind_core::testkit::MemStore::new(),
        Blind(rewind_core::testkit::MemWorkspace::new()),
        rewind_core::testkit::TickClock::default(),
        rewind_core::testkit::SeqIds::default(),
    );
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "go");
    let before = rewind_core::ports::Store::version(e.store()).expect("version");
    let opts = Options {
        turn_id: t,
        command: None,
        tool_name: None,
        tool_call_id: None,
        tool_message_id: None,
        attribution: Attribution::Auto,
    };
    let err = e.snapshot_workspace(&s, opts).expect_err("no listing");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert_eq!(
        rewind_core::ports::Store::version(e.store()).expect("version"),
        before
    );
}

#[test]
fn gc_keeps_what_the_latest_snapshot_lists() {
    let mut e = engine();
    tree(&mut e);
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "go");
    snap(&mut e, &s, &t, None);
    e.gc(
        gc::Options {
            keep: 0,
            ..gc::Options::default()
        },
        false,
    )
    .expect("gc");
    // The baseline's contents are the before-state of the next shell checkpoint.
    e.workspace_mut().put("a.txt", "changed\n");
    snap(&mut e, &s, &t, Some("edit"));
    apply_since(&mut e, &s, &p);
    assert_eq!(e.workspace().get("a.txt"), Some(&b"alpha\n"[..]));
}

#[test]
fn a_file_changed_within_the_racy_window_is_read_again_and_only_then() {
    // Files written a millisecond before the snapshot's walk: their stat data cannot vouch
    // for them, since a write in the same timestamp tick would leave it unchanged.
    let mut e = rewind_core::Engine::new(
        rewind_core::testkit::MemStore::new(),
        rewind_core::testkit::MemWorkspace::new().with_tick(1_000_000),
        rewind_core::testkit::TickClock::default(),
        rewind_core::testkit::SeqIds::default(),
    );
    e.workspace_mut().put("racy.txt", "aaaa\n");
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "go");
    snap(&mut e, &s, &t, None);
    e.workspace_mut()
        .overwrite_keeping_stat("racy.txt", "bbbb\n");
    let out = snap(&mut e, &s, &t, Some("same tick"));
    assert_eq!(names(&out.changed.modified), ["racy.txt"]);
    assert_eq!(out.racy, 1);

    // Outside the window the stat cache is trusted, as in git and jj.
    let mut e = engine();
    e.workspace_mut().put("calm.txt", "aaaa\n");
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "go");
    snap(&mut e, &s, &t, None);
    e.workspace_mut()
        .overwrite_keeping_stat("calm.txt", "bbbb\n");
    let out = snap(&mut e, &s, &t, None);
    assert!(out.checkpoint_id.is_none());
    assert_eq!((out.reread, out.skipped), (0, 1));
}

#[test]
fn a_new_session_starts_from_the_stores_latest_snapshot_as_its_stat_cache() {
    let mut e = engine();
    tree(&mut e);
    let s1 = session(&mut e);
    let (t1, _) = prompt(&mut e, &s1, "one");
    assert_eq!(snap(&mut e, &s1, &t1, None).reread, 24);
    let s2 = session(&mut e);
    let (t2, _) = prompt(&mut e, &s2, "two");
    let first = snap(&mut e, &s2, &t2, None);
    assert!(first.baseline);
    assert_eq!((first.reread, first.skipped), (0, 24), "nothing read again");
}

#[test]
fn manifests_are_stored_as_small_deltas() {
    let mut e = engine();
    for i in 0..200 {
        e.workspace_mut()
            .put(&format!("f{i}.txt"), format!("{i}\n"));
    }
    let s = session(&mut e);
    let (t, _) = prompt(&mut e, &s, "go");
    let full = snap(&mut e, &s, &t, None).manifest;
    e.workspace_mut().put("f7.txt", "seven\n");
    let delta = snap(&mut e, &s, &t, Some("edit one")).manifest;
    let size = |h| {
        rewind_core::ports::Store::blob(e.store(), h)
            .expect("read")
            .expect("stored")
            .len()
    };
    assert!(
        size(&delta) * 20 < size(&full),
        "{} vs {}",
        size(&delta),
        size(&full)
    );
}

#[test]
fn a_big_first_snapshot_stores_its_contents_in_bounded_batches() {
    let mut e = engine();
    for i in 0..40u8 {
        e.workspace_mut()
            .put(&format!("blob{i}.bin"), vec![i; 1 << 20]);
    }
    let s = session(&mut e);
    let (t, p) = prompt(&mut e, &s, "go");
    let version = |e: &MemEngine| rewind_core::ports::Store::version(e.store()).expect("version");
    let before = version(&e);
    let first = snap(&mut e, &s, &t, None);
    assert_eq!(first.files, 40);
    // 40 MiB of new content: at least one batch of its own ahead of the snapshot's own.
    assert!(
        version(&e) - before >= 2,
        "{} commits",
        version(&e) - before
    );
    e.workspace_mut().put("blob3.bin", "small now");
    snap(&mut e, &s, &t, Some("truncate"));
    apply_since(&mut e, &s, &p);
    assert_eq!(
        e.workspace().get("blob3.bin"),
        Some(&vec![3u8; 1 << 20][..])
    );
}
