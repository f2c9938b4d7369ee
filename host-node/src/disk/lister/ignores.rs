//! The ignore rules in force in one walked directory: its own `.rewindignore`, `.gitignore` and
//! (when it holds a `.git`) `.git/info/exclude`, stacked on its parent's, plus the user's global
//! excludes file. Each matcher is rooted at its directory *relative to the workspace root*, so a
//! path is matched by its workspace path without joining it onto the root.
//!
//! Precedence is that of the `ignore` crate's walker (which shell capture used before): the
//! deepest `.rewindignore` with a say wins outright; otherwise the deepest `.gitignore` with a
//! say, then the deepest `.git/info/exclude`, then the global file. Each matcher is asked about
//! the path alone, never its parents: an ignored directory is never entered, so nothing under
//! it is asked about.

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::fs::FileType;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::super::entry::IGNORE_FILE;

/// What the rules say about one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not ignored, or taken back by a `!` pattern: walked.
    Listed,
    /// Excluded by a `.rewindignore`: never tracked.
    Excluded,
    /// Ignored by git's rules alone: a candidate precious file (a directory is not entered).
    Ignored,
}

/// The ignore files a directory's listing showed.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub(crate) gitignore: bool,
    pub(crate) rewindignore: bool,
    pub(crate) git: bool,
}

impl Found {
    /// Note the entry `name`.
    pub(crate) fn note(&mut self, name: &std::ffi::OsStr) {
        if name == ".gitignore" {
            self.gitignore = true;
        } else if name == IGNORE_FILE {
            self.rewindignore = true;
        } else if name == ".git" {
            self.git = true;
        }
    }

    fn any(&self) -> bool {
        self.gitignore || self.rewindignore || self.git
    }
}

/// One directory's matchers, on top of its parent's (`None` when no directory above had any).
#[derive(Debug)]
pub(crate) struct Layer {
    parent: Option<Arc<Self>>,
    /// `.rewindignore`.
    pub(crate) custom: Option<Gitignore>,
    /// `.gitignore`.
    git: Option<Gitignore>,
    /// `.git/info/exclude` (or a linked worktree's common one).
    exclude: Option<Gitignore>,
}

/// A chain of layers, the deepest first.
pub(crate) type Layers = Option<Arc<Layer>>;

/// The layers in force inside `abs` (the directory `rel`), given what its listing showed.
pub(crate) fn enter(parent: &Layers, abs: &Path, rel: &str, found: &Found) -> Layers {
    if !found.any() {
        return parent.clone();
    }
    let load = |file: PathBuf| load(rel, &file);
    let custom = found
        .rewindignore
        .then(|| load(abs.join(IGNORE_FILE)))
        .flatten();
    let git = found
        .gitignore
        .then(|| load(abs.join(".gitignore")))
        .flatten();
    let exclude = found
        .git
        .then(|| git_dir(abs).and_then(|d| load(d.join("info/exclude"))))
        .flatten();
    if custom.is_none() && git.is_none() && exclude.is_none() {
        return parent.clone();
    }
    Some(Arc::new(Layer {
        parent: parent.clone(),
        custom,
        git,
        exclude,
    }))
}

/// The matcher of the ignore file `file`, rooted at `rel`; `None` when it has no pattern. A
/// malformed line is skipped, and an unreadable file has none, as the `ignore` crate does.
pub(crate) fn load(rel: &str, file: &Path) -> Option<Gitignore> {
    let mut b = GitignoreBuilder::new(rel);
    let _ = b.add(file);
    b.build().ok().filter(|gi| !gi.is_empty())
}

/// Where the `.git` in `abs` keeps `info/`: the directory itself, or for a `.git` *file* (a
/// linked worktree) the common directory its `gitdir:` names (`None` when that cannot be read),
/// exactly as the `ignore` crate resolves it.
fn git_dir(abs: &Path) -> Option<PathBuf> {
    let dot_git = abs.join(".git");
    let is_file = std::fs::metadata(&dot_git).is_ok_and(|m| FileType::is_file(&m.file_type()));
    if !is_file {
        return Some(dot_git);
    }
    let first_line = |p: &Path| -> Option<String> {
        let f = std::fs::File::open(p).ok()?;
        std::io::BufReader::new(f).lines().next()?.ok()
    };
    let line = first_line(&dot_git)?;
    let real = PathBuf::from(line.strip_prefix("gitdir: ")?);
    let common = first_line(&real.join("commondir"))?;
    Some(match common.starts_with('.') {
        true => real.join(common),
        false => PathBuf::from(common),
    })
}

/// The user's global excludes file (`core.excludesFile`, or git's default), rooted at the
/// current directory and asked with absolute paths, as the `ignore` crate does.
pub(crate) struct Global {
    matcher: Gitignore,
    root: PathBuf,
}

impl Global {
    pub(crate) fn load(root: &Path) -> Self {
        let cwd = std::env::current_dir().unwrap_or_default();
        let (matcher, _) = GitignoreBuilder::new(cwd).build_global();
        Self {
            matcher,
            root: root.to_path_buf(),
        }
    }

    fn matched(&self, rel: &Path, is_dir: bool) -> Match<()> {
        if self.matcher.is_empty() {
            return Match::None;
        }
        self.matcher
            .matched(self.root.join(rel), is_dir)
            .map(|_| ())
    }
}

/// What `layers` and `global` say about `rel` (a workspace path).
pub(crate) fn verdict(layers: &Layers, global: &Global, rel: &Path, is_dir: bool) -> Verdict {
    let (mut git, mut exclude) = (Match::None, Match::None);
    let mut at = layers.as_deref();
    while let Some(layer) = at {
        if let Some(gi) = &layer.custom {
            match gi.matched(rel, is_dir) {
                Match::None => {}
                Match::Ignore(_) => return Verdict::Excluded,
                Match::Whitelist(_) => return Verdict::Listed,
            }
        }
        if git.is_none()
            && let Some(gi) = &layer.git
        {
            git = gi.matched(rel, is_dir).map(|_| ());
        }
        if exclude.is_none()
            && let Some(gi) = &layer.exclude
        {
            exclude = gi.matched(rel, is_dir).map(|_| ());
        }
        at = layer.parent.as_deref();
    }
    let git = git.or(exclude);
    let git = if git.is_none() {
        global.matched(rel, is_dir)
    } else {
        git
    };
    match git {
        Match::Ignore(()) => Verdict::Ignored,
        _ => Verdict::Listed,
    }
}
