//! Property tests: simulate ≡ apply, and branch-selection invariants.

use super::harness::{engine, prompt, session, tool_edit};
use proptest::prelude::*;
use rewind_core::conversation;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::model::{Branch, FileAction};

fn content() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        1 => Just(None),
        4 => prop::collection::vec(prop_oneof![Just(b'a'), Just(b'\n'), Just(b'\r'), Just(0xffu8), Just(0u8)], 0..12).prop_map(Some),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the history of edits and user changes, the preview predicts the apply exactly:
    /// it writes the safe paths (with the predicted action) and nothing else, and every
    /// restored path ends at its state before the target turn.
    #[test]
    fn simulate_equals_apply(
        initial in prop::collection::vec(content(), 3),
        turns in prop::collection::vec(prop::collection::vec((0usize..3, content()), 1..4), 1..4),
        user_edits in prop::collection::vec((0usize..3, content()), 0..2),
        since in 0usize..3,
    ) {
        let mut e = engine();
        let name = |i: usize| format!("f{i}.bin");
        for (i, c) in initial.iter().enumerate() {
            if let Some(c) = c { e.workspace_mut().put(&name(i), c.clone()); }
        }
        let s = session(&mut e);
        let mut prompts = Vec::new();
        let mut states_before = Vec::new();
        for edits in &turns {
            states_before.push(e.workspace().files().clone());
            let (t, p) = prompt(&mut e, &s, "turn");
            prompts.push(p);
            for (i, c) in edits {
                tool_edit(&mut e, &s, &t, &name(*i), c.as_deref());
            }
        }
        for (i, c) in &user_edits {
            match c { Some(c) => e.workspace_mut().put(&name(*i), c.clone()), None => e.workspace_mut().delete(&name(*i)) }
        }
        let k = since.min(prompts.len() - 1);
        let target = TargetOptions { since: Some(prompts[k].clone()), ..TargetOptions::default() };
        let preview = e.preview_file_rewind(&s, target.clone()).expect("preview");
        let before_apply = e.workspace().files().clone();
        let out = e.apply_file_rewind(&s, ApplyOptions { target, policy: rewind_core::model::Policy::Skip }).expect("apply");
        let mut restored: Vec<_> = out.restored_files.iter().map(|f| (f.path.clone(), f.action)).collect();
        restored.sort();
        let mut predicted: Vec<_> = preview.safe_files.iter().map(|f| (f.path.clone(), f.action)).collect();
        predicted.sort();
        prop_assert_eq!(restored, predicted);
        let after = e.workspace().files().clone();
        let goal = &states_before[k];
        for (path, bytes) in &after {
            let written = preview.safe_files.iter().any(|f| f.path == path.as_str());
            if written {
                prop_assert_eq!(goal.get(path), Some(bytes));
            } else {
                prop_assert_eq!(before_apply.get(path), Some(bytes));
            }
        }
        for f in &preview.safe_files {
            if f.action == FileAction::Delete {
                prop_assert!(!after.keys().any(|p| p.as_str() == f.path));
            }
        }
    }

    /// After any sequence of rewinds the branch ranges stay sorted, disjoint and non-empty,
    /// and everything appended afterwards is selected.
    #[test]
    fn branch_ranges_stay_well_formed(cuts in prop::collection::vec((1u64..50, 0u64..20), 1..8)) {
        let mut b = Branch::default();
        let mut last = 0;
        for (target, grow) in cuts {
            last += grow + 1;
            let t = target.min(last);
            b = b.rewound(t, last);
            for w in b.ranges.windows(2) {
                prop_assert!(w[0].end.is_some_and(|e| e <= w[1].start));
            }
            for r in &b.ranges {
                prop_assert!(r.end.is_none_or(|e| e > r.start));
            }
            prop_assert!(b.contains(last + 1) && b.contains(last + 1000));
            prop_assert!(!b.contains(t) || t > last);
        }
    }
}

#[test]
fn a_conversation_rewind_keeps_exactly_the_prefix() {
    let mut e = engine();
    let s = session(&mut e);
    let (t1, p1) = prompt(&mut e, &s, "one");
    tool_edit(&mut e, &s, &t1, "a.txt", Some(b"x"));
    let (_, p2) = prompt(&mut e, &s, "two");
    let (_, _) = prompt(&mut e, &s, "three");
    let out = e
        .rewind_conversation(&s, conversation::Options { to: p2.clone() })
        .expect("rewind");
    assert_eq!(out.kept_message_count, 1);
    let branch = e.active_branch(&s).expect("branch");
    assert_eq!(
        branch
            .messages
            .iter()
            .map(|m| m.id.clone())
            .collect::<Vec<_>>(),
        vec![p1]
    );
    let (_, p4) = prompt(&mut e, &s, "four");
    let branch = e.active_branch(&s).expect("branch");
    assert_eq!(branch.messages.last().map(|m| m.id.clone()), Some(p4));
    assert!(!branch.messages.iter().any(|m| m.id == p2));
}
