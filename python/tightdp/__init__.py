"""tightdp: certified, exact privacy accounting (f-DP privacy profiles) for compositions of discrete
Gaussian and discrete Laplace (two-sided geometric) mechanisms, as used by the 2020 US Census.

Every certified number is a :class:`Certified` bracket ``[lo, hi]`` that provably holds the exact value
(MPFR interval arithmetic with rigorous bounds), with ``decimal.Decimal`` ends rounded outward and the
engine that produced it.

Numbers (σ², scales, δ, ε, α) may be given as ``str`` ("1e-11", "50000/10001"), ``int``,
``fractions.Fraction`` or ``decimal.Decimal``; a ``float`` is taken at its exact binary value
(``0.1`` is 3602879701896397/36028797018963968, not 1/10): pass a string for decimal values.
Counts, sensitivities and ``digits`` must be integers (``bool`` and non-integral values are refused).

Every failure raises a :class:`TightdpError` (an ``Exception``) with the command line's one-line
message: :class:`InputError` (a ``ValueError``), :class:`ResourceLimitError` (a ``MemoryError``),
:class:`FileError` (an ``OSError``), :class:`InternalError`. Ctrl-C stops a long computation with
``KeyboardInterrupt``.

>>> import tightdp
>>> tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11")  # doctest: +ELLIPSIS
Certified(lo=10.1254170441117538579..., hi=10.1254170441117538579..., method='lattice-dd', ...)
"""

import math
import numbers
import operator
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from typing import Dict, Iterable, List, Optional, Sequence, Union

from . import _tightdp
from ._errors import (
    FileError,
    InputError,
    InputTypeError,
    InternalError,
    ResourceLimitError,
    TightdpError,
    UndecidedError,
)

__version__ = _tightdp.__version__

__all__ = [
    "__version__",
    "Certified",
    "Composition",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "Gaussian",
    "Laplace",
    "RandomizedResponse",
    "ApproxDp",
    "ExponentialMechanism",
    "max_exponential_mechanism_epsilon",
    "max_mechanism_epsilon",
    "MechanismEpsilon",
    "Zcdp",
    "RandomAllocation",
    "from_mechs",
    "from_dp_event",
    "PLDAccountant",
    "OpacusAccountant",
    "Allocation",
    "Attack",
    "Certificate",
    "attack",
    "calibrate",
    "noise_multiplier",
    "NoiseMultiplier",
    "shuffle",
    "ShuffleBound",
    "max_steps",
    "Steps",
    "max_sample_rate",
    "SampleRate",
    "zcdp_bs",
    "zcdp_cks",
    "certify",
    "TightdpError",
    "InputError",
    "InputTypeError",
    "ResourceLimitError",
    "FileError",
    "InternalError",
    "UndecidedError",
]

Number = Union[str, int, Fraction, Decimal, float]

# the CLI's limits (src/model/spec.rs MAX_N, parse_sensitivity; the accountant's digits)
MAX_N: int = _tightdp.MAX_N
MAX_SENSITIVITY = 1_000_000
MAX_DIGITS = 1000
# the core's largest number of queries in one composition (tightdp::model::MAX_COUNT)
MAX_COUNT = 1 << 40


def _call(fn, *args):
    """Call into the extension; a Rust panic that escaped its guard still becomes an InternalError."""
    try:
        return fn(*args)
    except Exception:
        raise
    except BaseException as e:
        if type(e).__name__ == "PanicException":
            raise InternalError(f"internal error, please report it: {e}") from None
        raise


def _is_bool(x) -> bool:
    return isinstance(x, bool) or type(x).__name__ in ("bool_", "bool8")


def _q(x: Number, what: str) -> str:
    """The exact value of x as a string the library parses ('p/q' or a decimal)."""
    if getattr(x, "ndim", None) == 0 and hasattr(x, "item"):
        x = x.item()  # a 0-d numpy array: its one value
    if _is_bool(x):
        raise InputTypeError(f"{what} must be a number, got {x!r}")
    if isinstance(x, str):
        return x.strip()  # parsed exactly by the library, with the CLI's messages
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise InputError(f"{what} must be a finite number, got {x!r}")
        return str(x)
    if isinstance(x, float) or (not isinstance(x, numbers.Rational) and hasattr(x, "__float__") and not hasattr(x, "__index__")):
        if not isinstance(x, (float, numbers.Real)):
            raise InputTypeError(f"{what} must be a number, got {x!r}")
        x = float(x)  # numpy float32/float64: exact in a float
        if x != x or x in (float("inf"), float("-inf")):
            raise InputError(f"{what} must be a finite number, got {x!r}")
        f = Fraction(x)
    elif isinstance(x, numbers.Rational):
        f = Fraction(x.numerator, x.denominator)
    elif hasattr(x, "__index__"):
        f = Fraction(operator.index(x))
    else:
        raise InputTypeError(f"{what} must be a number (str, int, Fraction, Decimal or float), got {x!r}")
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _int(x, what: str, lo: int, hi: int) -> int:
    """An integer parameter: ints (and integral floats, Decimals, Fractions, numpy integers) in [lo, hi]."""
    if _is_bool(x) or isinstance(x, (str, bytes)) or x is None:
        raise InputTypeError(f"{what} must be an integer, got {x!r}")
    if hasattr(x, "__index__"):
        v = operator.index(x)
    elif isinstance(x, (numbers.Real, Decimal)):
        try:
            f = Fraction(x) if isinstance(x, (Decimal, Fraction, float)) else Fraction(float(x))
        except (ValueError, OverflowError, TypeError):
            raise InputError(f"{what} must be an integer, got {x!r}") from None
        if f.denominator != 1:
            raise InputError(f"{what} must be an integer, got {x!r}")
        v = f.numerator
    else:
        raise InputTypeError(f"{what} must be an integer, got {x!r}")
    if not lo <= v <= hi:
        raise InputError(f"{what} must be an integer between {lo} and {hi}, got {v}")
    return v


def _str(x, what: str) -> str:
    if not isinstance(x, str):
        raise InputTypeError(f"{what} must be a string, got {x!r}")
    return x


def _digits(lo: Decimal, hi: Decimal) -> int:
    """Correct significant digits of a bracket: how many leading digits lo and hi share (0 if none)."""
    if lo == hi:
        return 40
    m = max(abs(lo), abs(hi))
    if m == 0:
        return 40
    w = (hi - lo) / m
    d = 0
    while d < 40 and w * Decimal(10) ** d <= Decimal("0.5"):
        d += 1
    return max(d - 1, 0)


_DOWN = Context(prec=40, rounding=ROUND_FLOOR)
_UP = Context(prec=40, rounding=ROUND_CEILING)


def _dec_down(f: Fraction) -> Decimal:
    return _DOWN.divide(Decimal(f.numerator), Decimal(f.denominator))


def _dec_up(f: Fraction) -> Decimal:
    return _UP.divide(Decimal(f.numerator), Decimal(f.denominator))


def _cmp_value(x):
    """The other operand of a comparison as (lo, hi), or None when it is not a number."""
    if isinstance(x, Certified):
        return x.lo, x.hi
    if _is_bool(x) or isinstance(x, (str, bytes)):
        return None
    if isinstance(x, (int, Fraction, Decimal)):
        return x, x
    if isinstance(x, float) or isinstance(x, numbers.Real):
        xf = float(x)
        if xf != xf:
            return None
        return xf, xf
    return None


class Certified:
    """A certified bracket [lo, hi] holding the exact value, with the engine that produced it.

    ``lo`` and ``hi`` are ``decimal.Decimal`` (40 significant digits, rounded outward); ``method`` is
    the engine (``lattice``, ``lattice-dd``, ``lattice-f64``, ``smoothed``, ``zcdp-bs``, ...), ``trust``
    ``certified`` (the exact value) or ``certified-bound`` (a valid bound, e.g. a zCDP conversion),
    ``digits`` the correct significant digits, ``detail`` how it was computed, ``note`` why it is wider
    than asked (or None).

    Comparisons with numbers (``int``, ``float``, ``Fraction``, ``Decimal``) and other ``Certified``
    values are exact and decided by the bracket: ``c < x`` is True when ``hi < x``, False when
    ``lo >= x``, and raises :class:`UndecidedError` when x lies inside the bracket (ask for more
    ``digits``). ``c == x`` is True only when the bracket is the single point x, False otherwise.
    ``round(c, n)`` is the exact value correctly rounded to n decimals when the bracket decides it
    (else :class:`UndecidedError`); ``float(c)`` the double nearest the bracket's middle; ``x in c``
    tests membership exactly; ``lo, hi = c`` unpacks the ends.

    >>> c = tightdp.DiscreteGaussian(2, n=3).delta(1)
    >>> c.lo <= c.hi and 0 < c < 1
    True
    """

    __slots__ = ("lo", "hi", "method", "trust", "detail", "note", "digits")

    def __init__(self, lo, hi, method: str, trust: str = "certified", detail: str = "", note: Optional[str] = None, digits: Optional[int] = None):
        self.lo, self.hi = Decimal(lo), Decimal(hi)
        if not self.lo <= self.hi:
            raise InputError(f"a bracket needs lo <= hi, got lo = {lo}, hi = {hi}")
        self.method, self.trust, self.detail, self.note = method, trust, detail, note
        self.digits = _digits(self.lo, self.hi) if digits is None else int(digits)

    @classmethod
    def _raw(cls, raw) -> "Certified":
        lo, hi, method, trust, detail, note, digits = raw
        if not Decimal(lo) <= Decimal(hi):
            raise InternalError(f"internal error, please report it: the library returned a bracket with lo > hi ({lo}, {hi})")
        return cls(lo, hi, method, trust, detail, note, digits)

    @classmethod
    def _exact(cls, lo: Fraction, hi: Fraction, method: str, trust: str, detail: str) -> "Certified":
        """From exact fraction ends: the Decimal ends rounded outward to 40 digits."""
        return cls(_dec_down(lo), _dec_up(hi), method, trust, detail, None, None)

    def __float__(self) -> float:
        a, b = float(self.lo), float(self.hi)
        return a if a == b else float((self.lo + self.hi) / 2)

    def __iter__(self):
        # `lo, hi = c`: the (lo, hi) tuples that zcdp_bs, zcdp_cks and calibrate returned before 0.1
        return iter((self.lo, self.hi))

    def __contains__(self, x) -> bool:
        """Exact test: is x (any accepted number type) inside the bracket?"""
        if isinstance(x, str):
            from decimal import InvalidOperation

            t = x.strip()
            try:
                v = Fraction(t) if "/" in t else Decimal(t)
            except (ValueError, ZeroDivisionError, InvalidOperation):
                raise InputError(f"value: invalid number {x!r}") from None
            if isinstance(v, Decimal) and not v.is_finite():
                raise InputError(f"value must be a finite number, got {x!r}")
        else:
            v = Fraction(_q(x, "value"))
        return self.lo <= v <= self.hi

    def _undecided(self, op: str, x):
        raise UndecidedError(f"the bracket [{self.lo}, {self.hi}] does not decide whether the value {op} {x!r}; ask for more digits")

    def __lt__(self, x):
        o = _cmp_value(x)
        if o is None:
            return NotImplemented
        if self.hi < o[0]:
            return True
        if self.lo >= o[1]:
            return False
        self._undecided("<", x)

    def __le__(self, x):
        o = _cmp_value(x)
        if o is None:
            return NotImplemented
        if self.hi <= o[0]:
            return True
        if self.lo > o[1]:
            return False
        self._undecided("<=", x)

    def __gt__(self, x):
        o = _cmp_value(x)
        if o is None:
            return NotImplemented
        if self.lo > o[1]:
            return True
        if self.hi <= o[0]:
            return False
        self._undecided(">", x)

    def __ge__(self, x):
        o = _cmp_value(x)
        if o is None:
            return NotImplemented
        if self.lo >= o[1]:
            return True
        if self.hi < o[0]:
            return False
        self._undecided(">=", x)

    def __eq__(self, x):
        o = _cmp_value(x)
        if o is None:
            return NotImplemented
        return self.lo == self.hi == o[0] == o[1]

    def __ne__(self, x):
        r = self.__eq__(x)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self.lo) if self.lo == self.hi else hash((self.lo, self.hi, self.method))

    def __round__(self, ndigits: Optional[int] = None):
        n = 0 if ndigits is None else operator.index(ndigits)
        q = Decimal(1).scaleb(-n)
        # enough precision for every digit kept (the default context's 28 would refuse the quantize)
        ctx = Context(prec=max(50, max(self.lo.adjusted(), self.hi.adjusted(), 0) + n + 10))
        a, b = self.lo.quantize(q, context=ctx), self.hi.quantize(q, context=ctx)
        if a != b:
            raise UndecidedError(f"the bracket [{self.lo}, {self.hi}] does not decide the value to {n} decimals; ask for more digits")
        return int(a) if ndigits is None else a

    def __repr__(self) -> str:
        return f"Certified(lo={self.lo}, hi={self.hi}, method={self.method!r}, trust={self.trust!r}, digits={self.digits})"

    def __str__(self) -> str:
        return f"[{self.lo}, {self.hi}] ({self.method}, {self.trust}, {self.digits} digits)"


