//! TopDown post-processing: from the noisy measurements of every geounit to integer, non-negative,
//! hierarchically consistent detailed histograms that keep the invariants exactly.
//!
//! The algorithm of Abowd et al., "The 2020 Census Disclosure Avoidance System TopDown Algorithm"
//! (HDSR 2022, §5 "the estimation step"; [CAK24, §1]): the root is estimated
//! first from its own measurements; then, geolevel by geolevel, top down, every parent's children are
//! estimated given the parent's fixed integer histogram:
//!
//! 1. L2 (`l2.rs`): weighted non-negative least squares over the children's detailed histograms,
//!    weights 1/σ² of each query, subject to Σ children = parent cell by cell and the invariant totals;
//! 2. L1 (`rounding.rs`): the L1-closest non-negative integer histograms satisfying the same
//!    constraints.
//!
//! Parents of a level are independent given the level above, and are solved in parallel (rayon). As in
//! the production code (`programs/nodes/manipulate_nodes.py`, `geoimp_wrapper`), a single child copies
//! its parent (the bypass of Algorithm 3 measured the parent with the child's budget too) and an empty
//! parent gives empty children; only cells non-zero in the parent are variables
//! (`optimizer.py`, `findDesiredIndices`). The result is checked before it is written (`check`):
//! non-negative integers, every parent equal to the sum of its children in every cell, the invariants
//! exact.
//!
//! Most parents skip the interior point (`rounded_direct`): the L2 optimum is found by direct dense
//! linear algebra (`l2_dense::solve_direct`), rounded by shortest paths (`rounding::round_by_paths`), and
//! that table is kept only if it is the unique L1-closest one by a margin larger than the rounding
//! could move by between the direct optimum and the interior point's, which agree to
//! `l2_dense::DIRECT_AGREEMENT` (`rounding::unique_optimum`). Then the interior point and the simplex would
//! give the same integers. Where the rounding has a tie, the interior point's own rounding errors
//! decide it, so those parents (about 7% on dhc-small) and any the direct method cannot settle take
//! the interior point as before.
//!
//! Post-processing reads nothing but the noisy measurements, the public geography and the invariants,
//! so it does not change the privacy guarantee of the measurements (post-processing immunity); the
//! invariants themselves are published exactly and are outside the guarantee, as in production.

use crate::error::Fallible;
use crate::record::csv_field;
use crate::topdown::estimation::l2;
use crate::topdown::estimation::l2_dense::rounded_direct;
use crate::topdown::estimation::multipass;
use crate::topdown::estimation::passes::{LevelPasses, RoundingPass};
use crate::topdown::estimation::rounding::{self, RoundingProblem};
use crate::topdown::estimation::run::{checked_sum, RunData};
use crate::topdown::geography::spine::NONE;
use crate::{err, fallible};
use rayon::prelude::*;
use std::io::Write;

/// Statistics of a post-processing run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Parents solved by L2 + rounding (the root counts as one).
    pub solved: usize,
    /// Parents with a single child (copied) or an empty histogram (zeros).
    pub copied: usize,
}

/// Run TopDown post-processing. Returns the detailed histogram of every unit (unit-major, cells of the
/// schema), checked by `check`.
pub fn postprocess(run: &RunData) -> Fallible<(Vec<i64>, Stats)> {
    postprocess_by(run, Route::Direct, None)
}

/// TopDown post-processing with query passes per geolevel (`passes::resolve`; None: one pass). A
/// family whose passes are the single pass and that has no group-quarters bounds or group invariants
/// is solved as `postprocess` solves it (so one pass reproduces `postprocess` exactly); the others by
/// `multipass::family`.
pub fn postprocess_with(run: &RunData, passes: Option<&[LevelPasses]>) -> Fallible<(Vec<i64>, Stats)> {
    if let Some(p) = passes {
        if p.len() != run.spine.n_levels() {
            return fallible!(Input, "internal: passes do not match the spine's geolevels");
        }
    }
    postprocess_by(run, Route::Direct, passes)
}

/// How a parent's children are solved: `Direct` tries the direct L2 optimum with a certified rounding
/// first (`rounded_direct`), `InteriorPoint` always takes the interior point (the reference the
/// tests compare the direct route with).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Route {
    Direct,
    #[cfg_attr(not(test), allow(dead_code))]
    InteriorPoint,
}

fn postprocess_by(run: &RunData, route: Route, passes: Option<&[LevelPasses]>) -> Fallible<(Vec<i64>, Stats)> {
    solve_tree(run, route, passes, None)
}

