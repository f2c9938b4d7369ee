//! How the CLI's text looks: colour when it goes to a terminal (`--color auto|always|never`,
//! `NO_COLOR`, `CLICOLOR_FORCE`), short ids, plurals and times. Every command formats its text
//! through one [`Style`], so `--color never` and a pipe give the same bytes with no escapes.

pub(crate) use crate::visible::{visible, visible_lines};
use anstyle::{AnsiColor, Effects};
use rewind_core::model::Millis;
use std::io::IsTerminal as _;

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ColorChoice {
    /// Colour when the output is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always colour (also through a pipe, e.g. into `less -R`).
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour text going to stdout (or stderr, when `to_stderr`).
    pub(super) fn enabled(self, to_stderr: bool) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto if anstyle_query::no_color() => false,
            Self::Auto if anstyle_query::clicolor_force() => true,
            Self::Auto => {
                let tty = if to_stderr {
                    std::io::stderr().is_terminal()
                } else {
                    std::io::stdout().is_terminal()
                };
                // Not `anstyle_query::term_supports_color`: it also refuses colour where TERM is
                // unset, which a terminal without it has always had here.
                tty && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

/// What a piece of text is, which decides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// An id (the part people type).
    Id,
    /// A heading: a session, a file in a diff.
    Heading,
    /// Added lines, success.
    Added,
    /// Removed lines.
    Removed,
    /// A hunk header, a turn number.
    Meta,
    /// Secondary text: times, hashes, the tail of an id.
    Dim,
    /// Something to look at before going on: a conflict, a warning.
    Warn,
    /// A refusal or an error.
    Bad,
    /// A command to run.
    Hint,
}

/// The formatting every command's text goes through.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    color: bool,
    /// "Now", for relative times.
    now: Millis,
    /// Absolute times instead of relative ones (`--absolute`).
    absolute: bool,
}

/// Hex characters of an id shown in text (after its type prefix); any unique prefix is accepted
/// back (see `refs`), and 8 hex digits of a random id almost never collide within a store.
pub(crate) const SHORT_ID: usize = 8;

impl Style {
    pub(crate) fn new(color: bool, now: Millis) -> Self {
        Self {
            color,
            now,
            absolute: false,
        }
    }

    /// Show times as dates instead of "3 minutes ago".
    #[must_use]
    pub(crate) fn with_absolute_times(mut self, absolute: bool) -> Self {
        self.absolute = absolute;
        self
    }

    /// Whether escapes are written at all.
    pub(crate) fn color(&self) -> bool {
        self.color
    }

    /// `text` in the colour of `role` (unchanged without colour).
    pub(crate) fn paint(&self, role: Role, text: impl AsRef<str>) -> String {
        let text = text.as_ref();
        if !self.color || text.is_empty() {
            return text.to_owned();
        }
        let style = match role {
            Role::Id => anstyle::Style::new()
                .fg_color(Some(AnsiColor::Magenta.into()))
                .effects(Effects::BOLD),
            Role::Heading => anstyle::Style::new().effects(Effects::BOLD),
            Role::Added => anstyle::Style::new().fg_color(Some(AnsiColor::Green.into())),
            Role::Removed => anstyle::Style::new().fg_color(Some(AnsiColor::Red.into())),
            Role::Meta => anstyle::Style::new().fg_color(Some(AnsiColor::Cyan.into())),
            Role::Dim => anstyle::Style::new().effects(Effects::DIMMED),
            Role::Warn => anstyle::Style::new()
                .fg_color(Some(AnsiColor::Yellow.into()))
                .effects(Effects::BOLD),
            Role::Bad => anstyle::Style::new()
                .fg_color(Some(AnsiColor::Red.into()))
                .effects(Effects::BOLD),
            Role::Hint => anstyle::Style::new().fg_color(Some(AnsiColor::Blue.into())),
        };
        format!("{style}{text}{style:#}")
    }

    /// Stored text (a prompt's line, a path, a title) in the colour of `role`, its control
    /// characters made visible first (see `visible`), so it cannot break the colours around it.
    pub(crate) fn text(&self, role: Role, stored: impl AsRef<str>) -> String {
        self.paint(role, visible(stored.as_ref()))
    }

    /// An id as people read it: its type prefix and the first [`SHORT_ID`] characters, the part
    /// to type in colour. Anything not shaped like `xyz_…` is shown whole (ids a host chose are
    /// stored text: shown visible).
    pub(crate) fn id(&self, id: impl AsRef<str>) -> String {
        self.text(Role::Id, short_id(id.as_ref()))
    }

