//! The privacy-loss law of one mechanism: the slot every noise law fills so that the engines can
//! compose it with any other.
//!
//! A mechanism M is described, for one direction of the neighbour relation, by a *dominating pair*
//! (A, B) of output laws [ZDW22]: A the law of M on the data set that holds the record (for the
//! `Remove` direction; the other one for `Add`), B on its neighbour. Every privacy quantity of M — and of
//! any composition of such mechanisms, whose pairs compose as product laws [ZDW22] — is a
//! functional of the law of the privacy loss L = ln(dA/dB) under A:
//!
//!   δ(ε) = A[L = +∞] + E_A[(1 − e^{ε − L})₊ ; L < ∞]        ([SSW24, Lemma A.9]; [ZDW22])
//!
//! and E_A[e^{−L} ; S] = B[S] for every set S of finite losses. So a law enters the engines through the
//! two distribution functions of L, under A and under B, at any exact loss value ℓ, plus the masses at
//! ±∞ — certified intervals ([`LossLaw::split`], [`LossLaw::infinite`]) — and a little f64 planning
//! information (where the mass lies, where the support ends).
//!
//! For symmetric mechanisms (additive noise symmetric about 0, randomized response) the `Add` pair is the
//! `Remove` pair reflected, with the same law of L ([`LossLaw::symmetric`]); subsampled mechanisms are not
//! symmetric and the engines take the worse of the two directions.

use crate::error::Fallible;
use crate::noise::neighbors::Neighbors;
use crate::num::Interval;
use rug::Rational;
use std::fmt;
use std::sync::Arc;

pub use crate::noise::direction::Direction;

/// The masses on both sides of a loss value ℓ: A[L < ℓ] and A[ℓ ≤ L < ∞] (likewise for B), each
/// computed without cancellation (the small side directly). Atoms at ℓ are on the upper side, so
/// `split(ℓ₁)` and `split(ℓ₂)` give the half-open cell [ℓ₁, ℓ₂) as differences of either side.
#[derive(Clone, Debug)]
pub struct Split {
    /// A[L < ℓ]
    pub a_below: Interval,
    /// A[ℓ ≤ L < ∞]
    pub a_above: Interval,
    /// B[−∞ < L < ℓ]
    pub b_below: Interval,
    /// B[L ≥ ℓ]
    pub b_above: Interval,
}

impl Split {
    /// The split at ℓ of a law with finitely many finite losses: (loss, A-mass, B-mass) atoms, each atom
    /// on the side of ℓ it lies (an atom at ℓ above).
    pub fn of_atoms(atoms: impl IntoIterator<Item = (Rational, Interval, Interval)>, l: &Rational, prec: u32) -> Split {
        Split::of_sides(atoms.into_iter().map(|(loss, a, b)| (loss >= *l, a, b)), prec)
    }

    /// The split of finitely many atoms whose sides are already decided: (at or above ℓ, A-mass, B-mass).
    pub fn of_sides(atoms: impl IntoIterator<Item = (bool, Interval, Interval)>, prec: u32) -> Split {
        let zero = Interval::zero(prec);
        let mut s = Split { a_below: zero.clone(), a_above: zero.clone(), b_below: zero.clone(), b_above: zero };
        for (above, a, b) in atoms {
            if above {
                s.a_above = s.a_above.add(&a);
                s.b_above = s.b_above.add(&b);
            } else {
                s.a_below = s.a_below.add(&a);
                s.b_below = s.b_below.add(&b);
            }
        }
        s
    }
}

/// A law with finitely many finite losses, in one direction: its atoms (loss, A-mass, B-mass), each loss
/// enclosed (exactly where it is exact: a loss 0 is [0, 0]), no atom of zero mass, and its masses at the
/// ends, A[L = +∞] and B[L = −∞]. The exact-atoms engine composes such laws by their multinomial sums
/// where their losses share no lattice (`account::engines::atoms_listed`).
#[derive(Clone, Debug)]
pub struct FiniteLaw {
    pub atoms: Vec<(Interval, Interval, Interval)>,
    pub a_inf: Interval,
    pub b_neg_inf: Interval,
    /// true where the law promises that its first and last losses are ℓ and −ℓ (the last built as the
    /// first's exact negation) and a middle atom's, if any, exactly 0: the composition then writes a count
    /// vector's loss (k_first − k_last)·ℓ, exactly 0 where the counts balance (randomized response, a stated
    /// guarantee)
    pub mirrored: bool,
}

