//! A deterministic pseudo-random stream for the tests' argument samples (Marsaglia's xorshift64, shifts
//! 13, 7, 17): fixed seeds make every randomized check reproducible without a `rand` dependency.

/// xorshift64 state; any non-zero seed.
pub(crate) struct XorShift(pub u64);

impl XorShift {
    /// The next 64-bit state.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next state's top 53 bits as a double in [0, 1).
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Random arguments in the style of Arb's `randtest_special` for the numeric foundation's tests: random
/// precisions, mantissas with long runs of ones or zeros (carries, ties and round-to-boundary cases), exact
/// zeros, equal ends, intervals straddling 0, and exponents from a few bits up to MPFR's limits.
pub(crate) mod gen {
    use super::XorShift;
    use crate::num::Interval;
    use rug::float::Round;
    use rug::{Float, Integer};

    /// How far exponents may range.
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Range {
        /// |exponent| ≤ 12 mostly, sometimes up to 64.
        Moderate,
        /// Mostly moderate, sometimes up to ±1100 (f64's limits) or ±2²⁰.
        Wide,
        /// Like `Wide`, and one case in ten within 40 of MPFR's smallest or largest exponent.
        Extreme,
    }

    /// The generator of case `i` of the test seeded `seed` (a failure message names both; rerunning that case
    /// alone needs only these two numbers).
    pub(crate) fn case(seed: u64, i: u64) -> XorShift {
        // SplitMix64 of seed + i: independent-looking non-zero states for consecutive cases
        let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }

    impl XorShift {
        /// Uniform in 0..n (n > 0).
        pub(crate) fn below(&mut self, n: u64) -> u64 {
            self.next_u64() % n
        }

        /// True with probability num/den.
        pub(crate) fn chance(&mut self, num: u64, den: u64) -> bool {
            self.below(den) < num
        }

        /// A precision in 2..=4000 bits, mostly below 200 (the cases stay cheap), one in twenty above 1000.
        pub(crate) fn prec(&mut self) -> u32 {
            match self.below(20) {
                0 => 1000 + self.below(3001) as u32,
                1..=4 => 200 + self.below(800) as u32,
                _ => 2 + self.below(199) as u32,
            }
        }

        /// An integer of exactly `bits` bits (top bit set): uniform, all ones, a power of two, 2^(bits−1)+1, or
        /// long runs of ones and zeros.
        pub(crate) fn mantissa(&mut self, bits: u32) -> Integer {
            let choice = self.below(8);
            let mut r = || self.bits(bits);
            let top = Integer::from(1) << (bits - 1);
            let all = (Integer::from(1) << bits) - 1u32;
            let m = match choice {
                0 => all.clone(),
                1 => top.clone(),
                2 => top.clone() + 1u32,
                3 => r() & r() & r(),
                4 => all.clone() ^ (r() & r() & r()),
                _ => r(),
            };
            (m & all) | top
        }

        /// `bits` uniform random bits.
        fn bits(&mut self, bits: u32) -> Integer {
            let limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| self.next_u64()).collect();
            Integer::from_digits(&limbs, rug::integer::Order::Lsf).keep_bits(bits)
        }

        fn exponent(&mut self, range: Range) -> i32 {
            let extreme = matches!(range, Range::Extreme) && self.chance(1, 10);
            if extreme {
                return if self.chance(1, 2) {
                    rug::float::exp_max() - self.below(40) as i32
                } else {
                    rug::float::exp_min() + self.below(40) as i32
                };
            }
            let roll = self.below(16);
            match range {
                Range::Moderate if roll == 0 => self.below(129) as i32 - 64,
                _ if roll <= 10 => self.below(25) as i32 - 12,
                Range::Moderate => self.below(25) as i32 - 12,
                _ if roll <= 13 => self.below(2201) as i32 - 1100,
                _ => self.below(1 << 21) as i32 - (1 << 20),
            }
        }

        /// A random float of precision `prec` (its mantissa may use fewer bits); one in sixteen is an exact 0.
        pub(crate) fn float(&mut self, prec: u32, range: Range) -> Float {
            if self.chance(1, 16) {
                return Float::with_val(prec, 0);
            }
            let bits = if self.chance(1, 2) { prec } else { 1 + self.below(prec as u64) as u32 };
            let m = self.mantissa(bits);
            let e = self.exponent(range);
            let f = Float::with_val(prec, m) << (e - bits as i32);
            if self.chance(1, 2) {
                -f
            } else {
                f
            }
        }

        /// A random interval: a point (one in five), a narrow interval about a random float, or the hull of two
        /// independent floats (which straddles 0 half the time). Its ends usually share one random precision.
        pub(crate) fn interval(&mut self, range: Range) -> Interval {
            let p = self.prec();
            let q = if self.chance(1, 4) { self.prec() } else { p };
            let a = self.float(p, range);
            let (lo, hi) = match self.below(5) {
                0 => (a.clone(), Float::with_val(q, &a)),
                1 | 2 => {
                    // a + |a|·2^-k·t, rounded up: a narrow interval (k up to 3 precisions)
                    let k = self.below(3 * p as u64 + 2) as i32;
                    let t = Float::with_val(q, self.next_f64());
                    let d = (Float::with_val(p + 64, a.abs_ref()) * t) >> k;
                    let d = if d.is_zero() { Float::with_val(q, self.float(q, range).abs_ref()) } else { d };
                    let hi = Float::with_val_round(q, &a + &d, Round::Up).0;
                    // an end past the largest float would be +∞: keep the point instead
                    let hi = if hi.is_finite() { hi } else { Float::with_val(q, &a) };
                    (a, hi)
                }
                _ => {
                    let b = self.float(q, range);
                    if a <= b {
                        (a, b)
                    } else {
                        (b, a)
                    }
                }
            };
            let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
            Interval::new(lo, hi)
        }

        /// A random interval inside [0, ∞) (`zero_ok`) or (0, ∞).
        pub(crate) fn positive_interval(&mut self, range: Range, zero_ok: bool) -> Interval {
            let i = self.interval(range);
            let (a, b) = (Float::with_val(i.lo().prec(), i.lo().abs_ref()), Float::with_val(i.hi().prec(), i.hi().abs_ref()));
            let (mut lo, mut hi) = if a <= b { (a, b) } else { (b, a) };
            if !zero_ok && lo.is_zero() {
                lo = Float::with_val(lo.prec(), 1) >> (self.below(60) as i32);
                if hi < lo {
                    hi = Float::with_val(lo.prec(), &lo);
                }
            }
            Interval::new(lo, hi)
        }

        /// A point of [lo, hi]: an end (three times in four) or an interior float of twice their precision.
        pub(crate) fn point(&mut self, i: &Interval) -> Float {
            let p = 2 * i.prec() + 64;
            match self.below(8) {
                0..=2 => Float::with_val(p, i.lo()),
                3..=5 => Float::with_val(p, i.hi()),
                _ => {
                    let t = Float::with_val(p, self.next_f64());
                    let x = Float::with_val(p, i.lo() * Float::with_val(p, 1 - &t)) + Float::with_val(p, i.hi() * &t);
                    if x.is_nan() || x < *i.lo() {
                        Float::with_val(p, i.lo())
                    } else if x > *i.hi() {
                        Float::with_val(p, i.hi())
                    } else {
                        x
                    }
                }
            }
        }
    }
}
