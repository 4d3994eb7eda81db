#![warn(clippy::unwrap_used)]
fn main() {
    // The last line of defence of the one-line contract: a panic anywhere (any thread) is a bug, so it
    // prints one line asking to be reported and exits 3 (docs/design.md, exit status) instead of a
    // backtrace and exit 101. Outputs are written atomically, so nothing is left half-written.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("error: internal error, please report it: {}{at}", what.lines().next().unwrap_or(""));
        // (with RUST_BACKTRACE set, the backtrace follows the line, for the report)
        let trace = std::backtrace::Backtrace::capture();
        if trace.status() == std::backtrace::BacktraceStatus::Captured {
            eprintln!("{trace}");
        }
        std::process::exit(tightdp::ErrorKind::Internal.exit_code());
    }));
    std::process::exit(tightdp::run());
}
