"""The result type (Certified everywhere, comparisons, round, float), attack(), Allocation.from_string /
from_dict, reprs, __version__, and the README's examples."""

import json
import re
import subprocess
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import tightdp

ROOT = Path(__file__).resolve().parents[2]
DHC = ROOT / "data" / "allocations" / "dhc-2022-08-25.toml"
CLI = ROOT / "target" / "release" / "tightdp"
STATE = "10.1254170441117538579"  # independent reference (scripts/reference/profile_reference_values.csv)


def state():
    return tightdp.DiscreteGaussian("50000/10001", n=10)


def test_version():
    text = (ROOT / "python" / "pyproject.toml").read_text()
    assert tightdp.__version__ == re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def test_every_certified_number_is_certified():
    comp = state()
    for c in [
        comp.epsilon("1e-11"),
        comp.delta(1),
        comp.tradeoff("0.5"),
        tightdp.zcdp_bs(1, "1e-11"),
        tightdp.zcdp_cks(1, "1e-11"),
        tightdp.calibrate(tightdp.DiscreteGaussian(5, n=10), "1e-10", 12),
        tightdp.attack(comp, fpr=["1e-3"], prior=["0.5"]).advantage,
    ]:
        assert isinstance(c, tightdp.Certified)
        assert isinstance(c.lo, Decimal) and isinstance(c.hi, Decimal) and c.lo <= c.hi
        assert c.digits >= 1 and c.method and c.trust in ("certified", "certified-bound")


def test_comparisons_are_decided_by_the_bracket():
    c = state().epsilon("1e-11")
    assert c > 10 and c >= 10 and c < 11 and c <= Fraction(101, 10) * 2
    assert 10 < c < 10.2 and not (c > 11) and not (c < 10)
    assert c > Decimal("10.1254170441117538578") and c < Decimal("10.1254170441117538580")
    assert c != 10 and not (c == 10)
    # a number inside the bracket: undecided, raised (more digits would decide it)
    with pytest.raises(tightdp.UndecidedError):
        c < (Fraction(c.lo) + Fraction(c.hi)) / 2  # noqa: B015
    with pytest.raises(ValueError):
        c >= (Fraction(c.lo) + Fraction(c.hi)) / 2  # noqa: B015
    # Certified against Certified
    wider = state().epsilon("1e-10")
    assert wider < c and c > wider
    # an exact value (a single point) equals its number
    zero = tightdp.DiscreteGaussian(2, n=3).tradeoff(1)
    assert zero == 0 and zero <= 0 and not (zero < 0) and hash(zero) == hash(0)
    with pytest.raises(TypeError):
        c < "11"  # noqa: B015


def test_round_and_float():
    c = state().epsilon("1e-11")
    assert round(c, 3) == Decimal("10.125") and round(c) == 10 and isinstance(round(c), int)
    assert round(c, 18) == Decimal("10.125417044111753858")
    assert abs(float(c) - 10.125417044111754) < 1e-14
    coarse = state().epsilon("1e-11", digits=3)
    with pytest.raises(tightdp.UndecidedError):
        round(coarse, 30)
    assert c.lo in c and c.hi in c and "10.12541704411175385790893702250" in c and 11 not in c and STATE not in c


def test_repr_and_str():
    c = state().epsilon("1e-11")
    r = repr(c)
    assert r.startswith(f"Certified(lo={STATE}") and "method='lattice-dd'" in r and "trust='certified'" in r
    assert str(c).startswith(f"[{STATE}")
    assert repr(state()) == "Composition(10 x N_Z(0, 50000/10001) sensitivity 1, neighbors='add-remove')"
    a = tightdp.Allocation.load(DHC)
    assert repr(a).startswith(f"Allocation({a.name!r}, levels=['US', 'State'")


def test_calibrate_is_certified():
    comp = tightdp.DiscreteGaussian(5, n=10)
    c = tightdp.calibrate(comp, "1e-10", 12)
    # the bracket's ends were certified on both sides of the target: ε at a factor below lo is above 12,
    # at a factor above hi below it (independent check through the accountant)
    scale = lambda f: tightdp.DiscreteGaussian(Fraction(5) * f, n=10)  # noqa: E731
    assert scale(Fraction(c.lo) * Fraction(999, 1000)).epsilon("1e-10") > 12
    assert scale(Fraction(c.hi) * Fraction(1001, 1000)).epsilon("1e-10") < 12
    assert c.digits >= 10


