//! A run's output directory, released all or nothing.
//!
//! A command that writes a directory of results (`reproduce`, `safetab-p`, `synth`, `topdown measure`)
//! writes everything into a fresh hidden sibling `.NAME.tmp-PID`, adds the completion marker
//! [`MARKER`] last, and only then swaps the staging directory into place with one `rename`. A failure or
//! an interruption at any point before the swap leaves the previous contents of `--out` untouched (or
//! no `--out` at all); the staging directory of a killed run is removed by the next run. Readers of a
//! run directory check the marker ([`is_complete`]).
//!
//! A non-empty `--out` is replaced only when it holds the marker of an earlier run of the same command
//! (re-running `reproduce` refreshes `results/`), or with `--force`; anything else is refused so that
//! no unrelated directory is clobbered. Concurrent runs into one `--out` are excluded by an advisory
//! lock on `.NAME.lock` beside it (released by the OS when the process ends, however it ends).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Completion marker written last into every released run directory: its first line names the command.
pub const MARKER: &str = ".tightdp-complete";

/// Environment variable naming a fault to inject (tests only): `before-commit` fails a run after all
/// its files are staged, just before the swap.
pub const FAULT_ENV: &str = "TIGHTDP_INJECT_FAULT";

/// True when `dir` holds a completed run (its marker is present).
pub fn is_complete(dir: &Path) -> bool {
    dir.join(MARKER).is_file()
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
}

fn err(what: &str, p: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot {what} '{}': {e}", p.display())
}

impl RunDir {
    /// Take the lock on `out`, check that it may be replaced, and create an empty staging directory.
    /// `command` names the run (e.g. "reproduce", "reproduce --quick") for the marker and the refusal.
    pub fn begin(out: &Path, command: &str, force: bool) -> Result<RunDir, String> {
        let name = out
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| *n != "." && *n != "..")
            .ok_or_else(|| format!("--out '{}' must name a directory (not '.', '..' or '/')", out.display()))?
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
                return Err(format!(
                    "another tightdp run is writing '{}' (lock {}); wait for it to finish",
                    out.display(),
                    lock_path.display()
                ))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(err("lock", &lock_path, e)),
        }
        if out.exists() {
            if !out.is_dir() {
                return Err(format!("--out '{}' exists and is not a directory", out.display()));
            }
            let empty = std::fs::read_dir(out).map_err(|e| err("read", out, e))?.next().is_none();
            let same = completed_command(out).is_some_and(|c| c == command);
            if !empty && !same && !force {
                return Err(format!(
                    "--out '{}' is not empty and holds no earlier `tightdp {command}` run: choose a new directory or pass --force to replace it",
                    out.display()
                ));
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
        Ok(RunDir { out: out.to_path_buf(), stage, command: command.to_string(), _lock: lock, committed: false })
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
    pub fn commit(mut self) -> Result<(), String> {
        if std::env::var(FAULT_ENV).is_ok_and(|v| v == "before-commit") {
            return Err("injected fault before commit (TIGHTDP_INJECT_FAULT)".into());
        }
        let m = self.stage.join(MARKER);
        let mut f = File::create(&m).map_err(|e| err("write", &m, e))?;
        writeln!(f, "{}\ncomplete: every file of this run was written before this marker", self.command)
            .map_err(|e| err("write", &m, e))?;
        f.sync_all().map_err(|e| err("write", &m, e))?;
        let old = self.stage.with_file_name(self.stage.file_name().unwrap().to_string_lossy().replacen(".tmp-", ".old-", 1));
        let had_old = self.out.exists();
        if had_old {
            std::fs::rename(&self.out, &old).map_err(|e| err("replace", &self.out, e))?;
        }
        if let Err(e) = std::fs::rename(&self.stage, &self.out) {
            if had_old {
                let _ = std::fs::rename(&old, &self.out);
            }
            return Err(err("write", &self.out, e));
        }
        self.committed = true;
        if had_old {
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(())
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.stage);
        }
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
        assert!(e.contains("--force"), "{e}");
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
        assert!(RunDir::begin(&f, "synth", true).err().unwrap().contains("not a directory"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_second_run_is_locked_out() {
        let d = scratch("lock");
        let out = d.join("run");
        let r = RunDir::begin(&out, "synth", false).unwrap();
        let e = RunDir::begin(&out, "synth", false).err().unwrap();
        assert!(e.contains("another tightdp run"), "{e}");
        drop(r);
        assert!(RunDir::begin(&out, "synth", false).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
