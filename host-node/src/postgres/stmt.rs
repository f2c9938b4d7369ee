//! How a statement is sent: prepared once and kept, or as text with its parameters' types in
//! one round trip.
//!
//! A prepared statement costs a round trip of its own the first time (Parse/Describe), and
//! pays only when it is run again on the same connection. A one-shot CLI process runs most of
//! its statements once on a connection that closes with it, so there every statement is sent
//! as text with its parameters in one message (`query_typed`: Parse, Bind and Execute at once),
//! which halves the round trips of a call. A process that keeps its connections (`pool`, for
//! `rewind serve`) prepares and keeps them, since the next request reuses them.

use super::pool;
use postgres::types::{ToSql, Type};
use postgres::{Error, GenericClient, Row, Statement};
use std::collections::HashMap;

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// A statement to run: prepared (and kept), or its text.
pub(super) enum Stmt<'q> {
    Prepared(Statement),
    Text(&'q str),
}

/// The statement of `sql` on this connection: the kept one, else prepared and kept when the
/// process keeps connections, else its text.
pub(super) fn stmt(
    client: &mut impl GenericClient,
    cache: &mut HashMap<&'static str, Statement>,
    sql: &'static str,
) -> Result<Stmt<'static>, Error> {
    if let Some(s) = cache.get(sql) {
        return Ok(Stmt::Prepared(s.clone()));
    }
    if !pool::enabled() {
        return Ok(Stmt::Text(sql));
    }
    let s = client.prepare(sql)?;
    cache.insert(sql, s.clone());
    Ok(Stmt::Prepared(s))
}

/// The types the parameters are sent as, tried in this order. Every parameter the store binds
/// is one of these; the server converts where a column differs (as it would for a prepared
/// statement's inferred types, which are the columns' own).
const CANDIDATES: [Type; 5] = [Type::TEXT, Type::INT8, Type::BOOL, Type::BYTEA, Type::INT4];

/// Each parameter with the first candidate type it encodes as (`None`: one fits none, and the
/// statement is prepared instead, which asks the server).
fn typed<'a>(params: Params<'a>) -> Option<Vec<(&'a (dyn ToSql + Sync), Type)>> {
    let mut scratch = bytes::BytesMut::new();
    params
        .iter()
        .map(|&p| {
            let ty = CANDIDATES.iter().find(|ty| {
                scratch.clear();
                p.to_sql_checked(ty, &mut scratch).is_ok()
            })?;
            Some((p, ty.clone()))
        })
        .collect()
}

impl Stmt<'_> {
    pub(super) fn query<C: GenericClient>(
        &self,
        c: &mut C,
        p: Params<'_>,
    ) -> Result<Vec<Row>, Error> {
        match self {
            Self::Prepared(s) => c.query(s, p),
            Self::Text(q) => match typed(p) {
                Some(t) => c.query_typed(q, &t),
                None => c.query(*q, p),
            },
        }
    }

    pub(super) fn query_opt<C: GenericClient>(
        &self,
        c: &mut C,
        p: Params<'_>,
    ) -> Result<Option<Row>, Error> {
        match self {
            Self::Prepared(s) => c.query_opt(s, p),
            Self::Text(q) => match typed(p) {
                Some(t) => c.query_typed_opt(q, &t),
                None => c.query_opt(*q, p),
            },
        }
    }

    pub(super) fn query_one<C: GenericClient>(
        &self,
        c: &mut C,
        p: Params<'_>,
    ) -> Result<Row, Error> {
        match self {
            Self::Prepared(s) => c.query_one(s, p),
            Self::Text(q) => match typed(p) {
                Some(t) => c.query_typed_one(q, &t),
                None => c.query_one(*q, p),
            },
        }
    }

    pub(super) fn execute<C: GenericClient>(&self, c: &mut C, p: Params<'_>) -> Result<u64, Error> {
        match self {
            Self::Prepared(s) => c.execute(s, p),
            Self::Text(q) => match typed(p) {
                Some(t) => c.execute_typed(q, &t),
                None => c.execute(*q, p),
            },
        }
    }
}

/// `sql` once, as text in one round trip (a statement no connection keeps).
pub(super) fn once(sql: &str) -> Stmt<'_> {
    Stmt::Text(sql)
}
