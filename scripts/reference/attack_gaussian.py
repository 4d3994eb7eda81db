"""Reference values for the attack targets of DP-SGD calibration (src/calibrate/target.rs, sigma.rs):
n Gaussian steps of noise multiplier sigma (sensitivity 1, no subsampling) are mu-GDP with
mu = sqrt(n)/sigma [DRS22, Cor. 2], whose most powerful membership test has
  advantage  sup(TPR - FPR) = 2 Phi(mu/2) - 1
  TPR at FPR alpha          = 1 - Phi(Phi^-1(1 - alpha) - mu)          [DRS22, §2.3].
Both decrease in sigma, so the smallest sigma = k * resolution meeting a target is the first multiple of
the resolution at or above sigma* = sqrt(n)/mu*, mu* solving the closed form = target.

Run: python attack_gaussian.py > attack_gaussian.txt   (mpmath, 40 digits)
"""
from mpmath import mp, mpf, ncdf, sqrt, erfinv, ceil, findroot

mp.dps = 40


def Phi_inv(p):
    return sqrt(2) * erfinv(2 * p - 1)


def advantage(mu):
    return 2 * ncdf(mu / 2) - 1


def tpr(mu, alpha):
    return 1 - ncdf(Phi_inv(1 - alpha) - mu)


print("# measure <name> <value>: one Gaussian of sigma = 2 (mu = 1/2)")
print("measure advantage", mp.nstr(advantage(mpf(1) / 2), 35))
print("measure tpr_at_0.1", mp.nstr(tpr(mpf(1) / 2, mpf("0.1")), 35))
print("# calibrate <measure> <fpr or -> <n> <target> <resolution> <sigma> <value at sigma> <sigma - resolution> <value there>")
for kind, fpr, n, target, res in [
    ("advantage", None, 100, "0.1", "0.01"),
    ("advantage", None, 1, "0.05", "0.001"),
    ("tpr", "0.01", 1000, "0.05", "0.01"),
    ("tpr", "0.001", 10, "0.01", "0.001"),
]:
    t, r = mpf(target), mpf(res)
    if kind == "advantage":
        mu_star = 2 * Phi_inv((1 + t) / 2)
        val = advantage
    else:
        a = mpf(fpr)
        mu_star = Phi_inv(1 - a) - Phi_inv(1 - t)
        val = lambda mu, a=a: tpr(mu, a)
    sigma_star = sqrt(n) / mu_star
    k = int(ceil(sigma_star / r))
    sigma, below = k * r, (k - 1) * r
    at, at_below = val(sqrt(n) / sigma), val(sqrt(n) / below)
    assert at <= t < at_below
    print(kind, fpr or "-", n, target, res, mp.nstr(sigma, 12), mp.nstr(at, 35), mp.nstr(below, 12), mp.nstr(at_below, 35))

print("# steps advantage <sigma> <target> <largest n> <advantage at n> <advantage at n + 1>: n steps of sigma are")
print("# mu-GDP with mu = sqrt(n)/sigma; the largest n with 2 Phi(sqrt(n)/(2 sigma)) - 1 <= target")
for sigma, target in [(10, "0.1")]:
    t = mpf(target)
    n = int((2 * sigma * Phi_inv((1 + t) / 2)) ** 2)
    at, above = advantage(sqrt(n) / sigma), advantage(sqrt(n + 1) / sigma)
    assert at <= t < above
    print("steps advantage", sigma, target, n, mp.nstr(at, 35), mp.nstr(above, 35))