/// Post-processing of a subtree whose root's histogram is already fixed (`root`): the state subtrees
/// of `by_state.rs`, each given its state's estimate. The same families are solved as by
/// `postprocess_with` on the whole run, from the same inputs.
pub fn postprocess_subtree(run: &RunData, root: &[i64], passes: Option<&[LevelPasses]>) -> Fallible<(Vec<i64>, Stats)> {
    solve_tree(run, Route::Direct, passes, Some(root))
}

fn solve_tree(run: &RunData, route: Route, passes: Option<&[LevelPasses]>, fixed_root: Option<&[i64]>) -> Fallible<(Vec<i64>, Stats)> {
    let sp = &run.spine;
    let nc = run.schema.cells();
    let nu = sp.n_units();
    if run.unit_group.len() != nu || run.invariant.len() != nu {
        return fallible!(Input, "internal: run data does not match the spine");
    }
    if let Some(i) = run.values.iter().position(|v| !v.is_finite()) {
        return fallible!(Input, "measurement {i} is missing or not a finite number");
    }
    run.check_invariants()?;
    let mut est = vec![0i64; nu * nc];
    let mut stats = Stats::default();
    // the root: its own measurements, no parent
    let root = sp.root as usize;
    match fixed_root {
        Some(y) if y.len() == nc => est[root * nc..(root + 1) * nc].copy_from_slice(y),
        Some(_) => return fallible!(Input, "internal: the fixed root histogram does not match the schema"),
        None => {
            let y = solve_family(run, None, &[sp.root], route, passes.map(|p| &p[0]))
                .map_err(|e| e.context(format!("root '{}'", sp.ids[root])))?;
            est[root * nc..(root + 1) * nc].copy_from_slice(&y);
            stats.solved += 1;
        }
    }
    let mut by_level: Vec<Vec<u32>> = vec![Vec::new(); sp.n_levels()];
    for u in 0..nu {
        by_level[sp.level[u] as usize].push(u as u32);
    }
    for (l, parents) in by_level.iter().take(sp.n_levels() - 1).enumerate() {
        let lp = passes.map(|p| &p[l + 1]);
        let results: Vec<Fallible<(Vec<i64>, bool)>> = parents
            .par_iter()
            .map(|&u| {
                let ui = u as usize;
                let p = &est[ui * nc..(ui + 1) * nc];
                let ch = sp.children(u);
                if ch.len() == 1 {
                    return Ok((p.to_vec(), false));
                }
                if p.iter().all(|&v| v == 0) {
                    return Ok((vec![0; nc * ch.len()], false));
                }
                solve_family(run, Some(p), ch, route, lp).map(|y| (y, true)).map_err(|e| e.context(format!("parent '{}'", sp.ids[ui])))
            })
            .collect();
        for (&u, r) in parents.iter().zip(results) {
            let (y, solved) = r?;
            if solved {
                stats.solved += 1;
            } else {
                stats.copied += 1;
            }
            for (i, &c) in sp.children(u).iter().enumerate() {
                let c = c as usize;
                est[c * nc..(c + 1) * nc].copy_from_slice(&y[i * nc..(i + 1) * nc]);
            }
        }
    }
    check(run, &est)?;
    Ok((est, stats))
}

/// The single-pass route of `family`, or `multipass::family` (see `postprocess_with`).
fn solve_family(run: &RunData, parent: Option<&[i64]>, ch: &[u32], route: Route, lp: Option<&LevelPasses>) -> Fallible<Vec<i64>> {
    let extra = !run.cons.units.is_empty() || !run.cons.groups_of(&run.spine, ch).is_empty();
    match lp {
        Some(lp) if extra || !lp.is_single() => multipass::family(run, parent, ch, lp, None),
        None if extra => multipass::family(run, parent, ch, &single_pass(run, ch), None),
        _ => family(run, parent, ch, route),
    }
}

/// The single pass for the level of `ch`: every query its units measure, cellwise rounding.
fn single_pass(run: &RunData, ch: &[u32]) -> LevelPasses {
    let mut qs: Vec<usize> = Vec::new();
    for &c in ch {
        let g = run.unit_group[c as usize];
        if g != NONE {
            for e in &run.groups[g as usize].entries {
                if !qs.contains(&e.query) {
                    qs.push(e.query);
                }
            }
        }
    }
    LevelPasses { l2: vec![qs], rounding: vec![RoundingPass { penalties: Vec::new(), cellwise: true }] }
}

