#!/usr/bin/env python3
"""The peers' noise multiplier for MNIST DP-SGD at epsilon 8 (scripts/reference/sigma_calibration_peers.txt):
dp_accounting's calibrate_dp_mechanism with its PLD (1e-4) and RDP accountants. Run in a venv with dp-accounting."""
import time
from dp_accounting import dp_event, pld, rdp, mechanism_calibration as mc
q, T, d, eps = 256/60000, 14070, 1e-5, 8
ev = lambda s: dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), T)
for name, mk in [("dp_accounting PLD 1e-4", lambda: pld.PLDAccountant(value_discretization_interval=1e-4)),
                 ("dp_accounting RDP", lambda: rdp.RdpAccountant())]:
    t = time.time()
    s = mc.calibrate_dp_mechanism(mk, ev, eps, d, mc.LowerEndpointAndGuess(0.3, 1.0), tol=0.001)
    e = mk().compose(ev(s)).get_epsilon(d)
    print(f"{name}: sigma {s:.6f} (eps there {e:.6f}) in {time.time()-t:.1f} s")