class Composition:
    """A composition of mechanism groups: build with :func:`DiscreteGaussian`, :func:`DiscreteLaplace`,
    :meth:`compose` and :meth:`self_compose` (dp_accounting's vocabulary).

    >>> a = tightdp.DiscreteGaussian(5, n=10).compose(tightdp.DiscreteLaplace(4, n=5))
    >>> a.epsilon("1e-10").method
    'lattice-dd'
    """

    __slots__ = ("_raw",)

    def __init__(self, raw):
        self._raw = raw

    def compose(self, other: "Composition") -> "Composition":
        """Both compositions together (same neighbour relation)."""
        if not isinstance(other, Composition):
            raise InputTypeError(f"compose needs a tightdp Composition, got {other!r}")
        return Composition(_call(self._raw.compose, other._raw))

    def self_compose(self, k: int) -> "Composition":
        """k copies of this composition (k an integer, 1 ≤ k ≤ 2^40)."""
        return Composition(_call(self._raw.self_compose, _int(k, "k", 1, MAX_COUNT)))

    @property
    def neighbors(self) -> str:
        return self._raw.neighbors()

    @property
    def rho(self) -> Fraction:
        """zCDP ρ of the composition (exact)."""
        return Fraction(_call(self._raw.rho))

    def epsilon(self, delta, digits: int = 20, method: str = "auto", grid_budget=None):
        """ε(δ), certified. A sequence or numpy array of δ gives (lo, hi) numpy arrays (lists without numpy).

        >>> tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11").digits >= 20
        True
        """
        return self._query(self._raw.epsilon, delta, "delta", digits, method, grid_budget)

    def delta(self, epsilon, digits: int = 20, method: str = "auto", grid_budget=None):
        """δ(ε), certified (vectorised like :meth:`epsilon`).

        >>> tightdp.DiscreteGaussian(5, n=10).delta("10.1") > 0
        True
        """
        return self._query(self._raw.delta, epsilon, "epsilon", digits, method, grid_budget)

    def tradeoff(self, alpha, digits: int = 20, method: str = "auto", grid_budget=None):
        """The trade-off function f(α) (smallest type II error at type I error α), certified.

        >>> tightdp.DiscreteGaussian(2, n=3).tradeoff(1).hi
        Decimal('0')
        """
        return self._query(self._raw.tradeoff, alpha, "alpha", digits, method, grid_budget)

    def reconstruction_success(self, kappa, digits: int = 20, method: str = "auto", grid_budget=None):
        """The most a reconstruction attack can succeed, certified, when its best guess without the data
        succeeds with probability ``kappa`` in (0, 1) (e.g. 1/1000 for a value drawn from 1,000 equally likely
        ones): 1 − f(κ), reconstruction robustness (Kaissis, Hayes, Ziller, Rueckert 2023; Hayes, Mahloujifar,
        Balle 2023). The CLI's ``attack --reconstruction-prior``. A sequence gives arrays, as the other queries.

        >>> round(float(tightdp.Gaussian(1).reconstruction_success("1/1000")), 6)
        0.018298
        """
        return self._query(self._raw.reconstruction_success, kappa, "kappa", digits, method, grid_budget)

    def renyi(self, alpha, digits: int = 20):
        """The Rényi divergence D_α at order α > 1 (the RDP accountants' currency), certified: the worse
        neighbouring direction, each law's closed form, finite sum or moment generating function, added up.
        A sequence of orders gives arrays, as the other queries.

        >>> tightdp.Gaussian(sigma=2).renyi(3).hi
        Decimal('0.375')
        """
        return self._query(self._raw.renyi, alpha, "alpha", digits, "auto")

    def tight_rho(self, digits: int = 20) -> "Certified":
        """The tight zCDP parameter ρ = sup over α > 1 of D_α/α, certified (for the discrete Laplace with
        ε = 1/4, its KL divergence 0.0310882…, below the pure-DP conversion ε²/2 = 0.03125).

        >>> tightdp.DiscreteGaussian(2).tight_rho().hi
        Decimal('0.25')
        """
        return Certified._raw(_call(self._raw.tight_rho, _int(digits, "digits", 1, MAX_DIGITS)))

    def attack(self, fpr=("1e-4", "1e-3", "1e-2"), prior=("0.5", "1e-3"), digits: int = 20, method: str = "auto") -> "Attack":
        """What an attacker can do (as ``tightdp attack``): see :func:`attack`."""
        return attack(self, fpr, prior, digits, method)

    def _query(self, fn, x, what, digits, method, grid_budget=None):
        d = _int(digits, "digits", 1, MAX_DIGITS)
        m = _str(method, "method")
        # the pld grid's work budget in work units (a count, so the answer is the same on every machine)
        b = None if grid_budget is None else _int(grid_budget, "grid_budget (work units)", 1, 2**64 - 1)
        if _is_seq(x):
            res = [Certified._raw(_call(fn, _q(v, what), d, m, b)) for v in _items(x)]
            return _arrays(res)
        return Certified._raw(_call(fn, _q(x, what), d, m, b))

    def __repr__(self) -> str:
        return f"Composition({self._raw.describe()}, neighbors={self.neighbors!r})"


def _is_seq(x) -> bool:
    # (a 0-d numpy array is one value: iterating it raises, and its tolist() is a float)
    if getattr(x, "ndim", None) == 0:
        return False
    return not isinstance(x, (str, bytes, int, float, Fraction, Decimal)) and hasattr(x, "__iter__")


def _items(x) -> Iterable:
    if hasattr(x, "tolist"):
        return x.tolist()
    return list(x)


def _arrays(res: List[Certified]):
    lo = [float(c.lo) for c in res]
    hi = [float(c.hi) for c in res]
    try:
        import numpy as np

        # float rounding of the decimal ends: lo rounded down and hi up by one ulp keeps them outward
        return np.nextafter(np.array(lo), -np.inf), np.nextafter(np.array(hi), np.inf)
    except ImportError:
        return lo, hi


def DiscreteGaussian(sigma2: Number, n: int = 1, sensitivity: int = 1, neighbors: str = "add-remove") -> Composition:
    """n queries (1 ≤ n ≤ 10⁶, as on the command line) of integer sensitivity `sensitivity`, each with
    discrete Gaussian noise N_Z(0, σ²).

    >>> tightdp.DiscreteGaussian("50000/10001", n=10)
    Composition(10 x N_Z(0, 50000/10001) sensitivity 1, neighbors='add-remove')
    """
    args = (_q(sigma2, "sigma2"), _int(n, "n", 1, MAX_N), _int(sensitivity, "sensitivity", 1, MAX_SENSITIVITY), _str(neighbors, "neighbors"))
    return Composition(_call(_tightdp.RawComposition.gaussian, *args))


def DiscreteLaplace(scale: Number, n: int = 1, sensitivity: int = 1, neighbors: str = "add-remove") -> Composition:
    """n queries with discrete Laplace (two-sided geometric) noise, pmf ∝ exp(−|x|/scale).

    >>> tightdp.DiscreteLaplace(4, n=5).epsilon("1e-10") < Fraction(5, 4)
    True
    """
    args = (_q(scale, "scale"), _int(n, "n", 1, MAX_N), _int(sensitivity, "sensitivity", 1, MAX_SENSITIVITY), _str(neighbors, "neighbors"))
    return Composition(_call(_tightdp.RawComposition.laplace, *args))


def _sampling(parts: List[str], sampling_prob, batch, neighbors: Optional[str]) -> str:
    """Append the sampling keys; the neighbour relation (replace for a fixed-size batch, else add-remove)."""
    if sampling_prob is not None and batch is not None:
        raise InputError("give either sampling_prob (Poisson subsampling) or batch=(m, population) (sampling without replacement), not both")
    if sampling_prob is not None:
        parts.append(f"q={_q(sampling_prob, 'sampling_prob')}")
    if batch is not None:
        if not (isinstance(batch, (tuple, list)) and len(batch) == 2):
            raise InputError(f"batch must be a pair (m, population): a batch of m of the population's records, got {batch!r}")
        m, pop = _int(batch[0], "batch size m", 1, 2**50), _int(batch[1], "population", 1, 2**50)
        parts.append(f"sampling=wor,m={m},pop={pop}")
        if neighbors is None:
            return "replace"
    return "add-remove" if neighbors is None else neighbors


def Gaussian(sigma: Optional[Number] = None, n: int = 1, sensitivity: Number = 1, sampling_prob: Optional[Number] = None,
             sigma2: Optional[Number] = None, neighbors: Optional[str] = None, batch=None) -> Composition:
    """n releases of the (continuous) Gaussian mechanism, noise N(0, σ²) on a query of L2 sensitivity
    `sensitivity`; with `sampling_prob` each release sees a Poisson subsample (DP-SGD's steps). Give σ
    (`sigma`, dp_accounting's `noise_multiplier` × sensitivity) or its variance `sigma2`. Exact numbers
    are best given as strings or fractions ("1.1", "256/60000"). Without subsampling the composition is
    accounted by the closed form (20 digits); with it by the tilted Fourier inversion of its moment
    generating function (20 digits; few steps, below ~30, by the certified pld grid or short of the digits:
    the note says how many and why). Under ``neighbors="replace"`` with ``sampling_prob``, `sensitivity` is the
    distance of a record's contribution from none (dp_accounting's REPLACE_ONE pair: a replaced record
    moves the sum by up to twice it). ``batch=(m, population)`` runs each release on m records drawn without
    replacement instead (neighbours replace one record by default; `sensitivity` is then what one record
    displacing another moves the query by, e.g. 2C for a sum of gradients clipped to C) [DRS22, Thm 9];
    under ``neighbors="add-remove"`` the same `sensitivity`, the added record displacing one in the batch
    (exact: Poisson subsampling's pair at q = m/population).

    >>> tightdp.Gaussian(sigma2=4).epsilon("1e-10") > 3
    True
    """
    if (sigma is None) == (sigma2 is None):
        raise InputError("give exactly one of sigma and sigma2")
    parts = [f"sigma={_q(sigma, 'sigma')}" if sigma is not None else f"sigma2={_q(sigma2, 'sigma2')}",
             f"mu={_q(sensitivity, 'sensitivity')}", f"n={_int(n, 'n', 1, MAX_N)}"]
    neighbors = _sampling(parts, sampling_prob, batch, neighbors)
    return from_mechs(["gauss:" + ",".join(parts)], neighbors)


def from_mechs(specs, neighbors: str = "add-remove") -> Composition:
    """A composition of command-line mechanism terms, e.g. ``["dgauss:sigma2=5,n=10",
    "gauss:sigma=1.1,q=0.01,n=1000"]`` (the spelling of ``tightdp epsilon --mech``)."""
    if isinstance(specs, str):
        specs = [specs]
    specs = [_str(m, "mechanism") for m in specs]
    if not specs:
        raise InputError("from_mechs needs at least one mechanism")
    return Composition(_call(_tightdp.RawComposition.from_mechs, specs, _str(neighbors, "neighbors")))


def Laplace(scale: Optional[Number] = None, n: int = 1, sensitivity: Number = 1, sampling_prob: Optional[Number] = None,
            epsilon: Optional[Number] = None, neighbors: Optional[str] = None, batch=None) -> Composition:
    """n releases of the (continuous) Laplace mechanism, noise of density e^{-|x|/b}/(2b) on a query of
    L1 sensitivity `sensitivity`; give the scale b (dp_accounting's ``noise_multiplier`` × sensitivity)
    or the pure ε = sensitivity/b. With `sampling_prob` each release sees a Poisson subsample, with
    ``batch=(m, population)`` m records drawn without replacement (neighbours replace by default;
    `sensitivity` is what one record displacing another moves the query by, under either relation). Accounted
    by an exact finite sum (one scale, up to 1,000 releases) or the tilted Fourier inversion of its moment
    generating function, 20 digits; what neither takes, by the certified pld grid (the note says how many
    digits and why).

    >>> tightdp.Laplace(epsilon=1, n=5).delta(1) > 0
    True
    """
    if (scale is None) == (epsilon is None):
        raise InputError("give exactly one of scale and epsilon")
    parts = [f"scale={_q(scale, 'scale')}" if scale is not None else f"epsilon={_q(epsilon, 'epsilon')}",
             f"mu={_q(sensitivity, 'sensitivity')}", f"n={_int(n, 'n', 1, MAX_N)}"]
    neighbors = _sampling(parts, sampling_prob, batch, neighbors)
    return from_mechs(["laplace:" + ",".join(parts)], neighbors)


