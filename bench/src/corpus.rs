//! The 10,000-file workspace: real source files copied from the local cargo registry (what
//! `cargo fetch` unpacked under `~/.cargo/registry/src/`), repeated into `repN/` sub-folders
//! when the registry holds fewer. Cached under `<target dir>/bench-data/corpus`; a marker file
//! beside it records the file count so reruns skip the copy.

use crate::harness::Result;
use std::path::{Path, PathBuf};

/// Source-file extensions taken from the registry (code and the text that ships with it).
const EXTENSIONS: &[&str] = &[
    "rs", "toml", "md", "c", "h", "cc", "cpp", "py", "js", "ts", "json", "sh", "txt", "yml",
];
/// Files larger than this are skipped (generated tables, vendored blobs).
const MAX_FILE: u64 = 512 * 1024;

/// The prepared workspace.
#[derive(Debug)]
pub struct Corpus {
    /// Its root.
    pub root: PathBuf,
    /// Workspace-relative paths of every file, sorted.
    pub files: Vec<String>,
    /// Their total size.
    pub bytes: u64,
}

fn registry_src() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"),
        PathBuf::from,
    );
    home.join("registry").join("src")
}

/// Every regular file under `dir` (no symlinks), recursively.
pub fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        if ty.is_dir() {
            walk(&entry.path(), out)?;
        } else if ty.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

fn wanted(p: &Path) -> bool {
    let ext_ok = p
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e));
    let name_ok = p
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| !n.starts_with('.'));
    ext_ok && name_ok && std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_FILE)
}

/// Prepare (or reuse) a workspace of at least `count` real source files under `data`.
pub fn prepare(data: &Path, count: usize) -> Result<Corpus> {
    let root = data.join("corpus");
    let marker = data.join(format!("corpus-{count}.done"));
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&root);
        let src = registry_src();
        let mut sources = Vec::new();
        for index in std::fs::read_dir(&src)
            .map_err(|e| format!("{}: {e} (run scripts/setup first)", src.display()))?
        {
            walk(&index?.path(), &mut sources)?;
        }
        sources.retain(|p| wanted(p));
        sources.sort();
        if sources.is_empty() {
            return Err(format!("no source files under {}", src.display()).into());
        }
        eprintln!(
            "bench: copying {count} source files from {} ({} available)",
            src.display(),
            sources.len()
        );
        for i in 0..count {
            let from = &sources[i % sources.len()];
            let index_dir = from
                .ancestors()
                .find(|a| a.parent() == Some(src.as_path()))
                .unwrap_or(&src);
            let rel = from.strip_prefix(index_dir)?;
            let round = i / sources.len();
            let to = if round == 0 {
                root.join(rel)
            } else {
                root.join(format!("rep{round}")).join(rel)
            };
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(from, &to)?;
        }
        std::fs::write(&marker, count.to_string())?;
    }
    let mut paths = Vec::new();
    walk(&root, &mut paths)?;
    let mut bytes = 0;
    let mut files = Vec::with_capacity(paths.len());
    for p in &paths {
        bytes += std::fs::metadata(p)?.len();
        let rel = p.strip_prefix(&root)?.to_string_lossy().into_owned();
        files.push(rel);
    }
    files.sort();
    Ok(Corpus { root, files, bytes })
}

/// Real code to fill synthetic files with: the corpus's `.rs` files concatenated until `len`
/// bytes, starting at file `start` (different starts give different content).
pub fn code_bytes(corpus: &Corpus, start: usize, len: usize) -> Result<Vec<u8>> {
    let rs: Vec<&String> = corpus.files.iter().filter(|f| f.ends_with(".rs")).collect();
    let mut out = Vec::with_capacity(len);
    let mut i = start;
    while out.len() < len {
        let f = rs[i % rs.len()];
        out.extend_from_slice(&std::fs::read(corpus.root.join(f))?);
        i += 1;
    }
    out.truncate(len);
    Ok(out)
}
