//! The help as `git help` shows it: everyday commands first, the plumbing named in one line,
//! `rewind help --all` with every command, a command's own flags before the global ones, and
//! one target flag (`--to`) for every rewind with the old spellings still accepted.

use crate::common;

use common::Bench;

fn stdout(b: &Bench, args: &[&str]) -> String {
    let out = b.text(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf8")
}

#[test]
fn the_top_level_help_groups_everyday_commands_and_plumbing() {
    let b = Bench::new();
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let text = stdout(&b, args);
        let everyday = text.find("Everyday commands:").expect("everyday heading");
        let plumbing = text.find("Plumbing").expect("plumbing heading");
        assert!(everyday < plumbing, "{text}");
        assert!(text[everyday..plumbing].contains("  apply "), "{text}");
        // The plumbing is named, not described: no line of its own.
        assert!(text[plumbing..].contains("hook"), "{text}");
        assert!(!text.contains("Handle one agent hook event"), "{text}");
    }
    let all = stdout(&b, &["help", "--all"]);
    assert!(all.contains("Handle one agent hook event"), "{all}");
    assert!(all.contains("Apply a file rewind"), "{all}");
    let one = stdout(&b, &["help", "session", "new"]);
    assert!(one.contains("Usage: rewind session new"), "{one}");
    let (code, doc) = b.json(&["help", "nope"]);
    assert_eq!(code, 1);
    assert!(doc.to_string().contains("rewind help --all"), "{doc}");
}

#[test]
fn a_commands_own_flags_come_before_the_global_ones() {
    let b = Bench::new();
    let text = stdout(&b, &["apply", "-h"]);
    let own = text.find("--checkpoint").expect("own flag");
    let global = text.find("Global options:").expect("global heading");
    let workspace = text.find("--workspace").expect("global flag");
    assert!(own < global && global < workspace, "{text}");
    assert!(text.contains("--to <TARGET>"), "{text}");
    assert!(
        !text.contains("--since"),
        "the old spelling is a hidden alias: {text}"
    );
}