def RandomizedResponse(epsilon: Optional[Number] = None, k: int = 2, n: int = 1, keep: Optional[Number] = None) -> Composition:
    """n reports of k-ary randomized response with parameter ε (each record reports its value with
    probability e^ε/(e^ε + k − 1)), or with the probability `keep` of reporting its own value (each other
    value (1 − keep)/(k − 1)); neighbours replace one record's value.

    >>> tightdp.RandomizedResponse(1, k=4, n=10).delta(5) > 0
    True
    """
    if (epsilon is None) == (keep is None):
        raise InputError("give exactly one of epsilon and keep")
    p = f"epsilon={_q(epsilon, 'epsilon')}" if epsilon is not None else f"keep={_q(keep, 'keep')}"
    return from_mechs([f"rr:{p},k={_int(k, 'k', 2, 2**40)},n={_int(n, 'n', 1, MAX_N)}"], "replace")


def ApproxDp(epsilon: Number, delta: Number = 0, n: int = 1, neighbors: Optional[str] = None,
             sampling_prob: Optional[Number] = None) -> Composition:
    """n mechanisms known only by a stated (ε, δ)-DP guarantee: bounded by the worst (ε, δ)-DP mechanism,
    so results are certified bounds (``trust == "certified-bound"``), the optimal composition of the
    guarantees. With `sampling_prob` each runs on a Poisson subsample (add/remove neighbours): the worst
    pair subsampled, composed exactly by its multinomial sum (dp_accounting's ``PoissonSampledDpEvent`` of an
    ``EpsilonDeltaDpEvent`` or ``PermuteAndFlipDpEvent``).

    >>> tightdp.ApproxDp(1, "1e-6", n=10).epsilon("1e-5").trust
    'certified-bound'
    >>> tightdp.ApproxDp(1, n=100, sampling_prob="0.1").epsilon("1e-5").method
    'exact-atoms'
    """
    parts = [f"epsilon={_q(epsilon, 'epsilon')}", f"delta={_q(delta, 'delta')}", f"n={_int(n, 'n', 1, MAX_N)}"]
    neighbors = _sampling(parts, sampling_prob, None, neighbors)
    return from_mechs(["dp:" + ",".join(parts)], neighbors)


def ExponentialMechanism(epsilon: Number, n: int = 1, neighbors: str = "add-remove",
                         sampling_prob: Optional[Number] = None) -> Composition:
    """n exponential mechanisms, each at ε-DP (probabilities ∝ e^{εu/(2Δ)}, or e^{εu/Δ} for a monotone
    score): each is ε-bounded-range, and any adaptive composition of such mechanisms is bounded by the
    smaller of two certified bounds, the composition of the class's dominating pair and the class's Rényi
    divergences (``trust == "certified-bound"``); one release is exact. With `sampling_prob` each runs on a
    Poisson subsample (add/remove neighbours): the class's pair, subsampled, by the tilted Fourier inversion
    (20 digits from a few dozen releases; few releases on the pld grid). dp_accounting's
    ``ExponentialMechanismDpEvent(epsilon)`` (and its ``PoissonSampledDpEvent``) maps here.

    >>> tightdp.ExponentialMechanism("0.5", n=2).epsilon("1e-5").method
    'laplace-sum'
    >>> tightdp.ExponentialMechanism(1, n=100, sampling_prob="0.1").epsilon("1e-5").method
    'tilted-fourier'
    """
    parts = [f"epsilon={_q(epsilon, 'epsilon')}", f"n={_int(n, 'n', 1, MAX_N)}"]
    neighbors = _sampling(parts, sampling_prob, None, neighbors)
    return from_mechs(["expmech:" + ",".join(parts)], neighbors)


def Zcdp(rho: Number, n: int = 1, neighbors: str = "add-remove") -> Composition:
    """n mechanisms known only by a stated ρ-zCDP guarantee. A composition holding one is accounted
    through its total ρ (every other mechanism by its own ρ) and the optimal conversion: a certified
    bound. Its trade-off function and attack measures are bounded through D_α ≤ ρα (from below for f).

    >>> tightdp.Zcdp("0.5").compose(tightdp.Gaussian(sigma2=4, n=3)).epsilon("1e-6").method
    'zcdp-cks'
    """
    return from_mechs([f"zcdp:rho={_q(rho, 'rho')},n={_int(n, 'n', 1, MAX_N)}"], neighbors)


def RandomAllocation(sigma: Number, steps: int, epochs: int = 1, sensitivity: Number = 1, selected: int = 1) -> Composition:
    """Random allocation (balls in bins) of the Gaussian mechanism: in each of `epochs` epochs every record
    joins `selected` (default one) of `steps` steps uniformly at random, and each step releases its records'
    sum (L2 sensitivity `sensitivity`) plus N(0, σ²). Add/remove neighbours. One step per record: ε(δ) and
    δ(ε) are a certified bracket of the exact value, from the pair's dominating and dominated finite pairs
    (trust ``certified``; about 3 digits in seconds at MNIST size, more with a larger ``grid_budget``
    where the query takes one). The trade-off function, and ``selected=k`` > 1 (the bound of k one-step
    allocations of about steps/k steps each, ``alloc:...,k=K``), are accounted through Rényi divergences: a
    certified upper bound (trust ``certified-bound``).

    >>> c = tightdp.RandomAllocation("1.1", 234, epochs=60)
    >>> e = c.epsilon("1e-5")
    >>> 2.33 < float(e.lo) <= float(e.hi) < 2.35, e.trust
    (True, 'certified')
    """
    parts = [f"sigma={_q(sigma, 'sigma')}", f"mu={_q(sensitivity, 'sensitivity')}",
             f"steps={_int(steps, 'steps', 1, 2**40)}", f"n={_int(epochs, 'epochs', 1, MAX_N)}"]
    k = _int(selected, "selected", 1, 2**40)
    if k > 1:
        parts.append(f"k={k}")
    return from_mechs(["alloc:" + ",".join(parts)], "add-remove")


def _exact(x, what: str) -> Fraction:
    """A dp_accounting float parameter as the exact decimal it prints as (0.1 → 1/10, not the binary
    double), the value a user wrote."""
    try:
        return Fraction(str(x))
    except (ValueError, TypeError):
        raise InputError(f"{what}: not a number: {x!r}") from None


def _one_value(x, method: str, arg: str, many: str) -> None:
    """Refuse a sequence where one number is expected (dp_accounting's get_epsilon and get_delta take one)."""
    if _is_seq(x):
        raise InputError(f"{method} takes one {arg} (a number), got a sequence; {many}(...) answers a sequence of them")


def _base_spec(event) -> str:
    """The --mech term (without n) of one dp_accounting mechanism event."""
    name = type(event).__name__
    if name == "GaussianDpEvent":
        nm = _exact(event.noise_multiplier, "GaussianDpEvent.noise_multiplier")
        if nm <= 0:
            raise InputError("GaussianDpEvent: noise_multiplier must not be negative (a zero noise multiplier is accounted as not private: epsilon inf, as dp_accounting's)")
        return f"gauss:sigma={nm}"
    if name == "LaplaceDpEvent":
        nm = _exact(event.noise_multiplier, "LaplaceDpEvent.noise_multiplier")
        if nm <= 0:
            raise InputError("LaplaceDpEvent: noise_multiplier must not be negative (a zero noise multiplier is accounted as not private: epsilon inf, as dp_accounting's)")
        return f"laplace:scale={nm}"
    if name == "DiscreteLaplaceDpEvent":
        a = _exact(event.noise_parameter, "DiscreteLaplaceDpEvent.noise_parameter")
        if a <= 0:
            raise InputError("DiscreteLaplaceDpEvent: noise_parameter must be positive")
        return f"dlap:scale={1 / a},mu={_int(event.sensitivity, 'DiscreteLaplaceDpEvent.sensitivity', 1, MAX_SENSITIVITY)}"
    if name == "DiscreteGaussianDpEvent":
        return _discrete_gaussian_spec(event)
    if name == "ExponentialMechanismDpEvent":
        # the exponential mechanism at epsilon-DP is epsilon-bounded-range: the class's dominating pair and its
        # Renyi divergences, the smaller bound (a certified bound; dp_accounting's PLD accountant takes the
        # looser epsilon-DP pair, its users budget it as epsilon^2/8-zCDP)
        eps = _exact(event.epsilon, f"{name}.epsilon")
        if eps < 0:
            raise InputError(f"{name}: epsilon must be >= 0, got {event.epsilon}")
        return f"expmech:epsilon={eps}"
    if name in ("EpsilonDeltaDpEvent", "PermuteAndFlipDpEvent"):
        # a stated (epsilon, delta)-DP guarantee, by its worst-case pair (a certified bound): permute-and-flip
        # is epsilon-DP (dp_accounting's PLD accountant takes the Laplace mechanism's loss law for it)
        eps = _exact(event.epsilon, f"{name}.epsilon")
        delta = _exact(getattr(event, "delta", 0), f"{name}.delta")
        if eps < 0 or not 0 <= delta < 1:
            raise InputError(f"{name}: epsilon must be >= 0 and delta in [0, 1), got {event.epsilon} and {delta}")
        return f"dp:epsilon={eps},delta={delta}"
    if name == "ZCDpEvent":
        # (xi, rho)-zCDP: D_alpha <= xi + rho alpha, a certified bound through Renyi divergences; xi = 0 through rho
        xi = _exact(getattr(event, "xi", 0), "ZCDpEvent.xi")
        if xi < 0:
            raise InputError(f"ZCDpEvent: xi must be >= 0, got {event.xi}")
        return f"zcdp:rho={_exact(event.rho, 'ZCDpEvent.rho')}" + (f",xi={xi}" if xi else "")
    if name == "RandomizedResponseDpEvent":
        # with probability l a uniformly random bucket, else the own: the own value with 1 - l (k - 1)/k
        lam = _exact(event.noise_parameter, "RandomizedResponseDpEvent.noise_parameter")
        k = _int(event.num_buckets, "RandomizedResponseDpEvent.num_buckets", 2, 2**40)
        if not (0 < lam < 1):
            raise InputError(f"RandomizedResponseDpEvent: noise_parameter must be in (0, 1), got {event.noise_parameter} "
                             "(0 reports the value itself: not private; 1 reports nothing about it)")
        return f"rr:keep={1 - lam * (k - 1) / k},k={k}"
    if name == "MixtureOfGaussiansDpEvent":
        return _mixture_spec(event)
    if name == "SingleEpochTreeAggregationDpEvent":
        # the Gaussian mechanism of the tree's L2 sensitivity sqrt(D) [KMS+21, App. D]: noise multiplier
        # s per node, so sigma^2 = s^2 / D at sensitivity 1
        nm = _exact(event.noise_multiplier, "SingleEpochTreeAggregationDpEvent.noise_multiplier")
        if nm <= 0:
            raise InputError("SingleEpochTreeAggregationDpEvent: noise_multiplier must not be negative (a zero noise multiplier is accounted as not private: epsilon inf, as dp_accounting's)")
        return f"gauss:sigma2={nm * nm / _tree_depth(event)}"
    if name == "PoissonSampledDpEvent":
        inner = _base_spec(event.event)
        if inner.startswith("zcdp:"):
            raise InputError("PoissonSampledDpEvent of a ZCDpEvent: zCDP has no general amplification by subsampling")
        q = _exact(event.sampling_probability, "PoissonSampledDpEvent.sampling_probability")
        if ",sampling=wor," in inner:
            raise InputError("PoissonSampledDpEvent of a SampledWithoutReplacementDpEvent is not supported (give one sampling scheme)")
        if inner.startswith("mog:"):
            # the mixture on a Poisson sample: the record's sensitivity is c_i with probability q p_i, else 0
            head, _, probs = inner.rpartition(",probs=")
            return f"{head},probs={':'.join(str(Fraction(p) * q) for p in probs.split(':'))}"
        if ",q=" in inner:
            # Poisson sampling of a Poisson sample: each record kept with both probabilities, independently
            head, _, q_in = inner.rpartition(",q=")
            return f"{head},q={Fraction(q_in) * q}"
        return f"{inner},q={q}"
    if name == "TruncatedSubsampledGaussianDpEvent":
        # dp_accounting's pair for truncated Poisson sampling (a certified bound: noise/truncated.rs)
        nm = _exact(event.noise_multiplier, "TruncatedSubsampledGaussianDpEvent.noise_multiplier")
        q = _exact(event.sampling_probability, "TruncatedSubsampledGaussianDpEvent.sampling_probability")
        if nm <= 0:
            raise InputError("TruncatedSubsampledGaussianDpEvent: noise_multiplier must not be negative (a zero noise multiplier is accounted as not private: epsilon inf, as dp_accounting's)")
        if not (0 < q < 1):
            raise InputError(f"TruncatedSubsampledGaussianDpEvent: sampling_probability must be in (0, 1), got {event.sampling_probability}")
        b = _int(event.truncated_batch_size, "TruncatedSubsampledGaussianDpEvent.truncated_batch_size", 1, 2**50)
        n = _int(event.dataset_size, "TruncatedSubsampledGaussianDpEvent.dataset_size", 1, 2**50)
        return f"truncgauss:sigma={nm},prob={q},batch={b},records={n}"
    if name == "SampledWithoutReplacementDpEvent":
        inner = _base_spec(event.event)
        if inner.startswith("zcdp:"):
            raise InputError("SampledWithoutReplacementDpEvent of a ZCDpEvent: zCDP has no general amplification by subsampling")
        pop = _int(event.source_dataset_size, "SampledWithoutReplacementDpEvent.source_dataset_size", 1, 2**50)
        m = _int(event.sample_size, "SampledWithoutReplacementDpEvent.sample_size", 1, 2**50)
        return f"{inner},sampling=wor,m={m},pop={pop}"
    if name == "RandomAllocationDpEvent":
        return _allocation_spec(event)
    if name == "SampledWithReplacementDpEvent":
        raise InputError("SampledWithReplacementDpEvent is not supported: a record drawn with replacement can enter a batch "
                         "several times, and no certified bound for that is implemented (dp_accounting's accountants refuse "
                         "it too); PoissonSampledDpEvent and SampledWithoutReplacementDpEvent are supported")
    if name == "UnsupportedDpEvent":
        raise InputError("UnsupportedDpEvent: dp_accounting's marker for a mechanism no accountant can account; it is not "
                         "supported here either")
    raise InputError(f"{name} is not supported yet (supported: GaussianDpEvent, LaplaceDpEvent, DiscreteLaplaceDpEvent, "
                     "ZCDpEvent, RandomizedResponseDpEvent, MixtureOfGaussiansDpEvent, "
                     "SingleEpochTreeAggregationDpEvent, TruncatedSubsampledGaussianDpEvent, "
                     "PoissonSampledDpEvent and SampledWithoutReplacementDpEvent of these, RandomAllocationDpEvent "
                     "of a GaussianDpEvent, DiscreteGaussianDpEvent, EpsilonDeltaDpEvent, ExponentialMechanismDpEvent, "
                     "PermuteAndFlipDpEvent, RepeatAndSelectDpEvent, "
                     "SelfComposedDpEvent, ComposedDpEvent, NoOpDpEvent, NonPrivateDpEvent in PLDAccountant)")


