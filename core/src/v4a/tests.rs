use super::*;

/// The example of Codex's own tool instructions (openai/codex
/// codex-rs/apply-patch/apply_patch_tool_instructions.md, rust-v0.153.4).
const CODEX_EXAMPLE: &str = "*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print(\"Hi\")
+print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch";

#[test]
fn reads_every_operation_of_codexs_example() {
    let ops = read(CODEX_EXAMPLE).expect("valid");
    assert_eq!(
        ops,
        vec![
            FileOp::Add {
                path: "hello.txt".into()
            },
            FileOp::Update {
                path: "src/app.py".into(),
                move_to: Some("src/main.py".into())
            },
            FileOp::Delete {
                path: "obsolete.txt".into()
            },
        ]
    );
    let paths: Vec<&str> = ops.iter().flat_map(FileOp::paths).collect();
    assert_eq!(
        paths,
        ["hello.txt", "src/app.py", "src/main.py", "obsolete.txt"]
    );
}

#[test]
fn tolerates_what_codex_tolerates() {
    // Indented markers, CRLF, an end-of-file marker, blank lines, a trailing newline, an
    // absolute path with spaces.
    let patch = "\r\n  *** Begin Patch\r\n*** Update File: /tmp/a b.txt\r\n@@\r\n a\r\n-b\r\n+c\r\n\
                 *** End of File\r\n\r\n*** End Patch\r\n\n";
    assert_eq!(
        read(patch).expect("valid"),
        vec![FileOp::Update {
            path: "/tmp/a b.txt".into(),
            move_to: None
        }]
    );
}

#[test]
fn malformed_patches_say_what_is_wrong() {
    let cases: [(&str, Error); 8] = [
        ("*** Add File: a\n+x\n*** End Patch", Error::NoBegin),
        ("*** Begin Patch\n*** Add File: a\n+x\n", Error::NoEnd),
        ("*** Begin Patch\n*** End Patch", Error::NoFiles),
        (
            "*** Begin Patch\n*** Add File:   \n*** End Patch",
            Error::NoPath {
                line: 2,
                marker: ADD,
            },
        ),
        (
            "*** Begin Patch\n*** Delete File: a\n*** Move to: b\n*** End Patch",
            Error::StrayMove { line: 3 },
        ),
        (
            "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
            Error::BadAddLine {
                line: 3,
                text: "x".into(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n*x\n*** End Patch",
            Error::BadHunkLine {
                line: 4,
                text: "*x".into(),
            },
        ),
        (
            "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch",
            Error::Outside {
                line: 2,
                text: "*** Frobnicate File: a".into(),
            },
        ),
    ];
    for (patch, want) in cases {
        let got = read(patch).expect_err(patch);
        assert_eq!(got, want, "{patch}");
        assert_eq!(got.code(), ErrorKind::InvalidInput);
        assert!(!got.to_string().is_empty());
    }
    // A move after the hunks began is not a move of that update.
    let late = "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch";
    assert_eq!(read(late), Err(Error::StrayMove { line: 6 }));
    // Text after the end is not ignored.
    let after = "*** Begin Patch\n*** Delete File: a\n*** End Patch\nrm -rf x";
    assert!(matches!(read(after), Err(Error::Outside { line: 4, .. })));
}

#[test]
fn finds_a_patch_sent_as_a_shell_heredoc() {
    let command = format!("apply_patch <<'EOF'\n{CODEX_EXAMPLE}\nEOF\n");
    let found = heredoc(&command).expect("a heredoc");
    assert_eq!(found.dir, None);
    assert_eq!(read(found.patch).expect("valid").len(), 3);

    let in_dir = "cd 'sub dir' && apply_patch <<\"PATCH\"\n*** Begin Patch\n*** Delete File: x\n\
                  *** End Patch\nPATCH";
    let found = heredoc(in_dir).expect("a heredoc");
    assert_eq!(found.dir, Some("sub dir"));
    let plain =
        "cd sub && applypatch <<EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n";
    let found = heredoc(plain).expect("a heredoc");
    assert_eq!(found.dir, Some("sub"));
    assert_eq!(
        read(found.patch),
        Ok(vec![FileOp::Delete { path: "x".into() }])
    );
}

#[test]
fn other_commands_are_not_patches() {
    for command in [
        "ls -la",
        "cat <<EOF\nhi\nEOF",
        "echo apply_patch",
        "apply_patch <<EOF\n*** Begin Patch\n",
        "git status && apply_patch <<EOF\n*** Begin Patch\n*** End Patch\nEOF",
        "apply_patch <<EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\nmake",
    ] {
        assert_eq!(heredoc(command), None, "{command}");
    }
}
