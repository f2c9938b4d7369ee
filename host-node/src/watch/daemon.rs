//! The watcher process: inotify watches on every directory of the workspace a walk may enter
//! (never `.git/` or `.rewind/`), a numbered journal of the paths that changed, and the socket
//! that answers snapshots (`serve`).

use super::state::{Journal, Shared, lock};
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How one watcher runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The canonical workspace root.
    pub root: PathBuf,
    /// Its watcher directory (`watch::dir_of`).
    pub dir: PathBuf,
    /// Exit after this long without a question.
    pub idle: Duration,
    /// Changed paths held before the journal gives up listing them.
    pub max_paths: usize,
}

const MASK: WatchFlags = WatchFlags::CREATE
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MODIFY)
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DONT_FOLLOW)
    .union(WatchFlags::ONLYDIR);

/// Names whose change changes what a walk lists: the journal cannot say which paths that moves.
fn rules_file(name: &str) -> bool {
    name == ".gitignore" || name == super::super::disk::IGNORE_FILE
}

fn skipped(name: &str) -> bool {
    name.eq_ignore_ascii_case(".rewind") || name == ".git"
}

/// Run a watcher for `s.root` until it has been idle for `s.idle`. Returns at once when another
/// watcher of the workspace holds the lock.
pub fn run(s: Settings) -> io::Result<()> {
    std::fs::create_dir_all(&s.dir)?;
    let lock_file = File::create(s.dir.join("lock"))?;
    if rustix::fs::flock(
        &lock_file,
        rustix::fs::FlockOperation::NonBlockingLockExclusive,
    )
    .is_err()
    {
        return Ok(());
    }
    let fd = inotify::init(CreateFlags::CLOEXEC)?;
    let cookie_wd = inotify::add_watch(&fd, &s.dir, WatchFlags::CREATE | WatchFlags::ONLYDIR)?;
    let epoch = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id()) << 32;
    let shared = Arc::new(Shared {
        journal: Mutex::new(Journal {
            epoch: epoch.max(1),
            max_paths: s.max_paths,
            asked: Some(Instant::now()),
            ..Journal::default()
        }),
        cookie: Condvar::new(),
    });
    let listener = super::serve::bind(&s.dir)?;
    let reader = Arc::clone(&shared);
    let root = s.root.clone();
    std::thread::spawn(move || watch(&fd, cookie_wd, &root, &reader));
    let server = Arc::clone(&shared);
    let dir = s.dir.clone();
    std::thread::spawn(move || super::serve::answer(&listener, &dir, &server));
    loop {
        std::thread::sleep(Duration::from_millis(500).min(s.idle));
        let idle = lock(&shared).asked.is_some_and(|t| t.elapsed() >= s.idle);
        // A workspace deleted (a test's temporary tree) has nothing left to watch.
        if idle || !s.root.exists() {
            let _ = std::fs::remove_file(s.dir.join("sock"));
            drop(lock_file);
            return Ok(());
        }
    }
}

/// Add a watch on `abs` and every directory below it a walk may enter, recording each in `wds`.
fn add_tree(fd: &OwnedFd, abs: &Path, rel: &str, wds: &mut HashMap<i32, String>) -> io::Result<()> {
    let wd = match inotify::add_watch(fd, abs, MASK) {
        Ok(wd) => wd,
        // Gone (or no longer a directory) already: its parent's event says so.
        Err(e) if e == rustix::io::Errno::NOENT || e == rustix::io::Errno::NOTDIR => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    wds.insert(wd, rel.to_owned());
    let Ok(read) = std::fs::read_dir(abs) else {
        return Ok(());
    };
    for item in read.flatten() {
        let Ok(ty) = item.file_type() else { continue };
        let name = item.file_name();
        let Some(name) = name.to_str() else { continue };
        if ty.is_dir() && !skipped(name) {
            let child = match rel.is_empty() {
                true => name.to_owned(),
                false => format!("{rel}/{name}"),
            };
            add_tree(fd, &item.path(), &child, wds)?;
        }
    }
    Ok(())
}

/// Watch the tree, then number every change the queue delivers, forever.
fn watch(fd: &OwnedFd, cookie_wd: i32, root: &Path, shared: &Shared) {
    let mut wds = HashMap::new();
    if add_tree(fd, root, "", &mut wds).is_err() {
        // Out of watches (`max_user_watches`) or worse: this watcher never vouches.
        return;
    }
    {
        let mut j = lock(shared);
        j.lose();
        j.ready = true;
    }
    let mut buf = vec![MaybeUninit::<u8>::uninit(); 64 << 10];
    let mut events = inotify::Reader::new(fd, &mut buf);
    loop {
        let ev = match events.next() {
            Ok(ev) => ev,
            Err(e) if e == rustix::io::Errno::INTR => continue,
            Err(_) => {
                let mut j = lock(shared);
                j.ready = false;
                return;
            }
        };
        let flags = ev.events();
        let name = ev
            .file_name()
            .and_then(|n| n.to_str().ok())
            .map(str::to_owned);
        if ev.wd() == cookie_wd {
            if let Some(n) = name.and_then(|n| n.strip_prefix("cookie-")?.parse::<u64>().ok()) {
                let mut j = lock(shared);
                j.cookies_seen = j.cookies_seen.max(n);
                shared.cookie.notify_all();
            }
            continue;
        }
        on_event(fd, root, &mut wds, ev.wd(), flags, name, shared);
    }
}

fn on_event(
    fd: &OwnedFd,
    root: &Path,
    wds: &mut HashMap<i32, String>,
    wd: i32,
    flags: ReadFlags,
    name: Option<String>,
    shared: &Shared,
) {
    if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
        lock(shared).lose();
        return;
    }
    let Some(dir) = wds.get(&wd).cloned() else {
        return;
    };
    if flags.contains(ReadFlags::IGNORED) {
        wds.remove(&wd);
        if dir.is_empty() {
            // The root's own watch is gone: nothing is watched any more.
            let mut j = lock(shared);
            j.lose();
            j.ready = false;
        }
        return;
    }
    let Some(name) = name else {
        // The directory itself was deleted or moved: its parent's event names it; a moved root
        // leaves every path unwatched.
        let mut j = lock(shared);
        match dir.is_empty() {
            true => j.lose(),
            false => j.record(dir),
        }
        return;
    };
    if skipped(&name) {
        return;
    }
    if name.contains('\n') {
        // Not sayable on the socket's one-path-a-line answer.
        lock(shared).lose();
        return;
    }
    let rel = match dir.is_empty() {
        true => name.clone(),
        false => format!("{dir}/{name}"),
    };
    let is_dir = flags.contains(ReadFlags::ISDIR);
    if is_dir && flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO) {
        // Watched before it is numbered: whatever is made in it after this number is seen.
        if add_tree(fd, &root.join(&rel), &rel, wds).is_err() {
            lock(shared).lose();
            return;
        }
    }
    let moved_away = is_dir && flags.contains(ReadFlags::MOVED_FROM);
    if moved_away {
        // Its watches would name old paths: they are forgotten (a move back in watches the
        // subtree again under its new name, `add_watch` giving the same descriptors).
        let under = format!("{rel}/");
        wds.retain(|_, p| *p != rel && !p.starts_with(&under));
    }
    let mut j = lock(shared);
    if rules_file(&name) || moved_away {
        // What the walk lists changed in ways no path list says, or watches of the moved
        // directory's subtree now name old paths: everything is walked once.
        j.lose();
    }
    j.record(rel);
}
