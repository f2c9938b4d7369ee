//! A V4A patch sent through the shell: Codex's model may run `apply_patch` as a heredoc
//! inside a `Bash` command (`apply_patch <<'EOF' … EOF`, optionally after `cd <dir> &&`), the
//! forms codex-rs/apply-patch/src/invocation.rs (`extract_apply_patch_from_bash`) accepts. The
//! hook then sees a shell command; this finds the patch in it so its files get before-bytes
//! like a direct `apply_patch`.

/// A heredoc'd patch: its text and the directory the command changed to first, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heredoc<'a> {
    /// `cd <dir> &&` before the command: the patch's paths are relative to it.
    pub dir: Option<&'a str>,
    /// The heredoc body (the patch), without the delimiter lines.
    pub patch: &'a str,
}

/// The patch `command` feeds to `apply_patch` (or `applypatch`) on a heredoc, if it does.
pub fn heredoc(command: &str) -> Option<Heredoc<'_>> {
    let (head, rest) = command.trim_start().split_once('\n')?;
    let (call, delimiter) = head.split_once("<<")?;
    let call = call.trim();
    let (dir, program) = match call.strip_prefix("cd ") {
        Some(rest) => {
            let (dir, rest) = word(rest.trim_start())?;
            (Some(dir), rest.trim_start().strip_prefix("&&")?.trim())
        }
        None => (None, call),
    };
    if !matches!(program, "apply_patch" | "applypatch") {
        return None;
    }
    let delimiter = unquote(delimiter.trim().trim_start_matches('-').trim());
    if delimiter.is_empty() || delimiter.contains(char::is_whitespace) {
        return None;
    }
    // The body runs to the first line that is the delimiter alone.
    let mut end = None;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == delimiter {
            end = Some(at);
            break;
        }
        at += line.len();
    }
    // A command after the heredoc (`… EOF\nmake`) is more than a patch: not one.
    let after = &rest[end?..].split_once('\n').map_or("", |(_, a)| a);
    if !after.trim().is_empty() {
        return None;
    }
    Some(Heredoc {
        dir,
        patch: &rest[..end?],
    })
}

/// The first shell word of `text` (bare, or in single or double quotes) and what follows it.
fn word(text: &str) -> Option<(&str, &str)> {
    for q in ['\'', '"'] {
        if let Some(inner) = text.strip_prefix(q) {
            let end = inner.find(q)?;
            return Some((&inner[..end], &inner[end + 1..]));
        }
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    (end > 0).then(|| (&text[..end], &text[end..]))
}

fn unquote(word: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = word.strip_prefix(q).and_then(|w| w.strip_suffix(q)) {
            return inner;
        }
    }
    word
}
