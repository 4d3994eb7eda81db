//! The smoothed inversion on a mixture of discrete Gaussian and discrete Laplace noise (issue #33 item 3,
//! docs/smoothed-fourier.md §8): 200 distinct σ² (random integers in [1, 10⁴], Python's random.seed(3),
//! the list below) with 50 queries of DLap(4). Its loss slopes share no practical lattice, so
//! no exact engine answers; the checks are cross-checks between independent brackets of the same ε —
//! the f64 tier's (other nodes, other smoothing, double-precision arithmetic), a 20-digit bracket at
//! another smoothing w, and the zCDP (CKS) upper bound — and the digits claimed.

use assert_cmd::Command;
use rug::Float;

const SIGMA2: &str = "3899,9710,8917,2137,6062,9895,7767,9517,1074,9923,216,7688,4250,9025,3840,3142,7705,8864,9006,7805,6507,2468,3800,2485,8572,6389,249,1050,2612,9685,702,4936,509,4415,7746,9745,6351,6995,6472,9453,7285,2198,5989,1597,588,2228,8109,3556,4227,7147,4933,6901,8311,6323,9405,5750,8751,9586,6678,9573,3808,5518,470,4583,9926,2673,5348,8877,9371,9325,1706,3460,9397,4376,4669,2039,1040,7898,7922,1451,5638,1092,6726,2471,330,4816,6999,6803,1949,725,9913,737,6190,9608,5423,9026,4573,8281,3866,591,5074,119,1262,1772,9827,8775,515,3234,6684,4778,4316,2560,696,5568,5142,5902,2267,6190,6173,7544,8521,6328,9760,9163,1681,8308,4445,7065,3894,4934,7168,4231,8539,4965,8986,5553,188,6803,9503,5159,329,6169,9654,2184,985,5447,7640,5783,5777,9976,4570,8021,364,9657,993,349,6049,4115,7477,4893,9711,9855,5244,2907,5964,3036,5123,6049,9759,4328,4922,6180,1719,442,9327,2154,5080,8193,3647,4414,3911,5371,3071,7131,1590,1669,9843,5276,5469,3678,7184,2774,1310,5517,3573,9313,7391,4434,3687,1982";

fn mixture() -> Vec<String> {
    let mut v: Vec<String> = SIGMA2.split(',').flat_map(|s| ["--mech".to_string(), format!("dgauss:sigma2={s}")]).collect();
    v.extend(["--mech".to_string(), "dlap:scale=4,n=50".to_string()]);
    v
}

/// (epsilon_lo, epsilon_hi, digits, method) of `tightdp epsilon <mixture> --delta 1e-10 <extra>` (JSON).
fn epsilon(extra: &[&str]) -> (Float, Float, u32, String) {
    let m = mixture();
    let mut a: Vec<&str> = m.iter().map(String::as_str).collect();
    a.extend(["--delta", "1e-10"]);
    a.extend_from_slice(extra);
    crate::common::json_bracket("epsilon", &[], "epsilon", &a)
}

#[test]
fn dgauss_dlap_mixture_answered_with_twenty_digits() {
    let (lo, hi, digits, method) = epsilon(&[]);
    assert_eq!(method, "smoothed");
    assert!(digits >= 20, "digits {digits}");
    assert!(lo < hi && Float::with_val(256, &hi - &lo) < 1e-18, "[{lo}, {hi}]");
    // the f64 tier (double-precision nodes, w ~ 1e-5) brackets the same ε: it must contain the 20-digit bracket
    let (flo, fhi, _, _) = epsilon(&["--method", "smoothed", "--width", "1e-9"]);
    assert!(flo <= lo && hi <= fhi, "20-digit [{lo}, {hi}] not inside the f64 tier's [{flo}, {fhi}]");
    // another smoothing (another node set): both certified, so they intersect
    let (alo, ahi, _, _) = epsilon(&["--method", "smoothed", "--width", "1e-19"]);
    assert!(alo <= hi && lo <= ahi, "[{lo}, {hi}] and [{alo}, {ahi}] are disjoint");
    // the CKS zCDP conversion is a certified upper bound of the same ε
    let (_, zhi, _, _) = epsilon(&["--method", "zcdp-cks"]);
    assert!(hi <= zhi, "{hi} above the zCDP bound {zhi}");
}

/// Discrete Laplace noise alone gives the smoothed inversion no decay: asked for it, the method declines
/// with the reason on one line, exit 2.
#[test]
fn dlap_alone_is_declined_by_the_smoothed_inversion() {
    let a = Command::cargo_bin("tightdp")
        .unwrap()
        .args(["epsilon", "--mech", "dlap:scale=4,n=50", "--delta", "1e-10", "--method", "smoothed"])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.starts_with("error: ") && err.contains("does not decay") && err.trim_end().lines().count() == 1, "{err}");
}
