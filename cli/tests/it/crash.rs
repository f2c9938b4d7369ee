//! Crash safety: the real binary is SIGKILLed right after each write k = 1..N of an apply; after
//! `rewind recover` the workspace is byte-identical to before or to after the apply, the store
//! is consistent, and the operation log says what happened.

use crate::common;

use common::{Bench, s};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

const N: usize = 4;

fn name(i: usize) -> String {
    format!("src/file{i}.txt")
}

/// A session whose one turn changed N files (one created), ready to be rewound.
fn setup(b: &Bench) -> (String, String) {
    for i in 1..N {
        b.write(&name(i), format!("before {i}\r\n\0").as_bytes());
    }
    let session = s(&b.ok(&["session", "new"]), "id");
    let turn = b.ok(&["prompt", &session, "--text", "touch every file"]);
    let (t, p) = (s(&turn, "turnId"), s(&turn, "messageId"));
    for i in 0..N {
        let path = name(i);
        let before = b.read(&path);
        b.write(&path, format!("after {i}\n").as_bytes());
        let mut args = vec![
            "edit".to_owned(),
            session.clone(),
            "--turn".into(),
            t.clone(),
            "--path".into(),
            path.clone(),
        ];
        match before {
            Some(bytes) => {
                b.write(&format!("before-{i}.bin"), &bytes);
                args.extend([
                    "--before-file".into(),
                    b.path(&format!("before-{i}.bin")).display().to_string(),
                ]);
            }
            None => args.push("--created".into()),
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        b.ok(&args);
    }
    (session, p)
}

fn snapshot(b: &Bench) -> Vec<Option<Vec<u8>>> {
    (0..N).map(|i| b.read(&name(i))).collect()
}

#[test]
fn a_kill_after_any_write_recovers_to_before_or_after() {
    for k in 1..=N {
        let b = Bench::new();
        let (session, p) = setup(&b);
        let before = snapshot(&b);

        let mut child = b
            .command()
            .args(["apply", &session, "--since", &p])
            .env("REWIND_TEST_PAUSE_AFTER_WRITE", k.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("paused after write") {
                    let _ = tx.send(line);
                    return;
                }
            }
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("k={k}: never reached write {k}"));
        assert!(line.ends_with(&format!("write {k}")), "{line}");
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");

        // As if the kill had come between writing a temp file and renaming it.
        b.write(
            "src/.file1.txt.rewind-0123456789abcdef.tmp",
            b"half written",
        );
        b.write("src/.unrelated.tmp", b"not ours");
        let recovered = b.ok(&["recover"]);
        assert_eq!(
            b.read("src/.file1.txt.rewind-0123456789abcdef.tmp"),
            None,
            "k={k}: our temp file is swept"
        );
        assert!(
            b.read("src/.unrelated.tmp").is_some(),
            "k={k}: nothing else is touched"
        );
        let settled = &recovered["recovered"];
        assert_eq!(
            settled.as_array().map(Vec::len),
            Some(1),
            "k={k}: {recovered}"
        );
        let now = snapshot(&b);
        let after: Vec<Option<Vec<u8>>> = before
            .iter()
            .enumerate()
            .map(|(i, _)| {
                if i == 0 {
                    None
                } else {
                    Some(format!("before {i}\r\n\0").into_bytes())
                }
            })
            .collect();
        if k == N {
            assert_eq!(
                settled[0]["action"], "finished",
                "k={k}: every write happened, so the apply is finished"
            );
            assert_eq!(now, after, "k={k}: entirely after");
        } else {
            assert_eq!(settled[0]["action"], "rolled_back", "k={k}");
            assert_eq!(now, before, "k={k}: entirely before");
        }
        let state = b.ok(&["resume", &session]);
        assert_eq!(state["pendingJournals"], serde_json::json!([]), "k={k}");
        assert_eq!(state["diagnostics"], serde_json::json!([]), "k={k}");
        let kinds: Vec<String> = b
            .ok(&["ops", &session])
            .as_array()
            .expect("ops")
            .iter()
            .map(|o| s(o, "kind"))
            .collect();
        let want: &[&str] = if k == N {
            &["file_rewind", "recovery"]
        } else {
            &["recovery"]
        };
        assert_eq!(kinds, want, "k={k}");
        assert_eq!(
            b.ok(&["recover"])["recovered"],
            serde_json::json!([]),
            "k={k}: recover is idempotent"
        );
    }
}
