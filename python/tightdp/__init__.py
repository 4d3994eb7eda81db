"""tightdp: certified, exact privacy accounting (f-DP privacy profiles) for compositions of discrete
Gaussian and discrete Laplace (two-sided geometric) mechanisms, as used by the 2020 US Census.

Every result is a certified bracket ``[lo, hi]`` that provably holds the exact value (MPFR interval
arithmetic with rigorous bounds), as ``decimal.Decimal`` ends rounded outward, with the engine that
produced it.

Numbers (σ², scales, δ, ε, α) may be given as ``str`` ("1e-11", "50000/10001"), ``int``,
``fractions.Fraction`` or ``decimal.Decimal``; a ``float`` is taken at its exact binary value
(``0.1`` is 3602879701896397/36028797018963968, not 1/10): pass a string for decimal values.

>>> import tightdp
>>> tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11")  # doctest: +ELLIPSIS
Certified(lo=10.1254170441117538579..., hi=10.1254170441117538579..., method='lattice-dd')
"""

from decimal import Decimal
from fractions import Fraction
from typing import Iterable, List, Sequence, Union

from . import _tightdp

__all__ = [
    "Certified",
    "Composition",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "Allocation",
    "calibrate",
    "zcdp_bs",
    "zcdp_cks",
    "certify",
]

Number = Union[str, int, Fraction, Decimal, float]


def _q(x: Number, what: str) -> str:
    """The exact value of x as a fraction string 'p/q' (floats at their exact binary value)."""
    if isinstance(x, bool):
        raise ValueError(f"{what} must be a number, got {x!r}")
    try:
        f = Fraction(x.strip()) if isinstance(x, str) else Fraction(x)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError) as e:
        raise ValueError(f"{what}: not a finite number: {x!r} ({e})") from None
    return f"{f.numerator}/{f.denominator}"


class Certified:
    """A certified bracket [lo, hi] holding the exact value, with the engine that produced it.

    ``lo`` and ``hi`` are ``decimal.Decimal`` (40 significant digits, rounded outward); ``method`` is
    the engine (``lattice``, ``lattice-dd``, ``lattice-f64``, ``smoothed``, ``zcdp-bs``, ...), ``trust``
    ``certified`` (the exact value) or ``certified-bound`` (a valid bound, e.g. a zCDP conversion),
    ``digits`` the correct significant digits, ``detail`` how it was computed, ``note`` why it is wider
    than asked (or None). ``float(c)`` is the midpoint.

    >>> c = tightdp.DiscreteGaussian(2, n=3).delta(1)
    >>> c.lo <= c.hi
    True
    """

    __slots__ = ("lo", "hi", "method", "trust", "detail", "note", "digits")

    def __init__(self, raw):
        lo, hi, self.method, self.trust, self.detail, self.note, self.digits = raw
        self.lo, self.hi = Decimal(lo), Decimal(hi)

    def __float__(self) -> float:
        return float((self.lo + self.hi) / 2)

    def __contains__(self, x) -> bool:
        """Exact test: is x (any accepted number type) inside the bracket?"""
        f = Fraction(_q(x, "value"))
        return Fraction(self.lo) <= f <= Fraction(self.hi)

    def __repr__(self) -> str:
        return f"Certified(lo={self.lo}, hi={self.hi}, method={self.method!r})"

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
            raise ValueError("compose needs a tightdp Composition")
        return Composition(self._raw.compose(other._raw))

    def self_compose(self, k: int) -> "Composition":
        """k copies of this composition."""
        return Composition(self._raw.self_compose(int(k)))

    @property
    def neighbors(self) -> str:
        return self._raw.neighbors()

    @property
    def rho(self) -> Fraction:
        """zCDP ρ of the composition (exact)."""
        return Fraction(self._raw.rho())

    def epsilon(self, delta, digits: int = 20, method: str = "auto"):
        """ε(δ), certified. A sequence or numpy array of δ gives (lo, hi) numpy arrays (lists without numpy).

        >>> tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11").digits >= 20
        True
        """
        return self._query(self._raw.epsilon, delta, "delta", digits, method)

    def delta(self, epsilon, digits: int = 20, method: str = "auto"):
        """δ(ε), certified (vectorised like :meth:`epsilon`).

        >>> float(tightdp.DiscreteGaussian(5, n=10).delta("10.1")) > 0
        True
        """
        return self._query(self._raw.delta, epsilon, "epsilon", digits, method)

    def tradeoff(self, alpha, digits: int = 20, method: str = "auto"):
        """The trade-off function f(α) (smallest type II error at type I error α), certified.

        >>> tightdp.DiscreteGaussian(2, n=3).tradeoff(1).hi
        Decimal('0')
        """
        return self._query(self._raw.tradeoff, alpha, "alpha", digits, method)

    def _query(self, fn, x, what, digits, method):
        if _is_seq(x):
            res = [Certified(fn(_q(v, what), int(digits), str(method))) for v in _items(x)]
            return _arrays(res)
        return Certified(fn(_q(x, what), int(digits), str(method)))

    def __repr__(self) -> str:
        return f"Composition({self._raw.describe()}, neighbors={self.neighbors!r})"


