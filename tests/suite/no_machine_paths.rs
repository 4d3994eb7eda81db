//! No path of one machine in code, data, documentation or output (#55): what a fresh clone holds names
//! files relative to the repository, by their public source, or by a placeholder (`$VENV`, `$TMP`).

use std::path::{Path, PathBuf};

/// Spellings that only make sense on the machine where they were written: the development folders, home
/// directories, the papers beside the repository, and anything under /tmp (scratch venvs, `mktemp` folders,
/// scratch reference scripts: a reference script lives in `scripts/reference/`).
const MACHINE_PATHS: &[&str] = &["/work/", "/home/", "/root/", "../shared", "/tmp/"];

const TEXT: &[&str] = &["rs", "py", "sh", "md", "toml", "csv", "txt", "json", "log", "ini", "cfg", "yml", "yaml"];

fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "__pycache__" {
                text_files(&p, out);
            }
        } else if p.extension().and_then(|x| x.to_str()).is_some_and(|x| TEXT.contains(&x)) {
            out.push(p);
        }
    }
}

fn offenders(text: &str) -> Vec<(usize, &'static str)> {
    text.lines().enumerate().flat_map(|(i, l)| MACHINE_PATHS.iter().filter(move |m| l.contains(*m)).map(move |m| (i + 1, *m))).collect()
}

#[test]
fn no_file_names_a_path_of_one_machine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["src", "data", "docs", "scripts", "python", "results", "benches", "examples", ".ci"] {
        text_files(&root.join(d), &mut files);
    }
    files.push(root.join("README.md"));
    assert!(files.len() > 300, "only {} files scanned: is the walk working?", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (line, m) in offenders(&text) {
            found.push(format!("{}:{line}: {m}", f.strip_prefix(root).unwrap().display()));
        }
    }
    assert!(found.is_empty(), "paths of one machine:\n{}", found.join("\n"));
}

/// The scan itself: it finds each spelling, and passes placeholders and repository-relative names.
#[test]
fn the_scan_sees_machine_paths() {
    assert_eq!(
        offenders("a\nrun /tmp/venv-ref/bin/python x.py\n(see ../shared/papers/x.txt)\nvalues of /tmp/stp/ref.py"),
        [(2, "/tmp/"), (3, "../shared"), (4, "/tmp/")]
    );
    assert!(offenders("$VENV/bin/python scripts/reference/x.py > data/x.csv; --out $TMP/geo.csv").is_empty());
}
