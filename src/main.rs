fn main() {
    std::process::exit(tightdp::cli::run());
}