def _discrete_gaussian_spec(event) -> str:
    """A DiscreteGaussianDpEvent: one coordinate (dimension=1) is the discrete Gaussian itself, exact, with
    the integer shift floor(sensitivity) (the query is integer-valued); any other dimension (or None) by its
    zCDP guarantee rho = sensitivity^2/(2 sigma^2) [CKS20, Prop. 5], which holds coordinate by coordinate and
    adds up over independent coordinates (a certified bound)."""
    sigma = _exact(event.sigma, "DiscreteGaussianDpEvent.sigma")
    sens = _exact(getattr(event, "sensitivity", 1), "DiscreteGaussianDpEvent.sensitivity")
    if sigma <= 0 or sens < 0:
        raise InputError("DiscreteGaussianDpEvent: sigma must be positive and sensitivity non-negative")
    if getattr(event, "dimension", None) == 1:
        return f"dgauss:sigma2={sigma * sigma},mu={_int(math.floor(sens), 'DiscreteGaussianDpEvent.sensitivity', 1, MAX_SENSITIVITY)}"
    return f"zcdp:rho={sens * sens / (2 * sigma * sigma)}"


def _allocation_spec(event) -> str:
    """The `alloc:` term of a RandomAllocationDpEvent (each record in num_selected of num_steps steps) of a
    Gaussian: one step per record, a bracket of the exact value; num_selected > 1 (`k=`), a certified upper
    bound through Renyi divergences."""
    inner = type(event.event).__name__
    if inner != "GaussianDpEvent":
        raise InputError(f"RandomAllocationDpEvent of a {inner}: only a GaussianDpEvent inside is supported (as dp_accounting)")
    k = _int(event.num_selected, "RandomAllocationDpEvent.num_selected", 0, 2**40)
    t = _int(event.num_steps, "RandomAllocationDpEvent.num_steps", 1, 2**40)
    if k > t:
        raise InputError(f"RandomAllocationDpEvent: num_selected ({k}) must be at most num_steps ({t})")
    nm = _exact(event.event.noise_multiplier, "RandomAllocationDpEvent.event.noise_multiplier")
    if nm < 0:
        raise InputError("RandomAllocationDpEvent: noise_multiplier must be non-negative")
    return f"alloc:sigma={nm},steps={t}" + (f",k={k}" if k > 1 else "")


def _tree_depth(event) -> int:
    """D = ceil(log2(max steps + 1)) of a SingleEpochTreeAggregationDpEvent: the nodes above a leaf in the
    largest tree, each record in one leaf across all trees [KMS+21, App. D] (as dp_accounting's RDP
    accountant counts it); ``int.bit_length`` is that ceiling exactly."""
    counts = event.step_counts
    # a list, a tuple or a numpy array of counts; a scalar (a numpy integer too: it has tolist, but no len)
    counts = list(counts) if isinstance(counts, (list, tuple)) or hasattr(counts, "__len__") else [counts]
    if not counts:
        raise InputError("SingleEpochTreeAggregationDpEvent: step_counts must be a non-zero count or a non-empty list")
    return max(_int(c, "SingleEpochTreeAggregationDpEvent.step_counts", 0, 2**62) for c in counts).bit_length()


def _mixture_parts(event):
    """(standard deviation, the nonzero sensitivities with their total probabilities) of a
    MixtureOfGaussiansDpEvent, validated."""
    sd = _exact(event.standard_deviation, "MixtureOfGaussiansDpEvent.standard_deviation")
    cs = [_exact(c, "MixtureOfGaussiansDpEvent.sensitivities") for c in event.sensitivities]
    ps = [_exact(p, "MixtureOfGaussiansDpEvent.sampling_probs") for p in event.sampling_probs]
    if len(cs) != len(ps) or not cs:
        raise InputError("MixtureOfGaussiansDpEvent: sensitivities and sampling_probs must be non-empty and of one length")
    if sd < 0 or any(c < 0 for c in cs) or any(p < 0 for p in ps):
        raise InputError("MixtureOfGaussiansDpEvent: standard_deviation, sensitivities and sampling_probs must be non-negative")
    if abs(sum(ps) - 1) > Fraction(1, 10**9):
        raise InputError(f"MixtureOfGaussiansDpEvent: sampling_probs must sum to 1, got {float(sum(ps))}")
    nonzero: Dict[Fraction, Fraction] = {}
    for c, p in zip(cs, ps):
        if c != 0 and p != 0:
            nonzero[c] = nonzero.get(c, Fraction(0)) + p
    return sd, nonzero


def _mixture_spec(event) -> str:
    """A mixture of N(0, s^2) and N(c, s^2) with probabilities 1 - q and q (one nonzero sensitivity) is the
    Poisson-subsampled Gaussian mechanism with noise multiplier s/c: dp_accounting's own accountant gives
    both the same epsilon. Several nonzero sensitivities (the MMCC mixtures of matrix factorisations) are
    the mixture-of-Gaussians law ``mog:``, its zero-sensitivity probability the rest; should the nonzero
    probabilities (floats taken exactly) sum to a hair above 1, they are divided by their sum."""
    sd, nonzero = _mixture_parts(event)
    if not nonzero:
        # (at top level _event_specs drops such an event; inside a sampling event there is nothing to sample)
        raise InputError("MixtureOfGaussiansDpEvent with every sensitivity 0 releases nothing about the record; "
                         "leave it out (it cannot be the inner event of a sampling event)")
    if sd == 0:
        raise InputError("MixtureOfGaussiansDpEvent: standard_deviation 0 is not private")
    if len(nonzero) > 1:
        total = sum(nonzero.values())
        scale = total if total > 1 else Fraction(1)
        cs = sorted(nonzero)
        return (f"mog:sigma={sd},sens={':'.join(str(c) for c in cs)},"
                f"probs={':'.join(str(nonzero[c] / scale) for c in cs)}")
    (c, q), = nonzero.items()
    return f"gauss:sigma={sd / c}" + ("" if q == 1 else f",q={q}")


def _holds(event, name: str) -> bool:
    """True if the event is, or holds inside it, an event of class `name`."""
    if type(event).__name__ == name:
        return True
    inner = [getattr(event, "event", None)] + list(getattr(event, "events", None) or [])
    return any(e is not None and _holds(e, name) for e in inner)


class _NonPrivate(InputError):
    """A NonPrivateDpEvent inside an event: epsilon is infinite."""


def _event_specs(event, k: int, non_private: Optional[List[bool]] = None) -> List[str]:
    """The --mech terms of a dp_accounting DpEvent repeated k times (duck-typed on the class name, so
    dp_accounting need not be installed). A NonPrivateDpEvent raises :class:`_NonPrivate`, or, given a list
    `non_private`, is recorded there."""
    name = type(event).__name__
    if name == "NonPrivateDpEvent":
        if non_private is not None:
            non_private.append(True)
            return []
        raise _NonPrivate("NonPrivateDpEvent: the event releases data without privacy, so its epsilon is infinite "
                          "(dp_accounting's accountants return inf)")
    if name == "MixtureOfGaussiansDpEvent" and not _mixture_parts(event)[1]:
        return []  # every sensitivity 0: the output does not depend on the record
    if name == "SelfComposedDpEvent":
        return _event_specs(event.event, k * _int(event.count, "count", 1, MAX_N), non_private)
    if name == "ComposedDpEvent":
        out: List[str] = []
        for e in event.events:
            out.extend(_event_specs(e, k, non_private))
        return out
    if name == "NoOpDpEvent":
        return []
    if name == "RepeatAndSelectDpEvent":
        return _repeat_specs(event, k, non_private)
    if name == "TruncatedSubsampledGaussianDpEvent" and 0 in (getattr(event, "sampling_probability", None),
                                                           getattr(event, "truncated_batch_size", None),
                                                           getattr(event, "dataset_size", None)):
        return []  # no record is ever sampled, or every batch is empty: nothing is released (as dp_accounting)
    if name in ("ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent") and _exact(event.epsilon, f"{name}.epsilon") == 0:
        return []  # epsilon 0: the output does not depend on the data (as dp_accounting)
    if name == "EpsilonDeltaDpEvent" and _exact(event.epsilon, "EpsilonDeltaDpEvent.epsilon") == 0 and _exact(event.delta, "EpsilonDeltaDpEvent.delta") == 0:
        return []  # (0, 0)-DP: nothing about the record is released
    if name == "DiscreteGaussianDpEvent" and (
            _exact(getattr(event, "sensitivity", 1), "DiscreteGaussianDpEvent.sensitivity") == 0
            or (getattr(event, "dimension", None) == 1 and _exact(getattr(event, "sensitivity", 1), "DiscreteGaussianDpEvent.sensitivity") < 1)):
        return []  # a query that does not move (an integer-valued one moves by whole steps only)
    if name == "RandomAllocationDpEvent" and getattr(event, "num_selected", None) == 0:
        return []  # the record is in no step: nothing about it is released (as dp_accounting)
    if name == "SingleEpochTreeAggregationDpEvent" and _tree_depth(event) == 0:
        return []  # trees of no steps: nothing is released
    if (name == "PoissonSampledDpEvent" and _exact(event.sampling_probability, "PoissonSampledDpEvent.sampling_probability") == 0) or (
            name == "SampledWithoutReplacementDpEvent" and _exact(event.sample_size, "SampledWithoutReplacementDpEvent.sample_size") == 0):
        return []  # no record is ever sampled: nothing is released (as dp_accounting)
    if name == "RandomizedResponseDpEvent" and (getattr(event, "num_buckets", None) == 1 or _exact(event.noise_parameter, "noise_parameter") == 1):
        return []  # one bucket, or an answer uniformly at random: nothing about the record is released
    if _zero_noise(event):
        if non_private is not None:
            non_private.append(True)
            return []
        raise _NonPrivate(f"{name} with no noise ({_NOISE_OF[_innermost(event)]} 0) releases data without privacy, so its "
                          "epsilon is infinite (dp_accounting's accountants return inf)")
    return [f"{_base_spec(event)},n={k}"]


