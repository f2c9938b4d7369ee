//! The file an agent resume asks for (`rewind_core::agent_resume::AgentCopy`): the agent's
//! session records through the rewound point, under a new session id, in a new file beside the
//! original. The original is only read; the new file is made whole under a temporary name and
//! linked into place, so it appears complete or not at all, and never replaces a file (the same
//! copy asked for again, a replayed fork, finds it there and is done).

pub mod bind;
mod gemini;

use rewind_core::agent_resume::{AgentCopy, AgentResume};
use rewind_core::rewind::Outcome as RewindOutcome;
use std::io::Write as _;
use std::path::Path;

/// Write the copy `resume` asks for, if any; when it cannot be written, the resume becomes no
/// command, saying why (a command that would resume the wrong history is never printed).
pub fn settle(resume: &mut Option<Box<AgentResume>>) {
    let Some(r) = resume.as_mut() else {
        return;
    };
    let Some(copy) = r.copy.as_ref() else {
        return;
    };
    if let Err(why) = write(&r.agent, copy) {
        r.note = format!(
            "no command resumes the agent at this point: the copy of its session could not be \
             made ({why})"
        );
        r.argv.clear();
        r.exact = false;
        r.prompt_last = false;
        r.copy = None;
    }
}

/// An outcome that may carry an agent resume: [`settle`] it and hand it on (the RPC answers).
pub trait Settle {
    /// The outcome with its copy written, or its resume turned into the reason there is none.
    fn settled(self) -> Self;
}

macro_rules! settles {
    ($($t:ty),*) => {$(
        impl Settle for $t {
            fn settled(mut self) -> Self {
                settle(&mut self.agent_resume);
                self
            }
        }
    )*};
}

settles!(
    rewind_core::conversation::Outcome,
    rewind_core::both::Outcome,
    rewind_core::fork::Outcome,
    rewind_core::revise::Outcome
);

impl Settle for rewind_core::undo::Outcome {
    fn settled(mut self) -> Self {
        if let Some(c) = self.conversation.as_mut() {
            settle(&mut c.agent_resume);
        }
        self
    }
}

impl Settle for RewindOutcome {
    fn settled(mut self) -> Self {
        settle_rewind(&mut self);
        self
    }
}

/// [`settle`] for whichever rewind `rewind` did.
pub fn settle_rewind(out: &mut RewindOutcome) {
    match out {
        RewindOutcome::Conversation(o) => settle(&mut o.agent_resume),
        RewindOutcome::Both(o) => settle(&mut o.agent_resume),
        RewindOutcome::Workspace(_) => {}
    }
}

/// Make `copy.to` from `copy.from`, the file of `agent`: its records through `copy.through`
/// under the new session id (Gemini CLI's chat files folded first, as Gemini's own loader does).
pub fn write(agent: &str, copy: &AgentCopy) -> Result<(), String> {
    let from = Path::new(&copy.from);
    let to = Path::new(&copy.to);
    let text = std::fs::read_to_string(from).map_err(|e| format!("{}: {e}", from.display()))?;
    let body = match agent {
        "gemini-cli" => gemini::cut(&text, copy)?,
        _ => cut(&text, copy)?,
    };
    match std::fs::read(to) {
        Ok(there) if there == body.as_bytes() => return Ok(()),
        Ok(_) => return Err(format!("{} exists and holds something else", to.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("{}: {e}", to.display())),
    }
    let dir = to
        .parent()
        .ok_or_else(|| format!("{} has no folder", to.display()))?;
    let tmp = dir.join(format!(
        ".rewind-copy-{}-{}",
        std::process::id(),
        copy.session_id
    ));
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(body.as_bytes()).and_then(|()| f.sync_all()))
        .map_err(|e| format!("{}: {e}", tmp.display()))
        // A hard link never replaces: a file that appeared meanwhile stays.
        .and_then(|()| std::fs::hard_link(&tmp, to).map_err(|e| format!("{}: {e}", to.display())));
    let _ = std::fs::remove_file(&tmp);
    made
}

