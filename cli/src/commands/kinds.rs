//! What each command needs around it: a store or not, one session or several, a pager, where
//! its text goes. The dispatch in `mod.rs` asks these before it builds the context.

use super::{Command, session};

impl Command {
    /// Whether the command runs where there is no store yet: it starts one (`session new`,
    /// `init`, `config set`) or reads none as empty (`session list`). Every other command needs
    /// recorded data and says there is none, creating nothing.
    pub(super) fn works_without_store(&self) -> bool {
        matches!(
            self,
            Self::Init(_)
                | Self::Doctor(_)
                | Self::Status(_)
                | Self::Import(_)
                | Self::Completions(_)
                | Self::Man
                | Self::Help(_)
                | Self::Session(session::Args::New { .. } | session::Args::List)
                | Self::Config(_)
                | Self::Demo(_)
                | Self::Hook(_)
                | Self::Serve(_)
                | Self::Mcp(_)
                | Self::Watch(_)
        )
    }

    /// Whether the command acts on one session (and so reports a missing store as a missing
    /// session, see `Context::session`).
    pub(super) fn acts_on_a_session(&self) -> bool {
        !matches!(
            self,
            Self::Gc(_)
                | Self::Stats(_)
                | Self::Recover(_)
                | Self::Trust(_)
                | Self::Session(_)
                | Self::Import(_)
        )
    }

    /// Whether, where there is no store, the command has simply nothing to do (it says so and
    /// succeeds, opening nothing): there is nothing to collect without a store.
    pub(super) fn nothing_to_do_without_store(&self) -> bool {
        matches!(self, Self::Gc(_))
    }

    /// Whether the command's output is paged on a terminal (`output::page`), as git's `log`.
    pub(super) fn pages(&self) -> bool {
        matches!(
            self,
            Self::Log(_) | Self::Ops(_) | Self::Preview(_) | Self::Diff(_) | Self::Show(_)
        )
    }

    /// Whether the command's text goes to stderr (its stdout belongs to something else).
    pub(super) fn text_to_stderr(&self) -> bool {
        matches!(self, Self::Exec(_))
    }
}