# The noise parameter of each noise-adding event: 0 adds no noise, and dp_accounting's accountants count
# such an event as non-private (epsilon inf), as a NonPrivateDpEvent.
_NOISE_OF = {
    "GaussianDpEvent": "noise_multiplier",
    "LaplaceDpEvent": "noise_multiplier",
    "DiscreteLaplaceDpEvent": "noise_parameter",
    "RandomizedResponseDpEvent": "noise_parameter",
    "TruncatedSubsampledGaussianDpEvent": "noise_multiplier",
    "SingleEpochTreeAggregationDpEvent": "noise_multiplier",
    "MixtureOfGaussiansDpEvent": "standard_deviation",
    "DiscreteGaussianDpEvent": "sigma",
}


def _innermost(event) -> str:
    """The class name of a sampled event's mechanism (the event's own for any other)."""
    while type(event).__name__ in ("PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent"):
        event = event.event
    return type(event).__name__


def _zero_noise(event) -> bool:
    """A noise-adding event without noise (inside a sampling of positive rate): non-private. The events that
    release nothing about the record (a single bucket, every sensitivity 0, no step) are not asked here."""
    name = type(event).__name__
    if name == "PoissonSampledDpEvent":
        return _exact(event.sampling_probability, "PoissonSampledDpEvent.sampling_probability") > 0 and _zero_noise(event.event)
    if name == "SampledWithoutReplacementDpEvent":
        return _exact(event.sample_size, "SampledWithoutReplacementDpEvent.sample_size") > 0 and _zero_noise(event.event)
    if name == "RandomAllocationDpEvent":
        return _zero_noise(event.event)
    attr = _NOISE_OF.get(name)
    return attr is not None and _exact(getattr(event, attr), f"{name}.{attr}") == 0


def _repeat_specs(event, k: int, non_private: Optional[List[bool]]) -> List[str]:
    """The `repsel:` term of a RepeatAndSelectDpEvent repeated k times: the inner event's terms after of=
    (a certified bound through Renyi divergences [PS22], as dp_accounting's RDP accountant computes it)."""
    mean = _exact(event.mean, "RepeatAndSelectDpEvent.mean")
    if mean < 1:
        raise InputError(f"RepeatAndSelectDpEvent: mean must be at least 1 (the mean number of runs), got {event.mean}")
    try:
        infinite = float(event.shape) == float("inf")
    except (TypeError, ValueError):
        raise InputError(f"RepeatAndSelectDpEvent.shape: not a number: {event.shape!r}") from None
    shape = "inf" if infinite else _exact(event.shape, "RepeatAndSelectDpEvent.shape")
    if shape != "inf" and shape < 0:
        raise InputError(f"RepeatAndSelectDpEvent: shape must be >= 0 (0 logarithmic, 1 geometric, inf Poisson), got {event.shape}")
    inner = _event_specs(event.event, 1, non_private)
    if not inner:
        return []  # the selected run releases nothing
    return [f"repsel:mean={mean},shape={shape},n={k},of={';'.join(inner)}"]


def _needs_replace(spec: str) -> bool:
    """True if a term samples without replacement or holds randomized response (inside repsel: too)."""
    return ",sampling=wor," in spec or spec.startswith("rr:") or ";rr:" in spec or ",of=rr:" in spec


def _wor_under_add_remove(spec: str) -> str:
    """A sampled-without-replacement term of a dp_accounting event under add-remove: dp_accounting's
    sensitivity is what adding one record moves the output by, while a fixed-size batch of the larger data set
    holds the added record in place of one of the others (noise/wor.rs, "Add/remove"): the batch's sum moves by
    up to twice that, the `mu` tightdp's wor term takes. So the base's sensitivity is doubled."""
    if ",sampling=wor," not in spec:
        return spec
    head, tail = spec.split(",sampling=wor,", 1)
    kind = head.split(":", 1)[0]
    parts = head.split(",")
    mus = [i for i, p in enumerate(parts) if p.startswith("mu=")]
    if kind in ("gauss", "laplace", "dlap") and len(mus) <= 1:
        if mus:
            parts[mus[0]] = f"mu={2 * Fraction(parts[mus[0]][3:])}"
        else:
            parts.append("mu=2")
        return ",".join(parts) + ",sampling=wor," + tail
    raise InputError(f"SampledWithoutReplacementDpEvent of this event ({head}) under add-remove neighbours is not "
                     "supported (its displaced-record sensitivity is not known here); use REPLACE_ONE")


def from_dp_event(event, neighbors: Optional[str] = None) -> Composition:
    """The composition a dp_accounting ``DpEvent`` describes (Gaussian, Laplace, discrete Laplace, zCDP,
    their Poisson-sampled and sampled-without-replacement versions, single-epoch tree aggregation,
    repeat-and-select (a certified bound through Renyi divergences), self-composed and composed events),
    accounted by tightdp's certified engines:

    ``tightdp.from_dp_event(SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0)), 100))``

    The neighbour relation is add-remove unless the event samples without replacement or holds randomized
    response (then replace, as dp_accounting's accountants require for them); give ``neighbors`` to choose.
    """
    specs = _event_specs(event, 1)
    if not specs:
        raise InputError("the event releases nothing about any record (no-op events, samples of no record, noise on nothing)")
    if neighbors is None:
        neighbors = "replace" if any(_needs_replace(s) for s in specs) else "add-remove"
    if neighbors == "add-remove":
        specs = [_wor_under_add_remove(s) for s in specs]
    return from_mechs(specs, neighbors)


def _dp_accounting():
    """dp_accounting's ``privacy_accountant`` and ``dp_event_builder`` modules, or None where it is not
    installed (tightdp does not need it; its events come from it)."""
    try:
        from dp_accounting import dp_event_builder, privacy_accountant
    except ImportError:
        return None
    return privacy_accountant, dp_event_builder


_UNSUPPORTED: Dict[type, type] = {}


def _unsupported(message: str) -> InputError:
    """An unsupported event's error: an :class:`InputError` that is also dp_accounting's
    ``UnsupportedEventError`` where dp_accounting is installed (code catching either catches it)."""
    dpa = _dp_accounting()
    if dpa is None:
        return InputError(message)
    base = dpa[0].UnsupportedEventError
    if base not in _UNSUPPORTED:
        _UNSUPPORTED[base] = type("UnsupportedEventError", (InputError, base), {"__module__": __name__})
    return _UNSUPPORTED[base](message)


class PLDAccountant:
    """dp_accounting's ``PrivacyAccountant`` interface on tightdp's certified engines: existing code
    switches with one line (``accountant = tightdp.PLDAccountant()``). Where dp_accounting is installed it
    is registered as a ``PrivacyAccountant`` (``isinstance`` holds), keeps dp_accounting's ``ledger`` (the
    composed events, as its ``DpEventBuilder`` builds them) and ``neighboring_relation``, and raises an
    unsupported event as dp_accounting's ``UnsupportedEventError`` (also an :class:`InputError`):
    dp_accounting's ``calibrate_dp_mechanism`` runs on it unchanged. ``get_epsilon`` / ``get_delta``
    return floats as dp_accounting's do — the certified bracket's upper end, rounded up — and
    ``epsilon`` / ``delta`` the :class:`Certified` bracket itself. ``digits`` is asked of every bracket
    (an engine that cannot meet them returns its narrowest certified bracket; the note says why).
    ``neighboring_relation``: ``ADD_OR_REMOVE_ONE`` (the default), ``REPLACE_ONE``, or ``REPLACE_SPECIAL``
    (for noise added to sums, as tree aggregation, the add-remove pair; sampled events are refused there).

    >>> acc = tightdp.PLDAccountant()
    >>> acc.compose(SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0)), 100))  # doctest: +SKIP
    >>> acc.get_epsilon(1e-5)  # doctest: +SKIP
    """

    def __init__(self, neighboring_relation=None, digits: int = 4, grid_budget=None):
        name = getattr(neighboring_relation, "name", neighboring_relation)
        # REPLACE_SPECIAL (a record replaced by a special, zero-contribution record, as dp_accounting asks for
        # tree aggregation): for noise added to a sum the pair is add-remove's; sampled events and
        # randomized response are refused under it, as dp_accounting's RDP accountant refuses them
        self._special = name == "REPLACE_SPECIAL"
        if name in (None, "ADD_OR_REMOVE_ONE", "add-remove", "REPLACE_SPECIAL"):
            self._neighbors = "add-remove"
        elif name in ("REPLACE_ONE", "replace"):
            self._neighbors = "replace"
        else:
            raise InputError(f"neighboring_relation {neighboring_relation!r} is not supported (ADD_OR_REMOVE_ONE, REPLACE_ONE "
                             "or REPLACE_SPECIAL)")
        self._digits = _int(digits, "digits", 1, 1000)
        self._grid_budget = grid_budget
        self._specs: List[str] = []
        # a NonPrivateDpEvent was composed: epsilon and delta are infinite (get_epsilon inf, get_delta 1,
        # as dp_accounting's accountants)
        self._non_private = False
        # answers of this composition, by query: `get_epsilon(d)` after `epsilon(d)` (dp_accounting's
        # usage asks the same thing twice) is the same bracket, not a second computation; `compose`
        # clears it. The composition itself is kept too, so that its accountant's state (the tilted
        # engine's lines) serves every query until the next `compose`.
        self._answers = {}
        self._comp: Optional[Composition] = None
        self._relation = neighboring_relation
        self._events: List[tuple] = []
        dpa = _dp_accounting()
        if dpa is not None and not issubclass(PLDAccountant, dpa[0].PrivacyAccountant):
            dpa[0].PrivacyAccountant.register(PLDAccountant)

    @property
    def neighboring_relation(self):
        """The neighbouring relation as given (dp_accounting's ``NeighboringRelation``; where none was
        given, its ``ADD_OR_REMOVE_ONE`` if dp_accounting is installed, else the string "add-remove")."""
        if self._relation is not None:
            return self._relation
        dpa = _dp_accounting()
        return dpa[0].NeighboringRelation.ADD_OR_REMOVE_ONE if dpa is not None else "add-remove"

    @property
    def ledger(self):
        """The events composed so far as one event, built as dp_accounting's ``DpEventBuilder`` builds it
        (``NoOpDpEvent`` before any; needs dp_accounting, where the events come from)."""
        dpa = _dp_accounting()
        if dpa is None:
            raise InputError("ledger is made of dp_accounting's events: install dp_accounting")
        builder = dpa[1].DpEventBuilder()
        for event, count in self._events:
            builder.compose(event, count)
        return builder.build()

    def _specs_of(self, event, count: int, flag: List[bool]) -> List[str]:
        if self._neighbors == "replace" and _holds(event, "MixtureOfGaussiansDpEvent"):
            raise InputError("MixtureOfGaussiansDpEvent is defined for add-remove neighbours (dp_accounting refuses it under REPLACE_ONE too)")
        for held in ("PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent", "RandomizedResponseDpEvent", "MixtureOfGaussiansDpEvent"):
            if self._special and _holds(event, held):  # (a no-op unless REPLACE_SPECIAL)
                raise InputError(f"{held} under REPLACE_SPECIAL is not supported (dp_accounting refuses it too): use "
                                 "ADD_OR_REMOVE_ONE or REPLACE_ONE")
        if self._neighbors == "replace" and _holds(event, "SingleEpochTreeAggregationDpEvent"):
            raise InputError("SingleEpochTreeAggregationDpEvent is accounted for a record added or removed (or replaced by "
                             "a zero record, dp_accounting's REPLACE_SPECIAL): its L2 sensitivity sqrt(D) holds there; "
                             "under REPLACE_ONE it doubles. Use ADD_OR_REMOVE_ONE")
        specs = _event_specs(event, count, flag)
        return [_wor_under_add_remove(s) for s in specs] if self._neighbors == "add-remove" else specs

    def supports(self, event) -> bool:
        """True if the event (and everything inside it) can be accounted."""
        try:
            specs = self._specs_of(event, 1, [])
        except InputError:
            return False
        # what the neighbour relation admits (sampling without replacement and randomized response under
        # replace only; Poisson subsampling under replace for additive noise only): the composition decides
        if not specs:
            return True
        try:
            from_mechs(specs, self._neighbors)
        except InputError:
            return False
        return True

    def compose(self, event, count: int = 1) -> "PLDAccountant":
        """Add ``count`` copies of the event to the composition (refused, unchanged, if unsupported)."""
        flag: List[bool] = []
        count = _int(count, "count", 1, MAX_N)
        try:
            specs = self._specs_of(event, count, flag)
            comp = from_mechs(self._specs + specs, self._neighbors) if specs else self._comp  # validates first
        except InputTypeError:
            raise
        except InputError as e:
            raise _unsupported(str(e)) from None
        self._events.append((event, count))
        self._specs.extend(specs)
        self._non_private = self._non_private or bool(flag)
        self._comp = comp
        self._answers.clear()
        return self

    def composition(self) -> Optional[Composition]:
        """The composition so far (None before any event)."""
        if self._comp is None and self._specs:
            self._comp = from_mechs(self._specs, self._neighbors)
        return self._comp

    def epsilon(self, delta) -> "Certified":
        return self._answer("epsilon", delta)

    def delta(self, epsilon) -> "Certified":
        return self._answer("delta", epsilon)

    def _answer(self, what: str, x) -> "Certified":
        if self._non_private:
            raise InputError("a NonPrivateDpEvent was composed: epsilon and delta are infinite, no bracket to give "
                             "(get_epsilon returns inf and get_delta 1, as dp_accounting's)")
        key = (what, type(x).__name__, str(x))
        if key not in self._answers:
            c = self.composition()
            if c is None:
                raise InputError("nothing composed yet")
            self._answers[key] = getattr(c, what)(x, digits=self._digits, grid_budget=self._grid_budget)
        return self._answers[key]

    def get_epsilon(self, target_delta: float) -> float:
        """The smallest certified ε for ``target_delta`` (0 before any event; inf after a NonPrivateDpEvent),
        rounded up to a float."""
        _one_value(target_delta, "get_epsilon", "target_delta", "epsilon")
        if self._non_private:
            return math.inf
        if not self._specs:
            return 0.0
        return _float_up(self.epsilon(target_delta).hi)

    def get_delta(self, target_epsilon: float) -> float:
        """The certified δ(ε), upper end rounded up to a float (0 before any event; 1 after a
        NonPrivateDpEvent)."""
        _one_value(target_epsilon, "get_delta", "target_epsilon", "delta")
        if self._non_private:
            return 1.0
        if not self._specs:
            return 0.0
        return _float_up(self.delta(target_epsilon).hi)


