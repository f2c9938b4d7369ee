//! `rewind demo [DIR]`: a complete scripted session in a scratch directory — three turns that
//! edit, create and delete files, a user edit in between, a preview with the conflict, apply
//! with `block` then `merge`, undo, a conversation rewind, then reopen and resume.

mod steps;

use super::{CliError, Context, Report};
use rewind_core::id::{MessageId, SessionId, TurnId};
use rewind_core::record::{
    CompleteTurnOptions, EditChange, EditOptions, PromptOptions, ReplyOptions, SessionOptions,
};
use rewind_host::native::{NativeEngine, default_db_path, open};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Where to play it out: the demo creates DIR (default: a new directory under the system
    /// temp dir) and keeps its own database in DIR/.rewind/
    dir: Option<PathBuf>,
    // These take the place of the global --workspace, --db and --store for this command (clap does not
    // add a global argument to a subcommand that defines one with the same id): hidden, so that
    // `rewind help demo` shows one way to say where the demo runs, and refused when given,
    // rather than silently ignored.
    #[arg(long, hide = true)]
    workspace: Option<PathBuf>,
    #[arg(long, hide = true)]
    db: Option<PathBuf>,
    #[arg(long, hide = true)]
    store: Option<String>,
}

impl Args {
    /// Refuse the global options the demo does not use.
    fn check(&self) -> Result<(), CliError> {
        let refuse = |what: &str| {
            Err(CliError::new(
                rewind_core::ErrorKind::InvalidInput,
                format!(
                    "the demo does not take {what}: it runs in its own directory, \
                     `rewind demo [DIR]`, with its own database in DIR/.rewind/"
                ),
            ))
        };
        if self.workspace.is_some() {
            return refuse("--workspace");
        }
        // clap hands the global REWIND_DB down here too; only a --db on the command line (a value
        // other than the environment's) is refused, and the demo never uses either.
        if self.db.is_some()
            && self.db.as_deref().map(Path::as_os_str) != std::env::var_os("REWIND_DB").as_deref()
        {
            return refuse("--db");
        }
        // The same for REWIND_STORE: the demo's records are always its own SQLite file.
        if self.store.is_some()
            && self.store.as_deref().map(std::ffi::OsStr::new)
                != std::env::var_os("REWIND_STORE").as_deref()
        {
            return refuse("--store");
        }
        Ok(())
    }
}

struct Demo {
    dir: PathBuf,
    engine: NativeEngine,
    session: SessionId,
    out: String,
    json: Vec<serde_json::Value>,
}

fn host(e: impl std::fmt::Display) -> CliError {
    CliError::host(e.to_string())
}

impl Demo {
    fn say(&mut self, step: &str, detail: impl AsRef<str>) {
        let _ = writeln!(self.out, "\n== {step}");
        for line in detail.as_ref().lines() {
            let _ = writeln!(self.out, "   {line}");
        }
        self.json
            .push(serde_json::json!({ "step": step, "detail": detail.as_ref() }));
    }

    fn file(&self, path: &str) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(path)).ok()
    }

    fn put(&self, path: &str, content: Option<&str>) -> Result<(), CliError> {
        let full = self.dir.join(path);
        match content {
            Some(c) => {
                std::fs::create_dir_all(full.parent().unwrap_or(&self.dir)).map_err(host)?;
                std::fs::write(&full, c).map_err(host)
            }
            None => std::fs::remove_file(&full).map_err(host),
        }
    }

    /// What an agent's tool does: change the file, then record exactly what it replaced.
    fn tool(
        &mut self,
        turn: &TurnId,
        tool: &str,
        path: &str,
        after: Option<&str>,
    ) -> Result<String, CliError> {
        let before = self.file(path);
        self.put(path, after)?;
        let change = EditChange {
            path: path.into(),
            before,
            after: after.map(|a| a.as_bytes().to_vec()),
            patch: None,
            before_mode: None,
            after_mode: None,
        };
        let opts = EditOptions {
            turn_id: turn.clone(),
            tool_name: tool.into(),
            tool_call_id: None,
            tool_message_id: None,
            kind: rewind_core::record::kind_for(std::slice::from_ref(&change)),
            changes: vec![change],
        };
        let out = self.engine.record_edit(&self.session, opts)?;
        let verb = match (out.files[0].before.is_some(), out.files[0].after.is_some()) {
            (false, _) => "created",
            (true, false) => "deleted",
            (true, true) => "edited",
        };
        Ok(format!("{tool} {verb} {path} -> {}", out.checkpoint_id))
    }

    fn turn(
        &mut self,
        prompt: &str,
        edits: &[(&str, &str, Option<&str>)],
        reply: &str,
    ) -> Result<MessageId, CliError> {
        let t = self.engine.record_prompt(
            &self.session,
            PromptOptions {
                text: prompt.into(),
                payload: None,
            },
        )?;
        let mut lines = vec![format!("user: {prompt}")];
        for (tool, path, after) in edits {
            lines.push(self.tool(&t.turn_id, tool, path, *after)?);
        }
        self.engine.record_reply(
            &self.session,
            ReplyOptions {
                turn_id: t.turn_id.clone(),
                text: reply.into(),
                error: false,
                payload: None,
            },
        )?;
        self.engine.complete_turn(
            &self.session,
            CompleteTurnOptions {
                turn_id: t.turn_id,
                failed: false,
                round_count: None,
            },
        )?;
        lines.push(format!("agent: {reply}"));
        self.say(&format!("turn: {prompt}"), lines.join("\n"));
        Ok(t.message_id)
    }
}

