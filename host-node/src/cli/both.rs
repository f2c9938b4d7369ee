//! `rewind both [SESSION] --to MSG [--policy …] [--path P]...`.

use super::apply::{PolicyArg, describe_outcome};
use super::{Access, CliError, Context, Report, SessionArg, parse_id};
use rewind_core::both::{Options, Outcome};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    session: SessionArg,
    /// The prompt to go back to.
    #[arg(long, value_name = "MSG")]
    to: String,
    /// How to treat unsafe files.
    #[arg(long, value_enum, default_value_t)]
    policy: PolicyArg,
    /// Only these paths.
    #[arg(long = "path", value_name = "P")]
    paths: Vec<String>,
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let opts = Options {
        to: parse_id(&a.to)?,
        policy: a.policy.into(),
        paths: a.paths,
    };
    let mut engine = ctx.engine(Access::Rewrite)?;
    let session = ctx.session(&engine, &a.session)?;
    let out = engine.rewind_both(&session, opts)?;
    let text = describe(&out);
    Ok(Report::new(&out, text).refused(!out.rewound))
}

/// The human form of a `both` rewind, shared with the picker.
pub(super) fn describe(out: &Outcome) -> String {
    let mut text = describe_outcome(&out.files);
    if out.rewound {
        text.push_str(&format!(
            "\nconversation rewound to before {}",
            out.target_message_id
        ));
    } else {
        text.push_str("\nconversation untouched");
    }
    text
}
