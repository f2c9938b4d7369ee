//! Several `rewind` processes on one store at once: an apply of a few hundred files runs while
//! other processes open the store (list, prompt, preview, gc, recover). Every apply that exits 0
//! left every file at its target, every one that failed left every file as before, and the log
//! agrees with the disk. Two applies of one rewind never both apply.

use crate::common;

use common::Bench;
use rewind_core::model::CheckpointKind;
use rewind_core::record::{EditChange, EditOptions, PromptOptions, SessionOptions};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const FILES: usize = 250;

fn name(i: usize) -> String {
    format!("src/m{}/f{i}.txt", i % 10)
}

/// One turn that changed FILES files (recorded in one call through the library).
fn setup(b: &Bench) -> (String, String) {
    let db = rewind_host::default_db_path(b.ws());
    let (mut engine, _) = rewind_host::open(b.ws(), &db).expect("open");
    let session = engine
        .create_session(SessionOptions::default())
        .expect("session")
        .id;
    let turn = engine
        .record_prompt(
            &session,
            PromptOptions {
                text: "touch everything".into(),
                payload: None,
            },
        )
        .expect("prompt");
    let mut changes = Vec::new();
    for i in 0..FILES {
        b.write(&name(i), format!("after {i}\n").as_bytes());
        changes.push(EditChange {
            path: name(i),
            before: Some(format!("before {i}\n").into_bytes()),
            after: Some(format!("after {i}\n").into_bytes()),
            patch: None,
            before_mode: None,
            after_mode: None,
        });
    }
    engine
        .record_edit(
            &session,
            EditOptions {
                turn_id: turn.turn_id,
                tool_name: "Bulk".into(),
                tool_call_id: None,
                tool_message_id: None,
                kind: CheckpointKind::Edit,
                changes,
            },
        )
        .expect("edit");
    (session.to_string(), turn.message_id.to_string())
}

/// "before", "after", or "mixed".
fn state(b: &Bench) -> &'static str {
    let files: Vec<Vec<u8>> = (0..FILES)
        .map(|i| b.read(&name(i)).expect("file"))
        .collect();
    let all = |word: &str| {
        files
            .iter()
            .enumerate()
            .all(|(i, f)| f == format!("{word} {i}\n").as_bytes())
    };
    if all("before") {
        "before"
    } else if all("after") {
        "after"
    } else {
        "mixed"
    }
}

/// Other processes opening the store in a loop until `stop`.
fn bystanders(
    b: &Bench,
    session: &str,
    prompt: &str,
    stop: &Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<usize>> {
    let commands: Vec<Vec<String>> = vec![
        vec!["session".into(), "list".into()],
        vec![
            "prompt".into(),
            session.into(),
            "--text".into(),
            "meanwhile".into(),
        ],
        vec![
            "preview".into(),
            session.into(),
            "--since".into(),
            prompt.into(),
        ],
        vec!["gc".into(), "--dry-run".into()],
        vec!["recover".into()],
    ];
    commands
        .into_iter()
        .map(|args| {
            let mut cmd = b.command();
            cmd.args(&args).stdout(Stdio::null()).stderr(Stdio::null());
            let stop = Arc::clone(stop);
            std::thread::spawn(move || {
                let mut runs = 0;
                while !stop.load(Ordering::SeqCst) {
                    let _ = cmd.status();
                    runs += 1;
                }
                runs
            })
        })
        .collect()
}

fn spawn_json(b: &Bench, args: &[&str]) -> Child {
    b.command()
        .arg("--json")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

fn finish(child: Child) -> (i32, serde_json::Value) {
    let out = child.wait_with_output().expect("wait");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {} / {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().expect("code"), doc)
}

#[test]
fn applies_stay_whole_while_other_processes_open_the_store() {
    let b = Bench::new();
    let (session, prompt) = setup(&b);
    let stop = Arc::new(AtomicBool::new(false));
    let others = bystanders(&b, &session, &prompt, &stop);
    let mut expected = "after";
    let mut last_op: Option<String> = None;
    for round in 0..6 {
        let child = match &last_op {
            Some(op) if round % 2 == 1 => spawn_json(&b, &["undo", &session, op]),
            _ => spawn_json(&b, &["apply", &session, "--since", &prompt]),
        };
        let (code, doc) = finish(child);
        let now = state(&b);
        if code == 0 {
            assert_eq!(doc["applied"], true, "round {round}: {doc}");
            expected = if expected == "after" {
                "before"
            } else {
                "after"
            };
            last_op = doc["operationId"].as_str().map(str::to_owned);
        }
        assert_eq!(now, expected, "round {round}: exit {code}: {doc}");
        // The log agrees with the disk: no journal left pending, and the newest file-writing
        // operation's result is what is on disk.
        let resume = b.ok(&["resume", &session]);
        assert_eq!(
            resume["pendingJournals"],
            serde_json::json!([]),
            "round {round}"
        );
    }
    stop.store(true, Ordering::SeqCst);
    let runs: usize = others.into_iter().map(|h| h.join().expect("join")).sum();
    assert!(runs > 5, "the bystanders hardly ran ({runs})");
}

#[test]
fn two_applies_of_one_rewind_never_both_apply() {
    let b = Bench::new();
    let (session, prompt) = setup(&b);
    let first = spawn_json(&b, &["apply", &session, "--since", &prompt]);
    let second = spawn_json(&b, &["apply", &session, "--since", &prompt]);
    let (a, b_) = (finish(first), finish(second));
    let applied = [&a, &b_]
        .iter()
        .filter(|(_, d)| d["applied"] == true)
        .count();
    assert_eq!(applied, 1, "{a:?} {b_:?}");
    assert_eq!(state(&b), "before");
    let ops = b.ok(&["ops", &session]);
    let rewinds = ops
        .as_array()
        .expect("ops")
        .iter()
        .filter(|o| o["kind"] == "file_rewind")
        .count();
    assert_eq!(rewinds, 1, "{ops}");
}