def _is_seq(x) -> bool:
    return not isinstance(x, (str, bytes, int, float, Fraction, Decimal)) and hasattr(x, "__iter__")


def _items(x) -> Iterable:
    try:
        import numpy as np  # noqa: F401

        if hasattr(x, "tolist"):
            return x.tolist()
    except ImportError:
        pass
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
    """n queries of integer sensitivity `sensitivity`, each with discrete Gaussian noise N_Z(0, σ²).

    >>> tightdp.DiscreteGaussian("50000/10001", n=10)
    Composition(10 x N_Z(0, 50000/10001) sensitivity 1, neighbors='add-remove')
    """
    return Composition(_tightdp.RawComposition.gaussian(_q(sigma2, "sigma2"), _count(n), _count(sensitivity), neighbors))


def DiscreteLaplace(scale: Number, n: int = 1, sensitivity: int = 1, neighbors: str = "add-remove") -> Composition:
    """n queries with discrete Laplace (two-sided geometric) noise, pmf ∝ exp(−|x|/scale).

    >>> float(tightdp.DiscreteLaplace(4, n=5).epsilon("1e-10")) < 5 / 4
    True
    """
    return Composition(_tightdp.RawComposition.laplace(_q(scale, "scale"), _count(n), _count(sensitivity), neighbors))


def _count(n) -> int:
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"counts and sensitivities must be positive integers, got {n!r}")
    return int(n)


class Allocation:
    """A Census privacy-loss budget allocation file (TOML): its levels and their compositions.

    >>> a = tightdp.Allocation.load("data/allocations/dhc-2022-08-25.toml")
    >>> a.levels[:2]
    ['US', 'State']
    """

    __slots__ = ("_raw",)

    def __init__(self, raw):
        self._raw = raw

    @staticmethod
    def load(path) -> "Allocation":
        return Allocation(_tightdp.RawAllocation.load(str(path)))

    @property
    def name(self) -> str:
        return self._raw.name()

    @property
    def levels(self) -> List[str]:
        return self._raw.levels()

    @property
    def rho(self) -> Fraction:
        return Fraction(self._raw.rho())

    def level(self, name: str) -> Composition:
        """The composition of one geographic level."""
        return Composition(self._raw.level(name))

    def overall(self) -> Composition:
        """All levels composed."""
        return Composition(self._raw.overall())


def calibrate(composition: Composition, delta: Number, target_epsilon: Number):
    """Certified bracket (lo, hi) of the largest variance factor c (every σ² × c) with ε(δ) ≤ target.

    >>> lo, hi = tightdp.calibrate(tightdp.DiscreteGaussian(5, n=10), "1e-10", 12)
    >>> lo <= hi
    True
    """
    lo, hi = composition._raw.calibrate(_q(delta, "delta"), _q(target_epsilon, "target_epsilon"))
    return Fraction(lo), Fraction(hi)


def zcdp_bs(rho: Number, delta: Number):
    """ε of the Bureau's zCDP conversion ρ + 2√(ρ log 1/δ) (Bun–Steinke), as a (lo, hi) Decimal enclosure.

    >>> lo, hi = tightdp.zcdp_bs(1, "1e-11")
    """
    lo, hi = _tightdp.zcdp_bs(_q(rho, "rho"), _q(delta, "delta"))
    return Decimal(lo), Decimal(hi)


def zcdp_cks(rho: Number, delta: Number):
    """ε of the optimal zCDP conversion (Canonne–Kamath–Steinke), as a (lo, hi) Decimal enclosure."""
    lo, hi = _tightdp.zcdp_cks(_q(rho, "rho"), _q(delta, "delta"))
    return Decimal(lo), Decimal(hi)


def certify(paths: Union[str, Sequence[str]], delta: Number) -> List[dict]:
    """A production certificate of allocation file(s) (as ``tightdp certify --allocation``): rows as dicts."""
    if isinstance(paths, str):
        paths = [paths]
    return [dict(r) for r in _tightdp.certify([str(p) for p in paths], _q(delta, "delta"))]