def test_attack_matches_the_cli_and_the_accountant():
    comp = state()
    r = tightdp.attack(comp, fpr=["1e-4", "1e-2"], prior=["0.5", "1e-3"])
    assert set(r.tpr) == {"1e-4", "1e-2"} and set(r.bayes_success) == {"0.5", "1e-3"}
    # the definitions, through the accountant: advantage = δ(0), TPR(α) = 1 − f(α)
    # (exact arithmetic on the ends: a Decimal difference would round to 28 digits)
    F = Fraction
    d0 = comp.delta(0)
    assert abs(F(r.advantage.lo) - F(d0.lo)) <= F(1, 10**38) and abs(F(r.advantage.hi) - F(d0.hi)) <= F(1, 10**38)
    f = comp.tradeoff("1e-2")
    assert abs((1 - F(f.lo)) - F(r.tpr["1e-2"].hi)) <= F(1, 10**38)
    assert abs((1 - F(f.hi)) - F(r.tpr["1e-2"].lo)) <= F(1, 10**38)
    # Bayes success lies between the trivial guess and 1
    assert r.bayes_success["1e-3"] >= Decimal("0.999") and r.bayes_success["0.5"] > Decimal("0.5")
    assert r.bureau_advantage >= float(r.advantage.lo)
    assert "advantage" in repr(r)
    assert comp.attack(fpr="1e-2").tpr["1e-2"].lo == r.tpr["1e-2"].lo
    if not CLI.exists():
        pytest.skip("the CLI binary is not built (cargo build --release)")
    out = subprocess.run(
        [str(CLI), "attack", "--sigma2", "50000/10001", "--n", "10", "--fpr", "1e-4,1e-2", "--prior", "0.5,1e-3", "--format", "json"],
        capture_output=True, text=True, check=True,
    )
    v = json.loads(out.stdout)
    # the CLI prints 25 digits outward, Python 40: the Python bracket lies inside the CLI's
    assert Decimal(v["advantage_lo"]) <= r.advantage.lo and r.advantage.hi <= Decimal(v["advantage_hi"])
    for row in v["per_fpr"]:
        c = r.tpr[row["fpr"]]
        assert Decimal(row["tpr_lo"]) <= c.lo and c.hi <= Decimal(row["tpr_hi"])
    for row in v["per_prior"]:
        c = r.bayes_success[row["prior"]]
        assert Decimal(row["bayes_success_lo"]) <= c.lo and c.hi <= Decimal(row["bayes_success_hi"])


def test_allocation_from_string_and_dict():
    text = DHC.read_text()
    a, b = tightdp.Allocation.load(DHC), tightdp.Allocation.from_string(text)
    assert a.levels == b.levels and a.rho == b.rho and a.name == b.name
    assert a.level("State").epsilon("1e-11").lo == b.level("State").epsilon("1e-11").lo
    d = tightdp.Allocation.from_dict(
        {
            "name": "two levels",
            "rho": Fraction(1),
            "neighbors": "add-remove",
            "level": [{"name": "A", "share": "1/4", "queries": 2}, {"name": "B", "share": Decimal("0.75"), "query_shares": ["1/3", "2/3"]}],
        }
    )
    assert d.levels == ["A", "B"] and d.rho == 1
    # level A: 2 queries of ρ = 1/8 each, σ² = 1/(2ρ) = 4
    assert d.level("A").rho == Fraction(1, 4)
    assert d.level("A").epsilon("1e-10").lo == tightdp.DiscreteGaussian(4, n=2).epsilon("1e-10").lo
    with pytest.raises(ValueError, match="unknown key 'levels'"):
        tightdp.Allocation.from_dict({"name": "x", "levels": [{"name": "A"}]})
    with pytest.raises(TypeError):
        tightdp.Allocation.from_dict([("name", "x")])


@pytest.mark.parametrize("page", ["python/README.md", "README.md"])
def test_readme_examples_run(page, tmp_path, monkeypatch):
    """Every Python block of the page runs as written in an empty scratch directory (the built-in
    allocation names, not the repository's data/ paths, reach the bundled files)."""
    text = (ROOT / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    import contextlib
    import io

    monkeypatch.chdir(tmp_path)
    for b in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(b, page, "exec"), {})
        # the error examples print what they promise (the message, after the errno where shown)
        for line in b.splitlines():
            m = re.match(r"\s*print\(e[.,)].*#\s*(.+)$", line)
            if m:
                assert m.group(1).strip() in out.getvalue(), (m.group(1), out.getvalue())


