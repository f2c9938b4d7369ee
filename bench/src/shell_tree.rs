//! The shell scenario's workspaces: real file trees of 10,000 and 100,000 files (real code from
//! the corpus, mixed sizes, four directories deep) plus a `.gitignore` that ignores `target/`
//! and `node_modules/`, directories of extra files (a tenth and a twentieth as many again)
//! neither rewind nor git may capture, one small ignored `.env.local` in every fourth leaf
//! directory, and in every tenth a nested `.gitignore` ignoring `*.log` but taking `keep.log`
//! back, beside an ignored `debug.log`: the small ignored files rewind tracks by default (a
//! person's local config) and git does not.
//! Generated once, deterministically, and cached under `<target dir>/bench-data/shell<N>`.
//! Every file's mtime is set a day back, so no file is "racy" (modified within 2 s of a
//! snapshot's start, which the core re-reads whatever its stat data says) when a run begins.
//!
//! The command the scenario runs, `sh <script> K`, edits two files with `sed -i` and creates one
//! (`src/gen/out-K.txt`); [`Tree::reset`] puts the two files back and removes `src/gen/`.

use crate::corpus::{Corpus, code_bytes};
use crate::harness::Result;
use std::fs::{self, File, FileTimes};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// The tree's `.gitignore`.
const GITIGNORE: &[u8] = b"/target/\nnode_modules/\n*.local\n";
/// The nested `.gitignore` of one leaf directory in ten, and the two logs beside it.
const NESTED_GITIGNORE: &[u8] = b"*.log\n!keep.log\n";
const KEEP_LOG: &[u8] = b"kept by a negation\n";
const DEBUG_LOG: &[u8] = b"ignored, small: tracked by rewind\n";

/// Files per leaf directory.
const PER_DIR: usize = 25;
/// Real code the files are cut from.
const POOL_BYTES: usize = 8 << 20;
/// How far back every file's mtime is set.
const AGE: Duration = Duration::from_secs(24 * 3600);
const EXTENSIONS: &[&str] = &["rs", "rs", "rs", "ts", "md", "toml", "json"];

/// A prepared tree.
#[derive(Debug)]
pub struct Tree {
    /// Its root.
    pub root: PathBuf,
    /// Files rewind and git track (the `.gitignore` included).
    pub tracked: usize,
    /// Their total size.
    pub tracked_bytes: u64,
    /// Files under the ignored `target/` and `node_modules/`.
    pub ignored: usize,
    /// Small ignored files in walked directories (`.env.local`, `debug.log`).
    pub ignored_small: usize,
    /// The command's script (outside the tree, so neither side captures it).
    pub script: PathBuf,
    /// The files the command edits: (path, original bytes).
    edited: Vec<(String, Vec<u8>)>,
}

/// A small deterministic generator (splitmix64).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// File `i`'s size: 65 % 64 B–2 KiB, 30 % 2–8 KiB, 4.5 % 8–32 KiB, 0.5 % 32–128 KiB
/// (about 3.5 KiB on average, like a source tree).
fn size_of(i: usize) -> usize {
    let r = mix(i as u64);
    let pick = r % 1000;
    let (lo, hi) = match pick {
        0..650 => (64, 2 << 10),
        650..950 => (2 << 10, 8 << 10),
        950..995 => (8 << 10, 32 << 10),
        _ => (32 << 10, 128 << 10),
    };
    lo + (r >> 16) as usize % (hi - lo)
}

/// The workspace path of tracked file `i`: `src/pNN/mN/dN/fNN.ext`.
pub fn path_of(i: usize) -> String {
    let dir = i / PER_DIR;
    let ext = EXTENSIONS[mix(i as u64 ^ 0x55) as usize % EXTENSIONS.len()];
    format!(
        "src/p{:02}/m{}/d{}/f{:02}.{ext}",
        dir / 100,
        dir / 10 % 10,
        dir % 10,
        i % PER_DIR
    )
}

/// The file `name` in leaf directory `d`.
fn in_leaf(d: usize, name: &str) -> String {
    let dir = path_of(d * PER_DIR);
    let parent = dir.rsplit_once('/').map_or("", |(p, _)| p);
    format!("{parent}/{name}")
}

/// Ignored file `i`: nine in ten under `target/`, the rest under a nested `node_modules/`.
fn ignored_path(i: usize, target: usize) -> String {
    match i < target {
        true => format!("target/debug/o{:03}/x{:02}.o", i / PER_DIR, i % PER_DIR),
        false => {
            let j = i - target;
            format!(
                "web/node_modules/pkg{:03}/m{:02}.js",
                j / PER_DIR,
                j % PER_DIR
            )
        }
    }
}

/// File `i`'s bytes: a header line naming it, then real code cut from `pool` (so every file
/// is different and compresses like code).
fn content(pool: &[u8], i: usize, salt: u64) -> Vec<u8> {
    let size = size_of(i ^ salt as usize);
    let mut out = format!("// shell bench file {i}\n").into_bytes();
    let need = size.saturating_sub(out.len()).min(pool.len());
    let at = mix(i as u64 ^ salt) as usize % (pool.len() - need + 1);
    out.extend_from_slice(&pool[at..at + need]);
    out
}

