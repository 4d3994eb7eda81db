//! Numeric foundations: certified intervals over MPFR, exact decimal parsing, directed decimal output.
pub mod arith;
pub mod ball;
pub mod boundary;
pub mod cancel;
pub mod cinterval;
pub mod dd;
pub mod format;
pub mod interval;
pub mod parse;
pub mod progress;
pub mod special;
#[cfg(test)]
pub(crate) mod xorshift;

pub use arith::Arith;
pub use format::{fmt_down, fmt_up};
pub use interval::Interval;
pub use parse::{parse_positive_rational, parse_rational};

/// Default working precision in bits (docs/design.md: default ≥ 256 bits).
pub const DEFAULT_PREC: u32 = 256;

/// Smallest precision accepted on the command line.
pub const MIN_PREC: u32 = 53;
/// Largest precision accepted on the command line.
pub const MAX_PREC: u32 = 65536;