class OpacusAccountant:
    """Opacus's accountant interface (``opacus.accountants.IAccountant``: ``step``, ``get_epsilon``,
    ``history``, ``__len__``, ``mechanism``, ``get_optimizer_hook_fn``, ``state_dict``) on tightdp's
    certified engines, for DP-SGD histories whose noise multiplier and sample rate change between steps:
    ``privacy_engine.accountant = tightdp.OpacusAccountant()``, or a loop of ``step`` calls.

    ``history`` is Opacus's: (noise_multiplier, sample_rate, steps), consecutive steps of the same pair
    merged. Each entry is a Poisson-subsampled Gaussian (sensitivity 1, add-remove neighbours; a sample
    rate of 1 is the Gaussian), and a query composes them all: the tilted inversion's cost does not grow
    with the steps, and the composition is kept between queries, so the next query after a ``step`` costs
    one composition's, and a second query without a step reuses the first's state. ``get_epsilon``
    returns a float, the certified bracket's upper end rounded up; ``epsilon`` the :class:`Certified`
    bracket. Opacus's accuracy arguments (``eps_error``, ``delta_error``, ``alphas``) are accepted and
    have no effect: the answer is certified to ``digits``.

    >>> acc = tightdp.OpacusAccountant()
    >>> for _ in range(100):
    ...     acc.step(noise_multiplier=1.0, sample_rate=0.01)
    >>> acc.step(noise_multiplier=2.0, sample_rate=0.02)
    >>> acc.history, len(acc)
    ([(1.0, 0.01, 100), (2.0, 0.02, 1)], 101)
    >>> 0 < acc.get_epsilon(1e-5) < 2
    True
    """

    def __init__(self, digits: int = 6):
        self.history: List[tuple] = []
        self._digits = _int(digits, "digits", 1, MAX_DIGITS)
        # the history's composition (None: nothing released) and whether a step had no noise, for the history
        # they were built from (kept until the next step)
        self._comp: Optional[Composition] = None
        self._infinite = False
        self._comp_of: Optional[list] = None

    @classmethod
    def mechanism(cls) -> str:
        return "tightdp"

    def __len__(self) -> int:
        return sum(int(n) for _, _, n in self.history)

    def step(self, *, noise_multiplier, sample_rate) -> None:
        """One optimisation step of noise multiplier σ ≥ 0 (0: no noise, ε = ∞) at Poisson rate q in [0, 1]."""
        for v, what in ((noise_multiplier, "noise_multiplier"), (sample_rate, "sample_rate")):
            if _is_bool(v) or not isinstance(v, (numbers.Real, Decimal)):
                raise InputTypeError(f"{what} must be a number, got {v!r}")
        if not (noise_multiplier >= 0 and math.isfinite(float(noise_multiplier))):
            raise InputError(f"noise_multiplier must be a finite number >= 0, got {noise_multiplier!r}")
        if not 0 <= sample_rate <= 1:
            raise InputError(f"sample_rate must be in [0, 1], got {sample_rate!r}")
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            nm, sr, n = self.history.pop()
            self.history.append((nm, sr, n + 1))
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def _specs(self) -> Optional[List[str]]:
        """The history as mechanism terms (None: a step without noise, so ε = ∞; steps at rate 0 release nothing)."""
        specs = []
        for nm, sr, n in self.history:
            if sr == 0:
                continue
            if nm == 0:
                return None
            q = "" if sr == 1 else f",q={_q(sr, 'sample_rate')}"
            specs.append(f"gauss:sigma={_q(nm, 'noise_multiplier')}{q},n={_int(n, 'steps', 1, MAX_N)}")
        return specs

    def _state(self):
        """The history's composition and whether a step had no noise, built once per history."""
        key = list(self.history)
        if self._comp_of != key:
            specs = self._specs()
            self._infinite = specs is None
            self._comp = from_mechs(specs) if specs else None
            self._comp_of = key
        return self._comp, self._infinite

    def composition(self) -> Optional[Composition]:
        """The history as a tightdp composition (None before any step that releases something, and after a
        step without noise)."""
        return self._state()[0]

    def epsilon(self, delta) -> "Certified":
        """The certified ε(δ) of the history so far."""
        c, infinite = self._state()
        if infinite:
            raise InputError("a step without noise (noise_multiplier = 0) was taken: epsilon is infinite")
        if c is None:
            raise InputError("no step that releases anything yet")
        return c.epsilon(delta, digits=self._digits)

    def get_epsilon(self, delta, *args, eps_error=None, delta_error=None, alphas=None) -> float:
        """ε(δ) of the history so far, the certified upper end rounded up to a float (0 before any step, inf
        after a step without noise)."""
        if args:
            raise InputError("get_epsilon takes delta, and Opacus's keyword arguments only")
        _one_value(delta, "get_epsilon", "delta", "epsilon")
        c, infinite = self._state()
        if infinite:
            return math.inf
        if c is None:
            return 0.0
        return _float_up(self.epsilon(delta).hi)

    def get_optimizer_hook_fn(self, sample_rate: float):
        """Opacus's optimizer hook: one ``step`` per optimizer step, at ``sample_rate`` times the
        optimizer's accumulated iterations."""

        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier, sample_rate=sample_rate * optim.accumulated_iterations)

        return hook_fn

    def state_dict(self, destination=None):
        """Opacus's checkpoint state: the history and the mechanism's name."""
        d = {} if destination is None else destination
        d["history"] = list(self.history)
        d["mechanism"] = self.mechanism()
        return d

    def load_state_dict(self, state_dict) -> None:
        """Restore ``state_dict()``'s history (refused if it is another mechanism's)."""
        if not state_dict or "history" not in state_dict or "mechanism" not in state_dict:
            raise InputError("state_dict needs the keys 'history' and 'mechanism'")
        if state_dict["mechanism"] != self.mechanism():
            raise InputError(f"state_dict of {state_dict['mechanism']!r} cannot be loaded into the {self.mechanism()!r} accountant")
        self.history = [tuple(h) for h in state_dict["history"]]


def _float_up(x) -> float:
    import math

    f = float(x)
    return f if Decimal(f) >= Decimal(x) else math.nextafter(f, math.inf)


def _toml_value(v, where: str) -> str:
    if _is_bool(v):
        return "true" if v else "false"
    if isinstance(v, str):
        import json

        return json.dumps(v)  # a TOML basic string
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (Fraction, Decimal, float)) or isinstance(v, numbers.Real):
        return '"' + _q(v, where) + '"'  # exact, as a decimal or fraction string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    raise InputTypeError(f"{where}: unsupported value {v!r} (strings, numbers and lists)")


def _toml(d: dict) -> str:
    """A dict in the allocation file's shape (top-level keys, `level` a list of dicts) as TOML."""
    import json

    if not isinstance(d, dict):
        raise InputTypeError(f"from_dict needs a dict, got {d!r}")
    out, tables = [], []
    for k, v in d.items():
        if not isinstance(k, str):
            raise InputTypeError(f"allocation keys must be strings, got {k!r}")
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v))
        elif isinstance(v, dict):
            raise InputTypeError(f"allocation key {k!r}: a table must be a list of dicts (e.g. level=[{{...}}])")
        else:
            out.append(f"{json.dumps(k)} = {_toml_value(v, k)}")
    for k, rows in tables:
        for i, row in enumerate(rows):
            out.append(f"[[{json.dumps(k)}]]")
            for kk, vv in row.items():
                if not isinstance(kk, str):
                    raise InputTypeError(f"{k}[{i}]: keys must be strings, got {kk!r}")
                out.append(f"{json.dumps(kk)} = {_toml_value(vv, f'{k}[{i}].{kk}')}")
    return "\n".join(out) + "\n"


class Allocation:
    """A privacy-loss budget allocation (the TOML allocation files of ``tightdp --allocation``): its
    levels and their compositions.

    >>> a = tightdp.Allocation.load("data/allocations/dhc-2022-08-25.toml")
    >>> a.levels[:2]
    ['US', 'State']
    >>> tightdp.Allocation.from_dict({"name": "two levels", "rho": "1", "level": [
    ...     {"name": "A", "share": "1/4", "queries": 2}, {"name": "B", "share": "3/4", "queries": 3}]})
    Allocation('two levels', levels=['A', 'B'], rho=Fraction(1, 1), neighbors='add-remove')
    """

    __slots__ = ("_raw",)

    def __init__(self, raw):
        self._raw = raw

    @staticmethod
    def load(path) -> "Allocation":
        """Read an allocation file (a :class:`FileError` when it cannot be read)."""
        import os

        if not isinstance(path, (str, os.PathLike)):
            raise InputTypeError(f"path must be a str or os.PathLike, got {path!r}")
        return Allocation(_call(_tightdp.RawAllocation.load, os.fspath(path)))

    @staticmethod
    def from_string(text: str) -> "Allocation":
        """An allocation from the text of an allocation file (TOML)."""
        return Allocation(_call(_tightdp.RawAllocation.from_toml, _str(text, "text")))

    @staticmethod
    def from_dict(d: dict) -> "Allocation":
        """An allocation from a dict with the file's keys (``level``: a list of dicts). Numbers may be
        given as in the rest of the package (strings, ints, Fractions, Decimals, floats at their exact
        binary value)."""
        return Allocation.from_string(_toml(d))

    @property
    def name(self) -> str:
        return self._raw.name()

    @property
    def neighbors(self) -> str:
        return self._raw.neighbors()

    @property
    def levels(self) -> List[str]:
        return self._raw.levels()

    @property
    def rho(self) -> Fraction:
        return Fraction(_call(self._raw.rho))

    def level(self, name: str) -> Composition:
        """The composition of one geographic level."""
        return Composition(_call(self._raw.level, _str(name, "level")))

    def overall(self) -> Composition:
        """All levels composed."""
        return Composition(_call(self._raw.overall))

    def __repr__(self) -> str:
        return f"Allocation({self.name!r}, levels={self.levels!r}, rho={self.rho!r}, neighbors={self.neighbors!r})"


class Attack:
    """What an attacker can do against a composition (``tightdp attack``), each measure certified:
    ``advantage`` (sup TPR − FPR over membership tests), ``tpr`` (TPR of the most powerful test at each
    FPR, a dict keyed by the FPRs as given), ``bayes_success`` (success probability of the best
    membership guess at each prior, keyed likewise); ``bureau_*``: what the Bureau's zCDP accounting
    allows, as floats (double precision on a grid: approximate, in the Bureau's favour)."""

    __slots__ = ("advantage", "tpr", "bayes_success", "bureau_advantage", "bureau_tpr", "bureau_bayes_success")

    def __repr__(self) -> str:
        tpr = ", ".join(f"{k!r}: {v.hi}" for k, v in self.tpr.items())
        bayes = ", ".join(f"{k!r}: {v.hi}" for k, v in self.bayes_success.items())
        return f"Attack(advantage <= {self.advantage.hi}, tpr <= {{{tpr}}}, bayes_success <= {{{bayes}}})"


