//! Regenerates the numbers of docs/fourier-findings.md:
//!   cargo run --release --example fourier_findings [-- quick]
use rug::{Float, Rational};
use std::time::Instant;
use tightdp::boole::{self, BooleParams};
use tightdp::compose_groups;
use tightdp::fast::{self, CharSource, FastParams};
use tightdp::parse_rational;
use tightdp::{clt, dhc_table3_groups, dhc_table3_mechs, first_above, paper_lattice};

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let cases = [("3.65", "0.9485*21.97", 9.980_318_019_917_668e-11), ("3.99299857783612", "21.97", 9.998_995_121_218_069e-11)];
    for (rho_s, eps_s, published) in cases {
        let rho = parse_rational(rho_s).unwrap();
        let eps = if eps_s.contains('*') {
            parse_rational("0.9485").unwrap() * parse_rational("21.97").unwrap()
        } else {
            parse_rational(eps_s).unwrap()
        };
        println!("\n=== rho = {rho_s}, eps = {eps_s} = {} ===", eps.to_f64());
        let t_eps = Rational::from(5) * (Rational::from(&eps / &rho) - 1u32);
        let t_hi = Rational::from(5) * (Rational::from(&eps / &rho) + 1u32);
        let groups = dhc_table3_groups(&rho);
        let (lg, m) = paper_lattice(&groups, &t_eps, 1000).unwrap();
        println!("t_eps = {:.12}  t_eps*L = {:.6}  first lattice point A = {}", t_eps.to_f64(), m.to_f64(), first_above(&m).unwrap());
        // lattice reference
        let t0 = Instant::now();
        let prof = compose_groups(&dhc_table3_mechs(&rho), 128).unwrap();
        let dv = prof.delta(&eps);
        println!("lattice (prec 128, {:.1} s): first  = {}", t0.elapsed().as_secs_f64(), dv.first);
        println!("                           second = {}", dv.second);
        println!("                           delta  = {}", dv.delta);
        let lat1 = dv.first.mid().to_f64();
        println!("lattice widths: first {:.2e}, second {:.2e}", dv.first.width().to_f64(), dv.second.width().to_f64());
        println!("published first term      = {published:.17e}   rel. diff to lattice {:.3e}", published / lat1 - 1.0);
        // fast variant
        for (name, fp) in [
            ("fast f64 exact", FastParams::default()),
            ("fast f64 nu", FastParams { source: CharSource::Nu, ..FastParams::default() }),
            ("fast mpfr128", FastParams { prec: Some(128), tail_bits: 128, ..FastParams::default() }),
            ("fast mpfr256 nu", FastParams { prec: Some(256), tail_bits: 256, source: CharSource::Nu, ..FastParams::default() }),
        ] {
            let t0 = Instant::now();
            let v = fast::first_term_fast(&groups, &t_eps, 1000, &fp).unwrap();
            let s = fast::first_term_fast(&groups, &t_hi, 1000, &fp).unwrap();
            let shown = v.value_mpfr.as_ref().map(|x| x.to_string_radix(10, Some(36))).unwrap_or(format!("{:.17e}", v.value));
            let shown2 = s.value_mpfr.as_ref().map(|x| x.to_string_radix(10, Some(36))).unwrap_or(format!("{:.17e}", s.value));
            println!(
                "{name:16} ({:.3} s, {} + {} nodes, M = {}): first = {shown}  (rel. to lattice {:.2e}, bound {:.1e})\n{:16} second-term prob P[V > T_eps L] = {shown2} (bound {:.1e})",
                t0.elapsed().as_secs_f64(), v.nodes, s.nodes, v.m, v.value / lat1 - 1.0, v.error_bound, "", s.error_bound
            );
            if let Some(x) = &v.value_mpfr {
                let d = Float::with_val(128, x - dv.first.mid());
                println!("{:16} |mpfr − lattice| = {:.3e}", "", d.abs().to_f64());
            }
        }
        // faithful Boole at several N
        let ns: &[u64] = if quick { &[100_001, 1_000_001] } else { &[100_001, 1_000_001, 10_000_001] };
        for &n in ns {
            let p = BooleParams { n_points: n, ..BooleParams::default() };
            let v = boole::first_term(&groups, &t_eps, &p, &boole::no_progress).unwrap();
            println!(
                "Boole N={n:>9} ({:.2} s): first = {:.17e}  rel. to lattice {:+.3e}  window {:?}  E = [{:.2e}, {:.2e}, {:.2e}, {:.2e}] total {:.2e}",
                v.seconds, v.value, v.value / lat1 - 1.0, v.window, v.error_terms[0], v.error_terms[1], v.error_terms[2], v.error_terms[3], v.error_bound
            );
        }
        // the paper's loop literally: sequential, uncompensated f64 sum over the panels (Fact A.15)
        if !quick {
            let a = first_above(&m).unwrap();
            let b = (m.to_f64() * 6.0).ceil() as i64;
            let f = boole::Integrand::new(&lg, a, b);
            let n = 10_000_001u64;
            let h = 0.01 / (n - 1) as f64;
            let t0 = Instant::now();
            let mut s = 0.0f64;
            for l in 1..=(n - 1) / 4 {
                let x = |i: u64| f.eval(i as f64 * h);
                s += 2.0 * h / 45.0
                    * (7.0 * x(4 * l - 4) + 32.0 * x(4 * l - 3) + 12.0 * x(4 * l - 2) + 32.0 * x(4 * l - 1) + 7.0 * x(4 * l));
            }
            println!(
                "Boole N={n} naive sequential f64 sum ({:.1} s) = {s:.17e}  rel. to lattice {:+.3e}",
                t0.elapsed().as_secs_f64(),
                s / lat1 - 1.0
            );
        }
        // ν vs exact law at 256 bits: the actual Prop. A.12 error
        {
            let pe = FastParams { prec: Some(256), tail_bits: 256, ..FastParams::default() };
            let pn = FastParams { source: CharSource::Nu, ..pe.clone() };
            let ve = fast::first_term_fast(&groups, &t_eps, 1000, &pe).unwrap().value_mpfr.unwrap();
            let vn = fast::first_term_fast(&groups, &t_eps, 1000, &pn).unwrap().value_mpfr.unwrap();
            println!(
                "exact (256 bits) = {}
nu    (256 bits) = {}
|nu − exact| = {:.3e}",
                ve.to_string_radix(10, Some(50)),
                vn.to_string_radix(10, Some(50)),
                Float::with_val(256, &vn - &ve).abs().to_f64()
            );
        }
        // the same Boole sum in MPFR at small N (f64 evaluation error of the faithful integrand)
        let n = 40_001u64;
        let a = first_above(&m).unwrap();
        let b = (m.to_f64() * 6.0).ceil() as i64;
        let t0 = Instant::now();
        let mp = boole::boole_sum_mpfr(&lg, a, b, &Float::with_val(128, 0.01), n, 128);
        let f = boole::Integrand::new(&lg, a, b);
        let fv = boole::boole_sum(&f, 0.01, n, &boole::no_progress);
        println!(
            "Boole N={n} MPFR-128 ({:.1} s) = {}  f64 = {:.17e} ± {:.2e} (certified rounding)  rel {:.2e}",
            t0.elapsed().as_secs_f64(),
            mp.to_string_radix(10, Some(25)),
            fv.m,
            fv.r,
            fv.m / mp.to_f64() - 1.0
        );
        let _ = t_hi;
    }
    println!("\n=== Table 2 (paper bound, ours) and the direct sup ===");
    for &n in &clt::TABLE2_N {
        let mut row = format!("n={n:>3}");
        for &s2 in &clt::TABLE2_SIGMA2 {
            let r = clt::residual_sup(n, &Rational::from(s2), 256);
            row += &format!("  σ²={s2}: Ω-bound {:.2e} (∫ {:.2e})", r.total, r.integral);
        }
        println!("{row}");
    }
    for (n, s2) in [(10u32, 5u32), (10, 1), (20, 5)] {
        let (_, sup, arg) = clt::residual_direct(n, &Rational::from(s2), 120, 320);
        let r = clt::residual_sup(n, &Rational::from(s2), 256);
        let rf = clt::residual_fourier(n, &Rational::from(s2), arg, 320);
        println!(
            "n={n} σ²={s2}: direct sup |P − ϕ/B| = {sup:.3e} at x={arg}; Fourier-integral residual there {rf:.3e}; Ω₁+Ω₂+Ω₃ = {:.3e}",
            r.total
        );
    }
}