/// L2 then L1 for the children `ch` of a parent with histogram `parent` (None: the root, ch = [root]).
/// Returns the children's histograms, child-major.
fn family(run: &RunData, parent: Option<&[i64]>, ch: &[u32], route: Route) -> Fallible<Vec<i64>> {
    let nc = run.schema.cells();
    let f = Family::new(run, parent, ch);
    let direct = if route == Route::Direct { rounded_direct(&f.prob, f.parent.as_deref(), &f.totals) } else { None };
    let y = match direct {
        Some(y) => y,
        None => {
            let x = l2::solve(&f.prob)?;
            rounding::round(&RoundingProblem { n: f.prob.n, x: &x, parent: f.parent.as_deref(), totals: &f.totals })?
        }
    };
    let nk = f.live.len();
    let mut out = vec![0i64; nc * ch.len()];
    for i in 0..ch.len() {
        for (j, &k) in f.live.iter().enumerate() {
            out[i * nc + k] = y[i * nk + j];
        }
    }
    Ok(out)
}

/// The problem of one parent's children over the live cells (those non-zero in the parent, all at
/// the root): the L2 problem and the constraints of the rounding.
struct Family {
    live: Vec<usize>,
    prob: l2::Problem,
    /// The parent's live cells (None at the root).
    parent: Option<Vec<i64>>,
    totals: Vec<Option<i64>>,
}

impl Family {
    fn new(run: &RunData, parent: Option<&[i64]>, ch: &[u32]) -> Family {
        let nc = run.schema.cells();
        let live: Vec<usize> = (0..nc).filter(|&k| parent.is_none_or(|p| p[k] > 0) && !run.cons.is_zero(k)).collect();
        let nk = live.len();
        let mut children = Vec::with_capacity(ch.len());
        let mut totals = Vec::with_capacity(ch.len());
        let mut remap: Vec<u32> = Vec::new();
        for &c in ch {
            let c = c as usize;
            let inv = run.invariant[c];
            let total = (inv >= 0).then_some(inv);
            totals.push(total);
            let mut terms = Vec::new();
            if let Some(vals) = run.unit_values(c) {
                let g = &run.groups[run.unit_group[c] as usize];
                for e in &g.entries {
                    let q = &run.queries[e.query];
                    // answer cells reached by a live cell, renumbered
                    remap.clear();
                    remap.resize(q.cells, u32::MAX);
                    let mut rows = 0u32;
                    let mut map = Vec::with_capacity(nk);
                    let mut y = Vec::with_capacity(nk.min(q.cells));
                    for &k in &live {
                        let j = q.map[k] as usize;
                        if remap[j] == u32::MAX {
                            remap[j] = rows;
                            rows += 1;
                            y.push(vals[e.offset + j]);
                        }
                        map.push(remap[j]);
                    }
                    terms.push(l2::Term { map, rows: rows as usize, weight: 1.0 / e.sigma2, y });
                }
            }
            children.push(l2::Child { terms, total: total.map(|t| t as f64) });
        }
        let parent: Option<Vec<i64>> = parent.map(|p| live.iter().map(|&k| p[k]).collect());
        let prob = l2::Problem { n: nk, children, parent: parent.as_ref().map(|p| p.iter().map(|&v| v as f64).collect()) };
        Family { live, prob, parent, totals }
    }
}