/// Planning quantile (see [`LossLaw::quantile`]) of a law whose finite losses lie in [−e, e] with atoms at
/// both ends: A[L ≥ e] = e^{ln_top}, A[L < −e]… = A[L = −e] = e^{ln_bottom}. A smaller upper tail than the
/// top atom's is at e, else at −e; likewise below.
pub fn two_atom_quantile(e: f64, ln_top: f64, ln_bottom: f64, ln_p: f64, upper: bool) -> f64 {
    match (upper, if upper { ln_p <= ln_top } else { ln_p <= ln_bottom }) {
        (true, true) | (false, false) => e,
        _ => -e,
    }
}

/// One end of the support of the finite losses.
#[derive(Clone, Debug, PartialEq)]
pub enum End {
    /// no bound: the losses reach ±∞ continuously (the Gaussian)
    Open,
    /// a finite end with an atom there (Laplace's ±μ/b, randomized response's ±ε), enclosed
    Atom(Interval),
    /// a finite end that is not attained, where the mass may pile up (ln(1 − q) for a subsampled
    /// mechanism); the value is enclosed
    Limit(Interval),
}

impl End {
    /// The end as an f64 (±∞ for `Open`, of the sign `sign`).
    pub fn to_f64(&self, sign: f64) -> f64 {
        match self {
            End::Open => sign * f64::INFINITY,
            End::Atom(i) => i.to_f64(),
            End::Limit(i) => i.to_f64(),
        }
    }
}

/// Where the finite losses of one direction live.
#[derive(Clone, Debug, PartialEq)]
pub struct LossRange {
    pub lo: End,
    pub hi: End,
}

/// The loss-law methods of a mechanism that has none (a stated zCDP guarantee, repeat-and-select, random
/// allocation), inside its `impl LossLaw`: `split` and `infinite` decline with the type's own
/// `no_loss_law()` error (or, `without_loss_law!(by f)`, with `f(self)`), the range is open and the quantile 0 (no engine plans a law it cannot split).
macro_rules! without_loss_law {
    () => {
        $crate::noise::loss::without_loss_law!(by |law: &Self| law.no_loss_law());
    };
    (by $why:expr) => {
        fn split(
            &self,
            _dir: $crate::noise::loss::Direction,
            _l: &rug::Rational,
            _prec: u32,
        ) -> $crate::error::Fallible<$crate::noise::loss::Split> {
            Err(($why)(self))
        }

        fn infinite(
            &self,
            _dir: $crate::noise::loss::Direction,
            _prec: u32,
        ) -> $crate::error::Fallible<($crate::num::Interval, $crate::num::Interval)> {
            Err(($why)(self))
        }

        fn range(&self, _dir: $crate::noise::loss::Direction) -> $crate::noise::loss::LossRange {
            $crate::noise::loss::LossRange { lo: $crate::noise::loss::End::Open, hi: $crate::noise::loss::End::Open }
        }

        fn quantile(&self, _dir: $crate::noise::loss::Direction, _ln_p: f64, _upper: bool) -> f64 {
            0.0
        }
    };
}
pub(crate) use without_loss_law;

/// The privacy-loss law of one mechanism (module doc). Implementations live in one file each under
/// `src/noise/` and are checked there against an independent computation.
pub trait LossLaw: Send + Sync + fmt::Debug {
    /// The `--mech` spelling with every parameter (also the key that merges equal mechanisms).
    fn spec(&self) -> String;

    /// True if both directions have the same law of L (then only `Remove` is asked for).
    fn symmetric(&self) -> bool;

    /// The masses on both sides of the exact loss value ℓ (see [`Split`]), at `prec` bits.
    fn split(&self, dir: Direction, l: &Rational, prec: u32) -> Fallible<Split>;

    /// A[L = +∞] (outputs B never produces) and B[L = −∞] (outputs A never produces).
    fn infinite(&self, dir: Direction, prec: u32) -> Fallible<(Interval, Interval)>;

    /// A[L = +∞] and B[L = −∞] as exact rationals, where the law knows them so (a stated δ, its Poisson
    /// subsample's q·δ; 0 for a law with no mass there): they decide ε(δ) at a δ equal to the mass at +∞,
    /// which enclosures cannot. None: not known exactly.
    fn infinite_exact(&self, dir: Direction) -> Option<(Rational, Rational)> {
        let (a, b) = self.infinite(dir, 64).ok()?;
        (*a.hi() == 0 && *b.hi() == 0).then(|| (Rational::new(), Rational::new()))
    }

