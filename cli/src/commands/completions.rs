//! `rewind completions <shell>` and `rewind man`: generated from the same clap definitions the
//! parser uses, so they never drift from the commands.

use super::{Cli, CliError, Report};
use clap::CommandFactory as _;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// The script, e.g. for `rewind completions bash > ~/.local/share/bash-completion/completions/rewind`.
pub(super) fn run(a: &Args) -> Result<Report, CliError> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "rewind", &mut out);
    let text = String::from_utf8(out)
        .map_err(|e| CliError::host(format!("the completion script is not UTF-8: {e}")))?;
    Ok(Report::raw(text))
}

/// Answer the shell when it asks for completions (`COMPLETE=<shell> rewind -- <words>`, or
/// `COMPLETE=<shell> rewind` for the registration script): true when it did, and the process
/// should end. The candidates come from the store read-only (`candidates`); a failure to
/// answer is no candidates, never an error the shell would print.
pub(crate) fn complete_if_asked() -> bool {
    let asked = std::env::var_os("COMPLETE").is_some_and(|v| !v.is_empty() && v != "0");
    if !asked {
        return false;
    }
    let args = std::env::args_os();
    let cwd = std::env::current_dir().ok();
    let answered =
        clap_complete::CompleteEnv::with_factory(Cli::command).try_complete(args, cwd.as_deref());
    // Not a completion request after all (an unknown shell is one, answered with nothing).
    !matches!(answered, Ok(false))
}

/// The man page of `rewind` with every subcommand in it.
pub(super) fn man() -> Result<Report, CliError> {
    let cmd = Cli::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut out)
        .map_err(|e| CliError::host(format!("cannot render the man page: {e}")))?;
    // The subcommands, one section each, after the top-level page.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let page = clap_mangen::Man::new(sub.clone()).title(format!("rewind-{}", sub.get_name()));
        page.render_title(&mut out)
            .and_then(|()| page.render_name_section(&mut out))
            .and_then(|()| page.render_synopsis_section(&mut out))
            .and_then(|()| page.render_options_section(&mut out))
            .map_err(|e| CliError::host(format!("cannot render the man page: {e}")))?;
    }
    let text = String::from_utf8(out)
        .map_err(|e| CliError::host(format!("the man page is not UTF-8: {e}")))?;
    Ok(Report::raw(text))
}