/// The output contract: non-negative integers, every parent equal to the sum of its children in every
/// cell, the invariants exact; structural zeros, group-quarters bounds and group invariants held.
pub fn check(run: &RunData, est: &[i64]) -> Fallible<()> {
    let sp = &run.spine;
    let nc = run.schema.cells();
    if est.len() != sp.n_units() * nc {
        return fallible!(Input, "estimates do not cover every geounit");
    }
    if let Some(i) = est.iter().position(|&v| v < 0) {
        return fallible!(Input, "negative count at geounit '{}'", sp.ids[i / nc]);
    }
    for u in 0..sp.n_units() {
        let ch = sp.children(u as u32);
        if !ch.is_empty() {
            for k in 0..nc {
                let s = checked_sum(ch.iter().map(|&c| est[c as usize * nc + k]))
                    .ok_or_else(|| err!(Input, "geounit '{}', cell {k}: the children's counts overflow when added", sp.ids[u]))?;
                if s != est[u * nc + k] {
                    return fallible!(Input, "geounit '{}', cell {k}: children add up to {s}, not {}", sp.ids[u], est[u * nc + k]);
                }
            }
        }
        if run.invariant[u] >= 0 {
            let t = checked_sum(est[u * nc..(u + 1) * nc].iter().copied())
                .ok_or_else(|| err!(Input, "geounit '{}': its cells overflow when added", sp.ids[u]))?;
            if t != run.invariant[u] {
                return fallible!(Input, "geounit '{}': total {t} but the invariant is {}", sp.ids[u], run.invariant[u]);
            }
        }
        if let Some(k) = (0..nc).find(|&k| run.cons.is_zero(k) && est[u * nc + k] != 0) {
            return fallible!(Input, "geounit '{}': cell {k} is a structural zero but holds {}", sp.ids[u], est[u * nc + k]);
        }
        if !run.cons.units.is_empty() {
            for t in 0..run.schema.card[0] as usize {
                let (lo, hi) = run.cons.gq_bounds(u, t).expect("invariant: units are given, so every type has bounds");
                let s: i64 = (0..nc).filter(|&k| run.schema.decode(k)[0] as usize == t).map(|k| est[u * nc + k]).sum();
                if s < lo || s > hi {
                    return fallible!(
                        Input,
                        "geounit '{}': {s} persons of hhgq type {t}, outside its group-quarters bounds [{lo}, {hi}]",
                        sp.ids[u]
                    );
                }
            }
        }
    }
    for (us, t) in &run.cons.groups {
        let s = checked_sum(us.iter().flat_map(|&u| est[u as usize * nc..(u as usize + 1) * nc].iter().copied()))
            .ok_or_else(|| err!(Input, "a group invariant's cells overflow when added"))?;
        if s != *t {
            let names: Vec<&str> = us.iter().map(|&u| sp.ids[u as usize].as_str()).collect();
            return fallible!(Input, "geounits {}: total {s} but their group invariant is {t}", names.join(" + "));
        }
    }
    Ok(())
}

