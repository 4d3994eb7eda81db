"""Reference values for src/noise/allocation/merged.rs: delta(eps) of one epoch of random allocation of the
Gaussian mechanism with t = 2 steps, both directions, by mpmath.

In standard units, under B the epoch's likelihood ratio is M = (X_1 + X_2)/2, X_i = exp(Y_i) independent,
Y_i ~ N(-eta, 2 eta) (E X_i = 1). With s = sqrt(2 eta):

  remove: delta(eps) = E_B[(M - e^eps)_+] = E_{x1}[ C(2 e^eps - x1) / 2 ],
          C(K) = E[(X - K)_+] = Phi(d1) - K Phi(d2) for K > 0 (1 - K for K <= 0),
          d1 = (-ln K + s^2/2)/s, d2 = d1 - s (the lognormal call, closed form);
  add:    delta(eps) = E_B[(1 - e^eps M)_+] = (e^eps/2) E_{x1}[ P(2 e^-eps - x1) ],
          P(K) = E[(K - X)_+] = K Phi(-d2) - Phi(-d1) for K > 0 (0 otherwise).

The outer expectation over y1 ~ N(-eta, s^2) is one integral, split at the kink y1 = ln(2 e^{+-eps}), by
mpmath's tanh-sinh quadrature at 40 digits; a second run at 50 digits agrees to better than 1e-25.

Each line: direction eta eps delta (20 significant digits).
Run: python3 scripts/reference/allocation_pair.py > scripts/reference/allocation_pair.txt
"""
from mpmath import mp, mpf, exp, log, sqrt, ncdf, npdf, quad, inf, nstr


def delta(direction, eta, eps):
    s = sqrt(2 * eta)

    def call(k):
        if k <= 0:
            return 1 - k
        d1 = (-log(k) + s * s / 2) / s
        return ncdf(d1) - k * ncdf(d1 - s)

    def put(k):
        if k <= 0:
            return mpf(0)
        d1 = (-log(k) + s * s / 2) / s
        return k * ncdf(-(d1 - s)) - ncdf(-d1)

    dens = lambda y: npdf(y, -eta, s)
    if direction == "remove":
        kink = log(2 * exp(eps))
        f = lambda y: dens(y) * call(2 * exp(eps) - exp(y)) / 2
        return quad(f, [-inf, kink, inf])
    kink = log(2 * exp(-eps))
    f = lambda y: dens(y) * put(2 * exp(-eps) - exp(y))
    return exp(eps) / 2 * quad(f, [-inf, kink])


if __name__ == "__main__":
    # eta = 1/2 (sigma = 1) and 50/121 (sigma = 1.1, MNIST's noise multiplier)
    cases = [("1/2", e) for e in ("0", "0.5", "1", "2")] + [("50/121", e) for e in ("0.25", "1")]
    frac = lambda q: mpf(int(q.split("/")[0])) / int(q.split("/")[1])
    for direction in ("remove", "add"):
        for eta_s, eps_s in cases:
            mp.dps = 40
            eta = frac(eta_s)
            v = delta(direction, eta, mpf(eps_s))
            mp.dps = 50
            eta2 = frac(eta_s)
            v2 = delta(direction, eta2, mpf(eps_s))
            assert abs(v - v2) <= mpf(10) ** -25 * abs(v2), (direction, eta_s, eps_s, v, v2)
            print(direction, eta_s, eps_s, nstr(v2, 20))
