#!/usr/bin/env python3
"""Reference values for the tests of src/fourier/smooth (tests.rs: *_match_the_mpmath_reference), computed
with mpmath at 60 digits, independently of the Rust code (no interval arithmetic, no shared constants):

  theta      sigma2 mu c          D(c) - 1, D(c) = theta_3(pi c mu, e^{-2 pi^2 sigma2})      (docs/smoothed-fourier.md §2)
                                  by mpmath.jtheta where q = e^{-2 pi^2 sigma2} > 1e-300, else by the series
                                  2 sum_k q^{k^2} cos(2 pi k c mu) (then q^4 is below 1e-1200 of q)
  beta       w lambda             w e^{w^2/2} (phi(0) + w) exp(w^2/(2(lambda^2-1)) + w^2/(2 lambda^2))   (§3, "Lower")
  trunc      w gamma c A          (1/pi) e^{(w^2c^2 - w^2A^2)/2}/A,
                                  (1/pi) gamma sqrt(2 pi) e^{(gamma^2c^2 - gamma^2A^2)/2}/(gamma^2 A), gamma sqrt(2 pi)   (§4)
  geometric  x                    e^{-x}/(1 - e^{-x})                                          (§4, aliasing)
  kernel_max c w gamma            sup_t |K_S(c+it)| and sup_t |K_B(c+it)|, the largest of |K| on a grid of t
                                  from 0 to 1e6 (it is at t = 0: e^{w^2c^2/2}/(c(c+1)) and e^{gamma^2c^2/2})
  outside    c w gamma h          an upper bound of sum_n omega_n |K_S(nh)| and of sum_n omega_n |K_B(nh)|
                                  (omega_0 = 1, omega_n = 2): the first N terms summed, the rest bounded by
                                  the integral from N (|K| decreases in t; for K_B in closed form by erfc),
                                  N = 200 000

with K_S(s) = e^{w^2 s^2/2}/(s(s+1)), K_B(s) = e^{gamma^2 s^2/2}, s = c + it. Every floating parameter is a
double (the value the Rust test passes), read here exactly by mpf(float(...)).
Run: python3 scripts/reference/smooth_reference.py > scripts/reference/smooth_reference.txt  (mpmath >= 1.3).
"""
import mpmath as mp

mp.mp.dps = 60
DIG = 45


def f(x):
    """The double nearest the decimal string x, as an exact mpf."""
    return mp.mpf(float(x))


def rat(s):
    if "/" in s:
        a, b = s.split("/")
        return mp.mpf(int(a)) / int(b)
    return mp.mpf(s)


def out(*fields):
    print(",".join(str(x) for x in fields))


def theta_minus_one(s2, mu, c):
    a = 2 * mp.pi**2 * s2
    if a < 690:  # q > 1e-300: Jacobi's theta_3 from mpmath at enough digits to resolve 1 + (D - 1)
        with mp.workdps(int(a / mp.log(10)) + 80):
            return +(mp.jtheta(3, mp.pi * c * mu, mp.exp(-a)) - 1)
    # 2 q cos(2 pi c mu) (1 + q^3 ...): the terms k >= 2 are below q^4
    s = mp.mpf(0)
    for k in range(1, 4):
        s += 2 * mp.exp(-a * k * k) * mp.cos(2 * mp.pi * k * c * mu)
    return s


def ks_abs(c, w, t):
    s = mp.mpc(c, t)
    return abs(mp.exp(w * w * s * s / 2) / (s * (s + 1)))


def kb_abs(c, g, t):
    s = mp.mpc(c, t)
    return abs(mp.exp(g * g * s * s / 2))


def sup_numeric(fn):
    """max of fn over t >= 0 on a grid refined around the best point (fn is smooth and decreasing here;
    this does not assume it)."""
    grid = [mp.mpf(0)] + [mp.mpf(10) ** e for e in range(-6, 7)]
    best = max(grid, key=fn)
    return fn(best), best


def weighted_sum_upper(fn, h, n_terms, tail):
    """fn(0) + 2 sum_{n>=1} fn(nh), bounded above by the first n_terms terms plus 2 tail(N), tail(a) =
    int_a^inf fn(uh) du (fn decreasing); also the lower end with tail(N + 1), to show the bracket is narrow."""
    s = fn(mp.mpf(0))
    for n in range(1, n_terms + 1):
        s += 2 * fn(n * h)
    return s + 2 * tail(n_terms), s + 2 * tail(n_terms + 1)


