//! The command line at the edges of its sizes: no bracket claims digits it lacks, and no input ends in
//! an internal error, a panic, an abort or a hang (issues #32, #33).

use crate::common::{bin, refused, run};
use rug::Float;

/// The value of a `key   value` line of the table output.
fn field(stdout: &str, key: &str) -> Float {
    let v = stdout
        .lines()
        .find_map(|l| l.strip_prefix(key).filter(|r| r.starts_with(' ')).map(|r| r.trim().to_string()))
        .unwrap_or_else(|| panic!("no {key} in {stdout}"));
    Float::with_val(200, Float::parse(&v).unwrap())
}

/// 100,000 × N_Z(0, 37.7) (and N_Z(0, 5)) at δ = 1e-10: the f64 lattice keeps no mass below 2^-460 while ε
/// ≈ 1653 needs ~2,500 bits (its bracket [308, 1654] has no correct digit; refused since the honesty gate),
/// and the smoothed inversion's lower end fell to 0: its Chernoff bound on the aliasing m ≥ 1 used tilts
/// c + 0.5 … 2c + 1, which for this wide loss (variance 2,650, c = 0.13, period T ≈ 411) give e^{111}
/// instead of e^{−50}. Now the tilts include the optimum (K′(c′) ≈ K′(c) + T) and the accountant picks the
/// smoothed inversion when the f64 lattice cannot hold the bits the query needs; since the lattice Fourier
/// engine (`fourier::lattice`) the default answers with it, to ≥ 20 digits. References: issue #33
/// quotes 1652.9428… and 10898.6518… (rounded); an independent mpmath computation (30 digits: for σ² ≥ 5 the
/// n-fold sum S of N_Z(0, σ²) has P(S = s) = e^{−s²/(2nσ²)}/√(2πnσ²) to ~1e-28 relative by Poisson summation,
/// δ(ε) = Σ_s P(S = s)(1 − e^{ε − L(s)})₊ summed directly, ε by bisection) gives 1652.94282011111… and
/// 10898.6517666329… (and 235.386634642608… at n = 10,000, matching the lattice's bracket).
#[test]
fn large_n_is_answered_by_the_fourier_engines() {
    for (s2, reference) in [("37.7", "1652.94282011111"), ("5", "10898.6517666329")] {
        for (extra, method) in [(&[][..], "lattice-fourier"), (&["--method", "smoothed", "--width", "1e-6"][..], "smoothed")] {
            let mut args = vec!["epsilon", "--sigma2", s2, "--n", "100000", "--delta", "1e-10"];
            args.extend_from_slice(extra);
            let (code, out, err) = run(&args);
            assert_eq!(code, Some(0), "{args:?}: {err}");
            assert!(out.contains(&format!("method         {method}\n")), "{out}");
            let (lo, hi) = (field(&out, "epsilon_lo"), field(&out, "epsilon_hi"));
            // the reference (to the digits given, ±1e-10) lies in the bracket
            let r = Float::with_val(200, Float::parse(reference).unwrap());
            let tol = 1e-10;
            assert!(lo.to_f64() <= r.to_f64() + tol && hi.to_f64() >= r.to_f64() - tol, "{out}");
            assert!((hi.clone() - lo.clone()).to_f64() < 1e-6, "{out}");
            let d = field(&out, "digits").to_f64() as u32;
            assert!(d >= if method == "smoothed" { 10 } else { 20 }, "{out}");
            if d < 20 {
                assert!(out.contains(&format!("{d} digits certified, because")), "{out}");
            }
        }
    }
}

