"""The conditioned engine from Python (issue 36): method="conditioned" is accepted like the other method
names, for epsilon and for the trade-off function, against the mpmath references of
scripts/reference/conditioned_coarse.txt (a SafeTab-H-like reduced composition)."""
from fractions import Fraction

import tightdp


def _safetab_like():
    return (
        tightdp.DiscreteGaussian("5625/2401", n=2)
        .compose(tightdp.DiscreteGaussian("1500000/47623", n=3))
        .compose(tightdp.DiscreteGaussian("300000/461", n=2))
    )


def _holds(r, ref):
    tol = Fraction(1, 10**38)  # the reference is quoted to 40 digits
    assert Fraction(r.lo) - tol <= Fraction(ref) <= Fraction(r.hi) + tol, (r, ref)


def test_conditioned_method_gives_epsilon_and_tradeoff():
    comp = _safetab_like()
    e = comp.epsilon("1e-10", method="conditioned")
    assert e.method == "conditioned" and e.digits >= 20
    _holds(e, "6.373732889044711556674835333847728111075")
    f = comp.tradeoff("1e-3", method="conditioned")
    assert f.method == "conditioned" and f.digits >= 20
    _holds(f, "0.982764693758507340007614990200461228217")
    f = comp.tradeoff("0.5", method="conditioned")
    _holds(f, "0.1646045356614705712014862383964658027585")
