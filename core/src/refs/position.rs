//! Turns by position: `#N` (the Nth turn of the active branch, from 1), `@` (the latest) and
//! `@-N` (N before it). Resolved one range of the active branch at a time with the store's
//! ordinal reads ([`Store::turn_at_in`], [`Store::turn_count_in`]): no turn row is loaded but
//! the one named, so the cost follows the number of rewinds, not the length of the session.

use super::Error;
use crate::id::SessionId;
use crate::load;
use crate::model::Turn;
use crate::ports::{SeqRange, Store};

/// A turn written by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// `#N`, from 1.
    Number(u64),
    /// `@` (0) or `@-N`.
    Back(u64),
}

impl Position {
    /// `None` when `t` is not of this form at all (it does not start with `#` or `@`);
    /// `Some(Err)` when it is, badly.
    pub fn parse(t: &str) -> Option<Result<Self, Error>> {
        let t = t.trim();
        let bad = || Error::BadPosition {
            typed: t.to_owned(),
        };
        if let Some(n) = t.strip_prefix('#') {
            return Some(match n.parse::<u64>() {
                Ok(k) if k >= 1 => Ok(Self::Number(k)),
                _ => Err(bad()),
            });
        }
        let rest = t.strip_prefix('@')?;
        Some(match rest {
            "" => Ok(Self::Back(0)),
            _ => match rest.strip_prefix('-').map(str::parse::<u64>) {
                Some(Ok(k)) => Ok(Self::Back(k)),
                _ => Err(bad()),
            },
        })
    }
}

/// The turn at `position` on the session's active branch, numbered as `rewind log` numbers
/// them: the branch's turns by prompt seq. `typed` is what the error repeats.
pub fn turn_at(
    store: &dyn Store,
    session: &SessionId,
    position: Position,
    typed: &str,
) -> Result<Turn, Error> {
    let s = load::session(store, session)?;
    let ranges: Vec<SeqRange> = s
        .branch
        .ranges
        .iter()
        .map(|r| SeqRange::new(r.start, r.end.unwrap_or(u64::MAX)))
        .collect();
    let (mut n, from_end) = match position {
        Position::Number(k) => (k - 1, false),
        Position::Back(k) => (k, true),
    };
    let ordered: Box<dyn Iterator<Item = &SeqRange>> = if from_end {
        Box::new(ranges.iter().rev())
    } else {
        Box::new(ranges.iter())
    };
    for range in ordered {
        if let Some(row) = store.turn_at_in(session, *range, n, from_end)? {
            return Ok(load::decode_one("turn", row)?);
        }
        n = n.saturating_sub(store.turn_count_in(session, *range)?);
    }
    let mut turns = 0;
    for range in &ranges {
        turns += store.turn_count_in(session, *range)?;
    }
    Err(Error::NoSuchTurn {
        typed: typed.trim().to_owned(),
        turns,
    })
}

#[cfg(test)]
mod tests {
    use super::Position;

    #[test]
    fn positions_parse() {
        assert_eq!(
            Position::parse("#3").expect("ok").expect("ok"),
            Position::Number(3)
        );
        assert_eq!(
            Position::parse(" @ ").expect("ok").expect("ok"),
            Position::Back(0)
        );
        assert_eq!(
            Position::parse("@-2").expect("ok").expect("ok"),
            Position::Back(2)
        );
        for bad in ["#0", "#", "#x", "@x", "@-", "@--1", "#-1"] {
            assert!(matches!(Position::parse(bad), Some(Err(_))), "{bad}");
        }
        assert!(Position::parse("msg_12").is_none());
        assert!(Position::parse("3f2a").is_none());
    }
}
