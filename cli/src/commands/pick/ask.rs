//! The questions (which prompt, what to restore, which policy, go ahead?), asked with dialoguer
//! on stderr (stdout stays the command's result). Without a terminal there is no one to ask:
//! [`Asker::open`] gives `None`, and every question must have been answered by a flag.

use super::super::{CliError, Context};
use super::ScopeArg;
use super::list::Prompt;
use crate::output;
use crate::style::{Role, Style};
use dialoguer::console::Term;
use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};
use dialoguer::{Confirm, Select};
use rewind_core::files::{Preview, UnsafeFile, UnsafeReason};
use rewind_core::model::Policy;
use std::io::IsTerminal as _;

/// Asks the person at the terminal.
pub(super) struct Asker {
    term: Term,
    /// The colourful theme when the command's text is coloured, else the plain one.
    color: bool,
    colorful: ColorfulTheme,
}

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asker").field("color", &self.color).finish()
    }
}

impl Asker {
    /// Someone to ask: not with `--json` (a program reads the answer), and only when keys come
    /// from a terminal and the questions can be drawn on one.
    pub(super) fn open(ctx: &Context) -> Option<Self> {
        let interactive =
            !ctx.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        interactive.then(|| Self {
            term: Term::stderr(),
            color: ctx.style.color(),
            colorful: ColorfulTheme::default(),
        })
    }

    fn theme(&self) -> &dyn Theme {
        if self.color {
            &self.colorful
        } else {
            &SimpleTheme
        }
    }

    /// The terminal's width in columns.
    pub(super) fn width(&self) -> usize {
        usize::from(self.term.size().1)
    }

    /// The terminal's height in rows.
    pub(super) fn height(&self) -> usize {
        usize::from(self.term.size().0)
    }

    /// One of `items`; `None` when the person backs out (Esc or q). With `report`, the answer
    /// stays on screen after the prompt; long rows would wrap there, so the list does not.
    pub(super) fn select(
        &self,
        prompt: &str,
        items: &[String],
        page: usize,
        report: bool,
    ) -> Result<Option<usize>, CliError> {
        Select::with_theme(self.theme())
            .with_prompt(prompt)
            .items(items)
            .default(0)
            .max_length(page.max(3))
            .report(report)
            .interact_on_opt(&self.term)
            .map_err(terminal)
    }

    /// Yes or no, no by default (Enter, Esc and q all say no).
    pub(super) fn confirm(&self, prompt: &str) -> Result<bool, CliError> {
        let answer = Confirm::with_theme(self.theme())
            .with_prompt(prompt)
            .default(false)
            .interact_on_opt(&self.term)
            .map_err(terminal)?;
        Ok(answer == Some(true))
    }

    /// Long text for the person (the preview and its diff): through the pager, which the
    /// person quits to answer, so the question does not follow a scroll-past; printed as
    /// [`Asker::show`] does where there is no pager.
    #[allow(clippy::unused_self)] // Only an `Asker` has someone to show it to.
    pub(super) fn page(&self, text: &str) {
        if !output::page_on_stderr(text.trim_end()) {
            output::stderr(text.trim_end());
        }
    }

    /// Text for the person, between questions.
    #[allow(clippy::unused_self)] // Only an `Asker` has someone to show it to.
    pub(super) fn show(&self, text: &str) {
        output::stderr(text.trim_end());
    }
}

fn terminal(e: dialoguer::Error) -> CliError {
    CliError::host(format!("cannot ask at the terminal: {e}"))
}

/// A row of a list, cut to `width` columns (escapes do not count) with an ellipsis.
pub(super) fn fit(text: &str, width: usize) -> String {
    dialoguer::console::truncate_str(text, width, "\u{2026}").into_owned()
}

/// Columns `text` takes on screen.
pub(super) fn columns(text: &str) -> usize {
    dialoguer::console::measure_text_width(text)
}

