//! Two conflicts, one that merges and one that does not: the engine refuses `--policy merge` whole
//! while any conflict cannot merge, so the advice after a blocked preview or apply never offers a
//! merge of the whole rewind (it used to, and the apply it named was refused with the same advice
//! again). It offers the merge of the files that merge, alone, and that command does what it says.

use crate::common;

use common::{Bench, s};

/// One turn changing a line of `a.txt` and the whole of `b.txt`, creating `d.txt`; then the person edits another
/// line of `a.txt` (mergeable) and `b.txt` (not: the agent's change and theirs overlap).
fn mixed(b: &Bench) -> (String, String) {
    let session = s(&b.ok(&["session", "new"]), "id");
    let t = b.ok(&["prompt", &session, "--text", "edit both"]);
    let (turn, prompt) = (s(&t, "turnId"), s(&t, "messageId"));
    b.record(
        &session,
        &turn,
        "a.txt",
        Some(b"1\n2\n3\n4\n5\n6\n7\n"),
        b"1\ntwo\n3\n4\n5\n6\n7\n",
        &[],
    );
    b.record(&session, &turn, "b.txt", Some(b"old\n"), b"new\n", &[]);
    b.record(&session, &turn, "d.txt", None, b"made\n", &[]); // no conflict: deleted by a rewind
    b.ok(&["turn-end", &session, "--turn", &turn]);
    b.write("a.txt", b"1\ntwo\n3\n4\n5\n6\nseven\n");
    b.write("b.txt", b"mine\n");
    (session, prompt)
}

fn text(b: &Bench, args: &[&str]) -> (i32, String) {
    let out = b.text(args);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), all)
}

#[test]
fn a_merge_the_engine_would_refuse_is_not_offered_and_the_one_offered_works() {
    let b = Bench::new();
    let (session, prompt) = mixed(&b);
    let (code, said) = text(
        &b,
        &["--color", "never", "preview", &session, "--to", &prompt],
    );
    assert_eq!(code, 0, "{said}");
    assert!(
        !said.contains("--policy merge` keeps"),
        "no merge of the whole rewind: {said}"
    );
    assert!(
        said.contains("--policy force` overwrites a.txt, b.txt"),
        "both can be forced: {said}"
    );
    let line = said
        .lines()
        .find(|l| l.contains("--path a.txt --policy merge"))
        .unwrap_or_else(|| panic!("the merge of a.txt alone is offered: {said}"));
    assert!(
        line.contains("merges only a.txt") && line.contains("while b.txt cannot merge"),
        "{line}"
    );
    // The apply refused with merge says the same, and the command it names works.
    let (code, refused) = text(
        &b,
        &[
            "--color", "never", "apply", &session, "--to", &prompt, "--policy", "merge",
        ],
    );
    assert_eq!(code, 1, "{refused}");
    assert!(refused.contains("--path a.txt --policy merge"), "{refused}");
    assert_eq!(
        b.read("a.txt").as_deref(),
        Some(&b"1\ntwo\n3\n4\n5\n6\nseven\n"[..]),
        "nothing written"
    );
    b.ok(&[
        "apply", &session, "--to", &prompt, "--path", "a.txt", "--policy", "merge",
    ]);
    assert_eq!(
        b.read("a.txt").as_deref(),
        Some(&b"1\n2\n3\n4\n5\n6\nseven\n"[..]),
        "merged"
    );
    assert_eq!(
        b.read("b.txt").as_deref(),
        Some(&b"mine\n"[..]),
        "left as it is"
    );
}

#[test]
fn a_skipped_file_is_said_to_be_left_with_what_restores_it_too() {
    let b = Bench::new();
    let (session, prompt) = mixed(&b);
    let (code, said) = text(
        &b,
        &[
            "--color", "never", "apply", &session, "--to", &prompt, "--policy", "skip",
        ],
    );
    assert_eq!(code, 0, "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("skipped: left as they were"))
        .unwrap_or_else(|| panic!("the skipped files are explained: {said}"));
    assert!(
        line.contains("may still refer to files this rewind restored or deleted")
            && line.contains("--policy force` restores them too"),
        "{line}"
    );
    assert_eq!(b.read("b.txt").as_deref(), Some(&b"mine\n"[..]), "skipped");
    assert_eq!(
        b.read("d.txt"),
        None,
        "the file without a conflict is restored (deleted)"
    );
    let cmd = line.split('`').nth(1).expect("a command");
    let args: Vec<&str> = cmd.split(' ').skip(1).collect();
    b.ok(&args);
    assert_eq!(
        b.read("b.txt").as_deref(),
        Some(&b"old\n"[..]),
        "the named command restores it"
    );
}
