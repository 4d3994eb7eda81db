"""Shuffled batches from Python (issue 54 item 2): tightdp.shuffle, the certified lower bound of one explicit
attack beside the Poisson accounting of the same expected batch size."""
from fractions import Fraction

import pytest

import tightdp


def test_replace_exposes_the_poisson_accounting():
    b = tightdp.shuffle(1, 234, delta="1e-5", neighbors="replace", digits=2)
    assert b.measure == "epsilon" and b.at_least > Fraction(45, 10) and b.at_least > b.poisson.hi
    assert b.verdict.startswith("shuffling is provably less private")


def test_the_bound_lies_below_the_exact_two_step_delta():
    # scripts/reference/shuffle.txt: mpmath's exact delta(1/2) of the whole one-epoch pair, two steps, sigma 1
    exact = Fraction("0.14917752313552017226")
    b = tightdp.shuffle(1, 2, epsilon="0.5")
    assert Fraction(8, 10) * exact <= b.at_least <= exact
    assert b.poisson.lo > 0


def test_the_upper_bound_is_the_known_order_gaussian():
    # scripts/reference/shuffle.txt, row "upper 1 3 replace delta 1": mpmath's delta(1) of the Gaussian of
    # mu = 2 sqrt(3), three epochs of one release each, the record's +1 replaced by -1
    exact = Fraction("0.8666807945971746203827847")
    b = tightdp.shuffle(1, 50, epochs=3, epsilon=1, neighbors="replace", digits=2)
    assert exact <= b.at_most <= exact * (1 + Fraction(1, 10**11))
    assert b.at_least < b.at_most and b.upper_bound.startswith("certified-upper-bound: 3 Gaussian release(s) of sensitivity 2")


def test_mistakes_are_refused():
    with pytest.raises(tightdp.InputError, match="exactly one of delta"):
        tightdp.shuffle(1, 10)
    with pytest.raises(tightdp.InputError, match="sigma must be positive"):
        tightdp.shuffle(0, 10, delta="1e-5")
    with pytest.raises(tightdp.InputError, match="neighbors must be add-remove or replace"):
        tightdp.shuffle(1, 10, delta="1e-5", neighbors="swap")
    with pytest.raises(tightdp.InputError):
        tightdp.shuffle(1, 1, delta="1e-5")


def test_the_bound_stands_alone_where_no_engine_certifies_the_poisson_accounting():
    b = tightdp.shuffle("1e-9", 3, delta="1e-5")
    assert b.at_least > 1 and b.poisson is None and b.verdict.startswith("no comparison")