/// For smaller n the smoothed bracket meets the lattice engine's (a second, independent engine).
#[test]
fn smoothed_bracket_meets_the_lattice_at_moderate_n() {
    for n in ["1000", "10000"] {
        let base = ["epsilon", "--sigma2", "37.7", "--n", n, "--delta", "1e-10"];
        let (code, sm, err) = run(&[&base[..], &["--method", "smoothed", "--width", "1e-6"]].concat());
        assert_eq!(code, Some(0), "{err}");
        let (code, la, err) = run(&[&base[..], &["--method", "lattice", "--digits", "12"]].concat());
        assert_eq!(code, Some(0), "{err}");
        let (slo, shi) = (field(&sm, "epsilon_lo"), field(&sm, "epsilon_hi"));
        let (llo, lhi) = (field(&la, "epsilon_lo"), field(&la, "epsilon_hi"));
        assert!(slo <= lhi && llo <= shi, "n = {n}: smoothed {sm}\nlattice {la}");
        assert!((shi - slo).to_f64() < 1e-6, "{sm}");
    }
}

/// A bracket short of the digits asked says how many it has: `digits` equals the count in the note.
#[test]
fn a_short_bracket_states_its_digits() {
    for args in [
        &["epsilon", "--sigma2", "5", "--n", "10", "--delta", "1e-10", "--method", "lattice", "--prec", "53"][..],
        &["epsilon", "--sigma2", "5", "--n", "10", "--delta", "1e-10", "--grid", "1e-3"][..],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(0), "{err}");
        let d = field(&out, "digits").to_f64() as u32;
        assert!((1..20).contains(&d), "{out}");
        let s = if d == 1 { "" } else { "s" };
        assert!(out.contains(&format!("wider than the 20 digits asked: {d} digit{s} certified, because")), "{out}");
    }
}