const MAIN_V0: &str = "fn main() {\n    println!(\"hello\");\n}\n";
const MAIN_V1: &str =
    "fn main() {\n    let name = \"world\";\n    println!(\"hello, {name}\");\n}\n";
const MAIN_V2: &str = "mod greet;\n\nfn main() {\n    greet::hello(\"world\");\n}\n";
const README_V0: &str =
    "# demo\n\nA tiny program.\n\n## Usage\n\nRun it with cargo.\n\n## License\n\nMIT\n";
const README_V1: &str = "# demo\n\nA tiny program that greets.\n\n## Usage\n\nRun it with cargo.\n\n## License\n\nMIT\n";
const README_USER: &str = "# demo\n\nA tiny program that greets.\n\n## Usage\n\nRun it with cargo.\n\n## License\n\nMIT or Apache-2.0, at your option.\n";
const GREET: &str = "pub fn hello(name: &str) {\n    println!(\"hello, {name}\");\n}\n";

fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("rewind-demo-{}", uuid::Uuid::new_v4().simple()))
}

fn show(dir: &Path, path: &str) -> String {
    match std::fs::read_to_string(dir.join(path)) {
        Ok(s) => format!(
            "{path}:\n{}",
            s.lines()
                .map(|l| format!("  | {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        Err(_) => format!("{path}: (absent)"),
    }
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    a.check()?;
    let dir = a.dir.unwrap_or_else(scratch);
    std::fs::create_dir_all(&dir).map_err(host)?;
    let db = default_db_path(&dir);
    let (mut engine, _) = open(&dir, &db).map_err(CliError::open)?;
    let session = engine
        .create_session(SessionOptions {
            title: Some("demo".into()),
            workspace_label: None,
            agent: None,
        })?
        .id;
    let mut d = Demo {
        dir: dir.clone(),
        engine,
        session: session.clone(),
        out: String::new(),
        json: Vec::new(),
    };
    for (path, content) in [
        ("src/main.rs", MAIN_V0),
        ("README.md", README_V0),
        ("notes.txt", "remember the milk\n"),
    ] {
        d.put(path, Some(content))?;
    }
    d.say("workspace", format!("{}\nsession {session}", dir.display()));

    let p1 = d.turn(
        "Greet the world by name",
        &[("Edit", "src/main.rs", Some(MAIN_V1))],
        "main now greets by name.",
    )?;
    let p2 = d.turn(
        "Move greeting into a module and document it",
        &[
            ("Write", "src/greet.rs", Some(GREET)),
            ("Edit", "src/main.rs", Some(MAIN_V2)),
            ("Edit", "README.md", Some(README_V1)),
        ],
        "Added src/greet.rs and updated the README.",
    )?;
    d.turn(
        "Drop the scratch notes",
        &[("Bash", "notes.txt", None)],
        "Removed notes.txt.",
    )?;

    d.put("README.md", Some(README_USER))?;
    d.say(
        "you edit README.md by hand",
        "changed the License section (the agent changed the description line)",
    );

    d.files_rewind(ctx, &p2)?;
    d.conversation_and_forks(p1, p2)?;
    d.reopen(&db)
}
