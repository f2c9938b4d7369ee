//! The one step every JSON-speaking host (the wasm `Engine`, the Node addon, JSON-RPC) runs on a
//! verb's arguments before deserializing them: the session argument and every option that names
//! a target accept what the CLI accepts, and become the whole id.

use super::{Error, Found, message, turn, turn_or_message};
use crate::id::{SessionId, TurnId};
use crate::ports::{IdTable, Store};
use serde_json::Value;

/// The verbs (by their JS method names) that only read: they take any unique prefix. Every
/// other verb changes something, and takes prefixes of at least
/// [`super::MIN_PREFIX_TO_CHANGE`] characters.
const READS: &[&str] = &[
    "activeBranch",
    "previewFileRewind",
    "diffFileRewind",
    "resume",
    "checkpoints",
    "operations",
];

/// Whether the verb named `verb` changes anything.
pub fn changes(verb: &str) -> bool {
    !READS.contains(&verb)
}

/// A session as typed (whole id or unique prefix), which must exist: an unknown one is
/// [`Error::NoSession`] / [`Error::NoMatch`] (`not_found`), naming the session.
pub fn resolve_session(store: &dyn Store, typed: &str, verb: &str) -> Result<SessionId, Error> {
    if let Ok(id) = SessionId::parse(typed.trim())
        && store.session(&id)?.is_some()
    {
        return Ok(id);
    }
    let table = IdTable::Sessions;
    let id = match super::find(store, table, None, typed, changes(verb))? {
        // A whole id that matched nothing (no extension of it either).
        Found::One(id) if store.session(&parse(&id)?)?.is_none() => {
            return Err(Error::NoSession { id });
        }
        found => super::one(table, typed, found)?,
    };
    parse(&id)
}

fn parse(id: &str) -> Result<SessionId, Error> {
    SessionId::parse(id).map_err(|_| Error::Malformed {
        table: IdTable::Sessions,
        typed: id.chars().take(80).collect(),
    })
}

/// How an option names its target.
#[derive(Clone, Copy)]
enum Field {
    Message,
    Turn,
    TurnOrMessage,
    Other(IdTable),
}

/// What the option `key` of `verb` names, if it names a target.
fn field(verb: &str, key: &str) -> Option<Field> {
    Some(match key {
        "since" | "to" | "at" | "messageId" | "toolMessageId" => Field::Message,
        // A file rewind's `turn` is a turn or any message of it; a fork's is a turn.
        "turn" if verb != "fork" => Field::TurnOrMessage,
        "turn" | "turnId" => Field::Turn,
        "checkpoint" | "checkpointId" => Field::Other(IdTable::Checkpoints),
        "operationId" => Field::Other(IdTable::Operations),
        _ => return None,
    })
}

/// Rewrite every target-like option of `verb`'s options object in place (`since`, `to`, `at`,
/// `turn`, `turnId`, `messageId`, `toolMessageId`, `checkpoint`, `checkpointId`,
/// `operationId`): `#N` / `@` / `@-N` and unique prefixes become the whole id they name. A
/// whole id that exists is one keyed read; one that names nothing is left for the verb to
/// judge. Anything but an object (or a field that is not a string) is left for the verb's own
/// deserializer to refuse.
pub fn resolve_options(
    store: &dyn Store,
    session: &SessionId,
    verb: &str,
    options: &mut Value,
) -> Result<(), Error> {
    let Value::Object(map) = options else {
        return Ok(());
    };
    let changing = changes(verb);
    for (key, value) in map.iter_mut() {
        let (Some(f), Value::String(typed)) = (field(verb, key), &*value) else {
            continue;
        };
        if exists(store, session, f, typed)? {
            continue;
        }
        let id = match f {
            Field::Message => message(store, session, typed, changing)?,
            Field::Turn => turn(store, session, typed, changing)?,
            Field::TurnOrMessage => turn_or_message(store, session, typed, changing)?,
            Field::Other(t) => super::resolve(store, t, Some(session), typed, changing)?,
        };
        *value = Value::String(id);
    }
    Ok(())
}

/// Whether `typed` is a whole id that exists (one keyed read), so it needs no lookup.
fn exists(store: &dyn Store, s: &SessionId, f: Field, typed: &str) -> Result<bool, Error> {
    use crate::id::{CheckpointId, MessageId};
    let turn = |t: &str| TurnId::parse(t).ok().map(|id| store.turn(s, &id));
    let msg = |t: &str| MessageId::parse(t).ok().map(|id| store.message(s, &id));
    let found = match f {
        Field::Message => msg(typed),
        Field::Turn => turn(typed),
        Field::TurnOrMessage => turn(typed).or_else(|| msg(typed)),
        Field::Other(IdTable::Checkpoints) => CheckpointId::parse(typed)
            .ok()
            .map(|id| store.checkpoint(s, &id)),
        Field::Other(_) => None,
    };
    Ok(found.transpose()?.flatten().is_some())
}