def attack(composition: Composition, fpr=("1e-4", "1e-3", "1e-2"), prior=("0.5", "1e-3"), digits: int = 20, method: str = "auto") -> Attack:
    """The CLI's attack measures of a composition: TPR at each FPR in [0, 1], the advantage, the Bayes
    success at each prior in (0, 1) — all :class:`Certified` — with the Bureau's counterparts.

    >>> r = tightdp.attack(tightdp.DiscreteGaussian("50000/10001", n=10), fpr=["1e-3"], prior=["0.5"])
    >>> r.tpr["1e-3"] < 1 and r.advantage < 1
    True
    """
    if not isinstance(composition, Composition):
        raise InputTypeError(f"attack needs a tightdp Composition, got {composition!r}")
    fprs = [fpr] if not _is_seq(fpr) else list(_items(fpr))
    priors = [prior] if not _is_seq(prior) else list(_items(prior))
    raw = _call(
        composition._raw.attack,
        [_q(f, "fpr") for f in fprs],
        [_q(p, "prior") for p in priors],
        _int(digits, "digits", 1, MAX_DIGITS),
        _str(method, "method"),
    )
    adv, tprs, bayes, adv_b, tpr_b, bayes_b = raw
    r = Attack()
    key = lambda x: x if _hashable(x) else str(x)  # noqa: E731
    r.advantage = Certified._raw(adv)
    r.tpr = {key(f): Certified._raw(t) for f, t in zip(fprs, tprs)}
    r.bayes_success = {key(p): Certified._raw(b) for p, b in zip(priors, bayes)}
    r.bureau_advantage = adv_b
    r.bureau_tpr = {key(f): t for f, t in zip(fprs, tpr_b)}
    r.bureau_bayes_success = {key(p): b for p, b in zip(priors, bayes_b)}
    return r


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def calibrate(composition: Composition, delta: Number, target_epsilon: Number) -> Certified:
    """The largest variance factor c (every σ² × c) with ε(δ) ≤ target, as a :class:`Certified`
    bracket (discrete Gaussian compositions).

    >>> c = tightdp.calibrate(tightdp.DiscreteGaussian(5, n=10), "1e-10", 12)
    >>> c.lo <= c.hi and 0 < c < 1
    True
    """
    if not isinstance(composition, Composition):
        raise InputTypeError(f"calibrate needs a tightdp Composition, got {composition!r}")
    lo, hi, elo_lo, elo_hi, ehi_lo, ehi_hi = _call(composition._raw.calibrate, _q(delta, "delta"), _q(target_epsilon, "target_epsilon"))
    detail = f"variance factor; epsilon at its ends in [{elo_lo}, {elo_hi}] and [{ehi_lo}, {ehi_hi}]"
    return Certified._exact(Fraction(lo), Fraction(hi), "calibrate", "certified", detail)


def zcdp_bs(rho: Number, delta: Number) -> Certified:
    """ε of the Bureau's zCDP conversion ρ + 2√(ρ log 1/δ) (Bun–Steinke), certified.

    >>> tightdp.zcdp_bs(1, "1e-11").method
    'zcdp-bs'
    """
    lo, hi = _call(_tightdp.zcdp_bs, _q(rho, "rho"), _q(delta, "delta"))
    return Certified(lo, hi, "zcdp-bs", "certified-bound", "rho + 2 sqrt(rho log 1/delta)")


def zcdp_cks(rho: Number, delta: Number) -> Certified:
    """ε of the optimal zCDP conversion (Canonne–Kamath–Steinke), certified."""
    lo, hi = _call(_tightdp.zcdp_cks, _q(rho, "rho"), _q(delta, "delta"))
    return Certified(lo, hi, "zcdp-cks", "certified-bound", "Canonne-Kamath-Steinke conversion")


class Certificate(list):
    """A production certificate (``tightdp certify --allocation``): a list of rows (dicts with the CSV's
    columns product, neighbors, quantity, value, note) and ``epsilon``: each product's certified exact
    ε(δ) as a :class:`Certified` (20 digits, from the rows)."""

    epsilon: Dict[str, Certified]


def certify(paths: Union[str, Sequence[str]], delta: Number) -> Certificate:
    """A production certificate of allocation file(s) (as ``tightdp certify --allocation``)."""
    import os

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not _is_seq(paths) or not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise InputTypeError(f"paths must be a path or a list of paths, got {paths!r}")
    rows = Certificate(dict(r) for r in _call(_tightdp.certify, [os.fspath(p) for p in paths], _q(delta, "delta")))
    rows.epsilon = {}
    ends: Dict[str, dict] = {}
    for r in rows:
        if r["quantity"] in ("eps_exact_lo", "eps_exact_hi"):
            ends.setdefault(r["product"], {})[r["quantity"]] = r
    for product, e in ends.items():
        lo, hi = e["eps_exact_lo"], e["eps_exact_hi"]
        note = lo["note"]
        rows.epsilon[product] = Certified(lo["value"], hi["value"], note.split(" ")[0], "certified", note)
    return rows


class NoiseMultiplier:
    """The answer of :func:`noise_multiplier`: ``sigma`` (a ``Fraction``, a multiple of the resolution)
    meets the target — ``measure``, its :class:`Certified` value (ε, or the attack measure asked), is at or
    below it — and ``sigma_below``, one resolution step less, provably does not (``measure_below`` is above
    the target). For an ε target ``epsilon`` and ``epsilon_below`` are the same brackets; for an attack
    target they are None."""

    __slots__ = ("sigma", "measure", "sigma_below", "measure_below", "probes", "epsilon", "epsilon_below")

    def __init__(self, sigma, measure, sigma_below, measure_below, probes, is_epsilon=True):
        self.sigma, self.measure, self.sigma_below, self.measure_below, self.probes = sigma, measure, sigma_below, measure_below, probes
        self.epsilon, self.epsilon_below = (measure, measure_below) if is_epsilon else (None, None)

    def __float__(self) -> float:
        return float(self.sigma)

    def __repr__(self) -> str:
        name = "epsilon" if self.epsilon is not None else "measure"
        return (f"NoiseMultiplier(sigma={self.sigma}, {name}=[{self.measure.lo}, {self.measure.hi}], "
                f"sigma_below={self.sigma_below}, {name}_below=[{self.measure_below.lo}, {self.measure_below.hi}])")


def _targets(target_epsilon, target_delta, target_advantage, target_tpr, at_fpr):
    """The target arguments of a calibration: (delta, epsilon, advantage, tpr, fpr), exact strings or None;
    which combinations make a target is the library's to say, in the CLI's words."""
    opt = lambda x, what: None if x is None else _q(x, what)
    return (opt(target_delta, "target_delta"), opt(target_epsilon, "target_epsilon"), opt(target_advantage, "target_advantage"),
            opt(target_tpr, "target_tpr"), opt(at_fpr, "at_fpr"))


def _calibrate(spec, neighbors, resolution, targets):
    delta, eps, adv, tpr, fpr = targets
    return dict(_call(_tightdp.noise_multiplier, [spec], _str(neighbors, "neighbors"), delta, eps, resolution, adv, tpr, fpr))


def noise_multiplier(target_epsilon: Optional[Number] = None, target_delta: Optional[Number] = None,
                     sample_rate: Optional[Number] = None, steps: int = 1, resolution: Number = "0.001",
                     neighbors: str = "add-remove", *, target_advantage: Optional[Number] = None,
                     target_tpr: Optional[Number] = None, at_fpr: Optional[Number] = None,
                     allocation_steps: Optional[int] = None, allocation_selected: int = 1) -> NoiseMultiplier:
    """DP-SGD calibration, certified (Opacus's ``get_noise_multiplier(target_epsilon, target_delta,
    sample_rate, steps)``): the smallest noise multiplier σ, a multiple of ``resolution``, for which
    ``steps`` Poisson-subsampled Gaussian steps (sampling rate ``sample_rate``; None: every step sees all
    the data) meet ε ≤ ``target_epsilon`` at δ = ``target_delta``; σ minus one resolution step provably
    does not. As ``tightdp calibrate --mech gauss:sigma=?,q=…,n=…``.

    Instead of ε, an attack target (as riskcal calibrates): ``target_advantage`` bounds the most powerful
    membership test's sup(TPR − FPR); ``target_tpr`` with ``at_fpr`` its TPR at that FPR.

    ``allocation_steps=T`` calibrates random allocation instead of Poisson subsampling (each record in one
    of T steps per epoch, ``steps`` a multiple of T; no ``sample_rate``): the upper end of its certified
    bracket where the bracket straddles the target at the work budget (trust ``certified-bound``), as
    ``tightdp calibrate --mech alloc:sigma=?,steps=T,n=EPOCHS``; ``allocation_selected=k`` puts each record
    in k of the T steps (``k=K``).

    >>> nm = tightdp.noise_multiplier(2, "1e-5", steps=10)
    >>> nm.sigma, nm.epsilon <= 2 < nm.epsilon_below
    (Fraction(1261, 200), True)
    >>> tightdp.noise_multiplier(steps=10, target_tpr="0.01", at_fpr="0.001").sigma
    Fraction(207, 50)
    """
    steps = _int(steps, "steps", 1, MAX_N)
    if allocation_steps is not None:
        per_epoch = _int(allocation_steps, "allocation_steps", 1, 2**40)
        if sample_rate is not None:
            raise InputError("give either sample_rate (Poisson subsampling) or allocation_steps (random allocation), not both")
        if steps % per_epoch:
            raise InputError(f"steps ({steps}) must be a whole number of epochs of allocation_steps ({per_epoch}) steps")
        spec = f"alloc:sigma=?,steps={per_epoch},n={steps // per_epoch}"
        k = _int(allocation_selected, "allocation_selected", 1, per_epoch)
        if k > 1:
            spec += f",k={k}"
    else:
        if allocation_selected != 1:
            raise InputError("allocation_selected needs allocation_steps (random allocation)")
        spec = "gauss:sigma=?,n=" + str(steps)
        if sample_rate is not None:
            spec += ",q=" + _q(sample_rate, "sample_rate")
    targets = _targets(target_epsilon, target_delta, target_advantage, target_tpr, at_fpr)
    row = _calibrate(spec, neighbors, _q(resolution, "resolution"), targets)
    name = "epsilon" if "epsilon_lo" in row else "measure"
    cert = lambda k: Certified(row[k + "_lo"], row[k + "_hi"], row["method"], row["trust"], "noise multiplier calibration")
    return NoiseMultiplier(Fraction(row["sigma"]), cert(name), Fraction(row["sigma_below"]), cert(name + "_below"), int(row["probes"]),
                           name == "epsilon")


class ShuffleBound:
    """What :func:`shuffle` returns: ``at_least``, the certified lower bound (a Fraction; None where no test of
    the family gives a positive one) of ε (or δ) for shuffled batches; ``test``, the attack that certifies
    it; ``at_most``, the certified upper bound (a Fraction, rounded up to 12 digits) that holds for every
    shuffled run: E Gaussian releases, as if the batch order were known (``upper_bound`` says so);
    ``poisson``, the :class:`Certified` Poisson accounting of the same expected batch size (None where no
    engine certifies it, a tiny noise multiplier: the verdict says why); ``verdict``."""

    __slots__ = ("at_least", "at_most", "upper_bound", "test", "poisson", "verdict", "measure")

    def __init__(self, row: dict):
        self.measure = row["measure"]
        self.at_least = Fraction(row["shuffled_at_least"]) if row["shuffled_at_least"] else None
        self.test = row["test"]
        self.at_most = Fraction(row["shuffled_at_most"])
        self.upper_bound = row["upper_bound"]
        self.poisson = Certified(row["poisson_lo"], row["poisson_hi"], row["poisson_method"], "certified",
                                 f"{self.measure} of Poisson subsampling at q = 1/steps", None, None) if row["poisson_lo"] else None
        self.verdict = row["verdict"]

    def __repr__(self) -> str:
        return (f"ShuffleBound({self.at_least} <= {self.measure} <= {float(self.at_most)}, Poisson {self.poisson!s}: "
                f"{self.verdict})")


