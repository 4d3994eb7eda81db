//! Issue 32 ("Your own release, first-class"): the privacy engineer's journey end to end, from a scratch
//! directory outside the repository, with an allocation of their own — describe it, account it overall
//! and with an extra release added, check it with a second engine, bound an attacker, calibrate it and
//! load the calibrated file back, draw it — every step from the files the previous one wrote. (The data
//! scientist's journey is python/tests/test_journeys.py; the researcher's, `reproduce`/`verify` from any
//! directory, tests/own_release2_cli.rs.)

use crate::common::{entry_names as files, get, rows, run_in as run, OWN};
use rug::Float;

fn f(s: &str) -> Float {
    Float::with_val(256, Float::parse(s).unwrap())
}

#[test]
fn a_privacy_engineer_accounts_calibrates_and_draws_their_own_release() {
    let scratch = tempfile::tempdir().unwrap();
    let d = scratch.path();
    std::fs::write(d.join("own.toml"), OWN).unwrap();

    // 1. what the file says: every query's ρ and σ² (hand-computed in tests/own_release2_cli.rs)
    let desc = rows(&run(d, &["describe", "--allocation", "own.toml", "--format", "csv"]));
    let sig: Vec<String> = desc.iter().filter(|r| !get(r, "sigma2").is_empty()).map(|r| get(r, "sigma2").to_string()).collect();
    assert_eq!(sig, ["4", "4/3", "5", "5/2", "15/2", "15/2", "15/2"]);

    // 2. the whole release at two deltas, one row each, 20 digits
    let overall = rows(&run(d, &["epsilon", "--allocation", "own.toml", "--overall", "--delta", "1e-10,1e-5", "--format", "csv"]));
    assert_eq!(overall.len(), 2);
    assert!(overall.iter().all(|r| get(r, "digits").parse::<u32>().unwrap() >= 20 && get(r, "trust") == "certified"));
    let (lo, hi) = (f(get(&overall[0], "epsilon_lo")), f(get(&overall[0], "epsilon_hi")));

    // 3. the same composition spelled by hand from step 1's variances, and by a second engine: the
    //    brackets must intersect (the grid engine rounds every loss up and down onto a grid; it shares no
    //    code with the lattice convolution)
    let mut by_hand = vec!["epsilon"];
    let mechs: Vec<String> = sig.iter().map(|s| format!("dgauss:sigma2={s}")).collect();
    for m in &mechs {
        by_hand.extend(["--mech", m.as_str()]);
    }
    by_hand.extend(["--delta", "1e-10", "--format", "csv"]);
    let hand = rows(&run(d, &by_hand));
    assert_eq!(
        (get(&hand[0], "epsilon_lo"), get(&hand[0], "epsilon_hi")),
        (get(&overall[0], "epsilon_lo"), get(&overall[0], "epsilon_hi"))
    );
    let smooth =
        rows(&run(d, &["epsilon", "--allocation", "own.toml", "--overall", "--delta", "1e-10", "--grid", "1/1000", "--format", "csv"]));
    let (slo, shi) = (f(get(&smooth[0], "epsilon_lo")), f(get(&smooth[0], "epsilon_hi")));
    assert!(slo <= lo && hi <= shi, "lattice [{lo}, {hi}] not inside the grid's [{slo}, {shi}]");

    // 4. a discrete Laplace release added to the allocation costs privacy
    let more = rows(&run(
        d,
        &["epsilon", "--allocation", "own.toml", "--overall", "--mech", "dlap:scale=4,n=5", "--delta", "1e-10", "--format", "csv"],
    ));
    assert!(f(get(&more[0], "epsilon_lo")) > hi);

    // 5. the attacker: TPR at FPR 1e-3 certified, below the zCDP (Bun–Steinke) figure
    let att = rows(&run(d, &["attack", "--allocation", "own.toml", "--overall", "--format", "csv"]));
    let tpr = att.iter().find(|r| get(r, "measure") == "tpr_at_fpr" && get(r, "fpr") == "1e-3").unwrap();
    assert!(f(get(tpr, "value_hi")) < f(get(tpr, "zcdp_bs")) && f(get(tpr, "value_lo")) > 1e-3);

    // 6. calibrate per level to the zCDP-implied targets, write the file, load it back: each level's exact
    //    ε at the written budgets is at most its target
    let cal = rows(&run(d, &["calibrate", "--allocation", "own.toml", "--delta", "1e-10", "--write", "cal.toml", "--format", "csv"]));
    assert_eq!(cal.len(), 3);
    for r in &cal {
        let level = get(r, "level");
        let e = rows(&run(d, &["epsilon", "--allocation", "cal.toml", "--level", level, "--delta", "1e-10", "--format", "csv"]));
        assert!(f(get(&e[0], "epsilon_hi")) <= f(get(r, "target_epsilon")), "level {level}: {e:?} vs {r:?}");
    }

    // 7. the pictures of the user's own release, and nothing written anywhere else
    run(d, &["plot", "--allocation", "own.toml", "--out", "figs"]);
    let figs = files(&d.join("figs"));
    assert!(
        figs.iter().any(|x| x.ends_with(".png")) && figs.iter().any(|x| x.ends_with(".svg")) && figs.iter().any(|x| x.ends_with(".csv")),
        "{figs:?}"
    );
    // (the lock file beside --out is the run directory's, as reproduce's; it serialises concurrent runs)
    assert_eq!(files(d), [".figs.lock", "cal.toml", "figs", "own.toml"]);
}