    /// The support of the finite losses.
    fn range(&self, dir: Direction) -> LossRange;

    /// Planning only (not certified): a loss ℓ with A[L ≥ ℓ] ≈ e^{ln_p} (upper = true) or
    /// A[L < ℓ] ≈ e^{ln_p} (upper = false), clamped to the support; used to choose the window of the
    /// discretisation, whose every truncation is then certified.
    fn quantile(&self, dir: Direction, ln_p: f64, upper: bool) -> f64;

    /// The law to account under `neighbors` when it is not this one (the Poisson-subsampled Gaussian under
    /// replace-one: its own pair, `noise::poisson_replace`); None: this law.
    fn under(&self, _neighbors: Neighbors) -> Option<Fallible<Arc<dyn LossLaw>>> {
        None
    }

    /// This mechanism run on a Poisson subsample with probability q, under replace-one neighbours: its own
    /// dominating pair (dp_accounting's REPLACE pair with sub-sampling: `noise::poisson_replace` for the
    /// Gaussian, `noise::poisson_replace_laplace`), where the law is
    /// additive noise that has one; `sampled` is the subsampled law under add/remove (its spelling, and its
    /// scaled copies for calibration). None: not accounted under replace (refused).
    fn replace_subsampled(&self, _q: &Rational, _sampled: Arc<dyn LossLaw>) -> Option<Fallible<Arc<dyn LossLaw>>> {
        None
    }

    /// zCDP ρ of the mechanism, exact, where it has one [BS16, Def. 1.1].
    fn rho(&self) -> Option<Rational> {
        None
    }

    /// Pure ε of the mechanism, exact, where it has one.
    fn pure_epsilon(&self) -> Option<Rational> {
        None
    }

