//! A mistyped id says what is wrong with it and what to do next: `zzzz` is not a prefix (ids
//! are hex), a prefix nothing starts with names the command that lists the ids; nothing changes.

use crate::common;

use common::{Bench, s};

fn error_of(b: &Bench, args: &[&str]) -> String {
    let (code, doc) = b.json(args);
    assert_eq!(code, 1, "{args:?}: {doc}");
    doc["error"]["message"]
        .as_str()
        .map_or_else(|| doc.to_string(), str::to_owned)
}

#[test]
fn an_id_that_is_not_hex_says_what_ids_are() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new", "--title", "t"]), "id");
    let message = error_of(&b, &["undo", &session, "zzzz"]);
    assert!(
        message.contains("\"zzzz\" is not an operation id"),
        "{message}"
    );
    assert!(message.contains("lowercase hex"), "{message}");
    assert!(message.contains("`rewind ops` lists them"), "{message}");
    assert!(!message.contains("followed by letters"), "{message}");
}

#[test]
fn a_prefix_nothing_starts_with_names_the_listing() {
    let b = Bench::new();
    let session = s(&b.ok(&["session", "new", "--title", "t"]), "id");
    let message = error_of(&b, &["log", "ffffffff"]);
    assert!(
        message.contains("no session id starts with `ffffffff`"),
        "{message}"
    );
    assert!(
        message.contains("`rewind session list` lists them"),
        "{message}"
    );
    let message = error_of(&b, &["undo", &session, "abcdef"]);
    assert!(message.contains("`rewind ops`"), "{message}");
}
