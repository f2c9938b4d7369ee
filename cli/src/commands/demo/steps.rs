//! The demo's later steps: the file rewind (preview, apply with `block` then `merge`, undo),
//! the conversation rewind and the forks, then reopening the store and resuming.

use super::{Demo, show};
use crate::commands::{CliError, Report, parse_id};
use crate::style::count;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::id::MessageId;
use rewind_core::model::Policy;
use rewind_core::undo;
use rewind_core::{conversation, fork};
use rewind_host::native::open;
use std::fmt::Write as _;
use std::path::Path;

impl Demo {
    /// Preview the rewind of the files to before turn `p2` (with the person's edit as a
    /// conflict), apply it with `block`, then `merge`, and undo that.
    pub(super) fn files_rewind(
        &mut self,
        ctx: &crate::commands::Context,
        p2: &MessageId,
    ) -> Result<(), CliError> {
        let (session, dir) = (self.session.clone(), self.dir.clone());
        let d = self;
        let since = TargetOptions {
            since: Some(p2.clone()),
            ..TargetOptions::default()
        };
        let preview = d.engine.preview_file_rewind(&session, since.clone())?;
        d.say(
            "preview: rewind files to before turn 2",
            crate::commands::verdict::preview(&ctx.style, &preview, None),
        );

        let blocked = d.engine.apply_file_rewind(
            &session,
            ApplyOptions {
                target: since.clone(),
                policy: Policy::Block,
            },
        )?;
        d.say(
            "apply --policy block",
            format!(
                "applied: {}; {}",
                blocked.applied,
                blocked.cause.unwrap_or_default()
            ),
        );

        let merged = d.engine.apply_file_rewind(
            &session,
            ApplyOptions {
                target: since,
                policy: Policy::Merge,
            },
        )?;
        let op = merged
            .operation_id
            .clone()
            .ok_or_else(|| CliError::host("the merge apply did not apply"))?;
        d.say(
            "apply --policy merge",
            format!(
                "{}{}\n{}",
                crate::commands::verdict::restored(&ctx.style, &merged.restored_files),
                show(&dir, "README.md"),
                show(&dir, "notes.txt")
            ),
        );

        let undone = d.engine.undo(
            &session,
            undo::Options {
                operation_id: Some(op.clone()),
                policy: Policy::Block,
            },
        )?;
        d.say(
            &format!("undo {op}"),
            format!(
                "{}{}",
                crate::commands::verdict::restored(&ctx.style, &undone.files.restored_files),
                show(&dir, "src/greet.rs")
            ),
        );
        Ok(())
    }

    /// Rewind the conversation to before turn `p2`, fork at turn `p1` (and replay the same
    /// command), and open a side chat.
    pub(super) fn conversation_and_forks(
        &mut self,
        p1: MessageId,
        p2: MessageId,
    ) -> Result<(), CliError> {
        let session = self.session.clone();
        let d = self;
        let conv = d
            .engine
            .rewind_conversation(&session, conversation::Options { to: p2 })?;
        d.say(
            "rewind the conversation to before turn 2",
            format!(
                "{} kept, {} off the branch; files untouched",
                count(conv.kept_message_count, "message"),
                count(conv.removed_turn_ids.len(), "turn")
            ),
        );

        let fork = d.engine.fork(
            &session,
            fork::Options {
                at: Some(p1.clone()),
                command_id: Some(parse_id("cmd_demo-fork")?),
                ..fork::Options::default()
            },
        )?;
        let replay = d.engine.fork(
            &session,
            fork::Options {
                at: Some(p1),
                command_id: Some(parse_id("cmd_demo-fork")?),
                ..fork::Options::default()
            },
        )?;
        d.say(
            "fork at turn 1 (command id cmd_demo-fork), then the same command again",
            format!(
                "child {}: {}, {} inherited; files untouched\nreplay: same child {} (replayed: {}), nothing written",
                fork.child_id,
                count(fork.copied_messages, "message"),
                count(fork.copied_checkpoints, "checkpoint"),
                replay.child_id,
                replay.replayed
            ),
        );
        let side = d
            .engine
            .side_chat(&session, fork::SideChatOptions::default())?;
        d.say(
            "side chat",
            format!("{}: {} copied, hidden from the UI, visible to the model, plus a reference-only reminder", side.child_id, count(side.copied_messages, "message")),
        );
        Ok(())
    }

    /// Close the engine, reopen the store and resume: what the whole session left.
    pub(super) fn reopen(self, db: &Path) -> Result<Report, CliError> {
        let (session, dir) = (self.session.clone(), self.dir.clone());
        let mut d = self;
        drop(d.engine);
        let (mut engine, recovered) = open(&dir, db).map_err(CliError::open)?;
        let state = engine.resume(&session)?;
        let ops = engine.operations(&session)?;
        let kinds: Vec<&str> = ops.items.iter().map(|o| o.kind.as_str()).collect();
        let detail = format!(
            "{} to recover; {} on the branch, turn {}, generation {}\noperation log: {}",
            count(recovered.recovered.len(), "journal"),
            count(state.messages.len(), "message"),
            state.turn_number,
            state.session.generation,
            kinds.join(", ")
        );
        let mut out = std::mem::take(&mut d.out);
        let mut json = std::mem::take(&mut d.json);
        let _ = writeln!(out, "\n== reopen and resume");
        for line in detail.lines() {
            let _ = writeln!(out, "   {line}");
        }
        json.push(serde_json::json!({ "step": "reopen and resume", "detail": detail }));
        let _ = writeln!(
            out,
            "\nexplore it: rewind --workspace {} log {session} --all",
            dir.display()
        );
        let report = serde_json::json!({ "workspace": dir, "sessionId": session, "steps": json });
        Ok(Report::new(&report, out))
    }
}
