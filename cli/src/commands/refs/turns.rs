//! Turns by position: `#N` (the Nth turn of the active branch, from 1), `@` (the latest) and
//! `@-N` (N before it), numbered the way `rewind log` numbers them.

use super::super::{CliError, NativeEngine};
use rewind_core::ErrorKind;
use rewind_core::id::SessionId;
use rewind_core::model::Turn;

/// The active branch's turns, oldest first: turn `#N` is `[N - 1]`.
pub(crate) fn branch_turns(
    engine: &NativeEngine,
    session: &SessionId,
) -> Result<Vec<Turn>, CliError> {
    let s = rewind_core::load::session(engine.store(), session)?;
    let mut turns: Vec<Turn> = rewind_core::load::turns(engine.store(), session)?
        .items
        .into_iter()
        .filter(|t| s.branch.contains(t.prompt_seq))
        .collect();
    turns.sort_by_key(|t| t.prompt_seq);
    Ok(turns)
}

/// `#N`, `@`, `@-N` as a turn of the active branch; `None` when `typed` is not of that form.
pub(super) fn numbered(
    engine: &NativeEngine,
    session: &SessionId,
    typed: &str,
) -> Result<Option<Turn>, CliError> {
    let t = typed.trim();
    let Some(spec) = TurnSpec::parse(t) else {
        return Ok(None);
    };
    let spec = spec.map_err(|why| CliError::new(ErrorKind::InvalidInput, why))?;
    let mut turns = branch_turns(engine, session)?;
    let n = turns.len();
    let index = match spec {
        TurnSpec::Number(k) if (1..=n).contains(&k) => k - 1,
        TurnSpec::Back(k) if k < n => n - 1 - k,
        _ => {
            let has = match n {
                0 => "it has no turns yet".to_owned(),
                1 => "it has 1 turn, #1 (also @)".to_owned(),
                n => format!("it has {n} turns, #1 to #{n} (@ is #{n})"),
            };
            return Err(CliError::new(
                ErrorKind::NotFound,
                format!("the session has no turn `{t}` on its active branch: {has}"),
            ));
        }
    };
    Ok(Some(turns.swap_remove(index)))
}

/// A turn written by position.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum TurnSpec {
    /// `#N`, from 1.
    Number(usize),
    /// `@` (0) or `@-N`.
    Back(usize),
}

impl TurnSpec {
    /// `None` when `t` is not of this form at all; `Some(Err)` when it is, badly.
    pub(super) fn parse(t: &str) -> Option<Result<Self, String>> {
        let bad = || format!("`{t}` is not a turn: write #N (from #1), @ (the latest) or @-N");
        if let Some(n) = t.strip_prefix('#') {
            return Some(match n.parse::<usize>() {
                Ok(k) if k >= 1 => Ok(Self::Number(k)),
                _ => Err(bad()),
            });
        }
        let rest = t.strip_prefix('@')?;
        Some(match rest {
            "" => Ok(Self::Back(0)),
            _ => match rest.strip_prefix('-').map(str::parse::<usize>) {
                Some(Ok(k)) => Ok(Self::Back(k)),
                _ => Err(bad()),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::TurnSpec;

    #[test]
    fn turn_positions_parse() {
        assert_eq!(TurnSpec::parse("#3"), Some(Ok(TurnSpec::Number(3))));
        assert_eq!(TurnSpec::parse("@"), Some(Ok(TurnSpec::Back(0))));
        assert_eq!(TurnSpec::parse("@-2"), Some(Ok(TurnSpec::Back(2))));
        assert!(matches!(TurnSpec::parse("#0"), Some(Err(_))));
        assert!(matches!(TurnSpec::parse("@x"), Some(Err(_))));
        assert_eq!(TurnSpec::parse("msg_12"), None);
    }
}