def shuffle(sigma: Number, steps: int, epochs: int = 1, delta: Optional[Number] = None, epsilon: Optional[Number] = None,
            neighbors: str = "add-remove", digits: int = 6) -> ShuffleBound:
    """Shuffled batches (shuffle and iterate; ``steps`` batches per epoch, noise multiplier ``sigma``): a
    certified *lower* bound on ε at ``delta`` (or on δ at ``epsilon``) from one explicit attack, beside the
    certified Poisson accounting of the same expected batch size (q = 1/steps), as ``tightdp shuffle``.
    Under ``replace`` (every other gradient −1, the record's +1 replaced by −1) the bound can exceed the
    Poisson accounting: shuffled training is then provably less private than that accounting says.

    >>> b = tightdp.shuffle(1, 234, delta="1e-5", neighbors="replace", digits=2)
    >>> b.at_least > b.poisson.hi
    True
    """
    _str(neighbors, "neighbors")
    d = None if delta is None else _q(delta, "delta")
    e = None if epsilon is None else _q(epsilon, "epsilon")
    fields = _call(_tightdp.shuffle, _q(sigma, "sigma"), _int(steps, "steps", 2, 2**40), _int(epochs, "epochs", 1, 10_000),
                   d, e, neighbors, _int(digits, "digits", 1, 40))
    return ShuffleBound(dict(fields))


class Steps:
    """The answer of :func:`max_steps`: ``n`` steps meet the target — ``measure``, their
    :class:`Certified` ε (or attack measure), is at or below it — and ``n + 1`` provably do not
    (``measure_above`` is above the target). For an ε target ``epsilon`` and ``epsilon_above`` are the same
    brackets; for an attack target they are None."""

    __slots__ = ("n", "measure", "measure_above", "probes", "epsilon", "epsilon_above")

    def __init__(self, n, measure, measure_above, probes, is_epsilon=True):
        self.n, self.measure, self.measure_above, self.probes = n, measure, measure_above, probes
        self.epsilon, self.epsilon_above = (measure, measure_above) if is_epsilon else (None, None)

    def __int__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        name = "epsilon" if self.epsilon is not None else "measure"
        return (f"Steps(n={self.n}, {name}=[{self.measure.lo}, {self.measure.hi}], "
                f"{name}_above=[{self.measure_above.lo}, {self.measure_above.hi}])")


def max_steps(target_epsilon: Optional[Number] = None, target_delta: Optional[Number] = None,
              noise_multiplier: Optional[Number] = None, sample_rate: Optional[Number] = None,
              neighbors: str = "add-remove", *, target_advantage: Optional[Number] = None,
              target_tpr: Optional[Number] = None, at_fpr: Optional[Number] = None) -> Steps:
    """How long a budget lasts, certified: the largest number of Gaussian steps of noise multiplier
    ``noise_multiplier`` (Poisson-subsampled at ``sample_rate``; None: every step sees all the data) that
    meet ε ≤ ``target_epsilon`` at δ = ``target_delta`` — or an attack target, ``target_advantage`` or
    ``target_tpr`` at ``at_fpr`` as in :func:`noise_multiplier`; one step more provably does not. As
    ``tightdp calibrate --mech gauss:sigma=…,q=…,n=?``. (A lattice law takes milliseconds, thousands of
    subsampled steps a few seconds.)

    >>> s = tightdp.max_steps(8, "1e-5", 10)
    >>> s.n, s.epsilon <= 8 < s.epsilon_above
    (277, True)
    """
    if noise_multiplier is None:
        raise InputTypeError("max_steps needs noise_multiplier=, the Gaussian's noise multiplier")
    spec = "gauss:sigma=" + _q(noise_multiplier, "noise_multiplier") + ",n=?"
    if sample_rate is not None:
        spec += ",q=" + _q(sample_rate, "sample_rate")
    targets = _targets(target_epsilon, target_delta, target_advantage, target_tpr, at_fpr)
    row = _calibrate(spec, neighbors, "0.001", targets)
    name = "epsilon" if "epsilon_lo" in row else "measure"
    cert = lambda k: Certified(row[k + "_lo"], row[k + "_hi"], row["method"], row["trust"], "steps calibration")
    return Steps(int(row["n"]), cert(name), cert(name + "_above"), int(row["probes"]), name == "epsilon")


class MechanismEpsilon:
    """The answer of :func:`max_mechanism_epsilon`: the mechanisms' ε ``mech_epsilon``
    (a ``Fraction``, a multiple of the resolution) meets the target — ``measure``, its :class:`Certified`
    bound of ε (or of the attack measure), is at or below it — and ``mech_epsilon_above``, one resolution
    step more, provably misses it (``measure_above`` is above the target)."""

    __slots__ = ("mech_epsilon", "measure", "mech_epsilon_above", "measure_above", "probes")

    def __init__(self, mech_epsilon, measure, mech_epsilon_above, measure_above, probes):
        self.mech_epsilon, self.measure, self.mech_epsilon_above = mech_epsilon, measure, mech_epsilon_above
        self.measure_above, self.probes = measure_above, probes

    def __float__(self) -> float:
        return float(self.mech_epsilon)

    def __repr__(self) -> str:
        return (f"MechanismEpsilon(mech_epsilon={self.mech_epsilon}, measure=[{self.measure.lo}, {self.measure.hi}], "
                f"mech_epsilon_above={self.mech_epsilon_above}, measure_above=[{self.measure_above.lo}, {self.measure_above.hi}])")


def max_exponential_mechanism_epsilon(target_epsilon: Optional[Number] = None, target_delta: Optional[Number] = None,
                                      releases: int = 1, resolution: Number = "0.001", neighbors: str = "add-remove", *,
                                      target_advantage: Optional[Number] = None, target_tpr: Optional[Number] = None,
                                      at_fpr: Optional[Number] = None) -> MechanismEpsilon:
    """The largest ε of ``releases`` exponential mechanisms a budget allows: the largest multiple of
    ``resolution`` whose certified bound (:func:`ExponentialMechanism`) meets ε ≤ ``target_epsilon`` at
    δ = ``target_delta`` — or an attack target as in :func:`noise_multiplier`; one resolution step more
    provably misses it. As ``tightdp calibrate --mech expmech:epsilon=?,n=…``; other mechanisms:
    :func:`max_mechanism_epsilon`.

    >>> m = tightdp.max_exponential_mechanism_epsilon(5, "1e-5", releases=10)
    >>> m.mech_epsilon, m.measure.hi <= 5 < m.measure_above.lo
    (Fraction(719, 1000), True)
    """
    return max_mechanism_epsilon("exponential", target_epsilon, target_delta, releases, resolution=resolution,
                                 neighbors=neighbors, target_advantage=target_advantage, target_tpr=target_tpr,
                                 at_fpr=at_fpr)


_EPSILON_KINDS = {"exponential": "expmech", "approx_dp": "dp", "randomized_response": "rr", "laplace": "laplace"}


def max_mechanism_epsilon(mechanism: str, target_epsilon: Optional[Number] = None, target_delta: Optional[Number] = None,
                          releases: int = 1, *, delta: Optional[Number] = None, k: int = 2, sampling_prob: Optional[Number] = None,
                          resolution: Number = "0.001", neighbors: Optional[str] = None,
                          target_advantage: Optional[Number] = None, target_tpr: Optional[Number] = None,
                          at_fpr: Optional[Number] = None) -> MechanismEpsilon:
    """The largest per-release ε a budget allows for ``releases`` copies of one mechanism: ``"exponential"``
    (:func:`ExponentialMechanism`), ``"approx_dp"`` (a stated (ε, ``delta``) guarantee, ``delta`` 0 by default, :func:`ApproxDp`),
    ``"randomized_response"`` (``k``-ary, replace neighbours, :func:`RandomizedResponse`) or ``"laplace"``
    (the Laplace mechanism at ε = sensitivity/scale, :func:`Laplace`); with ``sampling_prob`` each release
    sees a Poisson subsample. The answer's ``mech_epsilon`` is the largest multiple of ``resolution`` whose
    certified ε (or bound) meets ε ≤ ``target_epsilon`` at δ = ``target_delta`` — or an attack target as in
    :func:`noise_multiplier`; one resolution step more provably misses it. As
    ``tightdp calibrate --mech dp:epsilon=?,…`` (``expmech:``, ``rr:``, ``laplace:``).

    >>> m = tightdp.max_mechanism_epsilon("approx_dp", 3, "1e-6", releases=1000, sampling_prob="1/100")
    >>> m.mech_epsilon, m.measure.hi <= 3 < m.measure_above.lo, m.measure.method
    (Fraction(1747, 1000), True, 'exact-atoms')
    """
    kind = _EPSILON_KINDS.get(mechanism) if isinstance(mechanism, str) else None
    if kind is None:
        raise InputError(f"mechanism must be one of {', '.join(map(repr, _EPSILON_KINDS))}, got {mechanism!r}")
    parts = ["epsilon=?", f"n={_int(releases, 'releases', 1, MAX_N)}"]
    if kind == "dp":
        parts.insert(1, f"delta={_q(0 if delta is None else delta, 'delta')}")
    elif delta is not None:
        raise InputError(f"delta= is the stated guarantee's (mechanism='approx_dp'), not the {mechanism} mechanism's")
    if kind == "rr":
        parts.insert(1, f"k={_int(k, 'k', 2, 2**40)}")
        neighbors = "replace" if neighbors is None else neighbors
    neighbors = _sampling(parts, sampling_prob, None, neighbors)
    targets = _targets(target_epsilon, target_delta, target_advantage, target_tpr, at_fpr)
    row = _calibrate(kind + ":" + ",".join(parts), neighbors, _q(resolution, "resolution"), targets)
    name = "epsilon" if "epsilon_lo" in row else "measure"
    cert = lambda c: Certified(row[c + "_lo"], row[c + "_hi"], row["method"], row["trust"], f"{mechanism} epsilon calibration")
    return MechanismEpsilon(Fraction(row["mech_epsilon"]), cert(name), Fraction(row["mech_epsilon_above"]), cert(name + "_above"),
                            int(row["probes"]))


class SampleRate:
    """The answer of :func:`max_sample_rate`: sampling rate ``q`` (a ``Fraction``, a multiple of the
    resolution) meets the target — ``measure``, its :class:`Certified` ε (or attack measure), is at or below
    it — and ``q_above``, one resolution step more, provably does not (``measure_above`` is above the
    target). For an ε target ``epsilon`` and ``epsilon_above`` are the same brackets; for an attack target
    they are None."""

    __slots__ = ("q", "measure", "q_above", "measure_above", "probes", "epsilon", "epsilon_above")

    def __init__(self, q, measure, q_above, measure_above, probes, is_epsilon=True):
        self.q, self.measure, self.q_above, self.measure_above, self.probes = q, measure, q_above, measure_above, probes
        self.epsilon, self.epsilon_above = (measure, measure_above) if is_epsilon else (None, None)

    def __float__(self) -> float:
        return float(self.q)

    def __repr__(self) -> str:
        name = "epsilon" if self.epsilon is not None else "measure"
        return (f"SampleRate(q={self.q}, {name}=[{self.measure.lo}, {self.measure.hi}], "
                f"q_above={self.q_above}, {name}_above=[{self.measure_above.lo}, {self.measure_above.hi}])")


def max_sample_rate(target_epsilon: Optional[Number] = None, target_delta: Optional[Number] = None,
                    noise_multiplier: Optional[Number] = None, steps: int = 1, resolution: Number = "0.001",
                    neighbors: str = "add-remove", *, target_advantage: Optional[Number] = None,
                    target_tpr: Optional[Number] = None, at_fpr: Optional[Number] = None) -> SampleRate:
    """The largest Poisson sampling rate a budget allows, certified: the largest q, a multiple of
    ``resolution`` (a fraction such as ``"1/60000"`` is exact), for which ``steps`` Gaussian steps of noise
    multiplier ``noise_multiplier`` meet ε ≤ ``target_epsilon`` at δ = ``target_delta`` — or an attack
    target as in :func:`noise_multiplier`; q plus one resolution step provably does not. As
    ``tightdp calibrate --mech gauss:sigma=…,q=?,n=…``.

    >>> r = tightdp.max_sample_rate(8, "1e-5", noise_multiplier="1.1", steps=14070)
    >>> r.q, r.epsilon <= 8 < r.epsilon_above
    (Fraction(3, 250), True)
    """
    if noise_multiplier is None:
        raise InputTypeError("max_sample_rate needs noise_multiplier=, the Gaussian's noise multiplier")
    spec = "gauss:sigma=" + _q(noise_multiplier, "noise_multiplier") + ",q=?,n=" + str(_int(steps, "steps", 1, MAX_N))
    targets = _targets(target_epsilon, target_delta, target_advantage, target_tpr, at_fpr)
    row = _calibrate(spec, neighbors, _q(resolution, "resolution"), targets)
    name = "epsilon" if "epsilon_lo" in row else "measure"
    cert = lambda k: Certified(row[k + "_lo"], row[k + "_hi"], row["method"], row["trust"], "sampling rate calibration")
    return SampleRate(Fraction(row["q"]), cert(name), Fraction(row["q_above"]), cert(name + "_above"), int(row["probes"]),
                      name == "epsilon")
