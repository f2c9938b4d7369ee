//! Checkpoint and restore of a 3-file agent turn in the 10,000-file workspace: the real native
//! engine (SQLite WAL, `synchronous=FULL`) against a shadow-git snapshot of the whole tree,
//! the way Gemini CLI, Cline, Roo and OpenCode keep checkpoints (`git --git-dir=<shadow>
//! --work-tree=<workspace> add -A` then `commit`).

mod phases;
mod table;
mod turn;

use crate::corpus::Corpus;
use crate::harness::Result;
use crate::report::Table;
use crate::shadow::ShadowGit;
use std::path::Path;
use table::Measurements;
use turn::{Cli, Edited};

/// Run the scenario; `samples` scales the warm measurements.
pub fn run_scenario(data: &Path, corpus: &Corpus, samples: usize) -> Result<Table> {
    let dir = data.join("checkpoint");
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("rewind.db");
    let git = ShadowGit {
        git_dir: dir.join("shadow.git"),
        work_tree: corpus.root.clone(),
    };
    let mut edited = Edited::pick(corpus)?;
    let cli = Cli {
        bin: std::env::current_exe()?.with_file_name("rewind"),
        ws: corpus.root.clone(),
        db: db.clone(),
        scratch: dir.join("cli-scratch"),
    };
    let result = scenario(&db, &git, &cli, &mut edited, corpus, samples);
    edited.restore_originals()?;
    result
}

/// The phases in order: cold, warm, the stored bytes, restore, the CLI; then the table.
fn scenario(
    db: &Path,
    git: &ShadowGit,
    cli: &Cli,
    edited: &mut Edited,
    corpus: &Corpus,
    samples: usize,
) -> Result<Table> {
    let ws = corpus.root.as_path();
    let n_files = corpus.files.len();
    let git_cold = phases::cold_git(git, n_files)?;
    let ours_cold = phases::cold_rewind(db, ws, edited, samples)?;
    let (mut e, s) = phases::sync(db, ws, git, edited)?;
    let warm_n = samples * 2;
    let mut warm = phases::warm(db, ws, git, edited, (&mut e, &s), warm_n)?;
    let stored = phases::stored_then_git_peak(db, git, edited, &mut warm.git, warm_n)?;
    let git_restore = phases::restore_git(ws, git, edited, warm_n)?;
    let ours_restore = phases::restore_rewind(edited, &mut e, &s, warm_n)?;
    drop(e);
    let cli_warm = phases::cli_warm(ws, cli, edited, &s, samples)?;
    let m = Measurements {
        git_cold,
        ours_cold,
        warm,
        stored,
        git_restore,
        ours_restore,
        cli_warm,
    };
    Ok(table::table(n_files, corpus.bytes, &m))
}
