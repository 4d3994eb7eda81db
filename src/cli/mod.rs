//! Command-line interface (docs/design.md "Command-line contract"). One file per subcommand.

pub(crate) mod accuracy;
pub(crate) mod accuracy_nhgis;
pub(crate) mod attack;
pub(crate) mod builtin_data;
pub(crate) mod calibrate;
pub mod calibrate_sigma;
pub(crate) mod certify;
pub(crate) mod common;
pub(crate) mod describe;
pub(crate) mod downstream;
pub(crate) mod epsilon;
pub(crate) mod plot;
pub(crate) mod progress;
pub mod renyi;
pub(crate) mod reproduce;
pub(crate) mod reproduce_realdata;
pub(crate) mod risk;
pub(crate) mod safetab;
pub(crate) mod safetab_p;
pub(crate) mod safetab_tables;
pub(crate) mod sample;
pub(crate) mod shuffle;
pub(crate) mod synth;
pub(crate) mod topdown;
pub(crate) mod tradeoff;
pub(crate) mod verify;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "tightdp",
    version,
    about = "Certified, exact privacy accounting: the 2020 US Census's mechanisms, DP-SGD and the laws they compose",
    long_about = "tightdp computes exact privacy profiles δ(ε), ε(δ), trade-off functions and attack risk of \
compositions of noise mechanisms (discrete and continuous Gaussian and Laplace, randomized response, Poisson-subsampled \
and fixed-size-batch DP-SGD steps, mixtures), with certified error bounds (MPFR interval arithmetic), next to the \
Census Bureau's zCDP-based figures.\n\nExamples:\n  tightdp epsilon --sigma2 5 --n 10 --delta 1e-11\n  \
tightdp epsilon --allocation data/allocations/dhc-2022-08-25.toml --level State --delta 1e-11 --format json\n  \
tightdp epsilon --mech gauss:sigma=1.1,q=256/60000,n=14070 --delta 1e-5\n  \
tightdp delta --sigma2 456.62 --n 10 --epsilon 1 --method zcdp-cks\n  tightdp reproduce --out results/"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// ε(δ): the smallest ε with (ε, δ)-DP, certified
    Epsilon(epsilon::EpsilonArgs),
    /// δ(ε): the privacy profile at ε, with both terms of Lemma A.9
    Delta(epsilon::DeltaArgs),
    /// Exact trade-off function: certified knots (α, β), or f(α) at given α
    Tradeoff(tradeoff::TradeoffArgs),
    /// What an attacker can do: certified TPR at given FPRs, advantage, Bayes success of the best membership test
    Attack(attack::AttackArgs),
    /// Rényi divergences D_α at given orders and the tight zCDP parameter ρ = sup D_α/α, certified
    Renyi(renyi::RenyiArgs),
    /// Shuffled batches: a certified lower bound on ε (or δ) from one explicit attack and an upper bound (the
    /// batch order known), beside the Poisson accounting of the same expected batch size
    Shuffle(shuffle::ShuffleArgs),
    /// What an allocation file says: per level and query, ρ, σ², sensitivity and neighbour relation
    Describe(describe::DescribeArgs),
    /// Figures of an allocation: ε(δ) per level with the zCDP conversions, trade-off curves, attack risk,
    /// calibration table (PNG + SVG + CSV)
    Plot(plot::PlotArgs),
    /// Reduced noise that keeps the guarantee: per level (Table 1) or one uniform factor
    Calibrate(calibrate::CalibrateArgs),
    /// Error of released counts (MSE/MAE, with and without max(0,·)): Bureau vs reduced noise
    Accuracy(accuracy::AccuracyArgs),
    /// Downstream regression on noisy ACS counts (Figure 9): slope MAE, Bureau vs reduced noise
    Downstream(downstream::DownstreamArgs),
    /// Recompute every published number (data/published.csv) and give a verdict
    Verify(verify::VerifyArgs),
    /// Regenerate every table and figure into results/
    Reproduce(reproduce::ReproduceArgs),
    /// Bayesian disclosure risk of noisy counts (Kazan–Reiter): single level, hierarchy, tables, figures
    Risk(risk::RiskArgs),
    /// TopDown noisy measurements on a geographic spine: spines, measurements, certification, accuracy
    Topdown(topdown::TopdownArgs),
    /// SafeTab-P Tables 6/7 and SafeTab (race & ethnicity) Tables 2/4, recomputed
    SafetabTables(safetab_tables::SafetabTablesArgs),
    /// Run SafeTab-P (Detailed DHC-A) on a persons file
    SafetabP(safetab_p::SafetabPArgs),
    /// Run SafeTab (Detailed DHC race & ethnicity) with geometric or discrete Gaussian noise on a persons file
    Safetab(safetab::SafetabArgs),
    /// Synthetic persons and geography for SafeTab-P
    Synth(synth::SynthArgs),
    /// Certify a mechanism manifest: exact ε next to zCDP and pure-DP totals
    Certify(certify::CertifyArgs),
    /// Draw from the exact discrete Gaussian / discrete Laplace samplers
    Sample(sample::SampleArgs),
}

