"""Independent reference for `tightdp attack`: exact Neyman-Pearson on the sufficient statistic (mpmath,
40 digits, direct convolution). Run: python3 -m venv $VENV && $VENV/bin/pip install mpmath;
$VENV/bin/python scripts/reference/np_attack.py  (output in np_attack_values.txt)."""
# Independent Neyman-Pearson: k queries of N_Z(0,s2) vs N_Z(1,s2); statistic S = sum y_i,
# P1[S=s] = P0[S=s-k]; LR increasing in s. TPR at FPR alpha with randomisation at the boundary.
from mpmath import mp, mpf, exp
mp.dps = 40
def dg(s2, R):
    w = [exp(-mpf(y*y)/(2*s2)) for y in range(-R, R+1)]
    z = sum(w); return [x/z for x in w]
def conv(a, b):
    out = [mpf(0)]*(len(a)+len(b)-1)
    for i,x in enumerate(a):
        for j,y in enumerate(b): out[i+j] += x*y
    return out
def law(s2, k):
    R = int(12*float(s2)**0.5)+10
    one = dg(mpf(s2), R); acc = one
    for _ in range(k-1): acc = conv(acc, one)
    off = -R*k
    return {off+i: p for i,p in enumerate(acc)}
def tpr_at(s2, k, alpha):
    p0 = law(s2, k); alpha = mpf(alpha)
    keys = sorted(p0, reverse=True)
    fpr = mpf(0); tpr = mpf(0)
    for s in keys:
        a = p0[s]; b = p0.get(s-k, mpf(0))
        if fpr + a >= alpha:
            frac = (alpha - fpr)/a
            return tpr + frac*b
        fpr += a; tpr += b
def advantage(s2, k):
    p0 = law(s2, k)
    return sum(max(mpf(0), p0.get(s-k, mpf(0)) - p0[s]) for s in p0)
for s2,k in [(1,1),(5,9),(mpf('37.7'),17)]:
    print(s2, k, [mp.nstr(tpr_at(s2,k,a),12) for a in ('0.001','0.01')], mp.nstr(advantage(s2,k),12))