    /// How many independent copies of this law one record's change makes per query: under add/remove 1;
    /// under replace 2 for the lattice laws' histogram queries (two cells move), 1 for a law whose pair
    /// already is the replace pair (randomized response; the Gaussian's and Laplace's replace pairs, which
    /// `under` gives: `docs/neighbors.md`); an error where the law is not defined for the relation.
    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        Ok(neighbors.shifts_per_query())
    }

    /// The law with its noise scaled by c (variance or scale times c), for calibration; None where the law
    /// has no noise scale (randomized response, stated guarantees).
    fn scaled(&self, _c: &Rational) -> Option<Fallible<Arc<dyn LossLaw>>> {
        None
    }

    /// The law given that its loss is finite, and the probability 1 − δ of that, where both directions put
    /// the same mass δ at ±∞ and the rest is that law (a stated (ε, δ) guarantee: δ at +∞ under A, at −∞
    /// under B, binary randomized response otherwise). None: no infinite loss, or not of that form.
    fn finite_part(&self) -> Option<(Arc<dyn LossLaw>, Rational)> {
        None
    }

    /// True if the law stands for a stated guarantee rather than a mechanism (an (ε, δ)-DP or ρ-zCDP black
    /// box): results are then certified *bounds* (trust `certified-bound`), not the mechanism's exact values.
    fn is_bound(&self) -> bool {
        false
    }

    /// True if the law is known only through its ρ (a ρ-zCDP stated guarantee): it has no loss law
    /// (`split`/`infinite` decline) and a composition holding it is accounted through its total ρ.
    fn rho_only(&self) -> bool {
        false
    }

    /// A step s such that every finite loss of both directions is an integer multiple of s (randomized
    /// response: ε), if there is one: the grid engine then discretises on it exactly.
    fn lattice(&self) -> Option<Rational> {
        None
    }

    /// A rational r > 1 such that every finite loss of both directions is an integer multiple of ln r,
    /// for a law with no rational lattice (randomized response given by its keep probability:
    /// r = p(k − 1)/(1 − p)): the exact-atoms engine composes such laws on (ln r)ℤ.
    fn log_lattice(&self) -> Option<Rational> {
        None
    }

    /// The law's atoms where it has finitely many finite losses ([`FiniteLaw`]); None otherwise.
    fn finite(&self, _dir: Direction, _prec: u32) -> Option<Fallible<FiniteLaw>> {
        None
    }

    /// A transcendental step s > 0, enclosed at the precision asked, such that every finite loss of both
    /// directions is an integer multiple of s, for a law with neither a rational nor a logarithmic lattice (a
    /// stated guarantee on a batch drawn without replacement: s = ln(1 − γ + γe^ε)); the exact-atoms engine
    /// composes such a law on sℤ.
    fn enclosed_lattice(&self, _prec: u32) -> Option<Interval> {
        None
    }

    /// The offset a of that lattice: every finite loss of both directions lies in a + sℤ (s =
    /// [`LossLaw::lattice`]); 0 unless the law says otherwise (the discrete Gaussian's losses are
    /// μ²/(2σ²) + (μ/σ²)ℤ). The grid engine puts the grid of a law whose support has no atom at an end on
    /// this offset, so that a step dividing s holds every loss exactly.
    fn lattice_offset(&self) -> Rational {
        Rational::from(0)
    }

    /// Random allocation of the Gaussian mechanism, for the engine of its dominating and dominated pairs
    /// (`account::engines::allocation`): μ²/σ², and one epoch as one-step-per-record allocations, each (t
    /// steps, how many); one group of one is the law itself, several a composition that dominates it.
    fn allocation(&self) -> Option<(Rational, Vec<(u64, u64)>)> {
        None
    }

    /// The mean η of a Gaussian loss law: L ~ N(η, 2η) under A and N(−η, 2η) under B, which compose by
    /// adding η (the continuous Gaussian: η = μ²/(2σ²)) — the closed-form engine takes such laws.
    fn gaussian_eta(&self) -> Option<Rational> {
        None
    }

    /// The law's moment generating function on vertical lines, where it is known (`noise::mgf`): the
    /// Gaussian's closed form by default (a law with [`LossLaw::gaussian_eta`]).
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        self.gaussian_eta().map(|eta| crate::noise::mgf::Mgf::Gaussian { eta })
    }

    /// ε₀ = Δ/b of a Laplace loss law (atoms at ±ε₀ with A-masses ½ and ½e^{−ε₀}, the density
    /// ¼e^{−(ε₀ − ℓ)/2} between: `noise::laplace`): compositions of such laws with one ε₀ are an exact
    /// finite sum (`account::engines::laplace_sum`).
    fn laplace_eps0(&self) -> Option<Rational> {
        None
    }

    /// ε of the bounded-range pair (`noise::bounded_range`: the Laplace law's continuous part on (−ε, ε),
    /// conditioned): compositions of such laws with one ε are the exact sum's continuous part
    /// (`account::engines::laplace_sum`).
    fn bounded_range_eps(&self) -> Option<Rational> {
        None
    }

    /// The Rényi divergence D_α(A‖B) of this direction's pair at order α > 1, certified, where the law has
    /// a formula of its own: the Gaussian's αη by default (a law with [`LossLaw::gaussian_eta`]). None: the
    /// accountant tries the generic routes (`account::renyi`: the moment generating function, finitely many
    /// atoms).
    fn renyi(&self, _dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        self.gaussian_eta().map(|eta| Ok(Interval::from_rational(&(eta * alpha.clone()), prec)))
    }

    /// A mechanism known only by a bound on its Rényi divergences, computed from those of an inner
    /// composition (repeat-and-select, `noise::repeat`): it has no loss law (`split`/`infinite` decline), and
    /// a composition holding one is accounted through Rényi divergences (`account::rdp_bound`).
    fn renyi_only(&self) -> Option<&dyn RenyiOnly> {
        None
    }

    /// True if the law is known only by upper bounds on its Rényi divergences: an inner composition's
    /// ([`LossLaw::renyi_only`]) or its own ([`LossLaw::renyi`]: random allocation, `noise::allocation`). It
    /// has no loss law, and a composition holding one is accounted through Rényi divergences
    /// (`account::rdp_bound`), as a certified bound.
    fn rdp_only(&self) -> bool {
        self.renyi_only().is_some()
    }

    /// True if the law's [`LossLaw::renyi`] bounds the mechanism's Rényi divergences more tightly than its
    /// loss law's own: the law is a dominating pair of a class (ε-bounded-range mechanisms,
    /// `noise::bounded_range`) whose divergences exceed the supremum over the class. A composition holding
    /// one is then also bounded through Rényi divergences (`account::rdp_bound`), and the smaller of the two
    /// certified bounds is the answer.
    fn renyi_sharper(&self) -> bool {
        false
    }

    /// Why this law cannot be run on a subsample (Poisson or without replacement), as words completing
    /// "… is not defined for …"; None where it can. Every sampler and the registry ask the law, so a law
    /// with a reason of its own (a zCDP guarantee, a law that samples its own batches) says it once.
    fn not_subsampled(&self) -> Option<String> {
        if self.rho_only() {
            Some("a zCDP guarantee (zCDP has no general amplification by subsampling); give the subsampled mechanism itself".into())
        } else if self.rdp_only() {
            Some(format!("{}, which is known by Renyi bounds only", self.spec()))
        } else {
            None
        }
    }
}