/// Run the CLI; returns the process exit status. Errors print one line on stderr and return 2.
/// Process-wide glibc malloc settings for the large, short-lived buffers of the lattice engines: blocks up
/// to 32 MB come from the heap instead of fresh `mmap`s, and freed memory is kept rather than returned to
/// the system. A chain of convolutions allocates and frees one window per step; returned pages come back
/// zero-filled through a page fault each, which cost ~20% of the DHC units 2023 overall ε (perf: clear_page,
/// do_anonymous_page) and ~0.3 s of system time. Peak memory is unchanged (61–64 MB there). The CLI calls it
/// first; a program embedding the library may call it too. A no-op off glibc.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; it is called before other threads allocate
    // in the CLI, and glibc serialises it with allocation in any case.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// clap's error message on one line: the first line and its indented continuation lines, then the
/// "did you mean" tips (`tip: a similar argument exists: '--delta'`), which clap prints after a blank
/// line; the usage is left to --help.
pub fn clap_one_line(msg: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut tips: Vec<String> = Vec::new();
    let mut head = true;
    for (i, l) in msg.lines().enumerate() {
        if i > 0 && (l.trim().is_empty() || !l.starts_with(' ')) {
            head = false;
        }
        if head {
            parts.push(l.trim().to_string());
        } else if let Some(t) = l.trim().strip_prefix("tip: ") {
            tips.push(t.to_string());
        }
    }
    let one = parts.join(" ");
    let one = one.strip_prefix("error: ").unwrap_or(&one).to_string();
    if tips.is_empty() {
        one
    } else {
        format!("{one}; {}", tips.join("; "))
    }
}

pub fn run() -> i32 {
    // first, before any thread: a signal then removes the staging directory of a run in progress
    crate::rundir::install_signal_cleanup();
    keep_freed_memory();
    crate::num::progress::install(std::sync::Arc::new(progress::Bar::default()));
    let o = execute(std::env::args_os());
    if !o.stderr.is_empty() {
        eprint!("{}", o.stderr);
    }
    match emit(&o.stdout) {
        0 => o.code,
        failed => failed,
    }
}

