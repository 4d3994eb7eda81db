//! A run's output directory, released all or nothing.
//!
//! A command that writes a directory of results (`reproduce`, `safetab-p`, `synth`, `topdown measure`)
//! writes everything into a fresh hidden sibling `.NAME.tmp-PID`, adds the completion marker
//! [`MARKER`] last, and only then publishes the staging directory with one atomic step: on Linux an
//! earlier `--out` is exchanged with the staging directory by `renameat2(RENAME_EXCHANGE)` (the old
//! run then sits under the staging name and is deleted), a first run is one `rename`. At every instant
//! `--out` is either the previous complete directory or the new complete one; a failure or an
//! interruption before the swap leaves the previous contents untouched (or no `--out` at all), and the
//! staging directory of a killed run (or the old run it was exchanged with) is removed by the next run.
//! Readers of a run directory check the marker ([`is_complete`]).
//!
//! A non-empty `--out` is replaced only when it holds the marker of an earlier run of the same command
//! (re-running `reproduce` refreshes `results/`), or with `--force`; anything else is refused so that
//! no unrelated directory is clobbered. A command that knows the files it writes
//! ([`RunDir::begin_owned`]) also refuses, without `--force`, to replace an earlier run that now holds
//! other files (say the `estimates.csv` a user wrote into a `topdown measure` run). Concurrent runs
//! into one `--out` are excluded by an advisory lock on `.NAME.lock` beside it (released by the OS
//! when the process ends, however it ends).

use crate::error::Fallible;
use crate::{err, fallible};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Completion marker written last into every released run directory: its first line names the command.
pub const MARKER: &str = ".tightdp-complete";

/// Environment variable naming a fault to inject (tests only): `before-commit` fails a run after all
/// its files are staged, just before the swap, as a write would ([`crate::error::ErrorKind::Io`]);
/// `internal-before-commit` fails it there with an internal error (a broken invariant: exit status 3).
pub const FAULT_ENV: &str = "TIGHTDP_INJECT_FAULT";

/// Staging directories of the runs in progress: a run stopped by a signal removes them before it exits
/// ([`install_signal_cleanup`]); one killed outright (SIGKILL) leaves them to the next run's sweep.
static STAGING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn staging() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    STAGING.lock().unwrap_or_else(|e| e.into_inner())
}

/// For the command line: SIGINT, SIGTERM and SIGHUP are taken by one thread, which removes the staging
/// directories of the runs in progress and exits with 128 + the signal's number (130 for Ctrl-C), one line
/// on stderr. Call before any other thread starts (the signals are blocked in every thread that follows).
pub fn install_signal_cleanup() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before use; pthread_sigmask and sigwait
    // only read it. The handler thread does its work outside any signal context (sigwait returns normally).
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
            let mut sig: libc::c_int = 0;
            if libc::sigwait(&set, &mut sig) == 0 {
                for dir in staging().iter() {
                    let _ = std::fs::remove_dir_all(dir);
                }
                eprintln!("error: interrupted (signal {sig}): nothing written");
                std::process::exit(128 + sig);
            }
        });
        if spawned.is_err() {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// The command recorded in a completed run's marker.
pub fn completed_command(dir: &Path) -> Option<String> {
    let s = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    s.lines().next().map(|l| l.trim().to_string())
}

/// A staged run directory; dropped without [`RunDir::commit`], it removes its staging directory.
pub struct RunDir {
    out: PathBuf,
    stage: PathBuf,
    command: String,
    _lock: File,
    committed: bool,
    /// the files the command writes (begin_owned): anything else in an earlier run is not replaced
    owned: Option<Vec<String>>,
    force: bool,
}

/// The names in `dir` (top level) other than the marker, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().to_string()).filter(|n| n != MARKER).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn err(what: &str, p: &Path, e: impl std::fmt::Display) -> crate::error::Error {
    err!(Io, "cannot {what} '{}': {e}", p.display())
}