def quad_tail(fn, h):
    return lambda a: mp.quad(lambda u: fn(u * h), [a, 10 * a, 1000 * a, 10**5 * a, 10**7 * a, mp.inf])


def gauss_tail(c, g, h):
    # int_a^inf e^{g^2(c^2 - u^2h^2)/2} du = e^{g^2c^2/2} sqrt(pi/2)/(g h) erfc(g h a/sqrt(2))
    return lambda a: mp.exp(g * g * c * c / 2) * mp.sqrt(mp.pi / 2) / (g * h) * mp.erfc(g * h * a / mp.sqrt(2))


print("# kind,parameters...,values (scripts/reference/smooth_reference.py, mpmath %s, %d digits)" % (mp.__version__, mp.mp.dps))

for s2 in ["1/50", "3/10", "6/5", "5", "50000/10001", "7919/3", "16793603"]:
    for mu in [1, 2]:
        for c in ["0", "0.05", "0.4", "1.3", "2.7", "13.25", "59.5"]:
            out("theta", s2, mu, c, mp.nstr(theta_minus_one(rat(s2), mu, f(c)), DIG))

for w, lam in [("0.01", "1.1"), ("0.003", "1.1"), ("0.001", "1.5"), ("0.0001", "1.05"), ("7e-11", "1.1"), ("0.3", "2")]:
    wf, lf = f(w), f(lam)
    beta = wf * mp.exp(wf**2 / 2) * (1 / mp.sqrt(2 * mp.pi) + wf) * mp.exp(wf**2 / (2 * (lf**2 - 1)) + wf**2 / (2 * lf**2))
    out("beta", w, lam, mp.nstr(beta, DIG))

for w, g, c, A in [("0.0001", "0.00011", "2.8", "140000"), ("0.001", "0.0011", "0.13", "9000"), ("7e-11", "7.7e-11", "2.84", "2e11"), ("0.01", "0.011", "4.5", "1300")]:
    wf, gf, cf, af = f(w), f(g), f(c), f(A)
    ts = mp.exp((wf**2 * cf**2 - wf**2 * af**2) / 2) / af / mp.pi
    tb = gf * mp.sqrt(2 * mp.pi) * mp.exp((gf**2 * cf**2 - gf**2 * af**2) / 2) / (gf**2 * af) / mp.pi
    out("trunc", w, g, c, A, mp.nstr(ts, DIG), mp.nstr(tb, DIG), mp.nstr(gf * mp.sqrt(2 * mp.pi), DIG))

for x in ["0.001", "0.5", "5", "40", "700"]:
    e = mp.exp(-f(x))
    out("geometric", x, mp.nstr(e / (1 - e), DIG))

for c, w, g in [("2.8", "0.0001", "0.00011"), ("0.13", "0.001", "0.0011"), ("4.5", "0.01", "0.011"), ("0.05", "0.3", "0.6")]:
    cf, wf, gf = f(c), f(w), f(g)
    ks, ts = sup_numeric(lambda t: ks_abs(cf, wf, t))
    kb, tb = sup_numeric(lambda t: kb_abs(cf, gf, t))
    assert ts == 0 and tb == 0, (ts, tb)
    assert abs(ks - mp.exp(wf**2 * cf**2 / 2) / (cf * (cf + 1))) < mp.mpf(10) ** -50 * ks
    out("kernel_max", c, w, g, mp.nstr(ks, DIG), mp.nstr(kb, DIG))

for c, w, g, h in [("2.8", "0.0001", "0.00011", "0.25"), ("0.13", "0.001", "0.0011", "0.015625"), ("4.5", "0.01", "0.011", "0.5"), ("2.84", "7e-11", "7.7e-11", "0.2")]:
    cf, wf, gf, hf = f(c), f(w), f(g), f(h)
    n = 200000
    s_hi, s_lo = weighted_sum_upper(lambda t: ks_abs(cf, wf, t), hf, n, quad_tail(lambda t: ks_abs(cf, wf, t), hf))
    b_hi, b_lo = weighted_sum_upper(lambda t: kb_abs(cf, gf, t), hf, n, gauss_tail(cf, gf, hf))
    assert s_hi - s_lo < mp.mpf(10) ** -6 * s_hi and b_hi - b_lo <= mp.mpf(10) ** -6 * b_hi, (s_hi, s_lo, b_hi, b_lo)
    out("outside", c, w, g, h, mp.nstr(s_hi, DIG), mp.nstr(b_hi, DIG))
