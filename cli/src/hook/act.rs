//! What each event does to the store: a session bound to the agent's session, a prompt that
//! starts a turn (and a snapshot that sees what the person changed since the last turn), exact
//! before/after versions around file tools, snapshots around shell tools (the one before finds
//! the person's changes, the one after the command's), and the turn's end (a snapshot, the
//! reply). Background work the agent started is followed in `background`; whose the changes
//! found between the agent's actions are is decided in `between`.

use super::background::{self, Held};
use super::between::{self, latest_turn};
use super::event::{Action, Payload, Phase, Tool};
use super::pending::{self, Before};
use super::root::{Place, work_path};
use super::unclosed::{self, closes_at_stop};
use rewind_core::id::{SessionId, TurnId};
use rewind_core::model::AgentSession;
use rewind_core::path::WorkPath;
use rewind_core::ports::Workspace;
use rewind_core::record::{
    CompleteTurnOptions, EditChange, EditOptions, FailedCaptureOptions, PromptOptions,
    ReplyOptions, SessionOptions,
};
use rewind_core::shell;
use rewind_host::DiskWorkspace;
use rewind_host::config::Config;
use rewind_host::disk::{Bounded, file_id, gone_since};
use rewind_host::native::{NativeEngine, Opener, Verb};

type Result<T> = std::result::Result<T, String>;

fn say<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn open(place: &Place) -> Result<NativeEngine> {
    let opener = Opener::new(&place.root, &place.db).on_store(place.store.clone());
    Ok(opener.open(Verb::HookEvent.access()).map_err(say)?.engine)
}

/// The rewind session recording the agent's session, made on its first event.
fn session(e: &mut NativeEngine, place: &Place, agent_session: &str) -> Result<SessionId> {
    let bound = AgentSession {
        agent: place.agent.as_str().to_owned(),
        session_id: agent_session.to_owned(),
    };
    let known = e.sessions().map_err(say)?;
    if let Some(s) = known
        .items
        .iter()
        .find(|s| s.agent.as_ref() == Some(&bound))
    {
        return Ok(s.id.clone());
    }
    // An agent session a rewind printed the resume of (its id chosen then): it goes on in the
    // rewind session the rewind left.
    let agent = place.agent.as_str();
    if let Some(id) = rewind_host::agent_copy::bind::expected(&place.db, agent, agent_session)
        && known.items.iter().any(|s| s.id == id)
    {
        return Ok(id);
    }
    let short: String = agent_session.chars().take(12).collect();
    let opts = SessionOptions {
        title: Some(format!("{} {short}", place.agent.as_str())),
        workspace_label: None,
        agent: Some(bound),
    };
    Ok(e.create_session(opts).map_err(say)?.id)
}

fn key<'a>(
    place: &'a Place,
    agent_session: &'a str,
    tool: &'a Tool,
    path: &'a WorkPath,
) -> (&'a str, &'a str, &'a str, &'a str) {
    let call = tool.call_id.as_deref().unwrap_or(tool.name.as_str());
    (place.agent.as_str(), agent_session, call, path.as_str())
}

/// `path` as a bounded read found it: its bytes, or why they were not read (noted).
fn read_file(
    place: &Place,
    ws: &DiskWorkspace,
    path: &WorkPath,
    max: u64,
) -> Result<Option<Vec<u8>>> {
    match ws.read_at_most(path, max) {
        Ok(None) => Ok(None),
        Ok(Some(Bounded::Bytes { bytes, .. })) => Ok(Some(bytes)),
        Ok(Some(Bounded::TooLarge(size))) => {
            place.note(format!(
                "{path}: {size} bytes, over max-file-bytes ({max}): not read"
            ));
            Err("too_large".into())
        }
        Ok(Some(Bounded::NotRegular(what))) => {
            place.note(format!("{path} is {what}, not a regular file: not read"));
            Err(format!("not_regular: {what}"))
        }
        Err(e) => {
            place.note(format!("{path}: {e}"));
            Err(format!("read_failed: {e}"))
        }
    }
}

/// Before a file tool: keep each file's bytes and mode. Needs no store: fast.
fn before_files(place: &Place, agent_session: &str, tool: &Tool, paths: &[WorkPath]) -> Result<()> {
    let max = Config::load(&place.db).map_err(say)?.max_file_bytes;
    let mut ws = DiskWorkspace::open(&place.root).map_err(say)?;
    for path in paths {
        let before = match read_file(place, &ws, path, max) {
            Ok(None) => Before::Absent {
                dirs: super::made_dirs::missing_above(&mut ws, path),
            },
            Ok(Some(b)) => Before::present(&b, ws.mode(path).unwrap_or(None)),
            Err(reason) => Before::Unknown { reason },
        };
        pending::keep(&place.db, key(place, agent_session, tool, path), &before)?;
    }
    Ok(())
}

