//! The lattice Fourier engine against the independent high-precision reference (issue 33: every bracket
//! cross-checked). Provenance: scripts/reference/dg_reference.py (plain n-fold convolution of fixed-point
//! integer pmfs, exact; tails by exact suffix sums; ε(δ) by bisection; stated absolute error < 1.2e-55),
//! output scripts/reference/dg_reference_values.csv — a different algorithm from the inversion in
//! src/fourier/lattice. Every ε(δ) and δ(ε) row is answered by `--method lattice-fourier` at 30 digits and
//! must lie in the certified bracket (to the reference's own 1e-40 relative accuracy).

use rug::{Float, Rational};
use tightdp::parse_rational;
use tightdp::Composition;
use tightdp::{Accountant, Method, Options};

#[test]
fn lattice_fourier_brackets_hold_the_reference_values() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reference/dg_reference_values.csv");
    let mut rd = csv::Reader::from_path(path).expect("reference CSV");
    let mut checked = 0;
    let mut current: Option<((Rational, u64, u32), Accountant)> = None;
    for r in rd.records() {
        let r = r.unwrap();
        let quantity = &r[4];
        if quantity != "eps_of_delta" && quantity != "delta_of_eps" {
            continue;
        }
        let (s2, n, mu): (Rational, u64, u32) = (parse_rational(&r[1]).unwrap(), r[2].parse().unwrap(), r[3].parse().unwrap());
        let arg = parse_rational(&r[5]).unwrap();
        let want = Float::with_val(400, Float::parse(&r[6]).unwrap());
        // one accountant per composition, its rows asked in turn (as a user asks several queries)
        let key = (s2.clone(), n, mu);
        if current.as_ref().is_none_or(|(k, _)| *k != key) {
            let opts = Options { method: Method::LatticeFourier, digits: 30, ..Options::default() };
            current = Some((key, Accountant::new(Composition::gaussian(s2.clone(), n, mu).unwrap(), opts).unwrap()));
        }
        let acc = &current.as_ref().unwrap().1;
        let c = if quantity == "eps_of_delta" { acc.epsilon(&arg).unwrap() } else { acc.delta(&arg).unwrap().delta };
        let slack = Float::with_val(400, want.abs_ref()) * 1e-40;
        let (lo, hi) = (Float::with_val(400, c.lo()), Float::with_val(400, c.hi()));
        assert!(lo - &slack <= want && hi + &slack >= want, "{} {quantity}({}): {c:?} vs {want}", &r[0], &r[5]);
        assert!(c.digits() >= 20, "{} {quantity}({}): {c:?}", &r[0], &r[5]);
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} rows checked");
}
