//! `rewind both [SESSION] --to MSG [--policy …] [--path P]...`.

use super::apply::PolicyArg;
use super::refs::Ref;
use super::{CliError, Context, Report, SessionArg, Verb};
use crate::style::{Role, Style, short_id};
use rewind_core::both::{Options, Outcome};
use rewind_core::id::SessionId;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    // `--since`: the file rewinds' old spelling of `--to`, taken by every rewind alike.
    #[arg(alias = "since")]
    /// The prompt to go back to: an id or prefix, or #N, @, @-1.
    #[arg(long, value_name = "TARGET", add = super::candidates::turns())]
    to: String,
    /// How to treat unsafe files.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
    /// Only these paths.
    #[arg(long = "path", value_name = "P")]
    paths: Vec<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let to = Ref::new(&a.to)?;
    let mut engine = ctx.engine(Verb::Rewind { files: true })?;
    let session = ctx.session(&engine, &a.session)?;
    let opts = Options {
        to: to.resolve(ctx.lookup(&engine), &session)?,
        policy: a.policy.into(),
        paths: a.paths,
    };
    let mut retry = format!(
        "rewind both {} --to {}",
        short_id(session.as_str()),
        short_id(opts.to.as_str())
    );
    for p in &opts.paths {
        retry.push_str(&format!(" --path {}", super::verdict::shell_word(p)));
    }
    let mut out = engine.rewind_both(&session, opts)?;
    rewind_host::agent_copy::settle(&mut out.agent_resume);
    rewind_host::agent_copy::bind::expect(&ctx.db, out.agent_resume.as_deref(), &session);
    let text = describe(&ctx.style, &session, &out, Some(&retry));
    Ok(Report::new(&out, text).refused(!out.rewound))
}

/// The human form of a `both` rewind, shared with the picker.
pub(super) fn describe(
    style: &Style,
    session: &SessionId,
    out: &Outcome,
    retry: super::verdict::Retry<'_>,
) -> String {
    let mut text = super::verdict::outcome(style, session, &out.files, retry);
    if out.rewound {
        text.push_str(&format!(
            "\nconversation rewound to before {}",
            style.id(out.target_message_id.as_str())
        ));
    } else {
        text.push_str(&format!(
            "\n{}",
            style.paint(Role::Dim, "conversation untouched")
        ));
    }
    text.push_str(&super::agent_resume::describe(
        style,
        out.agent_resume.as_deref(),
    ));
    text
}