impl RunDir {
    /// Take the lock on `out`, check that it may be replaced, and create an empty staging directory.
    /// `command` names the run (e.g. "reproduce", "reproduce --quick") for the marker and the refusal.
    pub fn begin(out: &Path, command: &str, force: bool) -> Fallible<RunDir> {
        let name = out
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| *n != "." && *n != "..")
            .ok_or_else(|| err!(Input, "--out '{}' must name a directory (not '.', '..' or '/')", out.display()))?
            .to_string();
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| err("create", &parent, e))?;
        let lock_path = parent.join(format!(".{name}.lock"));
        let lock =
            OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| err("create", &lock_path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return fallible!(
                    Input,
                    "another tightdp run is writing '{}' (lock {}); wait for it to finish",
                    out.display(),
                    lock_path.display()
                )
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(err("lock", &lock_path, e)),
        }
        if out.exists() {
            if !out.is_dir() {
                return fallible!(Input, "--out '{}' exists and is not a directory", out.display());
            }
            let empty = std::fs::read_dir(out).map_err(|e| err("read", out, e))?.next().is_none();
            let same = completed_command(out).is_some_and(|c| c == command);
            if !empty && !same && !force {
                return fallible!(Input,
                    "--out '{}' is not empty and holds no earlier `tightdp {command}` run: choose a new directory or pass --force to replace it",
                    out.display()
                );
            }
        }
        // staging directories left by killed runs (we hold the lock: no live run owns them)
        if let Ok(rd) = std::fs::read_dir(&parent) {
            let prefixes = [format!(".{name}.tmp-"), format!(".{name}.old-")];
            for e in rd.flatten() {
                let n = e.file_name();
                if prefixes.iter().any(|p| n.to_string_lossy().starts_with(p.as_str())) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let stage = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        std::fs::create_dir(&stage).map_err(|e| err("create", &stage, e))?;
        staging().push(stage.clone());
        Ok(RunDir { out: out.to_path_buf(), stage, command: command.to_string(), _lock: lock, committed: false, owned: None, force })
    }

    /// [`RunDir::begin`] for a command that writes exactly the top-level files `files`: without
    /// `force`, an earlier run in `out` that holds anything else (a file a user added) is refused
    /// here, before any work, and again at the commit against what was actually staged.
    pub fn begin_owned(out: &Path, command: &str, force: bool, files: &[&str]) -> Fallible<RunDir> {
        let mut r = RunDir::begin(out, command, force)?;
        r.owned = Some(files.iter().map(|f| f.to_string()).collect());
        if !force && out.is_dir() {
            let others: Vec<String> = entries(out).into_iter().filter(|n| !files.contains(&n.as_str())).collect();
            r.refuse_others(&others)?;
        }
        Ok(r)
    }

    fn refuse_others(&self, others: &[String]) -> Fallible<()> {
        if others.is_empty() {
            return Ok(());
        }
        fallible!(Input,
            "--out '{}' holds {} that `tightdp {}` does not write; replacing the run would delete {}: move {} away or pass --force (nothing was changed)",
            self.out.display(),
            others.join(", "),
            self.command,
            if others.len() == 1 { "it" } else { "them" },
            if others.len() == 1 { "it" } else { "them" },
        )
    }

    /// Where the run writes its files (the staging directory).
    pub fn path(&self) -> &Path {
        &self.stage
    }

    /// The final directory (for messages).
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Translate a path inside the staging directory into the path it will have after the swap.
    pub fn final_path(&self, staged: &Path) -> PathBuf {
        staged.strip_prefix(&self.stage).map(|r| self.out.join(r)).unwrap_or_else(|_| staged.to_path_buf())
    }

    /// Write the marker and swap the staging directory into place (the previous `--out`, if any, is
    /// moved aside first and removed after the swap; put back if the swap fails).
    pub fn commit(mut self) -> Fallible<()> {
        if std::env::var(FAULT_ENV).is_ok_and(|v| v == "before-commit") {
            return fallible!(Io, "injected fault before commit (TIGHTDP_INJECT_FAULT)");
        }
        if std::env::var(FAULT_ENV).is_ok_and(|v| v == "internal-before-commit") {
            return fallible!(Internal, "injected invariant failure before commit (TIGHTDP_INJECT_FAULT)");
        }
        let m = self.stage.join(MARKER);
        let mut f = File::create(&m).map_err(|e| err("write", &m, e))?;
        writeln!(f, "{}\ncomplete: every file of this run was written before this marker", self.command)
            .map_err(|e| err("write", &m, e))?;
        f.sync_all().map_err(|e| err("write", &m, e))?;
        let had_old = self.out.exists();
        if had_old && !self.force && self.owned.is_some() {
            // what the earlier run holds beyond what this run staged would be deleted by the swap
            let staged = entries(&self.stage);
            let others: Vec<String> = entries(&self.out).into_iter().filter(|n| !staged.contains(n)).collect();
            self.refuse_others(&others)?;
        }
        if had_old {
            self.swap_in()?;
        } else {
            std::fs::rename(&self.stage, &self.out).map_err(|e| err("write", &self.out, e))?;
        }
        self.committed = true;
        if had_old {
            // the staging path now holds the previous run (exchanged); a kill here leaves it to the next run
            let _ = std::fs::remove_dir_all(&self.stage);
        }
        Ok(())
    }

    /// Exchange the staging directory with the existing `--out` in one atomic step (Linux
    /// `renameat2(RENAME_EXCHANGE)`); afterwards the staging path holds the previous run.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn swap_in(&self) -> Fallible<()> {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|e| err("replace", p, e));
        let (a, b) = (c(&self.stage)?, c(&self.out)?);
        // SAFETY: two NUL-terminated paths that live across the call; no memory is shared with the kernel after it
        let rc = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            // a file system (or kernel) without the exchange: two renames
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => self.swap_in_two_renames(),
            _ => Err(err("replace", &self.out, e)),
        }
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn swap_in(&self) -> Fallible<()> {
        self.swap_in_two_renames()
    }

    /// The fallback swap: the old `--out` is moved aside, the staging directory renamed into place, the
    /// old one moved to the staging path (a kill between the two renames leaves no `--out`, only the
    /// hidden `.NAME.old-PID`, which the next run removes).
    fn swap_in_two_renames(&self) -> Fallible<()> {
        let old = self.stage.with_file_name(
            self.stage.file_name().expect("invariant: the staging directory has a name").to_string_lossy().replacen(".tmp-", ".old-", 1),
        );
        std::fs::rename(&self.out, &old).map_err(|e| err("replace", &self.out, e))?;
        if let Err(e) = std::fs::rename(&self.stage, &self.out) {
            let _ = std::fs::rename(&old, &self.out);
            return Err(err("write", &self.out, e));
        }
        let _ = std::fs::rename(&old, &self.stage);
        let _ = std::fs::remove_dir_all(&old);
        Ok(())
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.stage);
        }
        staging().retain(|d| d != &self.stage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tightdp-rundir-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn commit_swaps_and_marks() {
        let d = scratch("commit");
        let out = d.join("run");
        let r = RunDir::begin(&out, "synth", false).unwrap();
        std::fs::write(r.path().join("a.txt"), "x").unwrap();
        assert!(!out.exists(), "nothing is visible before the commit");
        r.commit().unwrap();
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "x");
        assert_eq!(completed_command(&out).as_deref(), Some("synth"));
        // the same command may replace its own run; the old files go
        let r = RunDir::begin(&out, "synth", false).unwrap();
        std::fs::write(r.path().join("b.txt"), "y").unwrap();
        r.commit().unwrap();
        assert!(!out.join("a.txt").exists() && out.join("b.txt").exists());
        // another command may not, without force
        let e = RunDir::begin(&out, "reproduce", false).err().unwrap();
        assert!(e.to_string().contains("--force"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn dropped_run_leaves_nothing_and_foreign_dirs_are_refused() {
        let d = scratch("drop");
        let out = d.join("run");
        {
            let r = RunDir::begin(&out, "synth", false).unwrap();
            std::fs::write(r.path().join("a.txt"), "x").unwrap();
        }
        assert!(!out.exists());
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(left.iter().all(|n| n.to_string_lossy().ends_with(".lock")), "{left:?}");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("mine.txt"), "keep").unwrap();
        assert!(RunDir::begin(&out, "synth", false).is_err());
        assert_eq!(std::fs::read_to_string(out.join("mine.txt")).unwrap(), "keep");
        let f = d.join("file");
        std::fs::write(&f, "").unwrap();
        assert!(RunDir::begin(&f, "synth", true).err().unwrap().to_string().contains("not a directory"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The publish step leaves `out` the old or the new complete directory at every instant: an
    /// observer polling `out` during many replacements never sees it missing or without its marker
    /// (the old two-rename publish left a window with no `out` at all), and no staging or old
    /// directory is left beside it.
    #[test]
    fn replacing_a_run_is_one_atomic_step() {
        let d = scratch("atomic");
        let out = d.join("run");
        let r = RunDir::begin(&out, "synth", false).unwrap();
        std::fs::write(r.path().join("a.txt"), "0").unwrap();
        r.commit().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watcher = {
            let (out, stop) = (out.clone(), stop.clone());
            std::thread::spawn(move || {
                let (mut seen, mut bad) = (0u64, 0u64);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    seen += 1;
                    // a complete directory: its marker and its file, read through one open directory
                    if !(out.join(MARKER).is_file() && out.join("a.txt").is_file()) {
                        bad += 1;
                    }
                }
                (seen, bad)
            })
        };
        for i in 1..=400 {
            let r = RunDir::begin(&out, "synth", false).unwrap();
            std::fs::write(r.path().join("a.txt"), i.to_string()).unwrap();
            r.commit().unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let (seen, bad) = watcher.join().unwrap();
        assert!(seen > 100, "the observer ran {seen} times");
        assert_eq!(bad, 0, "out was missing or incomplete at {bad} of {seen} looks");
        assert_eq!(std::fs::read_to_string(out.join("a.txt")).unwrap(), "400");
        let left: Vec<String> = std::fs::read_dir(&d).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
        assert!(left.iter().all(|n| n == "run" || n.ends_with(".lock")), "{left:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A run killed after the exchange leaves the old run under the staging name; a run killed while
    /// staging leaves its staging directory: the next run removes both, whatever their PID.
    #[test]
    fn stale_staging_and_old_directories_are_removed_by_the_next_run() {
        let d = scratch("stale");
        let out = d.join("run");
        for stale in [".run.tmp-1", ".run.old-2", ".run.tmp-999999"] {
            std::fs::create_dir_all(d.join(stale).join("sub")).unwrap();
            std::fs::write(d.join(stale).join("sub").join("x"), "x").unwrap();
        }
        let r = RunDir::begin(&out, "synth", false).unwrap();
        r.commit().unwrap();
        let left: Vec<String> = std::fs::read_dir(&d).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
        assert!(left.iter().all(|n| n == "run" || n.ends_with(".lock")), "{left:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// begin_owned: an earlier run holding a file the command does not write is not replaced
    /// without force (refused before any work), with force it is.
    #[test]
    fn a_users_file_in_an_earlier_run_is_kept() {
        let d = scratch("owned");
        let out = d.join("run");
        let r = RunDir::begin_owned(&out, "synth", false, &["a.txt"]).unwrap();
        std::fs::write(r.path().join("a.txt"), "1").unwrap();
        r.commit().unwrap();
        let r = RunDir::begin_owned(&out, "synth", false, &["a.txt"]).unwrap();
        std::fs::write(r.path().join("a.txt"), "2").unwrap();
        r.commit().unwrap();
        std::fs::write(out.join("mine.csv"), "keep").unwrap();
        let e = RunDir::begin_owned(&out, "synth", false, &["a.txt"]).err().unwrap();
        assert!(e.to_string().contains("mine.csv") && e.to_string().contains("--force"), "{e}");
        assert_eq!(std::fs::read_to_string(out.join("mine.csv")).unwrap(), "keep");
        let r = RunDir::begin_owned(&out, "synth", true, &["a.txt"]).unwrap();
        std::fs::write(r.path().join("a.txt"), "3").unwrap();
        r.commit().unwrap();
        assert!(!out.join("mine.csv").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_second_run_is_locked_out() {
        let d = scratch("lock");
        let out = d.join("run");
        let r = RunDir::begin(&out, "synth", false).unwrap();
        let e = RunDir::begin(&out, "synth", false).err().unwrap();
        assert!(e.to_string().contains("another tightdp run"), "{e}");
        drop(r);
        assert!(RunDir::begin(&out, "synth", false).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
