"""Every failure of the package is an Exception (a tightdp.TightdpError) naming the bad parameter with the
CLI's message; no Rust panic escapes as a PanicException (a BaseException); integer parameters refuse
bools and non-integral values instead of truncating them; a long computation stops on Ctrl-C."""

import _thread
import threading
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import tightdp

ROOT = Path(__file__).resolve().parents[2]
DHC = str(ROOT / "data" / "allocations" / "dhc-2022-08-25.toml")


def G():
    return tightdp.DiscreteGaussian(5, n=10)


def raises(cls, fn, match=None):
    """fn() raises cls (and it is a TightdpError, hence an Exception); returns the exception."""
    try:
        fn()
    except BaseException as e:  # noqa: B036 - a PanicException is a BaseException: catch it to fail clearly
        assert isinstance(e, Exception), f"{type(e).__name__} is not an Exception: {e}"
        assert isinstance(e, tightdp.TightdpError), f"{type(e).__name__}: {e}"
        assert isinstance(e, cls), f"{type(e).__name__}: {e}"
        if match is not None:
            assert match in str(e), str(e)
        return e
    raise AssertionError("no exception")


@pytest.mark.parametrize("target", [0, -0.0, Decimal("-0"), "1e-300", -1])
def test_calibrate_bad_targets_are_input_errors(target):
    # 0, -0.0, Decimal('-0') and '1e-300' raised PanicException ("finite"); -1 ran 10 s before a
    # message about the smoothed inversion
    t = time.time()
    raises(ValueError, lambda: tightdp.calibrate(G(), "1e-10", target), match="target_epsilon")
    assert time.time() - t < 2


def test_huge_epsilon_is_refused_like_the_cli():
    # .delta(10**400) raised PanicException ("ln of an interval not strictly positive"); the CLI refuses
    # epsilon above 100000 (src/cli/common.rs parse_epsilon)
    raises(ValueError, lambda: G().delta(10**400), match="epsilon must be at most 100000")
    raises(ValueError, lambda: G().delta("1e30"), match="epsilon must be at most 100000")
    assert G().delta(100_000) == 0 or G().delta(100_000).hi < Decimal("1e-1000")


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: tightdp.DiscreteGaussian(5, n=-1), "n"),
        (lambda: tightdp.DiscreteGaussian(5, n=2**64), "n"),
        (lambda: tightdp.DiscreteLaplace(4, n=2**64), "n"),
        (lambda: tightdp.DiscreteGaussian(5, sensitivity=-1), "sensitivity"),
        (lambda: tightdp.DiscreteGaussian(5, sensitivity=2**64), "sensitivity"),
        (lambda: tightdp.DiscreteGaussian(5, sensitivity=2**32), "sensitivity"),
        (lambda: G().self_compose(-1), "k"),
        (lambda: G().self_compose(2**64), "k"),
        (lambda: G().epsilon("1e-10", digits=-1), "digits"),
        (lambda: G().epsilon("1e-10", digits=2**64), "digits"),
        (lambda: G().delta(1, digits=2**32), "digits"),
        (lambda: G().tradeoff("0.5", digits=-1), "digits"),
    ],
)
def test_out_of_range_integers_name_the_parameter(call, name):
    # these raised OverflowError ("int too big to convert", "can't convert negative int to unsigned")
    e = raises(ValueError, call)
    assert str(e).startswith(f"{name} must be an integer between"), str(e)


@pytest.mark.parametrize(
    "call, name, cls",
    [
        (lambda: G().self_compose(1.5), "k", ValueError),
        (lambda: G().self_compose(Decimal("1.5")), "k", ValueError),
        (lambda: G().self_compose(True), "k", TypeError),
        (lambda: G().epsilon("1e-10", digits=Decimal("1.5")), "digits", ValueError),
        (lambda: G().epsilon("1e-10", digits=True), "digits", TypeError),
        (lambda: G().epsilon("1e-10", digits="20"), "digits", TypeError),
        (lambda: tightdp.DiscreteGaussian(5, n=1.5), "n", ValueError),
        (lambda: tightdp.DiscreteGaussian(5, sensitivity=True), "sensitivity", TypeError),
    ],
)
def test_non_integers_are_refused_not_truncated(call, name, cls):
    # self_compose(1.5), (Decimal('1.5')) and (True) returned the 1-fold composition, digits=Decimal('1.5')
    # and True asked for 1 digit, digits='20' was accepted
    e = raises(cls, call)
    assert str(e).startswith(f"{name} must be an integer"), str(e)


