//! `rewind both SESSION --to MSG [--policy …] [--path P]...`.

use super::apply::{PolicyArg, describe_outcome};
use super::{Access, CliError, Context, Report, parse_id};
use rewind_core::both::Options;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The session.
    session: String,
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
    let session = parse_id(&a.session)?;
    let opts = Options {
        to: parse_id(&a.to)?,
        policy: a.policy.into(),
        paths: a.paths,
    };
    let out = ctx.engine(Access::Rewrite)?.rewind_both(&session, opts)?;
    let mut text = describe_outcome(&out.files);
    if out.rewound {
        text.push_str(&format!(
            "\nconversation rewound to before {}",
            out.target_message_id
        ));
    } else {
        text.push_str("\nconversation untouched");
    }
    Ok(Report::new(&out, text).refused(!out.rewound))
}
