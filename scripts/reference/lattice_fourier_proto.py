#!/usr/bin/env python3
"""Prototype of the lattice Fourier inversion (mpmath, uncertified): delta(eps) of n x N_Z(0, s2), mu = 1,
by the tilted one-period trapezoid with the geometric-series kernel. Used by lattice_fourier_tails.py."""
# prototype: delta(eps) of n x N_Z(0, s2), mu=1, add-remove, by tilted one-period trapezoid with geometric kernel
import mpmath as mp, sys, time
mp.mp.dps = 60

def logphi(w, s2):
    # log E e^{wX}, X ~ N_Z(0,s2); Jacobi form for s2 >= 1, direct for small
    if s2 >= 0.5:
        num = mp.mpf(0); 
        K = 3
        terms = [mp.exp(s2*(w + 2j*mp.pi*k)**2/2) for k in range(-K, K+1)]
        den = sum(mp.exp(-2*mp.pi**2*s2*k*k) for k in range(-K, K+1))
        return mp.log(sum(terms)/den)
    else:
        X = 12
        num = sum(mp.exp(-x*x/(2*s2) + w*x) for x in range(-X, X+1))
        den = sum(mp.exp(-x*x/(2*s2)) for x in range(-X, X+1))
        return mp.log(num/den)

def tail_sum(n, s2, m, beta, c, N, tol=mp.mpf(10)**-45):
    # sum_{j>=m} p_j e^{-beta j} via trapezoid with N nodes, live nodes only
    def F(th):
        w = c + 1j*th
        return mp.exp(n*logphi(w, s2) - (c+beta+1j*th)*m) / (1 - mp.exp(-(c+beta+1j*th)))
    h = 2*mp.pi/N
    f0 = F(0)
    tot = f0
    l = 1
    while True:
        fl = F(l*h)
        tot += 2*fl.real  # F(-th) = conj F(th)
        if abs(fl) < tol*abs(f0) or l > N//2:
            break
        l += 1
    return (tot/N).real, l

def delta(n, s2, eps, N=None):
    s = mp.mpf(1)/s2; a = n/(2*s2)
    kappa = (a - eps)/s
    k0 = mp.ceil(kappa) - 1
    m = -k0
    # saddle c for the first term: minimise n logphi(c) - c m
    c = mp.mpf(max(float(m), 1.0))/(n*s2) if s2 >= 0.5 else mp.mpf(1)
    c = mp.re(mp.findroot(lambda c: mp.re(mp.diff(lambda x: n*logphi(x, s2), c)) - m, c)) if m > 0 else mp.mpf(0.5)/mp.sqrt(n*s2)
    c = max(c, mp.mpf(0.5)/mp.sqrt(n*s2))
    spread = mp.sqrt(n*s2)
    if N is None:
        N = int(40*spread) + 64
    t1, l1 = tail_sum(n, s2, m, 0, c, N)
    t2, l2 = tail_sum(n, s2, m, s, c, N)
    return t1 - mp.exp(eps - a)*t2, (l1, l2, N, c)

if __name__ == "__main__":
    n, s2, eps = int(sys.argv[1]), mp.mpf(sys.argv[2]), mp.mpf(sys.argv[3])
    t = time.time()
    d, info = delta(n, s2, eps)
    print(sys.argv[1:], mp.nstr(d, 30), info, time.time()-t)
