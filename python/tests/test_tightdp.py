"""Tests of the Python package: every public function, against the papers, the CLI, an independent
Neyman-Pearson-free check, and (when installable) Google's dp_accounting."""

import json
import os
import subprocess
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import tightdp

ROOT = Path(__file__).resolve().parents[2]
DHC = str(ROOT / "data" / "allocations" / "dhc-2022-08-25.toml")
CLI = ROOT / "target" / "release" / "tightdp"


def holds(c, ref: str) -> bool:
    """The bracket meets the reference, itself rounded to its last printed digit (± one unit there)."""
    r = Decimal(ref)
    ulp = Decimal(1).scaleb(r.as_tuple().exponent)
    return c.lo <= r + ulp and r - ulp <= c.hi


def test_state_level_value_of_the_paper():
    # census-2020-more-private-fdp.txt §3.1: the state level's exact ε at δ = 1e-11 is 10.13;
    # 10.1254170441117538579 is the independent reference (scripts/reference/profile_reference_values.csv)
    c = tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11")
    assert holds(c, "10.1254170441117538579")
    assert c.hi - c.lo < Decimal("1e-20")
    assert c.trust == "certified" and c.digits >= 20
    assert str(c.lo).startswith("10.1254170441117538579")
    assert abs(float(c) - 10.125417044111754) < 1e-12


def test_number_types_are_exact():
    ref = tightdp.DiscreteGaussian("5", n=2).delta("1").lo
    assert tightdp.DiscreteGaussian(5, n=2).delta(1).lo == ref
    assert tightdp.DiscreteGaussian(Fraction(5), n=2).delta(Decimal("1")).lo == ref
    assert tightdp.DiscreteGaussian(5.0, n=2).delta(1.0).lo == ref  # 5.0 and 1.0 are exact binary values
    # a float is taken at its exact binary value: 0.1 is not 1/10
    a = tightdp.DiscreteGaussian(2, n=1).delta(0.1)
    b = tightdp.DiscreteGaussian(2, n=1).delta("0.1")
    assert a.lo != b.lo


def test_overall_dhc_equals_cli_bracket():
    c = tightdp.Allocation.load(DHC).overall().epsilon("1e-10")
    if not CLI.exists():
        pytest.skip("the CLI binary is not built (cargo build --release)")
    out = subprocess.run(
        [str(CLI), "epsilon", "--allocation", DHC, "--overall", "--delta", "1e-10", "--format", "json"],
        capture_output=True, text=True, check=True,
    )
    v = json.loads(out.stdout)
    assert Decimal(v["epsilon_lo"]) == c.lo and Decimal(v["epsilon_hi"]) == c.hi
    # independent reference (python-flint exact convolution): 20.3246897507897262851358
    assert holds(c, "20.3246897507897262851358")


def test_allocation_levels_and_level():
    a = tightdp.Allocation.load(DHC)
    assert a.levels[0] == "US" and "Block" in a.levels and len(a.levels) == 8
    assert a.name
    assert a.rho == sum((a.level(n).rho for n in a.levels), Fraction(0))
    st = a.level("State").epsilon("1e-11")
    assert holds(st, "10.1254170441117538579")
    with pytest.raises(ValueError, match="State2|level"):
        a.level("State2")


def test_compose_and_self_compose():
    a = tightdp.DiscreteGaussian(5, n=3)
    b = a.self_compose(2)
    c = a.compose(tightdp.DiscreteGaussian(5, n=3))
    assert b.epsilon("1e-6").lo == c.epsilon("1e-6").lo
    assert b.rho == Fraction(6, 10)
    assert "N_Z(0, 5)" in repr(b)


def test_discrete_laplace_and_mixture_reference():
    # scripts/reference/profile_reference_values.csv (python-flint): DG(5, 10) + DLap(4, 5) at δ = 1e-10
    m = tightdp.DiscreteGaussian(5, n=10).compose(tightdp.DiscreteLaplace(4, n=5))
    e = m.epsilon("1e-10")
    assert holds(e, "10.306161254236378847593510")
    # pure DP: ε(δ) of DLap(4) x 5 is below 5/4
    assert tightdp.DiscreteLaplace(4, n=5).epsilon("1e-10").hi < Decimal(5) / 4


def test_delta_and_tradeoff_certified():
    # delta(1000, 1, 1.4) = 3.4063222140747892451465856e-431 (python-flint reference)
    d = tightdp.DiscreteGaussian(1000).delta("1.4")
    assert holds(d, "3.4063222140747892451465856e-431")
    f = tightdp.DiscreteGaussian(2, n=3).tradeoff(1)
    assert f.lo == 0 and f.hi == 0
    f = tightdp.DiscreteGaussian(2, n=3).tradeoff("0.9999999999999999")
    assert holds(f, "1.98704475391176615486811e-21")