/// Write `level,geounit,parent,cell,count`, geolevel by geolevel from the top, units in spine order.
pub fn write_estimates(run: &RunData, est: &[i64], w: &mut dyn Write) -> Fallible<u64> {
    let sp = &run.spine;
    let nc = run.schema.cells();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
    let e = |e: std::io::Error| err!(Io, "write failed: {e}");
    writeln!(w, "level,geounit,parent,cell,count").map_err(e)?;
    let mut rows = 0u64;
    let mut line = String::with_capacity(128);
    for l in 0..sp.n_levels() {
        for u in (0..sp.n_units()).filter(|&u| sp.level[u] as usize == l) {
            let p = sp.parent[u];
            let pid = if p == NONE { "" } else { sp.ids[p as usize].as_str() };
            for k in 0..nc {
                use std::fmt::Write as _;
                line.clear();
                let _ = writeln!(line, "{},{},{},{k},{}", csv_field(&sp.levels[l]), csv_field(&sp.ids[u]), csv_field(pid), est[u * nc + k]);
                w.write_all(line.as_bytes()).map_err(e)?;
                rows += 1;
            }
        }
    }
    w.flush().map_err(e)?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::analysis::pp_accuracy::{fill, layout, set_invariants, truth_histograms};
    use crate::topdown::geography::spine::{Bypass, GeoSpec, Spine};
    use crate::topdown::measurement::sampler::DiscreteGaussianSampler;
    use crate::topdown::measurement::schema::{Schema, DEFAULT_QUERIES};
    use rug::Rational;

    fn spine(seed: u64, bypass: Bypass) -> Spine {
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "3,1-3,1-3,1-5", seed, "").unwrap();
        let mut buf = Vec::new();
        spec.write(&mut buf).unwrap();
        let mut s = Spine::from_reader(&buf[..]).unwrap();
        s.apply_bypass(bypass);
        s
    }

    fn run(sp: &Spine, schema: &str) -> (RunData, Vec<u64>, Vec<DiscreteGaussianSampler>) {
        let schema = Schema::parse(schema).unwrap();
        let s2: Vec<Rational> = ["20", "3", "7", "5", "40"].iter().map(|s| crate::num::parse_rational(s).unwrap()).collect();
        let (r, sig) = layout(sp, &schema, &DEFAULT_QUERIES, &s2).unwrap();
        let truth = truth_histograms(sp, &schema, 4, 6);
        let samplers = sig.into_iter().map(|s| DiscreteGaussianSampler::new(s).unwrap()).collect();
        (r, truth, samplers)
    }

    #[test]
    fn without_noise_the_output_is_the_input() {
        for (seed, bypass, inv) in [(1, Bypass::Zcdp, 2), (2, Bypass::None, 0), (3, Bypass::Zcdp, 1)] {
            let sp = spine(seed, bypass);
            let (mut r, truth, _) = run(&sp, "hhgq=3,votingage=2,hispanic=2");
            fill(&mut r, &truth, None, 0);
            set_invariants(&mut r, &truth, inv);
            let (est, stats) = postprocess(&r).unwrap();
            assert!(stats.solved > 3);
            let t: Vec<i64> = truth.iter().map(|&v| v as i64).collect();
            assert_eq!(est, t, "seed {seed}");
        }
    }

    #[test]
    fn noisy_output_meets_the_contract() {
        for seed in 0..6u64 {
            let sp = spine(10 + seed, if seed % 2 == 0 { Bypass::Zcdp } else { Bypass::None });
            let (mut r, truth, samplers) = run(&sp, "small");
            fill(&mut r, &truth, Some(&samplers), seed);
            set_invariants(&mut r, &truth, 2);
            let (est, _) = postprocess(&r).unwrap();
            let nc = r.schema.cells();
            // checked here directly, not through `check`
            assert!(est.iter().all(|&v| v >= 0));
            for u in 0..sp.n_units() {
                let ch = sp.children(u as u32);
                for k in 0..nc {
                    if !ch.is_empty() {
                        assert_eq!(ch.iter().map(|&c| est[c as usize * nc + k]).sum::<i64>(), est[u * nc + k]);
                    }
                }
                if sp.level[u] < 2 {
                    assert_eq!(est[u * nc..(u + 1) * nc].iter().sum::<i64>() as u64, truth[u * nc..(u + 1) * nc].iter().sum::<u64>());
                }
            }
            // not the truth: there is noise
            assert_ne!(est.iter().map(|&v| v as u64).collect::<Vec<_>>(), truth);
        }
    }

    #[test]
    fn the_direct_route_gives_the_interior_point_answer() {
        // every family of noisy runs, both routes (the direct one falls back on ties by itself)
        let mut direct = 0;
        for seed in 0..8u64 {
            let sp = spine(30 + seed, if seed % 2 == 0 { Bypass::Zcdp } else { Bypass::None });
            let (mut r, truth, samplers) = run(&sp, if seed % 3 == 0 { "small" } else { "hhgq=3,votingage=2,hispanic=2" });
            fill(&mut r, &truth, Some(&samplers), seed);
            set_invariants(&mut r, &truth, (seed % 3) as usize);
            let (a, _) = postprocess_by(&r, Route::Direct, None).unwrap();
            let (b, _) = postprocess_by(&r, Route::InteriorPoint, None).unwrap();
            assert_eq!(a, b, "seed {seed}");
            // the direct route is taken for most parents
            let nc = r.schema.cells();
            for u in 0..sp.n_units() as u32 {
                let ch = sp.children(u);
                if ch.len() > 1 {
                    let p = &a[u as usize * nc..(u as usize + 1) * nc];
                    if p.iter().any(|&v| v > 0) && route_is_direct(&r, p, ch) {
                        direct += 1;
                    }
                }
            }
        }
        assert!(direct > 40, "{direct}");
    }

    /// Whether `family` answers this parent without the interior point.
    fn route_is_direct(r: &RunData, parent: &[i64], ch: &[u32]) -> bool {
        let f = Family::new(r, Some(parent), ch);
        rounded_direct(&f.prob, f.parent.as_deref(), &f.totals).is_some()
    }

    #[test]
    fn inconsistent_invariants_and_missing_values_are_errors() {
        let sp = spine(5, Bypass::Zcdp);
        let (mut r, truth, _) = run(&sp, "scalar");
        fill(&mut r, &truth, None, 0);
        set_invariants(&mut r, &truth, 2);
        let st = sp.children(sp.root)[0] as usize;
        r.invariant[st] += 1;
        assert!(postprocess(&r).unwrap_err().to_string().contains("add up to"));
        set_invariants(&mut r, &truth, 2);
        r.invariant[sp.root as usize] = -1;
        assert!(postprocess(&r).unwrap_err().to_string().contains("parent"));
        set_invariants(&mut r, &truth, 2);
        r.values[0] = f64::NAN;
        assert!(postprocess(&r).unwrap_err().to_string().contains("finite"));
    }
}
