//! Every console example of the README and of the pages in `docs/` runs as written: each `$ tightdp …`
//! line of a ```console block is run (by `sh`, in an empty scratch directory per page outside the repository,
//! blocks in order so later commands see the files earlier ones wrote, including a reader's own files written
//! with `$ cat > FILE <<'EOF'` … `EOF`) and must exit 0; every output line
//! the page shows under it (other than `...`) must appear in the command's output, verbatim.

use std::path::Path;
use std::process::Command;

struct Example {
    command: String,
    shown: Vec<String>,
}

fn console_blocks(readme: &str) -> Vec<Vec<Example>> {
    let mut blocks = Vec::new();
    let mut rest = readme;
    while let Some(i) = rest.find("```console\n") {
        rest = &rest[i + "```console\n".len()..];
        let end = rest.find("```").expect("unterminated console block");
        let mut ex: Vec<Example> = Vec::new();
        let mut heredoc = false;
        for line in rest[..end].lines() {
            if heredoc {
                // the body of `$ cat > FILE <<'EOF'`, up to EOF: part of the command, not its output
                let last = ex.last_mut().unwrap();
                last.command = format!("{}\n{line}", last.command);
                heredoc = line != "EOF";
            } else if let Some(cmd) = line.strip_prefix("$ ") {
                heredoc = cmd.ends_with("<<'EOF'");
                ex.push(Example { command: cmd.to_string(), shown: Vec::new() });
            } else if let Some(last) = ex.last_mut() {
                if line.trim() != "..." && !line.trim().is_empty() {
                    last.shown.push(line.trim_end().to_string());
                }
            }
        }
        blocks.push(ex);
        rest = &rest[end + 3..];
    }
    blocks
}

/// Run every console example of one page; returns how many ran.
fn run_page(page: &Path) -> usize {
    let readme = std::fs::read_to_string(page).unwrap();
    let bin = env!("CARGO_BIN_EXE_tightdp");
    let stem = page.file_stem().unwrap().to_string_lossy().to_string();
    let dir = std::env::temp_dir().join(format!("tightdp-readme-{stem}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // an empty directory outside the repository, as a new user's: built-in names reach the bundled data
    let mut ran = 0;
    for block in console_blocks(&readme) {
        for ex in block {
            // a tightdp command, or a file the reader writes first (`cat > FILE <<'EOF'` … `EOF`)
            let line = match ex.command.strip_prefix("tightdp ") {
                Some(cmd) => format!("'{bin}' {cmd}"),
                None if ex.command.starts_with("cat > ") && ex.command.ends_with("\nEOF") => ex.command.clone(),
                None => panic!("{} example is neither a tightdp command nor a cat > FILE here-document: {}", page.display(), ex.command),
            };
            let out = Command::new("sh").arg("-c").arg(line).current_dir(&dir).output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{} example failed: $ {}\n{}", page.display(), ex.command, String::from_utf8_lossy(&out.stderr));
            let lines: Vec<&str> = stdout.lines().map(|l| l.trim_end()).collect();
            for want in &ex.shown {
                assert!(
                    lines.contains(&want.as_str()),
                    "{} example $ {}\nshows the line\n{want}\nwhich the command does not print; it printed:\n{stdout}",
                    page.display(),
                    ex.command
                );
            }
            ran += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    ran
}

#[test]
fn readme_console_examples_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ran = run_page(&root.join("README.md"));
    assert!(ran >= 3, "only {ran} README examples found");
}

#[test]
fn docs_console_examples_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    let ran: usize = pages.iter().map(|p| run_page(p)).sum();
    assert!(ran >= 10, "only {ran} examples found in docs/");
}