/// Inputs that ended in `internal error, please report it` naming a source line (an assertion on an
/// underflowed lattice mass, the zCDP α search on a ρ below f64's range, a 25-petabyte allocation or a
/// u32 overflow in the smoothed inversion's tables) now answer or are refused with one line.
#[test]
fn extreme_parameters_answer_or_refuse_without_internal_errors() {
    // σ² = 1e-300: δ(1) = 1 − e·Q[L > 1] with Q[L > 1] = P[X ≥ 1] ≈ e^{−5e299}: within 1e-30 of 1
    for s2 in ["1e-300", "1e-30"] {
        let (code, out, err) = run(&["delta", "--sigma2", s2, "--n", "1", "--epsilon", "1"]);
        assert_eq!(code, Some(0), "{err}");
        let one_minus = Float::with_val(200, 1) - Float::with_val(200, 1e-30);
        assert!(field(&out, "delta_lo") > one_minus && field(&out, "delta_hi") <= 1.0, "{out}");
    }
    // DLap(1e300) is 1e-300-DP: δ(1) = 0 exactly, and the CKS conversion of ρ = 5e-601 answers
    let (code, out, err) = run(&["delta", "--mech", "dlap:scale=1e300,n=1", "--epsilon", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(field(&out, "delta_hi") == 0, "{out}");
    for m in ["zcdp-bs", "zcdp-cks"] {
        let (code, out, err) = run(&["epsilon", "--mech", "dlap:scale=1e300,n=1", "--delta", "1e-10", "--method", m]);
        assert_eq!(code, Some(0), "{m}: {err}");
        // Bun–Steinke: ρ + 2√(ρ ln 1e10) < 1e-299
        assert!(field(&out, "epsilon_hi") < 1e-299, "{m}: {out}");
    }
    // σ² = 1e-300 makes the two hypotheses all but disjoint: f(0.5) lies below the lattice's resolution,
    // so only its upper bound is certified — answered as [0, hi] with a note saying 0 digits and why
    let (code, out, err) = run(&["tradeoff", "--sigma2", "1e-300", "--n", "1", "--alpha", "0.5", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = if v.is_array() { v[0].clone() } else { v };
    let num = |k: &str| Float::with_val(200, Float::parse(row[k].as_str().unwrap_or_else(|| panic!("{k} in {out}"))).unwrap());
    assert!(num("beta_lo") == 0 && num("beta_hi") < 1e-30, "{out}");
    let note = row["note"].as_str().unwrap_or_default();
    assert!(note.contains("0 digits certified") && note.contains("only the upper bound"), "{out}");
    // the CKS conversion of ρ = 5e-601 at ε = 1: δ far below any resolution, answered as its bound
    let (code, out, err) = run(&["delta", "--mech", "dlap:scale=1e300,n=1", "--epsilon", "1", "--method", "zcdp-cks"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(field(&out, "delta_lo") == 0 && field(&out, "delta_hi") < 1e-300, "{out}");
    assert!(out.contains("0 digits certified") && out.contains("only the upper bound"), "{out}");
    let (code, out, err) = run(&["attack", "--sigma2", "1e-300", "--n", "1", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}\n{out}");
    for args in [
        &["epsilon", "--sigma2", "1e-300", "--n", "1", "--delta", "1e-10", "--method", "smoothed"][..],
        &["epsilon", "--sigma2", "1e-30", "--n", "1", "--delta", "1e-10", "--method", "smoothed"][..],
        &["epsilon", "--sigma2", "5", "--n", "1", "--sensitivity", "1000000", "--delta", "1e-10", "--method", "smoothed"][..],
        &["epsilon", "--sigma2", "5", "--n", "0", "--delta", "1e-10"][..],
        &["epsilon", "--sigma2", "5", "--n", "1000000000000000000", "--delta", "1e-10"][..],
    ] {
        refused(args, &[]);
    }
}

/// `verify --published` rows beyond what their computation handles are refused with one line before any
/// work: a CLT residual for n = 1e8 aborted out of memory, σ² = 1e30 asked 872 PB, and a variance
/// deficit at σ² = 1e-30 (theta series of ~1e15 terms) or 1e300 ran without end.
#[test]
fn published_rows_beyond_their_range_are_refused() {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(repo.join("data/published.csv")).unwrap().lines().next().unwrap().to_string();
    let t = tempfile::tempdir().unwrap();
    for (row, want) in [
        ("x,p,\"l\",clt_residual_sup,n=100000000;sigma2=1,5e-6,upper,,", "input 'n' must be between 1 and 1000"),
        ("x,p,\"l\",clt_residual_sup,n=5;sigma2=1e30,5e-6,upper,,", "input 'sigma2' must be between"),
        ("x,p,\"l\",clt_residual_sup,n=1000;sigma2=1000,5e-6,upper,,", "operations (limit"),
        ("x,p,\"l\",variance_deficit,sigma2=1e-30,5e-6,upper,,", "input 'sigma2' must be between"),
        ("x,p,\"l\",variance_deficit,sigma2=1e300,5e-6,upper,,", "input 'sigma2' must be between"),
    ] {
        let f = t.path().join("pub.csv");
        std::fs::write(&f, format!("{header}\n{row}\n")).unwrap();
        let out = bin().current_dir(&repo).args(["verify", "--published", f.to_str().unwrap()]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{row}: {err}");
        assert!(err.contains(want) && err.trim_end().lines().count() == 1, "{row}: {err}");
    }
}

/// n × DLap(4) with sensitivity 1: the n-fold law is Binomial(n, P[X ≥ 0]), built in n steps (binary
/// powering of n-entry windows made n = 1e5 run > 60 s). The value at n = 1000 against an independent
/// mpmath evaluation of the binomial privacy-loss distribution (60 digits, bisection on ε):
/// 79.7081065996762709699838440532.
#[test]
fn discrete_laplace_at_large_n_answers() {
    let (code, out, err) = run(&["epsilon", "--mech", "dlap:scale=4,n=1000", "--delta", "1e-10"]);
    assert_eq!(code, Some(0), "{err}");
    let want = Float::with_val(200, Float::parse("79.7081065996762709699838440532").unwrap());
    let slack = Float::with_val(200, 1e-27);
    assert!(field(&out, "epsilon_lo") <= Float::with_val(200, &want + &slack), "{out}");
    assert!(field(&out, "epsilon_hi") >= Float::with_val(200, &want - &slack), "{out}");
    let (code, out, err) = run(&["epsilon", "--mech", "dlap:scale=4,n=100000", "--delta", "1e-10"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(field(&out, "digits") >= 20, "{out}");
}

/// Compositions whose lattice is out of reach answer by a faster engine or are refused up front:
/// 1,000,000 × N_Z(0, 5000) (ran > 300 s) answers by the smoothed inversion with its digits stated;
/// 1,000 × N_Z(0, 1e4) squares in double-double instead of an MPFR residue recursion (> 60 s) and has its
/// 20 digits (true ε 1.90928…); an explicit MPFR lattice or grid for 1,000,000 queries is refused with its
/// estimate instead of running without end.
#[test]
fn large_compositions_answer_or_refuse_up_front() {
    let (code, out, err) = run(&["epsilon", "--sigma2", "5000", "--n", "1000000", "--delta", "1e-10"]);
    assert_eq!(code, Some(0), "{err}");
    let d = field(&out, "digits").to_f64() as u32;
    assert!(d >= 6, "{out}");
    assert!(d >= 20 || out.contains(&format!("{d} digits certified")), "{out}");
    // inside the certified zCDP (CKS) upper bound
    let (_, cks, _) = run(&["epsilon", "--sigma2", "5000", "--n", "1000000", "--delta", "1e-10", "--method", "zcdp-cks"]);
    assert!(field(&out, "epsilon_hi") <= field(&cks, "epsilon_hi"), "{out}\n{cks}");
    let (code, out, err) = run(&["epsilon", "--sigma2", "10000", "--n", "1000", "--delta", "1e-10"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(field(&out, "digits") >= 20, "{out}");
    assert!(field(&out, "epsilon_lo") > 1.90928 && field(&out, "epsilon_hi") < 1.90929, "{out}");
    let err = refused(&["epsilon", "--sigma2", "5", "--n", "1000000", "--delta", "1e-10", "--method", "lattice"], &[]);
    assert!(err.contains("would take about") && err.contains("limit"), "{err}");
    let err = refused(&["epsilon", "--sigma2", "5", "--n", "1000000", "--delta", "1e-10", "--grid", "1e-3"], &[]);
    assert!(err.contains("operations") && err.contains("limit"), "{err}");
}

/// An allocation of 100 levels × 1,000,000 queries (10⁸ budgets held one by one) ran out of memory even
/// for `--method zcdp-bs`; it is refused while the file is read, naming the limit.
#[test]
fn an_allocation_of_too_many_queries_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let levels: String = (0..100).map(|i| format!("[[level]]\nname = \"L{i}\"\nshare = \"1/100\"\nqueries = 1000000\n\n")).collect();
    let f = t.path().join("huge.toml");
    std::fs::write(&f, format!("name = \"huge\"\nsource = \"test\"\nrho = \"1\"\nneighbors = \"add-remove\"\n\n{levels}")).unwrap();
    let err = refused(&["epsilon", "--allocation", f.to_str().unwrap(), "--overall", "--delta", "1e-10", "--method", "zcdp-bs"], &[]);
    assert!(err.contains("more than the 2000000 an allocation may hold"), "{err}");
}

/// Bad sizes (issue 33): n = 0 and n = 10¹⁸ are refused with one line; σ² = 10⁻³⁰⁰ at any n is refused
/// (no engine resolves a loss of ~5e299 per query) instead of an internal error; σ² = 10³⁰⁰ at n = 10¹²
/// is answered exactly: δ(0) = TV ≤ √n/(σ√(2π)) ≈ 4e-145 < 1e-10, so ε(1e-10) = 0.
#[test]
fn bad_sizes_are_refused_and_huge_variances_answered() {
    for n in ["0", "1000000000000000000"] {
        let e = refused(&["epsilon", "--sigma2", "1", "--n", n, "--delta", "1e-10"], &[]);
        assert!(e.contains("n must be an integer between 1 and 1000000000000"), "{e}");
    }
    for n in ["10", "1000000000000"] {
        refused(&["epsilon", "--sigma2", "1e-300", "--n", n, "--delta", "1e-10"], &[]);
    }
    let (code, out, err) = run(&["epsilon", "--sigma2", "1e300", "--n", "1000000000000", "--delta", "1e-10"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(field(&out, "epsilon_lo") == 0 && field(&out, "epsilon_hi") == 0, "{out}");
}