/// The Rényi bound of a mechanism built on an inner composition ([`LossLaw::renyi_only`]).
pub trait RenyiOnly: Send + Sync {
    /// The inner composition: laws under the relation already (their shifts counted) and their counts.
    fn inner(&self) -> &[(Arc<dyn LossLaw>, u64)];

    /// Upper bounds of D_α of the mechanism at the increasing `orders` (all > 1), from enclosures of the
    /// inner composition's D_α there (the worse direction; None: infinite or not computed): each entry is
    /// the enclosure of one valid bound, None where no finite bound follows.
    fn bound(&self, orders: &[Rational], inner: &[Option<Interval>], prec: u32) -> Vec<Option<Interval>>;

    /// Where the inner composition's curves are kept once computed (`account::renyi`): the same orders,
    /// precision and digits give the same enclosures, so a second query reads them.
    fn memo(&self) -> &CurveMemo;
}

/// The inner curves of a Rényi-only law already computed, by (orders, precision, digits): at most
/// [`CurveMemo::KEEP`], the oldest dropped. A clone starts empty (it may hold other inner laws).
#[derive(Default)]
pub struct CurveMemo {
    kept: std::sync::Mutex<Vec<CurveEntry>>,
}

type CurveEntry = (Vec<Rational>, u32, u32, Vec<Option<Interval>>);

impl CurveMemo {
    /// Entries kept.
    pub const KEEP: usize = 8;

    /// The curve at (orders, prec, digits): the kept one, or `compute`'s (kept when it succeeds).
    pub fn get_or_try<E>(
        &self,
        orders: &[Rational],
        prec: u32,
        digits: u32,
        compute: impl FnOnce() -> Result<Vec<Option<Interval>>, E>,
    ) -> Result<Vec<Option<Interval>>, E> {
        let lock = || self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = lock().iter().find(|e| e.1 == prec && e.2 == digits && e.0 == orders) {
            return Ok(e.3.clone());
        }
        let c = compute()?;
        let mut kept = lock();
        if kept.len() >= Self::KEEP {
            kept.remove(0);
        }
        kept.push((orders.to_vec(), prec, digits, c.clone()));
        Ok(c)
    }
}

impl Clone for CurveMemo {
    fn clone(&self) -> CurveMemo {
        CurveMemo::default()
    }
}

impl fmt::Debug for CurveMemo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CurveMemo")
    }
}

/// Both directions' laws are asked for unless the law is symmetric.
pub fn directions(law: &dyn LossLaw) -> &'static [Direction] {
    if law.symmetric() {
        &[Direction::Remove]
    } else {
        &[Direction::Remove, Direction::Add]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same key computes once; another key computes; at most KEEP are kept, the oldest dropped; a
    /// failed computation keeps nothing.
    #[test]
    fn curve_memo_computes_a_key_once_and_keeps_a_few() {
        let memo = CurveMemo::default();
        let orders = |k: u32| vec![Rational::from(k + 2)];
        let calls = std::cell::Cell::new(0);
        let get = |k: u32| {
            memo.get_or_try::<()>(&orders(k), 64, 6, || {
                calls.set(calls.get() + 1);
                Ok(vec![Some(Interval::from_i64(i64::from(k), 64))])
            })
            .unwrap()
        };
        assert_eq!(get(1)[0].as_ref().unwrap().to_f64(), 1.0);
        assert_eq!(get(1)[0].as_ref().unwrap().to_f64(), 1.0);
        assert_eq!(calls.get(), 1);
        for k in 2..=(CurveMemo::KEEP as u32 + 1) {
            get(k);
        }
        assert_eq!(calls.get(), CurveMemo::KEEP + 1);
        get(1); // dropped as the oldest: computed again
        assert_eq!(calls.get(), CurveMemo::KEEP + 2);
        assert!(memo.get_or_try(&orders(99), 64, 6, || Err("refused")).is_err());
        assert_eq!(memo.kept.lock().unwrap().len(), CurveMemo::KEEP);
        // a different precision or digits is a different key
        get(1);
        assert_eq!(calls.get(), CurveMemo::KEEP + 2);
        memo.get_or_try::<()>(&orders(1), 128, 6, || Ok(vec![])).unwrap();
        assert!(CurveMemo::default().clone().kept.lock().unwrap().is_empty());
    }
}