/// A snapshot after `tool` ran (`command`: its command line): what changed is the tool's.
fn snapshot(
    e: &mut NativeEngine,
    s: &SessionId,
    turn: &TurnId,
    tool: &Tool,
    command: Option<String>,
) -> Result<shell::Outcome> {
    let opts = shell::Options {
        turn_id: turn.clone(),
        command,
        tool_name: Some(tool.name.clone()),
        tool_call_id: tool.call_id.clone(),
        tool_message_id: None,
        attribution: shell::Attribution::Command,
    };
    e.snapshot_workspace(s, opts).map_err(say)
}

/// After a file tool: record each file's exact change in one checkpoint.
fn after_files(
    e: &mut NativeEngine,
    place: &Place,
    agent_session: &str,
    s: &SessionId,
    turn: &TurnId,
    tool: &Tool,
    paths: &[WorkPath],
) -> Result<()> {
    let max = Config::load(&place.db).map_err(say)?.max_file_bytes;
    let mut changes = Vec::new();
    let mut made_dirs: Vec<String> = Vec::new();
    let mut missed = false;
    for path in paths {
        let kept = pending::take(&place.db, key(place, agent_session, tool, path));
        let before = match kept {
            Some(Ok(b)) => {
                made_dirs.extend_from_slice(b.missing_dirs());
                b.bytes()
            }
            Some(Err(why)) => return Err(why),
            // No before event ran; Claude Code's Edit result still says what the file held.
            None => match place.original.as_deref().filter(|_| paths.len() == 1) {
                Some(text) => Ok((
                    Some(text.into()),
                    e.workspace_mut().mode(path).unwrap_or(None),
                )),
                None => {
                    missed = true;
                    continue;
                }
            },
        };
        let after = read_file(place, e.workspace().disk(), path, max);
        let ((before, before_mode), after) = match (before, after) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(reason), _) | (_, Err(reason)) => {
                let opts = FailedCaptureOptions {
                    turn_id: turn.clone(),
                    tool_name: tool.name.clone(),
                    path: path.to_string(),
                    reason,
                };
                e.record_failed_capture(s, opts).map_err(say)?;
                continue;
            }
        };
        let after_mode = match &after {
            Some(_) => e.workspace_mut().mode(path).unwrap_or(None),
            None => None,
        };
        pending::rebase(
            &place.db,
            key(place, agent_session, tool, path),
            &after,
            after_mode,
        );
        if before == after && (before_mode == after_mode || before.is_none()) {
            continue; // the tool changed nothing (it failed, or wrote the same bytes)
        }
        changes.push(EditChange {
            path: path.to_string(),
            before,
            after,
            patch: None,
            before_mode,
            after_mode,
        });
    }
    let dirs = super::made_dirs::made(e.workspace_mut(), &made_dirs, &changes);
    changes.splice(0..0, dirs);
    if !changes.is_empty() {
        let kind = rewind_core::record::kind_for(&changes);
        let opts = EditOptions {
            turn_id: turn.clone(),
            tool_name: tool.name.clone(),
            tool_call_id: tool.call_id.clone(),
            tool_message_id: None,
            kind,
            changes,
        };
        e.record_edit(s, opts).map_err(say)?;
    }
    if missed {
        // No before-state was kept (the before event did not run): the turn's snapshots know
        // what the file held when the turn began, so the next snapshot records the change.
        snapshot(e, s, turn, tool, None)?;
    }
    Ok(())
}

/// Do what the event asks. `Ok(Some(session))`: the session written to.
pub(super) fn act(
    place: &Place,
    p: &Payload,
    ev: super::event::Event,
) -> Result<Option<SessionId>> {
    use super::event::Event;
    let agent_session = p
        .session_id
        .clone()
        .ok_or("the payload has no session_id")?;
    if let Event::Tool(
        _,
        Tool {
            note: Some(note), ..
        },
    ) = &ev
    {
        place.note(note.clone());
    }
    // Only a session's start or a prompt makes a store; a later event finding none was left
    // behind by a removed or moved store (`rm -rf .rewind` in a shell tool), not a new one.
    let lazy = super::lazy::opens_turns(place, p.host);
    let starts =
        matches!(ev, Event::Start | Event::Prompt(_)) || (lazy && matches!(ev, Event::Tool(..)));
    if place.store.is_none() && !starts && !place.db.exists() {
        return Err(format!(
            "there is no store at {} (removed or moved since the turn began): not recorded",
            place.db.display()
        ));
    }
    if let Event::Tool(Phase::Before, tool) = &ev
        && let Action::Files(raw) = &tool.action
    {
        let paths: Vec<WorkPath> = raw.iter().filter_map(|r| work_path(place, r)).collect();
        if place.store.is_none() && !place.db.exists() {
            // A host whose first event is a tool's (see `lazy`): the store starts here.
            drop(open(place)?);
        }
        before_files(place, &agent_session, tool, &paths)?;
        unclosed::opened(place, p, &agent_session, tool, &paths)?;
        return Ok(None);
    }
    let mut e = open(place)?;
    let opened = place.store.is_none().then(|| file_id(&place.db)).flatten();
    let s = session(&mut e, place, &agent_session)?;
    // A turn still running when a prompt comes never got its end (Gemini CLI sends no
    // AfterAgent after a model error; Claude Code no Stop when interrupted): it failed.
    // Unless a tool opened it, and this is its prompt, late (see `lazy`).
    if let Event::Prompt(text) = &ev
        && let Some((turn_id, true)) = latest_turn(&e, &s)?
    {
        if super::lazy::late_prompt(&mut e, place, (&agent_session, &s), Some(&turn_id), text)? {
            return Ok(Some(s));
        }
        let opts = CompleteTurnOptions {
            turn_id,
            failed: true,
            round_count: None,
        };
        e.complete_turn(&s, opts).map_err(say)?;
    }
    let mut bg = background::hold(&place.db, place.agent.as_str(), &agent_session)?;
    record(&mut e, place, p, (&agent_session, &s), &mut bg, ev)?;
    bg.save()?;
    if let Some(why) = gone_since(&place.db, opened) {
        return Err(format!(
            "{why} while the hook ran: what it recorded is not in the store"
        ));
    }
    Ok(Some(s))
}