def test_numpy_integral_and_non_integral_values():
    np = pytest.importorskip("numpy")
    e = raises(ValueError, lambda: G().epsilon("1e-10", digits=np.float64(2.5)))
    assert "digits" in str(e)
    raises(ValueError, lambda: G().self_compose(np.float64(2.5)), match="k must be an integer")
    raises(TypeError, lambda: G().self_compose(np.bool_(True)), match="k must be an integer")
    # integral values of any numeric type are integers
    assert G().self_compose(np.int64(2)).rho == G().self_compose(2.0).rho == Fraction(2)
    assert tightdp.DiscreteGaussian(5, n=np.int32(3)).rho == Fraction(3, 10)


def test_counts_have_the_cli_limits():
    # n = 10**9 was accepted (the CLI's limit is 1..=1,000,000 per group: src/model/spec.rs parse_count)
    raises(ValueError, lambda: tightdp.DiscreteGaussian(5, n=10**13), match="n must be an integer between 1 and 1000000000000")
    raises(ValueError, lambda: tightdp.DiscreteLaplace(5, n=10**12 + 1), match="n must be an integer between 1 and 1000000000000")
    raises(ValueError, lambda: tightdp.DiscreteGaussian(5, sensitivity=10**7), match="sensitivity must be an integer between 1 and 1000000")
    assert tightdp.DiscreteGaussian(5, n=1_000_000).rho == Fraction(100_000)


def test_wrong_types_are_type_errors():
    raises(TypeError, lambda: tightdp.DiscreteGaussian(None), match="sigma2")
    raises(TypeError, lambda: tightdp.DiscreteGaussian([5]), match="sigma2")
    raises(TypeError, lambda: tightdp.DiscreteGaussian(True), match="sigma2")
    raises(TypeError, lambda: tightdp.DiscreteGaussian(5, neighbors=None), match="neighbors")
    raises(TypeError, lambda: G().epsilon("1e-10", method=None), match="method")
    raises(TypeError, lambda: G().compose(5), match="Composition")
    raises(TypeError, lambda: tightdp.calibrate("x", "1e-10", 1), match="Composition")
    raises(TypeError, lambda: tightdp.Allocation.load(None), match="path")
    raises(TypeError, lambda: tightdp.Allocation.load(DHC).level(3), match="level")
    raises(TypeError, lambda: tightdp.certify(None, "1e-10"), match="paths")


def test_bad_values_carry_the_cli_message():
    raises(ValueError, lambda: G().epsilon(0), match="delta must be in (0, 1)")
    raises(ValueError, lambda: G().epsilon("x"), match="invalid number 'x'")
    raises(ValueError, lambda: G().epsilon(float("nan")), match="delta must be a finite number")
    raises(ValueError, lambda: G().epsilon(Decimal("Infinity")), match="delta must be a finite number")
    raises(ValueError, lambda: G().epsilon("1e1000000000"), match="exponent out of range")
    raises(ValueError, lambda: G().delta(-1), match="epsilon must be non-negative")
    raises(ValueError, lambda: G().epsilon("1e-10", method="nope"), match="unknown method 'nope'")
    raises(ValueError, lambda: G().self_compose(10**12), match="too many queries")
    raises(ValueError, lambda: tightdp.DiscreteLaplace(0), match="scale must be positive")
    raises(ValueError, lambda: tightdp.zcdp_bs(0, "1e-10"), match="rho must be positive")
    raises(ValueError, lambda: tightdp.zcdp_cks(1, 1), match="delta must be in (0, 1)")
    raises(ValueError, lambda: tightdp.calibrate(tightdp.DiscreteLaplace(4), "1e-10", 1), match="discrete Gaussian")
    raises(ValueError, lambda: tightdp.Allocation.load(DHC).level("x"), match="unknown level 'x'")
    raises(ValueError, lambda: tightdp.Allocation.from_string("name = 1\n"), match="allocation")
    raises(ValueError, lambda: tightdp.attack(G(), fpr=["2"]), match="fpr must be in [0, 1]")
    raises(ValueError, lambda: tightdp.attack(G(), prior=["1"]), match="prior must be in (0, 1)")


def test_file_errors_are_os_errors():
    e = raises(OSError, lambda: tightdp.Allocation.load("/nonexistent.toml"), match="cannot read allocation file '/nonexistent.toml'")
    assert isinstance(e, tightdp.FileError) and e.errno == 2 and e.filename == "/nonexistent.toml"
    raises(OSError, lambda: tightdp.Allocation.load("/tmp"), match="cannot read")
    raises(OSError, lambda: tightdp.certify(["/nonexistent.toml"], "1e-10"), match="cannot read")
    # a file that reads but is not an allocation is bad input, not an I/O error
    e = raises(ValueError, lambda: tightdp.Allocation.load(ROOT / "README.md"), match="malformed TOML")
    assert not isinstance(e, OSError)