/// One list row: `#N  time  first line of the prompt  2 files +12 -3`, cut to the terminal.
pub(super) fn choose_prompt(
    asker: &Asker,
    style: &Style,
    rows: &[Prompt],
) -> Result<Option<usize>, CliError> {
    let num_w = rows
        .iter()
        .map(|p| p.number.to_string().len() + 1)
        .max()
        .unwrap_or(2);
    let times: Vec<String> = rows.iter().map(|p| style.time(p.at)).collect();
    let time_w = times.iter().map(|t| columns(t)).max().unwrap_or(0);
    let changes: Vec<String> = rows.iter().map(|p| p.changes(style)).collect();
    let changes_w = changes.iter().map(|c| columns(c)).max().unwrap_or(0);
    // Two columns for dialoguer's cursor, one spare so a full row never wraps.
    let width = asker.width().max(40) - 3;
    let longest = rows
        .iter()
        .map(|p| columns(&p.first_line()))
        .max()
        .unwrap_or(0);
    let text_w = width
        .saturating_sub(num_w + time_w + changes_w + 6)
        .max(12)
        .min(longest);
    let items: Vec<String> = rows
        .iter()
        .zip(times.iter().zip(&changes))
        .map(|(p, (time, change))| {
            let num = style.paint(Role::Meta, format!("{:<num_w$}", format!("#{}", p.number)));
            let time_pad = " ".repeat(time_w - columns(time));
            let text = fit(&p.first_line(), text_w);
            let text_pad = " ".repeat(text_w.saturating_sub(columns(&text)));
            fit(
                &format!("{num}  {time}{time_pad}  {text}{text_pad}  {change}"),
                width,
            )
        })
        .collect();
    // Leave room for the question and the lines printed before it.
    let page = asker.height().saturating_sub(4);
    asker.select(
        "Go back to before which prompt (lines: what its turn changed; Esc cancels)",
        &items,
        page,
        false,
    )
}

pub(super) fn choose_scope(
    asker: &Asker,
    style: &Style,
    p: &Prompt,
) -> Result<Option<ScopeArg>, CliError> {
    let choices = [
        ("Restore code and conversation", Some(ScopeArg::Both)),
        ("Restore conversation only", Some(ScopeArg::Conversation)),
        ("Restore code only", Some(ScopeArg::Code)),
        ("Never mind", None),
    ];
    let items: Vec<String> = choices.iter().map(|(t, _)| (*t).to_owned()).collect();
    let prompt = format!(
        "Going back to before {} \"{}\"",
        style.paint(Role::Meta, format!("#{}", p.number)),
        fit(&p.first_line(), 50)
    );
    Ok(asker
        .select(&prompt, &items, items.len(), true)?
        .and_then(|i| choices[i].1))
}

/// Offered only when it would write: the engine refuses a `merge` (a `force`) whole unless every
/// conflicting file merges (can be forced), so each is offered only then; `skip` always writes.
pub(super) fn choose_policy(asker: &Asker, p: &Preview) -> Result<Option<Policy>, CliError> {
    let mut choices: Vec<(String, Option<Policy>)> = Vec::new();
    if p.unsafe_files.iter().all(|f| f.mergeable) {
        choices.push((
            "Merge: undo the agent's changes, keep the later edits".to_owned(),
            Some(Policy::Merge),
        ));
    }
    let files: Vec<&UnsafeFile> = p.unsafe_files.iter().collect();
    let (names, as_they) = (
        super::super::verdict::names(&files),
        if files.len() == 1 {
            "as it is"
        } else {
            "as they are"
        },
    );
    choices.push((
        format!("Skip: restore the other files, leave {names} {as_they}"),
        Some(Policy::Skip),
    ));
    if p.unsafe_files.iter().all(|f| f.forceable) {
        choices.push((
            "Force: overwrite the later edits too (undoable)".to_owned(),
            Some(Policy::Force),
        ));
    }
    choices.push(("Cancel".to_owned(), None));
    let items: Vec<String> = choices.iter().map(|(t, _)| t.clone()).collect();
    let prompt = policy_question(p);
    Ok(asker
        .select(&prompt, &items, items.len(), true)?
        .and_then(|i| choices[i].1))
}

/// The policy question, naming the files: `src/app.py was edited since the agent changed it`.
fn policy_question(p: &Preview) -> String {
    let files: Vec<&UnsafeFile> = p.unsafe_files.iter().collect();
    let names = super::super::verdict::names(&files);
    let one = files.len() == 1;
    let edited = files
        .iter()
        .all(|f| f.reason == UnsafeReason::ExternalModified);
    match (edited, one) {
        (true, true) => format!("{names} was edited since the agent changed it"),
        (true, false) => format!("{names} were edited since the agent changed them"),
        (false, true) => format!("{names} cannot be restored as it is"),
        (false, false) => format!("{names} cannot be restored as they are"),
    }
}

pub(super) fn question(scope: ScopeArg) -> String {
    let what = match scope {
        ScopeArg::Both => "code and conversation",
        ScopeArg::Conversation => "the conversation",
        ScopeArg::Code => "the code",
    };
    format!("Rewind {what}?")
}