fn age(path: &Path, when: SystemTime) -> Result<()> {
    let f = File::options().write(true).open(path)?;
    f.set_times(FileTimes::new().set_modified(when).set_accessed(when))?;
    Ok(())
}

fn write_aged(path: &Path, bytes: &[u8], when: SystemTime) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, bytes)?;
    age(path, when)
}

const SCRIPT: &str = "#!/bin/sh
# rewind-bench shell scenario: edit two files in place, create one.
set -e
sed -i \"1s|\\$| run $1|\" \"$2\"
sed -i \"1s|\\$| run $1|\" \"$3\"
mkdir -p src/gen
printf 'generated by run %s\\n' \"$1\" > \"src/gen/out-$1.txt\"
";

/// Prepare (or reuse) the tree of `files` tracked files under `data`.
pub fn prepare(data: &Path, corpus: &Corpus, files: usize) -> Result<Tree> {
    let root = data.join(format!("shell{files}"));
    // v3: with node_modules/ and nested .gitignore files.
    let marker = data.join(format!("shell{files}-v3.done"));
    let pool = code_bytes(corpus, 7, POOL_BYTES)?;
    let (target, ignored) = (files / 10, files / 10 + files / 20);
    let when = SystemTime::now() - AGE;
    if !marker.exists() {
        eprintln!("bench: shell: writing a {files}-file tree (+ {ignored} ignored; cached)");
        let _ = fs::remove_dir_all(&root);
        write_aged(&root.join(".gitignore"), GITIGNORE, when)?;
        for i in 0..files - 1 {
            write_aged(&root.join(path_of(i)), &content(&pool, i, 0), when)?;
        }
        for i in 0..ignored {
            let at = root.join(ignored_path(i, target));
            write_aged(&at, &content(&pool, i, 0xabc), when)?;
        }
        for d in local_configs(files) {
            let bytes = format!("API_KEY=bench-{d}\nPORT={}\n", 8000 + d);
            write_aged(&root.join(in_leaf(d, ".env.local")), bytes.as_bytes(), when)?;
        }
        for d in nested(files) {
            write_aged(&root.join(in_leaf(d, ".gitignore")), NESTED_GITIGNORE, when)?;
            write_aged(&root.join(in_leaf(d, "keep.log")), KEEP_LOG, when)?;
            write_aged(&root.join(in_leaf(d, "debug.log")), DEBUG_LOG, when)?;
        }
        fs::write(&marker, files.to_string())?;
    }
    let script = data.join("shell-command.sh");
    fs::write(&script, SCRIPT)?;
    let edited = [0, files / 2]
        .iter()
        .map(|&i| (path_of(i), content(&pool, i, 0)))
        .collect();
    let n_nested = nested(files).count();
    let tracked_bytes = GITIGNORE.len() as u64
        + (0..files - 1).map(|i| content_len(i) as u64).sum::<u64>()
        + (n_nested * (NESTED_GITIGNORE.len() + KEEP_LOG.len())) as u64;
    let tree = Tree {
        root,
        tracked: files + 2 * n_nested,
        tracked_bytes,
        ignored,
        ignored_small: local_configs(files).count() + n_nested,
        script,
        edited,
    };
    tree.reset()?;
    Ok(tree)
}

/// The leaf directories holding an ignored `.env.local`.
fn local_configs(files: usize) -> impl Iterator<Item = usize> {
    (0..files.div_ceil(PER_DIR)).step_by(4)
}

/// The leaf directories holding a nested `.gitignore` (and a `keep.log`, a `debug.log`).
fn nested(files: usize) -> impl Iterator<Item = usize> {
    (0..files.div_ceil(PER_DIR)).filter(|d| d % 10 == 5)
}

fn content_len(i: usize) -> usize {
    let header = format!("// shell bench file {i}\n").len();
    header.max(size_of(i))
}

impl Tree {
    /// Put the edited files back as generated (a day old again) and remove what the command
    /// created, so the cached tree stays as it was generated.
    pub fn reset(&self) -> Result<()> {
        let when = SystemTime::now() - AGE;
        for (path, bytes) in &self.edited {
            write_aged(&self.root.join(path), bytes, when)?;
        }
        let _ = fs::remove_dir_all(self.root.join("src/gen"));
        Ok(())
    }

    /// The command of run `k`: `sh <script> K <file> <file>`, in the tree.
    pub fn command(&self, k: usize) -> Command {
        let mut c = Command::new("sh");
        c.arg(&self.script)
            .arg(k.to_string())
            .args(self.edited.iter().map(|(p, _)| p))
            .current_dir(&self.root);
        c
    }

    /// The command line of run `k`, as recorded.
    pub fn command_line(&self, k: usize) -> String {
        let paths: Vec<&str> = self.edited.iter().map(|(p, _)| p.as_str()).collect();
        format!("sh shell-command.sh {k} {}", paths.join(" "))
    }

    /// The command's argv (for `rewind exec … -- ARGV`).
    pub fn argv(&self, k: usize) -> Vec<String> {
        let mut v = vec![
            "sh".to_owned(),
            self.script.to_string_lossy().into_owned(),
            k.to_string(),
        ];
        v.extend(self.edited.iter().map(|(p, _)| p.clone()));
        v
    }
}
