//! The help, grouped as `git help` groups it: `rewind --help` (and `rewind help`) lists the
//! everyday commands, what people type at a terminal, and names the plumbing (recording, hooks,
//! servers, upkeep) in one line; `rewind help --all` lists every command, `rewind help <command>`
//! shows one command's flags. Completions and the man page still have every command.

use super::{Cli, CliError, Report};
use clap::{CommandFactory as _, FromArgMatches as _};

/// The commands `rewind --help` lists, in the order a newcomer meets them.
const EVERYDAY: &[&str] = &[
    "status",
    "log",
    "show",
    "pick",
    "preview",
    "diff",
    "apply",
    "conversation",
    "both",
    "undo",
    "redo",
    "ops",
    "fork",
    "session",
    "exec",
    "init",
    "doctor",
    "import",
    "demo",
];

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// List every command, the plumbing too.
    #[arg(long, short)]
    all: bool,
    /// The command (and subcommand) whose flags to show, e.g. `rewind help session rm`.
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
}

/// The `rewind` command with the grouped top-level help.
pub(crate) fn command() -> clap::Command {
    let cmd = Cli::command();
    let width = EVERYDAY.iter().map(|n| n.len()).max().unwrap_or(0);
    let about = |name: &str| {
        cmd.find_subcommand(name)
            .and_then(|s| s.get_about())
            .map(|a| a.to_string())
            .unwrap_or_default()
    };
    let everyday: Vec<String> = EVERYDAY
        .iter()
        .filter(|n| cmd.find_subcommand(n).is_some())
        .map(|n| format!("  {n:width$}  {}", about(n)))
        .collect();
    let plumbing: Vec<&str> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && !EVERYDAY.contains(&s.get_name()))
        .map(clap::Command::get_name)
        .collect();
    let template = format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\nEveryday commands:\n{}\n\n\
         Plumbing and the rest (`rewind help --all` describes them):\n{}\n\n\
         `rewind help <command>` (or `rewind <command> -h`) shows a command's flags.\n\n\
         Options:\n{{options}}",
        everyday.join("\n"),
        wrap(&plumbing, 2, 96),
    );
    cmd.help_template(template)
}

/// `names`, comma-separated, wrapped at `width` and indented by `indent`.
fn wrap(names: &[&str], indent: usize, width: usize) -> String {
    let pad = " ".repeat(indent);
    let mut lines: Vec<String> = Vec::new();
    let mut line = pad.clone();
    for (i, name) in names.iter().enumerate() {
        let sep = if i + 1 < names.len() { "," } else { "" };
        if line.len() > indent && line.len() + name.len() + 2 > width {
            lines.push(std::mem::replace(&mut line, pad.clone()));
        }
        if line.len() > indent {
            line.push(' ');
        }
        line.push_str(name);
        line.push_str(sep);
    }
    lines.push(line);
    lines.join("\n")
}

/// Parse the process's arguments with the grouped help.
pub(crate) fn parse() -> Result<Cli, clap::Error> {
    let mut matches = command().try_get_matches()?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command()))
}

/// `rewind help [--all] [COMMAND…]`.
pub(super) fn run(a: &Args) -> Result<Report, CliError> {
    if a.command.is_empty() {
        let mut cmd = if a.all {
            Cli::command().subcommand_help_heading("Commands")
        } else {
            command().disable_help_subcommand(true)
        };
        return Ok(Report::raw(cmd.render_help().to_string()));
    }
    let mut cmd = Cli::command();
    cmd.build();
    let mut at = &mut cmd;
    for (i, name) in a.command.iter().enumerate() {
        at = at.find_subcommand_mut(name).ok_or_else(|| {
            let typed = a.command[..=i].join(" ");
            CliError::new(
                rewind_core::ErrorKind::InvalidInput,
                format!("`rewind {typed}` is not a command: `rewind help --all` lists them"),
            )
        })?;
    }
    Ok(Report::raw(at.render_long_help().to_string()))
}
