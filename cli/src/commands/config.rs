//! `rewind config [--max-file-size BYTES] [--quota BYTES|none] [--keep N] [--older-than DAYS|never]
//! [--ignored-files BYTES|off] [--pager CMD|default]`:
//! show the settings, changing the ones given.

use super::{CliError, Context, Report};
use rewind_core::ErrorKind;
use rewind_host::config::Config;

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Record files up to this many bytes; larger ones become failed captures.
    #[arg(long, value_name = "BYTES")]
    max_file_size: Option<u64>,
    /// Content bytes one session may reference, or `none`.
    #[arg(long, value_name = "BYTES|none")]
    quota: Option<String>,
    /// gc keeps the newest N checkpoints of each session.
    #[arg(long)]
    keep: Option<usize>,
    /// gc drops sessions idle for more than DAYS days, or `never`.
    #[arg(long, value_name = "DAYS|never")]
    older_than: Option<String>,
    /// Snapshots track ignored files in walked directories up to BYTES (`.env`, `*.pem`), or
    /// `off`: none.
    #[arg(long, value_name = "BYTES|off")]
    ignored_files: Option<String>,
    /// The pager of long output on a terminal (git's `core.pager`): a command run by `sh -c`,
    /// `""` or `cat` for none, `default` for `$PAGER` / `less`. `$REWIND_PAGER` overrides it.
    #[arg(long, value_name = "CMD|default")]
    pager: Option<String>,
}

fn number_or(word: &str, value: &str, what: &str) -> Result<Option<u64>, CliError> {
    if value == word {
        return Ok(None);
    }
    value.parse().map(Some).map_err(|_| {
        CliError::new(
            ErrorKind::InvalidInput,
            format!("{what} must be a number or `{word}`, not {value:?}"),
        )
    })
}

pub(super) fn run(ctx: &Context, a: Args) -> Result<Report, CliError> {
    let host = |e: rewind_core::HostError| CliError::host(e.to_string());
    let mut config = Config::load(&ctx.db).map_err(host)?;
    let before = config.clone();
    if let Some(n) = a.max_file_size {
        config.max_file_bytes = n;
    }
    if let Some(q) = &a.quota {
        config.session_quota_bytes = number_or("none", q, "--quota")?;
    }
    if let Some(k) = a.keep {
        super::gc::check_keep(k, "--keep")?;
        config.keep = k;
    }
    if let Some(d) = &a.older_than {
        config.older_than_days = number_or("never", d, "--older-than")?;
        if config.older_than_days == Some(0) {
            return Err(CliError::new(
                ErrorKind::InvalidInput,
                "--older-than 0 would make every plain `rewind gc` drop every session, including \
                 the one in use; give a number of days or `never`",
            ));
        }
    }
    if let Some(v) = &a.ignored_files {
        match number_or("off", v, "--ignored-files")? {
            Some(n) => (config.track_ignored_files, config.ignored_file_max_bytes) = (true, n),
            None => config.track_ignored_files = false,
        }
    }
    if let Some(p) = &a.pager {
        config.pager = (p != "default").then(|| p.clone());
    }
    if config != before {
        if let Some(dir) = ctx.db.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::host(format!("cannot create {}: {e}", dir.display())))?;
        }
        config.save(&ctx.db).map_err(host)?;
    }
    let show = |v: Option<u64>, none: &str| v.map_or(none.to_owned(), |n| n.to_string());
    let text = format!(
        "max file size   {} bytes\nsession quota   {}\ngc keeps        {} checkpoints per session\ngc drops after  {}\nignored files   {}\npager           {}\n({})",
        config.max_file_bytes,
        show(config.session_quota_bytes, "none"),
        config.keep,
        config
            .older_than_days
            .map_or("never".to_owned(), |d| format!("{d} idle days")),
        show(config.ignored_files_cap(), "off")
            + if config.track_ignored_files {
                " bytes"
            } else {
                ""
            },
        config.pager.as_deref().map_or_else(
            || "default ($PAGER, else less)".to_owned(),
            |p| format!("{p:?}")
        ),
        Config::path_for(&ctx.db).display()
    );
    Ok(Report::new(&config, text))
}
