"""Sampling without replacement from Python: the Gaussian with ``batch=(m, population)``, dp_accounting's
``SampledWithoutReplacementDpEvent``, and the refusals. Reference values: scripts/reference/
wor_subsampled_gaussian.{py,txt} (mpmath, independent of tightdp)."""
from fractions import Fraction

import pytest

import tightdp


def test_gaussian_batch_two_runs_holds_the_reference():
    c = tightdp.Gaussian(sigma2=4, sensitivity=2, batch=(5, 50), n=2)
    assert c.neighbors == "replace"
    d = c.delta(1, digits=3)
    assert Fraction("0.0005329750212948855889828927") in d
    # Poisson subsampling with q = 5/50, composed by direction, is smaller: WOR composes differently
    assert d > Fraction("0.0005141604293965027935372873")


def test_bad_batches_are_value_errors():
    with pytest.raises(ValueError, match="not both"):
        tightdp.Gaussian(sigma2=4, sampling_prob="0.1", batch=(5, 50))
    with pytest.raises(ValueError, match="pair"):
        tightdp.Gaussian(sigma2=4, batch=5)
    with pytest.raises(ValueError, match="between 1 and pop = 50"):
        tightdp.Gaussian(sigma2=4, batch=(51, 50))
    with pytest.raises(ValueError, match="fewer than m = pop = 50 records"):
        tightdp.Gaussian(sigma2=4, sensitivity=2, batch=(50, 50), neighbors="add-remove").delta(1)


def test_add_remove_is_the_poisson_pair_at_the_batch_fraction():
    """Under add-remove the added record displaces one in the batch (noise/wor.rs, "Add/remove"): one run is
    the Poisson pair at q = m/population, exact (scripts/reference/wor_subsampled_gaussian.txt, mpmath: the
    concrete data sets' pair, T = 1)."""
    c = tightdp.Gaussian(sigma2=4, sensitivity=2, batch=(5, 50), neighbors="add-remove")
    d = c.delta(1)
    assert d.trust == "certified" and d.digits >= 20
    assert Fraction("0.00020712148602139211375534") <= d.lo <= d.hi <= Fraction("0.00020712148602139211375535")


def test_dp_accounting_event_sampled_without_replacement():
    dpa = pytest.importorskip("dp_accounting")
    ev = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(50, 5, dpa.GaussianDpEvent(1)), 2)
    c = tightdp.from_dp_event(ev)
    assert c.neighbors == "replace"
    # noise multiplier 1, replace sensitivity 1: the reference's setting scaled (sigma2 4, mu 2 -> sigma 1, mu 1)
    assert Fraction("0.0005329750212948855889828927") in c.delta(1, digits=3)
    # under add-remove dp_accounting's sensitivity is what adding a record moves the sum by; the added
    # record displaces one in the batch, twice that: noise multiplier 2 is the reference's sigma2 4, mu 2, whose
    # two runs under add-remove are the Poisson pair's (the reference's T=2 Poisson value)
    ev2 = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(50, 5, dpa.GaussianDpEvent(2)), 2)
    acc = tightdp.PLDAccountant()
    assert acc.supports(ev2)
    assert Fraction("0.0005141604293965027935372873") in tightdp.from_dp_event(ev2, neighbors="add-remove").delta(1, digits=3)
    acc = tightdp.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    assert acc.supports(ev)
    eps = acc.compose(ev).get_epsilon(1e-5)
    # dp_accounting's RDP accountant (its only accountant for this event) gives an upper bound above ours
    rdp = dpa.rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
    rdp.compose(ev)
    assert abs(eps - 1.9248677414183069697) < 1e-3 and eps < rdp.get_epsilon(1e-5)


def test_mnist_fixed_size_batches_from_dp_accounting_take_the_inversion():
    """A dp_accounting user's script with the accountant switched: MNIST's 14,070 steps of 256 of 60,000
    without replacement (noise multiplier 1.1, replace sensitivity 1) to 20 digits on the tilted Fourier
    inversion (noise/mgf_wor.rs), inside the pld grid's certified bracket [3.06943, 3.06960] of the same pair
    (an independent method: docs/findings.md, measured before the inversion took this law)."""
    dpa = pytest.importorskip("dp_accounting")
    ev = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(60000, 256, dpa.GaussianDpEvent(1.1)), 14070)
    c = tightdp.from_dp_event(ev)
    e = c.epsilon("1e-5")
    assert e.method == "tilted-fourier" and e.trust == "certified-bound" and e.digits >= 20
    assert Fraction("3.06943") <= e.lo and e.hi <= Fraction("3.06960")
    acc = tightdp.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE, digits=20)
    assert abs(acc.compose(ev).get_epsilon(1e-5) - float(e.lo)) < 1e-12


def test_laplace_on_fixed_size_batches_from_dp_accounting():
    """dp_accounting's SampledWithoutReplacementDpEvent of a LaplaceDpEvent (1,000 runs on 100 of 10,000, scale
    1) to 20 digits on the inversion, inside the pld grid's certified bracket at h = 1/20000,
    [1.333451596, 1.344767829] (an independent method, `--grid 1/20000` on the CLI)."""
    dpa = pytest.importorskip("dp_accounting")
    ev = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(10000, 100, dpa.LaplaceDpEvent(1)), 1000)
    e = tightdp.from_dp_event(ev).epsilon("1e-5")
    assert e.method == "tilted-fourier" and e.trust == "certified-bound" and e.digits >= 20
    assert Fraction("1.333451596") <= e.lo and e.hi <= Fraction("1.344767829")
