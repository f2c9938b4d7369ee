//! Ids people can type, the same for every front end (the CLI's arguments, the JS and JSON-RPC
//! options): the whole id, or a unique prefix of it with or without its type prefix
//! (`ses_3f2a`, `3f2a`; an ambiguous one is refused with its candidates); and for turns and the
//! prompts that start them `#N` (the Nth turn of the active branch, from 1), `@` (the latest)
//! and `@-N` (N before the latest).
//!
//! Prefixes are looked up with one range read of the store ([`Store::ids_with_prefix`]), turns by
//! position with its ordinal reads ([`position::turn_at`]); neither loads a session's rows.

mod error;
mod options;
mod position;
#[cfg(test)]
mod tests;

pub use error::Error;
pub use options::{changes, resolve_options, resolve_session};
pub use position::{Position, turn_at};

use crate::id::{CheckpointId, JournalId, MessageId, OperationId, SessionId, TurnId};
use crate::ports::{IdTable, Store};

/// Candidates listed when a prefix is ambiguous.
pub const SHOWN: usize = 8;

/// The shortest prefix a call that changes anything accepts: `undo 0` matching the one
/// operation whose id starts with 0 is a slip, not a choice. Reading calls take any unique
/// prefix.
pub const MIN_PREFIX_TO_CHANGE: usize = 4;

/// The type prefix of a table's ids (`ses_`, `msg_`, …).
pub fn type_prefix(table: IdTable) -> &'static str {
    match table {
        IdTable::Sessions => SessionId::PREFIX,
        IdTable::Messages => MessageId::PREFIX,
        IdTable::Turns => TurnId::PREFIX,
        IdTable::Checkpoints => CheckpointId::PREFIX,
        IdTable::Operations => OperationId::PREFIX,
        IdTable::Journals => JournalId::PREFIX,
    }
}

/// What a table's ids are called in messages.
pub fn what(table: IdTable) -> &'static str {
    match table {
        IdTable::Sessions => "session",
        IdTable::Messages => "message",
        IdTable::Turns => "turn",
        IdTable::Checkpoints => "checkpoint",
        IdTable::Operations => "operation",
        IdTable::Journals => "journal",
    }
}

/// What a typed id matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// Exactly one id (or a whole id nothing matched, for the engine to judge).
    One(String),
    /// Nothing.
    None,
    /// Several: the first few (up to `SHOWN + 1`, so a caller can tell there are more).
    Many(Vec<String>),
}

/// Whether `typed` could name an id of `table` at all: `<prefix><letters, digits, - or _>`,
/// or bare hex digits (the alphabet of the short ids front ends show: anything else, like
/// `not-an-id` or another kind's `trn_…`, is a mistake, not a prefix).
pub fn well_formed(table: IdTable, typed: &str) -> Result<(), Error> {
    let t = typed.trim();
    let ok = match t.strip_prefix(type_prefix(table)) {
        Some(rest) => {
            !rest.is_empty()
                && rest.len() <= 120
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        }
        None => !t.is_empty() && t.len() <= 120 && t.bytes().all(|b| b.is_ascii_hexdigit()),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::Malformed {
            table,
            typed: t.chars().take(80).collect(),
        })
    }
}

/// Look `typed` up among the ids of `table` (within `session` for the tables that belong to
/// one). `changing`: the call changes something, so a prefix shorter than
/// [`MIN_PREFIX_TO_CHANGE`] that matches anything is refused.
pub fn find(
    store: &dyn Store,
    table: IdTable,
    session: Option<&SessionId>,
    typed: &str,
    changing: bool,
) -> Result<Found, Error> {
    well_formed(table, typed)?;
    let typed = typed.trim();
    let prefix = type_prefix(table);
    let full = if typed.starts_with(prefix) {
        typed.to_owned()
    } else {
        format!("{prefix}{}", typed.to_ascii_lowercase())
    };
    let mut found = store.ids_with_prefix(table, session, &full, SHOWN + 1)?;
    if found.contains(&full) {
        return Ok(Found::One(full));
    }
    let given = full.len() - prefix.len();
    if changing && given < MIN_PREFIX_TO_CHANGE && !found.is_empty() {
        return Err(Error::TooShort {
            table,
            typed: typed.to_owned(),
        });
    }
    Ok(match found.len() {
        0 if typed.starts_with(prefix) => Found::One(full),
        0 => Found::None,
        1 => Found::One(found.remove(0)),
        _ => Found::Many(found),
    })
}

/// The one id `found` names, or the error saying why there is none.
pub fn one(table: IdTable, typed: &str, found: Found) -> Result<String, Error> {
    match found {
        Found::One(id) => Ok(id),
        Found::None => Err(Error::NoMatch {
            table,
            typed: typed.trim().to_owned(),
        }),
        Found::Many(ids) => Err(Error::ambiguous(what(table), typed, ids)),
    }
}

/// [`find`] then [`one`]: the whole id `typed` names among the ids of `table`.
pub fn resolve(
    store: &dyn Store,
    table: IdTable,
    session: Option<&SessionId>,
    typed: &str,
    changing: bool,
) -> Result<String, Error> {
    one(table, typed, find(store, table, session, typed, changing)?)
}

/// A message id as typed: `#N` / `@` / `@-N` name a turn's prompt.
pub fn message(
    store: &dyn Store,
    session: &SessionId,
    typed: &str,
    changing: bool,
) -> Result<String, Error> {
    if let Some(p) = Position::parse(typed) {
        return Ok(turn_at(store, session, p?, typed)?.prompt_id.to_string());
    }
    resolve(store, IdTable::Messages, Some(session), typed, changing)
}

/// A turn id as typed: `#N` / `@` / `@-N`, or a turn id.
pub fn turn(
    store: &dyn Store,
    session: &SessionId,
    typed: &str,
    changing: bool,
) -> Result<String, Error> {
    if let Some(p) = Position::parse(typed) {
        return Ok(turn_at(store, session, p?, typed)?.id.to_string());
    }
    resolve(store, IdTable::Turns, Some(session), typed, changing)
}

/// A turn or a message as one wire id (what a file rewind's `turn` takes): `#N` / `@` / `@-N`
/// name a turn, and a bare prefix may match either kind and must be unique over both.
pub fn turn_or_message(
    store: &dyn Store,
    session: &SessionId,
    typed: &str,
    changing: bool,
) -> Result<String, Error> {
    if let Some(p) = Position::parse(typed) {
        return Ok(turn_at(store, session, p?, typed)?.id.to_string());
    }
    let t = typed.trim();
    for table in [IdTable::Turns, IdTable::Messages] {
        if t.starts_with(type_prefix(table)) {
            return resolve(store, table, Some(session), typed, changing);
        }
    }
    if well_formed(IdTable::Turns, t).is_err() {
        return Err(Error::Malformed {
            table: IdTable::Messages,
            typed: t.chars().take(80).collect(),
        });
    }
    let mut all = Vec::new();
    for table in [IdTable::Turns, IdTable::Messages] {
        match find(store, table, Some(session), typed, changing)? {
            Found::One(id) => all.push(id),
            Found::Many(ids) => all.extend(ids),
            Found::None => {}
        }
    }
    match all.len() {
        0 => Err(Error::NoTurnOrMessage {
            typed: t.to_owned(),
        }),
        1 => Ok(all.remove(0)),
        _ => Err(Error::ambiguous("turn and message", typed, all)),
    }
}
