//! Ids people can type. Every id argument accepts the whole id, or a unique prefix of it with or
//! without its type prefix (`ses_3f2a`, `3f2a`); an ambiguous prefix is refused with its
//! candidates. Turns (and the prompts that start them) are also `#N` (the Nth turn of the active
//! branch, from 1), `@` (the latest) and `@-N` (N before the latest).
//!
//! The resolving is the core's ([`rewind_core::refs`], shared with the JS and JSON-RPC APIs);
//! what is here are the CLI's words for its refusals (which command lists the ids). A whole id
//! is passed on unchanged, so an unknown one is the engine's own `not_found`.

mod turns;

pub(crate) use turns::branch_turns;

use super::{CliError, NativeEngine};
use rewind_core::ErrorKind;
use rewind_core::id::{
    CheckpointId, CommandId, JournalId, MessageId, OperationId, SessionId, TurnId,
};
use rewind_core::ports::{IdTable, Store};
use rewind_core::refs::{self, Found, Position};

pub(super) use rewind_core::refs::MIN_PREFIX_TO_CHANGE;

struct Kind {
    table: IdTable,
    prefix: &'static str,
    what: &'static str,
    /// The command that lists ids of this kind (said when one is mistyped or not found).
    listed_by: &'static str,
}

const SESSION: Kind = Kind {
    table: IdTable::Sessions,
    prefix: SessionId::PREFIX,
    what: "session",
    listed_by: "rewind session list",
};
const MESSAGE: Kind = Kind {
    table: IdTable::Messages,
    prefix: MessageId::PREFIX,
    what: "message",
    listed_by: "rewind log",
};
const TURN: Kind = Kind {
    table: IdTable::Turns,
    prefix: TurnId::PREFIX,
    what: "turn",
    listed_by: "rewind log",
};
const CHECKPOINT: Kind = Kind {
    table: IdTable::Checkpoints,
    prefix: CheckpointId::PREFIX,
    what: "checkpoint",
    listed_by: "rewind checkpoints",
};
const OPERATION: Kind = Kind {
    table: IdTable::Operations,
    prefix: OperationId::PREFIX,
    what: "operation",
    listed_by: "rewind ops",
};
const JOURNAL: Kind = Kind {
    table: IdTable::Journals,
    prefix: JournalId::PREFIX,
    what: "journal",
    listed_by: "rewind recover",
};

/// Look `typed` up among the ids of `kind` (the core's lookup, in the CLI's words).
fn lookup(
    at: Lookup<'_>,
    kind: &Kind,
    session: Option<&SessionId>,
    typed: &str,
) -> Result<Found, CliError> {
    well_formed(kind, typed)?;
    refs::find(at.store(), kind.table, session, typed, at.changing).map_err(|e| said(typed, e))
}

/// A core refusal in the CLI's words (which command lists the ids, what to type).
fn said(typed: &str, e: refs::Error) -> CliError {
    match e {
        refs::Error::Malformed { table, .. } => parse_error(kind_of(table), typed),
        refs::Error::TooShort { table, .. } => too_short(kind_of(table), typed),
        refs::Error::NoMatch { table, .. } => not_found(kind_of(table), typed),
        refs::Error::NoTurnOrMessage { typed } => CliError::new(
            ErrorKind::NotFound,
            format!(
                "no turn or message id starts with `{typed}`: `rewind log` lists them (or name \
                 a turn as #N, @ or @-N)"
            ),
        ),
        refs::Error::Ambiguous { ref candidates, .. } => {
            let ids = candidates.clone();
            CliError::new(ErrorKind::InvalidInput, e.to_string()).with_candidates(ids)
        }
        e => CliError::from_engine(rewind_core::Coded::code(&e), e),
    }
}

fn kind_of(table: IdTable) -> &'static Kind {
    match table {
        IdTable::Sessions => &SESSION,
        IdTable::Messages => &MESSAGE,
        IdTable::Turns => &TURN,
        IdTable::Checkpoints => &CHECKPOINT,
        IdTable::Operations => &OPERATION,
        IdTable::Journals => &JOURNAL,
    }
}