def test_vectorised_forms():
    comp = tightdp.DiscreteGaussian(5, n=10)
    lo, hi = comp.epsilon(["1e-5", "1e-8", "1e-11"])
    assert len(lo) == 3 and all(l <= h for l, h in zip(lo, hi))
    assert list(lo) == sorted(lo)  # ε decreases in δ, so increases along the list
    try:
        import numpy as np
    except ImportError:
        pytest.skip("numpy not installed")
    lo2, hi2 = comp.delta(np.array([1.0, 2.0, 3.0]))
    assert isinstance(lo2, np.ndarray) and (lo2 <= hi2).all()


def test_methods_and_digits():
    comp = tightdp.DiscreteGaussian(5, n=10)
    assert comp.epsilon("1e-6", method="zcdp-bs").trust == "certified-bound"
    red = tightdp.Allocation.load(str(ROOT / "data" / "allocations" / "redistricting-persons-us-2021.toml")).overall()
    assert red.epsilon("1e-10").method == "smoothed"  # no practical common lattice: the accountant says so
    assert comp.epsilon("1e-6", method="lattice").method.startswith("lattice")
    assert comp.epsilon("1e-6", digits=30).digits >= 30
    with pytest.raises(ValueError, match="approximate"):
        comp.epsilon("1e-6", method="fourier")


def test_zcdp_conversions():
    bs = tightdp.zcdp_bs(1, "1e-11")
    assert isinstance(bs, tightdp.Certified) and bs.trust == "certified-bound"
    lo, hi = bs
    # ρ + 2√(ρ ln 1e11) at ρ = 1, by Python's own math (independent)
    import math

    assert lo <= Decimal(1 + 2 * math.sqrt(math.log(1e11))) + Decimal("1e-12")
    assert hi >= Decimal(1 + 2 * math.sqrt(math.log(1e11))) - Decimal("1e-12")
    clo, chi = tightdp.zcdp_cks(1, "1e-11")
    assert chi < lo  # the optimal conversion is below Bun–Steinke
    exact = tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11")
    assert exact.hi < clo


def test_calibrate():
    comp = tightdp.DiscreteGaussian(5, n=10)
    target = float(comp.epsilon("1e-10"))
    c = tightdp.calibrate(comp, "1e-10", Fraction(target).limit_denominator(10**12))
    assert isinstance(c, tightdp.Certified) and c.method == "calibrate"
    assert c.lo <= 1 <= c.hi or abs(float(c.lo) - 1) < 1e-9
    lo, hi = c  # the (lo, hi) tuple of earlier versions still unpacks
    assert (lo, hi) == (c.lo, c.hi)


def test_certify():
    rows = tightdp.certify(str(ROOT / "data" / "allocations" / "dhc-persons-us-2023.toml"), "1e-10")
    q = {r["quantity"]: r["value"] for r in rows}
    # ρ of the 2023 DHC persons production release: 24811/5000 (the sum of the query rho in data/allocations/dhc-persons-us-2023.toml)
    assert q["rho_total"] == "24811/5000"
    lo, hi = Decimal(q["eps_exact_lo"]), Decimal(q["eps_exact_hi"])
    assert lo <= hi < Decimal(q["eps_zcdp_cks"]) < Decimal(q["eps_zcdp_bun_steinke"])
    (product,) = rows.epsilon
    assert rows.epsilon[product].lo == lo and rows.epsilon[product].hi == hi
    # the Python accountant on the same release agrees with the certificate's bracket
    e = tightdp.Allocation.load(str(ROOT / "data" / "allocations" / "dhc-persons-us-2023.toml")).overall().epsilon("1e-10")
    assert e.lo <= hi and lo <= e.hi


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="sigma2"):
        tightdp.DiscreteGaussian("-1")
    with pytest.raises(ValueError):
        tightdp.DiscreteGaussian(float("nan"))
    with pytest.raises(ValueError, match="delta"):
        tightdp.DiscreteGaussian(5).epsilon("2")
    with pytest.raises(ValueError):
        tightdp.DiscreteGaussian(5, n=0)
    with pytest.raises(ValueError):
        tightdp.DiscreteGaussian(5, neighbors="neighbours")
    # a file that cannot be read is an OSError (it was a ValueError before 0.1)
    with pytest.raises(OSError, match="cannot read") as e:
        tightdp.Allocation.load("/nonexistent.toml")
    assert isinstance(e.value, tightdp.FileError) and e.value.errno == 2
    with pytest.raises(ValueError):
        tightdp.DiscreteGaussian(5).tradeoff("1.5")


def test_dp_accounting_brackets_tightdp():
    dpa = pytest.importorskip("dp_accounting", reason="dp_accounting is not installed (pip install dp-accounting)")
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigma = (50000 / 10001) ** 0.5
    exact = tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11")
    got = []
    for pessimistic in (True, False):
        p = pld.from_discrete_gaussian_mechanism(
            sigma, sensitivity=1, value_discretization_interval=1e-4, pessimistic_estimate=pessimistic
        ).self_compose(10)
        got.append(p.get_epsilon_for_delta(1e-11))
    pess, opt = got
    # dp_accounting's pessimistic estimate is an upper bound, its optimistic one a lower bound
    assert opt <= float(exact.lo) + 1e-9 and float(exact.hi) <= pess + 1e-9
