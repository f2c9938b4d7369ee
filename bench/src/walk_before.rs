//! The walk shell capture made before its one-pass walker, kept here as the benchmark's
//! reference: ripgrep's parallel walker (the `ignore` crate) with the options the disk
//! workspace gave it (`.gitignore` with or without git, `.git/info/exclude`, the global
//! excludes file, `.rewindignore`; never entering `.git/` or `.rewind/`), each entry stat'ed by
//! its path, the paths collected and sorted: the stat-only walk the 10 % is measured
//! against.

use std::path::Path;
use std::sync::Mutex;

/// Walk `root` as shell capture did; returns how many entries it listed.
pub fn list(root: &Path) -> usize {
    let found: Mutex<Vec<(String, u64)>> = Mutex::new(Vec::new());
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(false)
        .parents(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(false)
        .follow_links(false)
        .add_custom_ignore_filename(".rewindignore")
        .filter_entry(|e| {
            let dir = e.file_type().is_some_and(|t| t.is_dir());
            let name = e.file_name().to_string_lossy();
            !(dir && (name.eq_ignore_ascii_case(".rewind") || name == ".git"))
        });
    b.build_parallel().run(|| {
        let found = &found;
        Box::new(move |item| {
            if let Ok(entry) = item
                && let Ok(rel) = entry.path().strip_prefix(root)
                && !rel.as_os_str().is_empty()
                && let (Some(path), Ok(meta)) = (rel.to_str(), entry.metadata())
            {
                let mut all = found
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                all.push((path.to_owned(), meta.len()));
            }
            ignore::WalkState::Continue
        })
    });
    let mut all = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    all.sort();
    all.len()
}