fn not_found(kind: &Kind, typed: &str) -> CliError {
    CliError::new(
        ErrorKind::NotFound,
        format!(
            "no {} id starts with `{}`: `{}` lists them",
            kind.what,
            typed.trim(),
            kind.listed_by
        ),
    )
}

/// Where a lookup runs: the opened engine, and whether the command changes anything.
#[derive(Clone, Copy)]
pub(super) struct Lookup<'a> {
    pub(super) engine: &'a NativeEngine,
    pub(super) changing: bool,
}

impl Lookup<'_> {
    fn store(&self) -> &dyn Store {
        self.engine.store()
    }
}

fn too_short(kind: &Kind, typed: &str) -> CliError {
    CliError::new(
        ErrorKind::InvalidInput,
        format!(
            "`{}` is too short to name a {} for a command that changes things: type at least \
             {MIN_PREFIX_TO_CHANGE} characters of the id (see the ids `rewind log` and `rewind \
             ops` show); nothing was changed",
            typed.trim(),
            kind.what
        ),
    )
}

fn parse_error(kind: &Kind, typed: &str) -> CliError {
    let value: String = typed.chars().take(80).collect();
    CliError::new(
        ErrorKind::InvalidInput,
        format!(
            "{value:?} is not {a} {what} id: {what} ids are `{p}` followed by lowercase hex digits \
             (0-9, a-f), and any unique start of those digits names one too (`{p}3f2a` or \
             `3f2a`); `{list}` lists them",
            a = if kind.what.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            },
            what = kind.what,
            p = kind.prefix,
            list = kind.listed_by
        ),
    )
}

fn one(kind: &Kind, typed: &str, found: Found) -> Result<String, CliError> {
    refs::one(kind.table, typed, found).map_err(|e| said(typed, e))
}

fn parsed<T: std::str::FromStr<Err = rewind_core::id::IdError>>(id: &str) -> Result<T, CliError> {
    super::parse_id(id)
}

/// Whether `typed` could name an id of `kind` at all (checked before anything is opened, so a
/// malformed id changes nothing, not even by creating a store).
fn well_formed(kind: &Kind, typed: &str) -> Result<(), CliError> {
    refs::well_formed(kind.table, typed).map_err(|_| parse_error(kind, typed))
}

/// An id argument as typed, checked for form; [`Ref::resolve`] finds what it names.
#[derive(Debug, Clone)]
pub(super) struct Ref<T> {
    text: String,
    kind: std::marker::PhantomData<T>,
}

/// The id kinds a [`Ref`] can name.
pub(super) trait Typed: Sized {
    /// Whether `text` could name one.
    fn check(text: &str) -> Result<(), CliError>;
    /// What `text` names in `session` (store-wide kinds ignore it).
    fn resolve(at: Lookup<'_>, session: &SessionId, text: &str) -> Result<Self, CliError>;
}

impl<T: Typed> Ref<T> {
    /// Check the form of `text`.
    pub(super) fn new(text: &str) -> Result<Self, CliError> {
        T::check(text)?;
        Ok(Self {
            text: text.to_owned(),
            kind: std::marker::PhantomData,
        })
    }

    /// [`Ref::new`] of an optional argument.
    pub(super) fn opt(text: Option<&str>) -> Result<Option<Self>, CliError> {
        text.map(Self::new).transpose()
    }