def test_allocation_load_takes_built_in_names_from_any_directory(tmp_path, monkeypatch):
    # as the command line's --allocation: a bare name with no such file is the built-in allocation
    monkeypatch.chdir(tmp_path)
    by_name = tightdp.Allocation.load("dhc-2022-08-25")
    by_file = tightdp.Allocation.load(ROOT / "data" / "allocations" / "dhc-2022-08-25.toml")
    assert by_name.name == by_file.name and by_name.levels == by_file.levels
    a, b = by_name.overall().epsilon("1e-10"), by_file.overall().epsilon("1e-10")
    assert (a.lo, a.hi) == (b.lo, b.hi)
    # an unknown bare name is still a FileError, naming the built-in allocations
    with pytest.raises(tightdp.FileError, match="built-in allocations: dhc-2022-08-25") as e:
        tightdp.Allocation.load("dhc-2099")
    assert e.value.errno == 2
    # a path is never read as a name
    with pytest.raises(tightdp.FileError) as e:
        tightdp.Allocation.load("nowhere/dhc-2022-08-25")
    assert "built-in" not in str(e.value)


@pytest.mark.heavy
def test_the_wheel_builds_once_and_installs_into_a_fresh_venv(tmp_path):
    """#56: the package is one abi3 wheel per platform, built by maturin on the release build's target/;
    it installs into a fresh venv, where `import tightdp` and the Python README's examples run from an
    empty directory. Default-tier twin: test_readme_examples_run, on the package scripts/test.sh installs."""
    import os
    import sys
    import venv

    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "target"))
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT / "python"), "-w", str(dist)],
                   check=True, env=env)
    wheels = sorted(dist.glob("tightdp-*-cp39-abi3-*.whl"))
    assert len(wheels) == 1, wheels
    venv.create(tmp_path / "v", with_pip=True)
    py = tmp_path / "v" / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheels[0])], check=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    readme = str(ROOT / "python" / "README.md")
    code = ("import re, tightdp\n"
            f"text = open({readme!r}).read()\n"
            "for b in re.findall(r'```python\\n(.*?)```', text, re.S):\n"
            "    exec(compile(b, 'python/README.md', 'exec'), {})\n"
            "print('ran', tightdp.__version__)\n")
    r = subprocess.run([str(py), "-c", code], cwd=scratch, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ran 0.1.0"), r.stdout


def test_noise_multiplier_is_certified_both_ways():
    # scripts/reference/sigma_calibration.txt (mpmath): 10 Gaussian steps, delta 1e-5, epsilon 2 -> 6.305
    nm = tightdp.noise_multiplier(2, "1e-5", steps=10)
    assert nm.sigma == Fraction("6.305") and nm.sigma_below == Fraction("6.304")
    assert nm.epsilon <= 2 < nm.epsilon_below
    assert Decimal("1.999995945672654634267707") in nm.epsilon
    assert Decimal("2.000350263051918272582744") in nm.epsilon_below
    # subsampled (the pld grid), coarse resolution; Poisson sampling only lowers the noise needed
    sub = tightdp.noise_multiplier(1, "1e-5", sample_rate="0.1", steps=10, resolution="0.1")
    assert sub.epsilon <= 1 < sub.epsilon_below and sub.sigma < tightdp.noise_multiplier(1, "1e-5", steps=10, resolution="0.1").sigma
    with pytest.raises(tightdp.InputError, match=r"^resolution= must be in \(0, 1\]"):
        tightdp.noise_multiplier(2, "1e-5", steps=10, resolution=0)
    with pytest.raises(tightdp.InputError):
        tightdp.noise_multiplier(2, "1e-5", steps=0)


def test_max_steps_is_certified_both_ways():
    # scripts/reference/steps_calibration.txt (mpmath): Gaussian sigma 10, delta 1e-5, epsilon 8 -> 277 steps
    s = tightdp.max_steps(8, "1e-5", 10)
    assert s.n == 277 and s.epsilon <= 8 < s.epsilon_above
    assert Decimal("7.99014354558538998184052038298") in s.epsilon
    assert Decimal("8.00755935962325115998093630775") in s.epsilon_above
    with pytest.raises(tightdp.InputError, match="one step already misses"):
        tightdp.max_steps("0.5", "1e-5", 1)


def test_reconstruction_success_is_one_minus_the_tradeoff_and_holds_the_reference():
    # scripts/reference/reconstruction.txt (mpmath, the Neyman-Pearson test in the data space): the Gaussian
    # mechanism of sigma = 1 at kappa = 1/100 and the Laplace mechanism of scale 1 at kappa = 1/4
    g = tightdp.Gaussian(1).reconstruction_success("1/100")
    assert g.lo <= Decimal("0.092362248073693935853169485428263626") <= g.hi
    lap = tightdp.Laplace(1).reconstruction_success(Fraction(1, 4))
    assert lap.lo <= Decimal("0.63212055882855767840447622983853913") <= lap.hi
    # the definition, through the accountant: 1 - f(kappa), the ends exchanged
    F = Fraction
    f = tightdp.Gaussian(1).tradeoff("1/100")
    assert abs((1 - F(f.hi)) - F(g.lo)) <= F(1, 10**38) and abs((1 - F(f.lo)) - F(g.hi)) <= F(1, 10**38)
    # a sequence gives the (lo, hi) arrays, outward
    lo, hi = tightdp.Gaussian(1).reconstruction_success(["1/100", "1/2"])
    assert len(lo) == 2 and lo[1] <= 0.8413447460685429 <= hi[1]
    for bad in ["0", "1", 2]:
        with pytest.raises(tightdp.InputError, match="kappa"):
            tightdp.Gaussian(1).reconstruction_success(bad)


def test_noise_multiplier_and_steps_take_attack_targets():
    # scripts/reference/attack_gaussian.txt (mpmath, the mu-GDP closed forms): 10 Gaussian steps with TPR at most
    # 0.01 at FPR 0.001 need sigma = 4.14 (4.139 misses); sigma = 10 keeps the advantage at most 0.1 for 6 steps
    nm = tightdp.noise_multiplier(steps=10, target_tpr="0.01", at_fpr="0.001")
    assert (nm.sigma, nm.sigma_below) == (Fraction("4.14"), Fraction("4.139")) and nm.epsilon is None
    assert nm.measure <= Fraction("0.01") < nm.measure_below
    assert Decimal("0.009998687496858439417056414648652801") in nm.measure
    s = tightdp.max_steps(noise_multiplier=10, target_advantage="0.1")
    assert s.n == 6 and s.measure <= Fraction("0.1") < s.measure_above and s.epsilon_above is None
    assert Decimal("0.10524315781125254187648904441848714") in s.measure_above
    # the library's words for a target given twice, or without its FPR
    with pytest.raises(tightdp.InputError, match="give one target"):
        tightdp.noise_multiplier(1, steps=10, target_advantage="0.1")
    with pytest.raises(tightdp.InputError, match="^target_tpr= needs at_fpr="):
        tightdp.noise_multiplier(steps=10, target_tpr="0.1")
    with pytest.raises(tightdp.InputTypeError, match="noise_multiplier="):
        tightdp.max_steps(target_advantage="0.1")


def test_max_sample_rate_is_certified_both_ways():
    # 40 steps of noise multiplier 2 at q = 1/2 have delta(1) = 0.359612587849925... (scripts/reference/
    # poisson_gaussian_delta.txt, mpmath): at delta 0.35962 their epsilon is below 1, so q >= 1/2; 3/4 misses
    r = tightdp.max_sample_rate(1, "0.35962", noise_multiplier=2, steps=40, resolution="1/4")
    assert (r.q, r.q_above) == (Fraction(1, 2), Fraction(3, 4)) and r.epsilon <= 1 < r.epsilon_above
    a = tightdp.max_sample_rate(noise_multiplier=2, steps=40, resolution="1/4", target_advantage="0.5")
    assert a.epsilon is None and a.measure <= Fraction("0.5") < a.measure_above
    with pytest.raises(tightdp.InputError, match="met even at q = 1"):
        tightdp.max_sample_rate(1, "1e-5", noise_multiplier=100, steps=10)
    with pytest.raises(tightdp.InputTypeError, match="noise_multiplier="):
        tightdp.max_sample_rate(1, "1e-5")


def test_every_docstring_example_runs_as_written(monkeypatch):
    # the examples of the package's docstrings, run by doctest from the repository root (their files'
    # paths are relative to it): three had a chained comparison's tuple printed with one value too many
    import doctest

    monkeypatch.chdir(ROOT)
    res = doctest.testmod(tightdp, extraglobs={"tightdp": tightdp})
    assert res.attempted >= 30 and res.failed == 0, res
