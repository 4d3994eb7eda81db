fn main() {
    // The last line of defence of the one-line/exit-2 contract: a panic anywhere (any thread) prints one
    // line and exits 2 instead of a backtrace and exit 101. Outputs are written atomically, so nothing is
    // left half-written.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("error: internal error, please report it: {}{at}", what.lines().next().unwrap_or(""));
        std::process::exit(2);
    }));
    std::process::exit(tightdp::cli::run());
}