/// What one command produced: its exit status, standard output and the error line (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the command line `args` (the program name first) and return what it would print, without
/// printing: the library entry behind `tightdp` (which prints the outcome), and the in-process runner of
/// the tests (`tests/common`). Progress lines a command writes while it runs still go to stderr.
pub fn execute<I, T>(args: I) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    Outcome { code: 0, stdout: e.to_string(), stderr: String::new() }
                }
                _ => Outcome { code: 2, stdout: String::new(), stderr: format!("error: {} (see --help)\n", clap_one_line(&e.to_string())) },
            };
        }
    };
    // every command returns a typed error: its kind sets the exit status
    let res = match cli.cmd {
        Command::Epsilon(a) => epsilon::run_epsilon(a),
        Command::Delta(a) => epsilon::run_delta(a),
        Command::Describe(a) => describe::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Tradeoff(a) => tradeoff::run(a),
        Command::Attack(a) => attack::run(a),
        Command::Renyi(a) => renyi::run(a),
        Command::Shuffle(a) => shuffle::run(a),
        // Figures 6 and 8 from NHGIS extracts
        Command::Accuracy(a) if !a.nhgis.nhgis.is_empty() => accuracy_nhgis::run(&a),
        Command::Accuracy(a) => accuracy::run(a),
        Command::Reproduce(a) => reproduce::run(a),
        Command::Downstream(a) => downstream::run(a),
        Command::Verify(a) => match verify::run(a) {
            Ok(v) => return Outcome { code: v.code, stdout: v.stdout, stderr: v.stderr },
            Err(e) => Err(e),
        },
        Command::Risk(a) => risk::run(a),
        Command::Topdown(a) => topdown::run(a),
        Command::SafetabTables(a) => safetab_tables::run(a),
        Command::SafetabP(a) => safetab_p::run(a),
        Command::Safetab(a) => safetab::run(a),
        Command::Synth(a) => synth::run(a),
        Command::Certify(a) => certify::run(a),
        Command::Sample(a) => sample::run(a),
    };
    outcome(res)
}

/// A command's output, or its error as one line for stderr with the exit status of the error's kind
/// (docs/design.md: 2 bad input, refusals, limits, I/O; 3 an internal error, which asks to be reported;
/// 130 interrupted).
fn outcome(res: crate::error::Fallible<String>) -> Outcome {
    match res {
        Ok(stdout) => Outcome { code: 0, stdout, stderr: String::new() },
        Err(e) => {
            let line = if e.message().trim().is_empty() { "failed".to_string() } else { crate::record::one_line(&e.to_string()) };
            Outcome { code: e.kind().exit_code(), stdout: String::new(), stderr: format!("error: {line}\n") }
        }
    }
}

/// Write a command's output to stdout, and the exit status that follows: 0 when written, and also when
/// the reader closed the pipe early (`tightdp sample … | head`: it has what it wanted; as ripgrep); an I/O
/// error otherwise (a full disk, a closed descriptor): one line on stderr and exit 2, never a panic.
pub fn emit(out: &str) -> i32 {
    use std::io::Write;
    if out.is_empty() {
        return 0;
    }
    if stdout_closed() {
        eprintln!("error: standard output is closed: the answer cannot be written");
        return crate::error::ErrorKind::Io.exit_code();
    }
    let mut o = std::io::stdout().lock();
    match o.write_all(out.as_bytes()).and_then(|_| o.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("error: writing the output failed: {e}");
            crate::error::ErrorKind::Io.exit_code()
        }
    }
}

/// True if standard output was closed when the process started (`tightdp … >&-`), which would lose the
/// answer with exit status 0: the Rust runtime reopens a closed descriptor 0–2 on /dev/null for reading
/// and writing before `main`, so a descriptor 1 that is /dev/null opened read-write is that (a shell's
/// `> /dev/null` opens it write-only, and is a choice, not a loss).
fn stdout_closed() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: fcntl(F_GETFL) and fstat only query the descriptor; `st` is plain data fstat fills in.
    unsafe {
        let fl = libc::fcntl(1, libc::F_GETFL);
        if fl == -1 {
            return true;
        }
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut st) != 0 {
            return true;
        }
        let dev_null = (st.st_mode & libc::S_IFMT) == libc::S_IFCHR && st.st_rdev == libc::makedev(1, 3);
        dev_null && (fl & libc::O_ACCMODE) == libc::O_RDWR
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}
