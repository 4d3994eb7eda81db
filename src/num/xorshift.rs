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