    /// The id it names.
    pub(super) fn resolve(&self, at: Lookup<'_>, session: &SessionId) -> Result<T, CliError> {
        T::resolve(at, session, &self.text)
    }
}

/// Check and resolve an optional argument in one go (after opening).
pub(super) fn resolve_opt<T: Typed>(
    r: Option<&Ref<T>>,
    at: Lookup<'_>,
    session: &SessionId,
) -> Result<Option<T>, CliError> {
    r.map(|r| r.resolve(at, session)).transpose()
}

/// A session, store-wide (the session argument of every command).
pub(super) fn session(at: Lookup<'_>, typed: &str) -> Result<SessionId, CliError> {
    parsed(&one(&SESSION, typed, lookup(at, &SESSION, None, typed)?)?)
}

macro_rules! scoped {
    ($ty:ty, $kind:expr) => {
        impl Typed for $ty {
            fn check(text: &str) -> Result<(), CliError> {
                well_formed(&$kind, text)
            }
            fn resolve(at: Lookup<'_>, s: &SessionId, text: &str) -> Result<Self, CliError> {
                parsed(&one(&$kind, text, lookup(at, &$kind, Some(s), text)?)?)
            }
        }
    };
}
scoped!(CheckpointId, CHECKPOINT);
scoped!(OperationId, OPERATION);

/// A journal, store-wide (`rewind recover --abandon`).
pub(super) fn journal(at: Lookup<'_>, typed: &str) -> Result<JournalId, CliError> {
    parsed(&one(&JOURNAL, typed, lookup(at, &JOURNAL, None, typed)?)?)
}

/// A turn position (`#N`, `@`, `@-N`) checked for form.
fn check_position(text: &str) -> Option<Result<(), CliError>> {
    Position::parse(text).map(|r| r.map(|_| ()).map_err(position_error))
}

fn position_error(e: refs::Error) -> CliError {
    CliError::from_engine(rewind_core::Coded::code(&e), e)
}

/// `#N`, `@`, `@-N` as a turn of the active branch; `None` when `typed` is not of that form.
fn numbered(
    at: Lookup<'_>,
    s: &SessionId,
    typed: &str,
) -> Result<Option<rewind_core::model::Turn>, CliError> {
    let Some(p) = Position::parse(typed) else {
        return Ok(None);
    };
    let p = p.map_err(position_error)?;
    refs::turn_at(at.store(), s, p, typed)
        .map(Some)
        .map_err(position_error)
}

/// A message; `#N` / `@` / `@-N` name a turn's prompt.
impl Typed for MessageId {
    fn check(text: &str) -> Result<(), CliError> {
        check_position(text).unwrap_or_else(|| well_formed(&MESSAGE, text))
    }
    fn resolve(at: Lookup<'_>, s: &SessionId, text: &str) -> Result<Self, CliError> {
        if let Some(turn) = numbered(at, s, text)? {
            return Ok(turn.prompt_id);
        }
        parsed(&one(&MESSAGE, text, lookup(at, &MESSAGE, Some(s), text)?)?)
    }
}

/// A turn: `#N` / `@` / `@-N`, or a turn id.
impl Typed for TurnId {
    fn check(text: &str) -> Result<(), CliError> {
        check_position(text).unwrap_or_else(|| well_formed(&TURN, text))
    }
    fn resolve(at: Lookup<'_>, s: &SessionId, text: &str) -> Result<Self, CliError> {
        if let Some(turn) = numbered(at, s, text)? {
            return Ok(turn.id);
        }
        parsed(&one(&TURN, text, lookup(at, &TURN, Some(s), text)?)?)
    }
}

/// A turn or a message, as a wire id (what `--turn` of a file rewind takes): a bare prefix may
/// match either kind and must be unique over both.
#[derive(Debug, Clone)]
pub(super) struct TurnOrMessage(pub(super) String);

impl Typed for TurnOrMessage {
    fn check(text: &str) -> Result<(), CliError> {
        check_position(text)
            .unwrap_or_else(|| well_formed(&TURN, text).or_else(|_| well_formed(&MESSAGE, text)))
    }
    fn resolve(at: Lookup<'_>, s: &SessionId, text: &str) -> Result<Self, CliError> {
        refs::turn_or_message(at.store(), s, text, at.changing)
            .map(Self)
            .map_err(|e| said(text, e))
    }
}

/// A command id (the idempotency key of a fork or side chat) as people and scripts give it:
/// `cmd_…`, or a key of their own (a UUID, a ULID, `try-bcrypt`), which becomes `cmd_<key>`, so
/// the same key always names the same command.
pub(super) fn command_id(typed: &str) -> Result<CommandId, CliError> {
    let t = typed.trim();
    let id = if t.starts_with(CommandId::PREFIX) {
        t.to_owned()
    } else {
        format!("{}{t}", CommandId::PREFIX)
    };
    CommandId::parse(&id).map_err(|_| {
        CliError::new(
            ErrorKind::InvalidInput,
            format!(
                "{:?} is not a usable command id: give a key of up to 120 letters, digits, '-' \
                 or '_' (a UUID works), or `cmd_…`",
                t.chars().take(80).collect::<String>()
            ),
        )
    })
}