    /// A command to run, e.g. `rewind undo` (its arguments may quote stored paths).
    pub(crate) fn hint(&self, command: impl AsRef<str>) -> String {
        self.paint(Role::Hint, format!("`{}`", visible(command.as_ref())))
    }

    /// When something happened: "3 minutes ago", or with `--absolute` a local date and time.
    pub(crate) fn time(&self, at: Millis) -> String {
        let text = if self.absolute {
            absolute_time(at)
        } else {
            relative_time(self.now, at)
        };
        self.paint(Role::Dim, text)
    }
}

/// `ses_0123abcd…` → `ses_0123abcd`: the type prefix and [`SHORT_ID`] characters.
pub(crate) fn short_id(id: &str) -> &str {
    match id.find('_') {
        Some(i) if i <= 4 => {
            let end = id
                .char_indices()
                .nth(i + 1 + SHORT_ID)
                .map_or(id.len(), |(at, _)| at);
            &id[..end]
        }
        _ => id,
    }
}

/// "1 file", "2 files": `n` and the noun, its plural made by adding "s" unless given.
pub(crate) fn count(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {}", plural_of(one))
    }
}

fn plural_of(one: &str) -> String {
    match one {
        "reply" => "replies".to_owned(),
        "copy" => "copies".to_owned(),
        "entry" => "entries".to_owned(),
        "is" => "are".to_owned(),
        "this" => "these".to_owned(),
        w if w.ends_with("ch") || w.ends_with('s') || w.ends_with('x') => format!("{w}es"),
        w => format!("{w}s"),
    }
}

/// "just now", "45 seconds ago", "3 minutes ago", "2 hours ago", "5 days ago", "4 months ago",
/// "2 years ago"; a time ahead of `now` (another machine's clock) is "in the future".
pub(crate) fn relative_time(now: Millis, at: Millis) -> String {
    if at > now.saturating_add(1_000) {
        return "in the future".to_owned();
    }
    let secs = now.saturating_sub(at).max(0) / 1_000;
    let (n, unit) = match secs {
        0..=4 => return "just now".to_owned(),
        5..=59 => (secs, "second"),
        60..=3_599 => (secs / 60, "minute"),
        3_600..=86_399 => (secs / 3_600, "hour"),
        86_400..=2_591_999 => (secs / 86_400, "day"),
        2_592_000..=31_535_999 => (secs / 2_592_000, "month"),
        _ => (secs / 31_536_000, "year"),
    };
    format!(
        "{} ago",
        count(usize::try_from(n).unwrap_or(usize::MAX), unit)
    )
}

/// A local date and time with its offset, e.g. `2026-12-01 14:52:55 +01:00`.
pub(crate) fn absolute_time(at: Millis) -> String {
    match jiff::Timestamp::from_millisecond(at) {
        Ok(ts) => ts
            .to_zoned_datetime(jiff::tz::TimeZone::system())
            .strftime("%Y-%m-%d %H:%M:%S %:z")
            .to_string(),
        Err(_) => at.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_keep_the_prefix_and_eight_characters() {
        assert_eq!(short_id("ses_0123456789abcdef"), "ses_01234567");
        assert_eq!(short_id("op_0123456789abcdef"), "op_01234567");
        assert_eq!(short_id("ses_012"), "ses_012");
        assert_eq!(short_id("my-own-key"), "my-own-key");
    }

    #[test]
    fn plurals_read_as_english() {
        assert_eq!(count(1, "file"), "1 file");
        assert_eq!(count(0, "file"), "0 files");
        assert_eq!(count(2, "reply"), "2 replies");
        assert_eq!(count(3, "patch"), "3 patches");
    }

    #[test]
    fn relative_times_round_down_to_the_largest_unit() {
        let now = 10_000_000_000;
        assert_eq!(relative_time(now, now), "just now");
        assert_eq!(relative_time(now, now - 45_000), "45 seconds ago");
        assert_eq!(relative_time(now, now - 61_000), "1 minute ago");
        assert_eq!(relative_time(now, now - 7_300_000), "2 hours ago");
        assert_eq!(relative_time(now, now - 3 * 86_400_000), "3 days ago");
        assert_eq!(relative_time(now, now + 60_000), "in the future");
    }

    #[test]
    fn without_colour_text_is_unchanged() {
        let plain = Style::new(false, 0);
        assert_eq!(plain.paint(Role::Bad, "x"), "x");
        let coloured = Style::new(true, 0);
        assert!(coloured.paint(Role::Bad, "x").starts_with("\x1b["));
        assert!(coloured.paint(Role::Bad, "x").ends_with("\x1b[0m"));
    }
}
