//! `rewind serve`: the JS API over JSON-RPC 2.0, for programs in any language. `--stdio` reads
//! one request per line on stdin and writes one response per line on stdout; `--http ADDR`
//! serves the same requests as `POST /rpc`. Method names, positional `params` and results
//! are the JS `Engine`'s (`rpc::METHODS`); bytes are base64 strings; each error carries the
//! stable rewind code in `error.data.code`. See `jsonrpc` (framing), `backend` (roots and
//! opening the store per call), `stdio` and `http`.

mod backend;
mod http;
mod jsonrpc;
mod stdio;
#[cfg(test)]
mod tests;

pub(crate) use backend::Backend;

use crate::CliError;
use rewind_core::ErrorKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The environment variable holding the HTTP bearer token (wins over `token` in --config).
pub const TOKEN_ENV: &str = "REWIND_SERVE_TOKEN";

/// `rewind serve`'s arguments.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub struct Args {
    /// JSON-RPC 2.0 on stdin/stdout: one JSON request (or batch) per line in, one response per
    /// line out; ends at end of input.
    #[arg(long)]
    stdio: bool,
    /// JSON-RPC 2.0 over HTTP: `POST /rpc` (single or batch) and `GET /health`, at ADDR
    /// (`HOST:PORT`, or a bare port on 127.0.0.1; port 0 picks a free one, printed on stderr).
    /// `/rpc` always needs `Authorization: Bearer <token>`: REWIND_SERVE_TOKEN, `token` in
    /// --config, or one generated into .rewind/serve-token (printed on stderr).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// A directory whose workspaces may be served: the root itself or any directory inside it
    /// (repeatable). Default: the current workspace (found as for every command).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<PathBuf>,
    /// A JSON file `{"roots": [...], "token": "...", "hosts": [...], "origins": [...]}` (roots
    /// relative to the file's directory).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(flatten)]
    http_opts: http::Options,
}

/// `--config`'s file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    #[serde(default)]
    roots: Vec<PathBuf>,
    #[serde(default)]
    token: Option<String>,
    /// `Host` names the HTTP server answers besides the loopback ones (`name` or `name:port`).
    #[serde(default)]
    hosts: Vec<String>,
    /// Browser origins (`scheme://host[:port]`) allowed to call the HTTP server.
    #[serde(default)]
    origins: Vec<String>,
}

fn read_config(path: &Path) -> Result<FileConfig, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::new(ErrorKind::InvalidInput, format!("{}: {e}", path.display())))?;
    let mut c: FileConfig = serde_json::from_str(&text)
        .map_err(|e| CliError::new(ErrorKind::InvalidInput, format!("{}: {e}", path.display())))?;
    let base = path.parent().unwrap_or(Path::new("."));
    for r in &mut c.roots {
        if r.is_relative() {
            *r = base.join(&*r);
        }
    }
    Ok(c)
}

/// Run the server until end of input (`--stdio`) or SIGINT/SIGTERM (`--http`). `workspace`
/// and `db` are the global `--workspace` / `--db`: the one workspace served when no root is
/// given; `store` the global `--store` (a PostgreSQL URL), else each workspace's SQLite file.
pub fn run(
    args: Args,
    workspace: Option<PathBuf>,
    db: Option<PathBuf>,
    store: Option<String>,
) -> Result<(), CliError> {
    let file = match &args.config {
        Some(p) => read_config(p)?,
        None => FileConfig::default(),
    };
    let mut roots = args.roots.clone();
    roots.extend(file.roots);
    let token = match std::env::var(TOKEN_ENV) {
        Ok(t) => Some(http::Given::new(t, TOKEN_ENV)?),
        Err(_) => file
            .token
            .map(|t| http::Given::new(t, "the --config file"))
            .transpose()?,
    };
    let backend = if roots.is_empty() {
        // The current workspace, found as for every command (its `--db` with it).
        let located = crate::locate::locate(workspace, db)?;
        Backend::new(&[located.workspace], Some(located.db))
    } else if workspace.is_some() {
        return Err(CliError::new(
            ErrorKind::InvalidInput,
            "--workspace names the one workspace served without roots: with --root or a \
             config file's roots, requests name their workspace",
        ));
    } else {
        Backend::new(&roots, db)
    }
    .map_err(|e| CliError::new(ErrorKind::InvalidInput, e.message))?
    .with_store(store);
    match &args.http {
        Some(addr) => {
            let mut opts = args.http_opts;
            opts.allow_hosts.extend(file.hosts);
            opts.allow_origins.extend(file.origins);
            http::serve(backend, addr, token, opts)
        }
        None => stdio::serve(&backend),
    }
}
