//! The arithmetic a lattice convolution runs in: the certified f64 engine, the certified double-double
//! engine, or MPFR intervals at a chosen precision. Before this type a working precision of 53 bits
//! secretly meant the f64 engine and 106 bits the double-double one; [`Arith::from_legacy_prec`] keeps
//! that reading for the callers (and the `--prec 53` / `--prec 106` invocations) written against it.

use crate::error::Fallible;
use crate::fallible;

/// How a lattice is convolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arith {
    /// f64 with a rigorous relative-error bound (~12 digits; entries below ~2^-460 dropped into the
    /// certified outside mass)
    F64,
    /// double-double (~106 bits) with a rigorous relative-error bound, for the discrete Gaussian part of
    /// a composition; a discrete Laplace part, and a composition without discrete Gaussian noise, run in
    /// MPFR at 106 bits
    DoubleDouble,
    /// MPFR interval arithmetic at this many bits
    Mpfr(u32),
}

impl Arith {
    /// The precision in bits that selected the f64 engine before `Arith` (`--prec 53`).
    pub const F64_BITS: u32 = 53;
    /// The precision in bits that selected the double-double engine before `Arith` (`--prec 106`).
    pub const DD_BITS: u32 = 106;

    /// The arithmetic a bare precision named before `Arith` existed: 53 bits the f64 engine, 106 bits
    /// the double-double engine, any other number MPFR at that many bits. Kept for `--prec 53` and
    /// `--prec 106` without `--arith`, and for the callers that still pass a precision.
    pub fn from_legacy_prec(bits: u32) -> Arith {
        match bits {
            Arith::F64_BITS => Arith::F64,
            Arith::DD_BITS => Arith::DoubleDouble,
            b => Arith::Mpfr(b),
        }
    }

    /// The working precision in bits: 53 (f64), 106 (double-double), or the MPFR precision.
    pub fn bits(&self) -> u32 {
        match self {
            Arith::F64 => Arith::F64_BITS,
            Arith::DoubleDouble => Arith::DD_BITS,
            Arith::Mpfr(b) => *b,
        }
    }

    /// True for the fixed-precision engines (f64, double-double), whose precision cannot be raised.
    pub fn is_fixed(&self) -> bool {
        !matches!(self, Arith::Mpfr(_))
    }

    /// The `--arith` spelling: `f64`, `dd`, `mpfr`.
    pub fn name(&self) -> &'static str {
        match self {
            Arith::F64 => "f64",
            Arith::DoubleDouble => "dd",
            Arith::Mpfr(_) => "mpfr",
        }
    }

    /// The arithmetic of `--arith NAME` with `--prec BITS` (the MPFR precision; `default_bits` when not
    /// given). `--prec` with `f64` or `dd` is refused: their precision is fixed.
    pub fn parse(name: &str, bits: Option<u32>, default_bits: u32) -> Fallible<Arith> {
        match (name.trim(), bits) {
            ("mpfr", b) => Ok(Arith::Mpfr(b.unwrap_or(default_bits))),
            (n @ ("f64" | "dd"), Some(b)) => {
                fallible!(
                    Input,
                    "--prec sets the MPFR precision; --arith {n} has a fixed one (got --prec {b}); use --arith mpfr --prec {b}"
                )
            }
            ("f64", None) => Ok(Arith::F64),
            ("dd", None) => Ok(Arith::DoubleDouble),
            (other, _) => fallible!(Input, "unknown arithmetic '{other}' (one of f64, dd, mpfr)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_precisions_and_spellings() {
        assert_eq!(Arith::from_legacy_prec(53), Arith::F64);
        assert_eq!(Arith::from_legacy_prec(106), Arith::DoubleDouble);
        assert_eq!(Arith::from_legacy_prec(107), Arith::Mpfr(107));
        for a in [Arith::F64, Arith::DoubleDouble, Arith::Mpfr(53), Arith::Mpfr(4096)] {
            assert_eq!(Arith::parse(a.name(), if a.is_fixed() { None } else { Some(a.bits()) }, 256), Ok(a));
        }
        assert_eq!(Arith::parse("mpfr", None, 256), Ok(Arith::Mpfr(256)));
        assert_eq!([Arith::F64.bits(), Arith::DoubleDouble.bits(), Arith::Mpfr(53).bits()], [53, 106, 53]);
        assert!(Arith::F64.is_fixed() && Arith::DoubleDouble.is_fixed() && !Arith::Mpfr(106).is_fixed());
        let e = Arith::parse("dd", Some(106), 256).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Input);
        assert!(e.message().contains("--arith dd has a fixed one"), "{e}");
        assert!(Arith::parse("quad", None, 256).unwrap_err().message().contains("unknown arithmetic 'quad'"));
    }
}