/// The records through `copy.through` (all of them without one), each with its `sessionId` set
/// to the new id (re-encoded, keys in their order; a record without one is kept as it is).
fn cut(text: &str, copy: &AgentCopy) -> Result<String, String> {
    let mut out = String::new();
    let through = copy.through.as_deref();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("{} line {}: not a record ({e})", copy.from, n + 1))?;
        let last = through.is_some() && v.get("uuid").and_then(|u| u.as_str()) == through;
        match v.as_object_mut().filter(|o| o.contains_key("sessionId")) {
            Some(o) => {
                o.insert("sessionId".into(), copy.session_id.clone().into());
                out.push_str(&serde_json::to_string(&v).map_err(|e| e.to_string())?);
            }
            None => out.push_str(line),
        }
        out.push('\n');
        if last {
            return Ok(out);
        }
    }
    match through {
        Some(id) => Err(format!("{} holds no record {id}", copy.from)),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(dir: &Path, through: &str) -> AgentCopy {
        AgentCopy {
            from: dir.join("old.jsonl").display().to_string(),
            to: dir.join("new.jsonl").display().to_string(),
            through: Some(through.into()),
            session_id: "new".into(),
        }
    }

    const RECORDS: &str = "{\"uuid\":\"a\",\"sessionId\":\"old\",\"x\":1}\n\
                           {\"uuid\":\"b\",\"sessionId\":\"old\"}\n\
                           {\"uuid\":\"c\",\"sessionId\":\"old\"}\n";

    #[test]
    fn the_copy_keeps_the_records_through_the_point_and_the_original_is_untouched() {
        let d = tempfile::tempdir().expect("dir");
        std::fs::write(d.path().join("old.jsonl"), RECORDS).expect("old");
        let c = copy(d.path(), "b");
        write("qwen-code", &c).expect("copied");
        let made = std::fs::read_to_string(&c.to).expect("new");
        assert_eq!(
            made,
            "{\"uuid\":\"a\",\"sessionId\":\"new\",\"x\":1}\n{\"uuid\":\"b\",\"sessionId\":\"new\"}\n"
        );
        assert_eq!(std::fs::read_to_string(&c.from).expect("old"), RECORDS);
        // Asked again (a replayed fork): already there, done.
        write("qwen-code", &c).expect("the same copy again");
        // Never over another file.
        std::fs::write(&c.to, "mine\n").expect("overwrite");
        assert!(
            write("qwen-code", &c)
                .expect_err("refused")
                .contains("exists")
        );
        assert_eq!(std::fs::read_to_string(&c.to).expect("kept"), "mine\n");
    }

    #[test]
    fn a_point_not_in_the_file_or_a_damaged_record_is_no_command() {
        let d = tempfile::tempdir().expect("dir");
        std::fs::write(d.path().join("old.jsonl"), RECORDS).expect("old");
        let c = copy(d.path(), "zzz");
        assert!(
            write("qwen-code", &c)
                .expect_err("no such record")
                .contains("no record zzz")
        );
        std::fs::write(d.path().join("old.jsonl"), "{\"uuid\":\"a\"}\n{oops\n").expect("bad");
        assert!(
            write("qwen-code", &copy(d.path(), "b"))
                .expect_err("damaged")
                .contains("line 2")
        );
        let mut r = Some(Box::new(AgentResume {
            agent: "qwen-code".into(),
            argv: vec!["qwen".into()],
            prompt_last: false,
            exact: true,
            note: String::new(),
            copy: Some(copy(d.path(), "b")),
        }));
        settle(&mut r);
        let r = r.expect("kept");
        assert!(r.argv.is_empty() && !r.exact && r.copy.is_none());
        assert!(r.note.contains("could not be made"), "{}", r.note);
        assert!(!d.path().join("new.jsonl").exists());
    }
}