def test_resource_limits_are_memory_errors():
    # a lattice far beyond the engine's window limit is refused up front, as a MemoryError
    e = raises(MemoryError, lambda: tightdp.DiscreteGaussian("1e12", n=1000).epsilon("1e-10", method="lattice"))
    assert "limit" in str(e)


def test_error_classes_follow_the_library_kind():
    # the classes come from the library's error kinds, not from the words of the message
    # an engine's refusal that no other engine replaces is bad input: the smoothed inversion takes
    # discrete Gaussian noise only (method='smoothed' asks for it alone)
    raises(ValueError, lambda: tightdp.DiscreteLaplace(4, n=3).epsilon("1e-10", method="smoothed"), match="discrete Gaussian noise only")
    # the one engine asked for would take far too long: a resource limit, refused before any work
    t = time.time()
    e = raises(MemoryError, lambda: tightdp.DiscreteGaussian("37.7", n=1_000_000).epsilon("1e-10", method="lattice"))
    assert "would take about" in str(e) and "(limit" in str(e), str(e)
    assert time.time() - t < 5
    # the same composition under auto: another engine answers (no error at all)
    assert tightdp.DiscreteGaussian("37.7", n=1_000_000).epsilon("1e-10").digits >= 20
    # (bad input stays a ValueError and never a MemoryError)
    e = raises(ValueError, lambda: G().delta(-1))
    assert not isinstance(e, MemoryError)


def test_internal_errors_and_panics_map_to_internal_error():
    assert issubclass(tightdp.InternalError, tightdp.TightdpError) and issubclass(tightdp.TightdpError, Exception)
    assert not issubclass(tightdp.InternalError, (ValueError, MemoryError, OSError))
    # inputs on which the core panicked when written (interval arithmetic on a tiny σ² or ρ): whatever
    # the core does with them, no PanicException reaches the caller; a panic is an InternalError with the
    # CLI's "please report it" message and the source location
    for call in (
        lambda: tightdp.DiscreteGaussian("1e-100000").delta(1),
        lambda: tightdp.zcdp_cks("1e-100000", "1e-10"),
    ):
        try:
            call()
        except BaseException as e:  # noqa: B036
            assert isinstance(e, tightdp.TightdpError), f"{type(e).__name__}: {e}"
            if isinstance(e, tightdp.InternalError):
                assert str(e).startswith("internal error, please report it: ") and ".rs:" in str(e)


def test_membership_of_a_non_number():
    c = G().epsilon("1e-5")
    raises(ValueError, lambda: "x" in c, match="invalid number")
    raises(TypeError, lambda: None in c)
    assert "6.571195284952189404085131696450" in c and "6.57119528495218940408513169" not in c


def test_ctrl_c_stops_a_long_computation():
    # 30000 queries of N_Z(0, 37.7) on the MPFR lattice: over a minute of convolution (100000 discrete
    # Laplace queries, the first choice, now take 0.3 s); Ctrl-C used to be ignored until the end. An
    # interrupt 1 s in must raise KeyboardInterrupt well before the computation could have ended (within
    # 30 s: usually about 1 s; the bound of 6 s it had failed once, in a full run at 3.5 times its usual
    # time on a slow machine).
    comp = tightdp.DiscreteGaussian("37.7", n=30_000)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    t0 = time.time()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            comp.epsilon("1e-10", method="lattice")
            time.sleep(60)  # (the interrupt would arrive here if the computation ignored it)
    finally:
        timer.cancel()
    assert time.time() - t0 < 30, f"KeyboardInterrupt after {time.time() - t0:.1f} s"
    # the next computation runs normally (the cancellation does not linger) and is right
    c = tightdp.DiscreteGaussian("50000/10001", n=10).epsilon("1e-11")
    assert c.lo <= Decimal("10.1254170441117538580") and Decimal("10.1254170441117538578") <= c.hi


def test_concurrent_calls_from_threads_agree():
    # each call runs in its own worker thread; calls from several Python threads at once give the
    # sequential answers
    comps = [tightdp.DiscreteGaussian(s, n=20) for s in (3, 5, 7, 11)]
    want = [c.epsilon("1e-10") for c in comps]
    got = [None] * len(comps)

    def work(i):
        got[i] = comps[i].self_compose(1).epsilon("1e-10")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(comps))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert [(g.lo, g.hi) for g in got] == [(w.lo, w.hi) for w in want]
