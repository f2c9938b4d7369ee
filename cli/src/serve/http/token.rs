//! The HTTP server's token: given (`REWIND_SERVE_TOKEN`, or `token` in --config), or else
//! generated once into `.rewind/serve-token` of the first root (the served workspace when
//! there is one) and kept there for later starts. The file is made 0600 and whole (written
//! aside, then linked into place, so a second server starting at once reads the winner's
//! token, never half of one); one that is a link, not a regular file, readable by others or
//! owned by someone else is refused rather than trusted or repaired.

use crate::CliError;
use rewind_core::ErrorKind;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The file's name inside `.rewind/`.
pub(super) const FILE: &str = "serve-token";
/// Bytes of randomness in a generated token (written as hex).
const BYTES: usize = 32;
/// The most a token file may hold.
const MAX_LEN: u64 = 4096;

/// A token given to the server, and where it came from (for messages, never the token).
#[derive(Debug)]
pub(crate) struct Given {
    token: String,
    from: &'static str,
}

impl Given {
    pub(crate) fn new(token: String, from: &'static str) -> Result<Self, CliError> {
        let token = token.trim().to_owned();
        if token.is_empty() {
            return Err(CliError::new(
                ErrorKind::InvalidInput,
                format!("the serve token ({from}) is empty"),
            ));
        }
        Ok(Self { token, from })
    }
}

/// The token in force: the text, where a person finds it (the 401's hint), and the line that
/// says so on stderr at start.
#[derive(Debug)]
pub(super) struct Token {
    pub(super) token: String,
    pub(super) hint: String,
    pub(super) banner: String,
}

/// The given token, or the one in (or newly made in) `root/.rewind/serve-token`.
pub(super) fn resolve(given: Option<Given>, root: &Path) -> Result<Token, CliError> {
    if let Some(g) = given {
        return Ok(Token {
            banner: format!(
                "rewind serve: token from {}: send Authorization: Bearer <token> on POST /rpc",
                g.from
            ),
            hint: format!("the token is {}'s", g.from),
            token: g.token,
        });
    }
    let path = root.join(".rewind").join(FILE);
    let (token, made) = match read(&path)? {
        Some(t) => (t, "kept in"),
        None => (create(&path)?, "generated into"),
    };
    Ok(Token {
        banner: format!(
            "rewind serve: token {made} {} (0600): send Authorization: Bearer {token} on POST /rpc",
            path.display()
        ),
        // Told to anyone who asks without the token: where to look, not the server's paths.
        hint: format!(
            "the token is in .rewind/{FILE} of the server's first root, printed when it started"
        ),
        token,
    })
}

fn untrusted(path: &Path, why: &str) -> CliError {
    CliError::new(
        ErrorKind::Untrusted,
        format!(
            "{}: {why}; remove it (a new token is generated) or give one with {}",
            path.display(),
            super::super::TOKEN_ENV
        ),
    )
}

fn host(path: &Path, e: &std::io::Error) -> CliError {
    CliError::host(format!(
        "{}: {}",
        path.display(),
        rewind_host::disk::describe(e)
    ))
}

/// The token in `path`, checked; `None` when there is no file.
fn read(path: &Path) -> Result<Option<String>, CliError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(host(path, &e)),
    };
    if meta.file_type().is_symlink() {
        return Err(untrusted(path, "the token file is a symbolic link"));
    }
    if !meta.is_file() {
        return Err(untrusted(path, "the token file is not a regular file"));
    }
    let file = std::fs::File::open(path).map_err(|e| host(path, &e))?;
    let opened = file.metadata().map_err(|e| host(path, &e))?;
    check_private(path, &meta, &opened)?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_LEN), &mut text)
        .map_err(|_| untrusted(path, "the token file is not text"))?;
    let token = text.trim();
    if token.is_empty() || token.len() as u64 >= MAX_LEN || token.chars().any(char::is_whitespace) {
        return Err(untrusted(path, "the token file does not hold one token"));
    }
    Ok(Some(token.to_owned()))
}

/// The file opened is the one looked at, is this user's and no one else can read it.
#[cfg(unix)]
fn check_private(
    path: &Path,
    looked: &std::fs::Metadata,
    opened: &std::fs::Metadata,
) -> Result<(), CliError> {
    use std::os::unix::fs::MetadataExt as _;
    if (looked.dev(), looked.ino()) != (opened.dev(), opened.ino()) {
        return Err(untrusted(
            path,
            "the token file changed while it was opened",
        ));
    }
    if opened.uid() != rustix::process::geteuid().as_raw() {
        return Err(untrusted(path, "the token file belongs to another user"));
    }
    if opened.mode() & 0o077 != 0 {
        return Err(untrusted(
            path,
            &format!(
                "the token file is readable by others (mode {:o}, not 600)",
                opened.mode() & 0o777
            ),
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &Path, _: &std::fs::Metadata, _: &std::fs::Metadata) -> Result<(), CliError> {
    Ok(())
}

/// A new random token, as hex.
fn generate() -> Result<String, CliError> {
    let mut bytes = [0u8; BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| CliError::host(format!("cannot make a token (no randomness): {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Make `path` with a new token, or read the one a server starting at the same time made.
fn create(path: &Path) -> Result<String, CliError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(untrusted(dir, "the store directory is a symbolic link"));
        }
        Ok(m) if !m.is_dir() => {
            return Err(untrusted(dir, "the store directory is not a directory"));
        }
        Ok(_) => {}
        Err(_) => std::fs::create_dir(dir)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists if dir.is_dir() => Ok(()),
                _ => Err(e),
            })
            .map_err(|e| host(dir, &e))?,
    }
    let token = generate()?;
    let aside = aside(path);
    // One left by an earlier process that had this pid and died before removing it.
    let _ = std::fs::remove_file(&aside);
    let written = write_private(&aside, &token);
    let linked = written.and_then(|()| std::fs::hard_link(&aside, path));
    let _ = std::fs::remove_file(&aside);
    match linked {
        Ok(()) => Ok(token),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read(path)?.ok_or_else(|| untrusted(path, "the token file vanished while it was made"))
        }
        Err(e) => Err(host(path, &e)),
    }
}

fn aside(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}.tmp", std::process::id()));
    PathBuf::from(name)
}

fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut file = opts.open(path)?;
    file.write_all(format!("{token}\n").as_bytes())?;
    file.sync_all()
}