/// The event's records, in the store `e` is open on.
fn record(
    e: &mut NativeEngine,
    place: &Place,
    p: &Payload,
    (agent_session, s): (&str, &SessionId),
    bg: &mut Held,
    ev: super::event::Event,
) -> Result<()> {
    use super::event::Event;
    match ev {
        Event::Ignored(_) | Event::Unreadable(_) | Event::Start => {}
        Event::Prompt(prompt) => {
            // Where the agent's history stands, for a later rewind to resume it here.
            let point = super::point::point(place, p, &prompt);
            let opts = PromptOptions {
                text: prompt,
                payload: point.map(|point| point.payload()),
            };
            let turn = e.record_prompt(s, opts).map_err(say)?.turn_id;
            // What changed since the last turn is the person's (or running background work's):
            // seen now, before the agent acts.
            between::snapshot(e, s, &turn, bg)?;
        }
        Event::Tool(phase, tool) => {
            // Outside a running turn: a turn the agent began by itself (background work
            // finished), whose work is the agent's, in the session's latest turn.
            let lazy = super::lazy::opens_turns(place, p.host);
            let turn = match latest_turn(e, s)? {
                Some((turn, running)) if running || !lazy => turn,
                _ if lazy => super::lazy::open(e, place, (agent_session, s), bg)?,
                _ => return Err(format!("{} before any prompt: not recorded", tool.name)),
            };
            match (&tool.action, phase) {
                (Action::Files(raw), _) => {
                    unclosed::closed(place, p, agent_session, &tool);
                    let paths = super::root::work_paths(place, raw);
                    after_files(e, place, agent_session, s, &turn, &tool, &paths)?;
                }
                (Action::Shell(_), Phase::Before) => {
                    between::snapshot(e, s, &turn, bg)?;
                }
                (Action::Shell(command), Phase::After) => {
                    snapshot(e, s, &turn, &tool, Some(command.clone()))?;
                    if background::asked(p.tool_input.as_ref()) {
                        bg.started(&turn, &tool.name, tool.call_id.as_deref(), command);
                    }
                }
            }
        }
        Event::Stop { said, failed } => {
            let Some((turn, running)) = latest_turn(e, s)? else {
                return Ok(()); // a turn end before any prompt: nothing to end
            };
            if closes_at_stop(place, p) {
                // Codex's failed calls: their files re-read now, as the tool's change.
                let who = (place.agent.as_str(), agent_session);
                for (tool, paths) in unclosed::take(&place.db, who) {
                    after_files(e, place, agent_session, s, &turn, &tool, &paths)?;
                }
            }
            between::turn_end(e, p, s, &turn, bg)?;
            if !running {
                return Ok(()); // a turn the agent began by itself, or a Stop that ran twice
            }
            let reply = match said {
                Some(text) => Some(text),
                None => super::transcript::last_reply(p, place.limits.max_transcript)
                    .unwrap_or_else(|why| {
                        place.note(why);
                        None
                    }),
            };
            if let Some(reply) = reply.filter(|t| !t.trim().is_empty()) {
                let opts = ReplyOptions {
                    turn_id: turn.clone(),
                    text: reply,
                    error: failed,
                    payload: None,
                };
                e.record_reply(s, opts).map_err(say)?;
            }
            let opts = CompleteTurnOptions {
                turn_id: turn,
                failed,
                round_count: None,
            };
            e.complete_turn(s, opts).map_err(say)?;
        }
    }
    Ok(())
}
