//! Stored text made safe to show on a terminal. Prompts, replies, paths, notes, tool names and
//! titles come from agents and from whatever wrote the files; written raw, an escape sequence
//! in them would retitle the terminal (`ESC ] 0 ; … BEL`), clear it (`ESC [ 2 J`), move the
//! cursor over what the person reads, or worse. So control characters are shown, the way git
//! and `cat -v` show them:
//!
//! - C0 controls and DEL in caret notation: ESC is `^[`, BEL `^G`, NUL `^@`, DEL `^?`;
//!   carriage return, newline and tab as `\r`, `\n`, `\t`;
//! - C1 controls (U+0080–U+009F, e.g. the one-character CSI U+009B) as `\x9b`.
//!
//! [`visible`] is for text shown on one line (a title, a path, a list row): every control is
//! shown, newline and tab too, so no stored text can start a line of its own. [`visible_lines`]
//! is for text laid out over lines (a diff's body): newline and tab stay. Renderers apply
//! these to the data before styling it, so the CLI's own colours stay intact; the output
//! writer applies [`terminal_safe`] to all human text as a net for anything a renderer missed.
//! `--json` is exact: the JSON encoder escapes control characters itself (see `output`).

use std::borrow::Cow;
use std::fmt::Write as _;

fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}')
}

/// `c` (a control character) as it is shown.
fn show(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\x7f' => out.push_str("^?"),
        '\0'..='\x1f' => {
            out.push('^');
            out.push(char::from(u8::try_from(c).unwrap_or(0) + 0x40));
        }
        _ => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
    }
}

/// `text` with every control character for which `shown` holds made visible.
fn escape(text: &str, shown: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&shown) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if shown(c) {
            show(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Stored text for one line: every control character made visible, newline and tab included.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    escape(text, is_control)
}

/// Stored text laid out over lines: control characters made visible except newline and tab.
pub(crate) fn visible_lines(text: &str) -> Cow<'_, str> {
    escape(text, |c| is_control(c) && c != '\n' && c != '\t')
}

/// The length of the SGR sequence (`ESC [ digits/;/: m`, colour and weight only) at the start of
/// `rest`, the only escape sequence the CLI writes itself; `None` for anything else.
fn sgr_len(rest: &str) -> Option<usize> {
    let body = rest.strip_prefix("\x1b[")?;
    let params = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';' || *b == b':')
        .count();
    (body.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

/// Human output as it goes to a terminal: newline, tab and SGR colour sequences kept, every
/// other control character made visible.
pub(crate) fn terminal_safe(text: &str) -> Cow<'_, str> {
    let risky = |c: char| is_control(c) && c != '\n' && c != '\t';
    let mut chars = text.char_indices().filter(|&(_, c)| risky(c));
    if chars.all(|(at, c)| c == '\x1b' && sgr_len(&text[at..]).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        if c == '\x1b'
            && let Some(n) = sgr_len(&text[at..])
        {
            out.push_str(&text[at..at + n]);
            at += n;
            continue;
        }
        if risky(c) {
            show(&mut out, c);
        } else {
            out.push(c);
        }
        at += c.len_utf8();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_everything_else_is_unchanged() {
        assert_eq!(
            visible("\x1b]0;pwned\x07 \x1b[2J \u{9b}31m x\ty\r\n\0\x7f"),
            "^[]0;pwned^G ^[[2J \\x9b31m x\\ty\\r\\n^@^?"
        );
        assert_eq!(visible_lines("a\tb\nc\x1b[2J"), "a\tb\nc^[[2J");
        assert!(matches!(visible("héllo → ok"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_writer_keeps_colours_and_shows_every_other_control() {
        let coloured = "\x1b[1m\x1b[35mses_1\x1b[0m text\n";
        assert!(matches!(terminal_safe(coloured), Cow::Borrowed(_)));
        assert_eq!(
            terminal_safe("\x1b[31mred\x1b[0m \x1b]0;t\x07 \x1b[2J \u{9b}2J \x1b"),
            "\x1b[31mred\x1b[0m ^[]0;t^G ^[[2J \\x9b2J ^["
        );
    }
}
