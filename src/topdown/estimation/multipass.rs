//! One parent's children estimated as the Bureau's production runs do: several L2 passes, each
//! constrained to the answers of the passes before it, then several rounding passes, each keeping the
//! integer answers of the passes before it exactly; with structural zeros, group-quarters bounds and
//! group invariants (`constraints.rs`). The passes are those of `passes.rs`.
//!
//! L2 pass k ([CAK24, §1]; production `DataIndQueriesL2NPass`, see `qp.rs`): minimise the weighted
//! squares of the pass's queries subject to the parent, the invariants, the bounds and, for every
//! query of an earlier pass, its answer there (a total within `qp::PASS_TOL`; exactly, when the pass
//! was the total alone: it then becomes the children's total as an invariant would). Rounding pass j
//! (production `DataIndependentNpassRound`, see `round_lp.rs`): minimise the L1 distance of the pass's
//! queries' answers to their rounded L2 values (and, for the detailed query, of the cells), subject to
//! the same constraints and the integer answers of the earlier rounding passes, exactly.
//!
//! Routes: a pass of the total alone is solved on one cell per child (z_c = 1ᵀx_c: with the parent
//! cells as the only other coupling every z ≥ 0 summing to the parent is reachable, a transportation
//! problem, so the projection is exact); a pass without extra rows goes through `l2.rs` (direct dense
//! solve, else the interior point with its polish), with the group-quarters bounds checked on that
//! relaxation's optimum (kept if they hold — the optimum of a relaxation that is feasible is the
//! optimum); anything else through `qp.rs`. The rounding likewise: the total by `rounding.rs` on one
//! cell per child, the cellwise pass by shortest paths or `rounding.rs`, checked against the bounds,
//! else the general LP of `round_lp.rs`.

use crate::error::Fallible;
use crate::fallible;
use crate::topdown::estimation::l2::{self, data_scale, Child, Term};
use crate::topdown::estimation::l2_dense::rounded_direct;
use crate::topdown::estimation::passes::LevelPasses;
use crate::topdown::estimation::qp::{self, CellSumRow, GroupRow, PASS_TOL};
use crate::topdown::estimation::round_lp::{self, IRow, Penalty, RoundPass};
use crate::topdown::estimation::rounding::{self, RoundingProblem};
use crate::topdown::estimation::run::RunData;
use crate::topdown::measurement::schema::hhgq_of_cells;
use crate::topdown::measurement::schema::MarginalQuery;

/// The answers each pass fixed, for the tests: per pass, per query (name), child-major answers.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub l2: Vec<Vec<(String, Vec<f64>)>>,
    pub rounded: Vec<Vec<(String, Vec<i64>)>>,
    /// The live cells of the family (indices into the schema's cells).
    pub live: Vec<usize>,
    /// The L2 solution after each pass solved in full (live cells, child-major).
    pub xs: Vec<Vec<f64>>,
    /// The tolerance of the earlier passes' answers in the later L2 passes.
    pub tol: f64,
}

/// The measured terms of each child over the live cells, with their query index.
fn child_terms(run: &RunData, ch: &[u32], live: &[usize]) -> Vec<Vec<(usize, Term)>> {
    ch.iter()
        .map(|&c| {
            let c = c as usize;
            let Some(vals) = run.unit_values(c) else { return Vec::new() };
            let g = &run.groups[run.unit_group[c] as usize];
            g.entries
                .iter()
                .map(|e| {
                    let q = &run.queries[e.query];
                    let mut remap = vec![u32::MAX; q.cells];
                    let (mut map, mut y) = (Vec::with_capacity(live.len()), Vec::new());
                    for &k in live {
                        let j = q.map[k] as usize;
                        if remap[j] == u32::MAX {
                            remap[j] = y.len() as u32;
                            y.push(vals[e.offset + j]);
                        }
                        map.push(remap[j]);
                    }
                    (e.query, Term { map, rows: y.len(), weight: 1.0 / e.sigma2, y })
                })
                .collect()
        })
        .collect()
}

/// Answer cells of query q over the live cells: for each answer cell, the live positions in it.
fn answer_cells(q: &MarginalQuery, live: &[usize]) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); q.cells];
    for (j, &k) in live.iter().enumerate() {
        out[q.map[k] as usize].push(j as u32);
    }
    out.retain(|c| !c.is_empty());
    out
}

fn is_total(q: &MarginalQuery) -> bool {
    q.cells == 1
}

/// L2 by `l2.rs`: the direct dense route, else the interior point.
fn solve_l2(p: &l2::Problem) -> Fallible<Vec<f64>> {
    match crate::topdown::estimation::l2_dense::solve_direct(p) {
        Some((x, _)) => Ok(x),
        None => l2::solve(p),
    }
}

/// The children's totals of a total-only pass, fixed for the later passes: the invariants stay; the
/// others are scaled to add up exactly to what the parent leaves them (the solver's answer does to
/// its tolerance), so that the later passes' rows are consistent.
fn fix_totals(z: &[f64], invariants: &[Option<i64>], parent_total: Option<f64>, fixed: &mut [Option<f64>]) {
    let free: Vec<usize> = (0..z.len()).filter(|&c| invariants[c].is_none()).collect();
    let mut v: Vec<f64> = z.iter().map(|&x| x.max(0.0)).collect();
    if let Some(pt) = parent_total {
        let target = pt - invariants.iter().flatten().map(|&t| t as f64).sum::<f64>();
        let s: f64 = free.iter().map(|&c| v[c]).sum();
        for &c in &free {
            v[c] = if s > 0.0 { v[c] * (target / s) } else { target / free.len() as f64 };
        }
    }
    for &c in &free {
        fixed[c] = Some(v[c].max(0.0));
    }
}

/// Estimate the children `ch` of a parent with histogram `parent` (None: the root, ch = [root]) by
/// the passes `lp`. Returns the children's histograms, child-major, every cell of the schema.
pub fn family(run: &RunData, parent: Option<&[i64]>, ch: &[u32], lp: &LevelPasses, mut trace: Option<&mut Trace>) -> Fallible<Vec<i64>> {
    let nc = run.schema.cells();
    let live: Vec<usize> = (0..nc).filter(|&k| parent.is_none_or(|p| p[k] > 0) && !run.cons.is_zero(k)).collect();
    let mut out = vec![0i64; nc * ch.len()];
    if live.is_empty() {
        return Ok(out);
    }
    let f = PassFamily::new(run, parent, ch, live, lp)?;
    let (x, last_l2) = f.l2_passes(lp, &mut trace)?;
    let y = f.rounding_passes(lp, &x, last_l2.as_ref(), &mut trace)?;
    if let Some(t) = trace {
        t.live = f.live.clone();
        t.tol = f.tol;
    }
    for c in 0..f.m {
        for (j, &k) in f.live.iter().enumerate() {
            out[c * nc + k] = y[c * f.nk + j];
        }
    }
    Ok(out)
}

/// One parent's children as the passes see them: the live cells (non-zero in the parent, not structural
/// zeros), each child's terms over them, the invariants, group invariants and group-quarters bounds.
struct PassFamily<'a> {
    run: &'a RunData,
    live: Vec<usize>,
    /// live cells, children
    nk: usize,
    m: usize,
    terms: Vec<Vec<(usize, Term)>>,
    invariants: Vec<Option<i64>>,
    groups: Vec<(Vec<usize>, i64)>,
    bounds: Vec<IRow>,
    /// the bounds and group invariants as rows of the quadratic programs
    qrows: Vec<CellSumRow>,
    qgroups: Vec<GroupRow>,
    parent_live: Option<Vec<i64>>,
    parent_f: Option<Vec<f64>>,
    parent_total: Option<f64>,
    /// the data scale and the tolerance of an earlier pass's answer (`PASS_TOL` × the scale)
    scale: f64,
    tol: f64,
    /// no bound and no group invariant
    plain: bool,
}

impl<'a> PassFamily<'a> {
    fn new(run: &'a RunData, parent: Option<&[i64]>, ch: &[u32], live: Vec<usize>, lp: &LevelPasses) -> Fallible<PassFamily<'a>> {
        let (nk, m) = (live.len(), ch.len());
        let terms = child_terms(run, ch, &live);
        let invariants: Vec<Option<i64>> = ch.iter().map(|&c| Some(run.invariant[c as usize]).filter(|&t| t >= 0)).collect();
        let groups = run.cons.groups_of(&run.spine, ch);
        let parent_live: Option<Vec<i64>> = parent.map(|p| live.iter().map(|&k| p[k]).collect());
        let parent_f: Option<Vec<f64>> = parent_live.as_ref().map(|p| p.iter().map(|&v| v as f64).collect());
        let bounds = gq_rows(run, ch, &live)?;
        let qrows: Vec<CellSumRow> =
            bounds.iter().map(|b| CellSumRow { child: b.child, cells: b.cells.clone(), lo: b.lo as f64, hi: b.hi as f64 }).collect();
        let qgroups: Vec<GroupRow> = groups.iter().map(|(cs, t)| GroupRow { children: cs.clone(), total: *t as f64 }).collect();
        let plain = bounds.is_empty() && groups.is_empty();
        let parent_total: Option<f64> = parent_f.as_ref().map(|p| p.iter().sum());
        let mut f = PassFamily {
            run,
            live,
            nk,
            m,
            terms,
            invariants,
            groups,
            bounds,
            qrows,
            qgroups,
            parent_live,
            parent_f,
            parent_total,
            scale: 0.0,
            tol: 0.0,
            plain,
        };
        let all: Vec<usize> = lp.l2.iter().flatten().copied().collect();
        f.scale = data_scale(&f.problem(&all, &f.invariants.iter().map(|t| t.map(|v| v as f64)).collect::<Vec<_>>()));
        f.tol = PASS_TOL * f.scale;
        Ok(f)
    }

    /// The L2 problem of the queries `pass` with the children's totals fixed where known.
    fn problem(&self, pass: &[usize], totals: &[Option<f64>]) -> l2::Problem {
        l2::Problem {
            n: self.nk,
            children: (0..self.m)
                .map(|c| Child {
                    terms: self.terms[c].iter().filter(|(q, _)| pass.contains(q)).map(|(_, t)| t.clone()).collect(),
                    total: totals[c],
                })
                .collect(),
            parent: self.parent_f.clone(),
        }
    }

    /// The L2 passes: the last pass's optimum, and its problem when `l2.rs` solved it with no extra row
    /// binding (the rounding then takes `postprocess`'s route).
    fn l2_passes(&self, lp: &LevelPasses, trace: &mut Option<&mut Trace>) -> Fallible<(Vec<f64>, Option<l2::Problem>)> {
        let (run, terms, invariants, groups, qrows, qgroups) =
            (self.run, &self.terms, &self.invariants, &self.groups, &self.qrows, &self.qgroups);
        let (nk, m, live, scale, tol, plain, parent_total) =
            (self.nk, self.m, &self.live, self.scale, self.tol, self.plain, self.parent_total);
        let mut fixed_total: Vec<Option<f64>> = invariants.iter().map(|t| t.map(|v| v as f64)).collect();
        let mut fixed_rows: Vec<CellSumRow> = Vec::new();
        let mut x: Vec<f64> = Vec::new();
        let mut last_l2: Option<l2::Problem> = None;
        for (k, pass) in lp.l2.iter().enumerate() {
            let last = k + 1 == lp.l2.len();
            let total_only = pass.len() == 1 && is_total(&run.queries[pass[0]]);
            if total_only && plain && fixed_rows.is_empty() && !last {
                // one cell per child
                let p1 = l2::Problem {
                    n: 1,
                    children: (0..m)
                        .map(|c| Child {
                            terms: terms[c]
                                .iter()
                                .filter(|(q, _)| *q == pass[0])
                                .map(|(_, t)| Term { map: vec![0], rows: 1, weight: t.weight, y: t.y.clone() })
                                .collect(),
                            total: fixed_total[c],
                        })
                        .collect(),
                    parent: parent_total.map(|t| vec![t]),
                };
                let z = solve_l2(&p1)?;
                fix_totals(&z, invariants, parent_total, &mut fixed_total);
                if let Some(t) = trace.as_deref_mut() {
                    t.l2.push(vec![(run.queries[pass[0]].name.clone(), z)]);
                }
                continue;
            }
            let p = self.problem(pass, &fixed_total);
            last_l2 = None;
            x = if groups.is_empty() && fixed_rows.is_empty() {
                let relaxed = solve_l2(&p)?;
                let holds = qrows.iter().all(|r| {
                    let s: f64 = r.cells.iter().map(|&j| relaxed[r.child * nk + j as usize]).sum();
                    s >= r.lo - 1e-9 * scale && s <= r.hi + 1e-9 * scale
                });
                if holds {
                    last_l2 = Some(p);
                    relaxed
                } else {
                    qp::solve(&p, qrows, qgroups)?
                }
            } else {
                let rows: Vec<CellSumRow> = qrows.iter().chain(&fixed_rows).cloned().collect();
                qp::solve(&p, &rows, qgroups)?
            };
            if let Some(t) = trace.as_deref_mut() {
                t.xs.push(x.clone());
            }
            // this pass's answers constrain the later passes
            let mut answers = Vec::new();
            for &qi in pass {
                let q = &run.queries[qi];
                let cells = answer_cells(q, live);
                let mut a = Vec::with_capacity(m * cells.len());
                for c in 0..m {
                    for cs in &cells {
                        a.push(cs.iter().map(|&j| x[c * nk + j as usize]).sum::<f64>());
                    }
                }
                if is_total(q) && plain && fixed_rows.is_empty() {
                    fix_totals(&a, invariants, parent_total, &mut fixed_total);
                } else {
                    for c in 0..m {
                        for (j, cs) in cells.iter().enumerate() {
                            let v = a[c * cells.len() + j];
                            fixed_rows.push(CellSumRow { child: c, cells: cs.clone(), lo: v - tol, hi: v + tol });
                        }
                    }
                }
                answers.push((q.name.clone(), a));
            }
            if let Some(t) = trace.as_deref_mut() {
                t.l2.push(answers);
            }
        }
        Ok((x, last_l2))
    }

    /// The rounding passes over the L2 optimum `x`: the children's integer histograms over the live cells.
    fn rounding_passes(
        &self,
        lp: &LevelPasses,
        x: &[f64],
        last_l2: Option<&l2::Problem>,
        trace: &mut Option<&mut Trace>,
    ) -> Fallible<Vec<i64>> {
        let (invariants, groups, bounds, parent_live, live) = (&self.invariants, &self.groups, &self.bounds, &self.parent_live, &self.live);
        let (nk, m) = (self.nk, self.m);
        let mut totals: Vec<Option<i64>> = invariants.clone();
        let mut fixed: Vec<IRow> = Vec::new();
        let mut y: Vec<i64> = Vec::new();
        for (j, rp) in lp.rounding.iter().enumerate() {
            let last = j + 1 == lp.rounding.len();
            let only_total = !rp.cellwise && rp.penalties.len() == 1 && is_total(&rp.penalties[0]);
            let mut done = None;
            if only_total && bounds.is_empty() && groups.is_empty() && fixed.is_empty() && !last {
                let zt: Vec<f64> = (0..m).map(|c| x[c * nk..(c + 1) * nk].iter().map(|v| v.max(0.0)).sum()).collect();
                let par = parent_live.as_ref().map(|p| vec![p.iter().sum::<i64>()]);
                let z = rounding::round(&RoundingProblem { n: 1, x: &zt, parent: par.as_deref(), totals: invariants })?;
                for c in 0..m {
                    totals[c] = Some(z[c]);
                }
                if let Some(t) = trace.as_deref_mut() {
                    t.rounded.push(vec![(rp.penalties[0].name.clone(), z)]);
                }
                continue;
            }
            if rp.cellwise && rp.penalties.is_empty() && groups.is_empty() && fixed.is_empty() {
                done = self.cellwise_rounding(x, last_l2, &totals)?;
            }
            let yj = match done {
                Some(v) => v,
                None => {
                    let mut penalties = Vec::new();
                    for q in &rp.penalties {
                        for c in 0..m {
                            for cs in answer_cells(q, live) {
                                let v: f64 = cs.iter().map(|&k| x[c * nk + k as usize].max(0.0)).sum();
                                penalties.push(Penalty { child: c, cells: cs, target: v.round() as i64 });
                            }
                        }
                    }
                    round_lp::round_pass(&RoundPass {
                        n: nk,
                        x,
                        parent: parent_live.as_deref(),
                        totals: &totals,
                        groups,
                        bounds,
                        fixed: &fixed,
                        cellwise: rp.cellwise,
                        penalties: &penalties,
                    })?
                }
            };
            let mut answers = Vec::new();
            for (qi, q) in rp.penalties.iter().enumerate() {
                let cells = answer_cells(q, live);
                let mut a = Vec::new();
                for c in 0..m {
                    for cs in &cells {
                        let v: i64 = cs.iter().map(|&k| yj[c * nk + k as usize]).sum();
                        a.push(v);
                        if is_total(q) {
                            totals[c] = Some(v);
                        } else {
                            fixed.push(IRow { child: c, query: j * 1000 + qi, cells: cs.clone(), lo: v, hi: v });
                        }
                    }
                }
                answers.push((q.name.clone(), a));
            }
            if let Some(t) = trace.as_deref_mut() {
                t.rounded.push(answers);
            }
            y = yj;
        }
        Ok(y)
    }

    /// A cellwise rounding pass without penalties: the L2 optimum rounded (`postprocess`'s route when the
    /// last L2 pass was `l2.rs`'s), kept when it holds the group-quarters bounds.
    fn cellwise_rounding(&self, x: &[f64], last_l2: Option<&l2::Problem>, totals: &[Option<i64>]) -> Fallible<Option<Vec<i64>>> {
        let (nk, parent_live) = (self.nk, &self.parent_live);
        let cand = match last_l2 {
            // `postprocess`'s route: the direct optimum's certified rounding, else the interior point's
            Some(p) => match rounded_direct(p, parent_live.as_deref(), totals) {
                Some(v) => v,
                None => {
                    let xi = l2::solve(p)?;
                    rounding::round(&RoundingProblem { n: nk, x: &xi, parent: parent_live.as_deref(), totals })?
                }
            },
            None => {
                let r = RoundingProblem { n: nk, x, parent: parent_live.as_deref(), totals };
                match rounding::round_by_paths(&r) {
                    Some(v) => v,
                    None => rounding::round(&r)?,
                }
            }
        };
        let holds = self.bounds.iter().all(|b| {
            let s: i64 = b.cells.iter().map(|&k| cand[b.child * nk + k as usize]).sum();
            s >= b.lo && s <= b.hi
        });
        Ok(holds.then_some(cand))
    }
}

/// The group-quarters bounds of every child: rows over the live cells of each hhgq type.
fn gq_rows(run: &RunData, ch: &[u32], live: &[usize]) -> Fallible<Vec<IRow>> {
    let hh = hhgq_of_cells(&run.schema);
    let mut bounds: Vec<IRow> = Vec::new();
    for (c, &u) in ch.iter().enumerate() {
        for t in 0..run.schema.card[0] as usize {
            let Some((lo, hi)) = run.cons.gq_bounds(u as usize, t) else { break };
            let cells: Vec<u32> = (0..live.len()).filter(|&j| hh[live[j]] == t).map(|j| j as u32).collect();
            if cells.is_empty() {
                if lo > 0 {
                    return fallible!(
                        Input,
                        "'{}' needs at least {lo} persons of hhgq type {t}, but the parent has none",
                        run.spine.ids[u as usize]
                    );
                }
                continue;
            }
            bounds.push(IRow { child: c, query: usize::MAX, cells, lo, hi });
        }
    }
    Ok(bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::analysis::pp_accuracy::{fill, layout, set_invariants, truth_histograms};
    use crate::topdown::estimation::passes::{resolve, PassSpec};
    use crate::topdown::estimation::postprocess::{check, postprocess, postprocess_with};
    use crate::topdown::measurement::sampler::DiscreteGaussianSampler;
    use crate::topdown::measurement::schema::{Schema, DEFAULT_QUERIES};
    use crate::topdown::spine::{Bypass, GeoSpec, Spine, NONE};
    use rug::Rational;

    fn noisy_run(seed: u64, schema: &str) -> (RunData, Vec<u64>) {
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "3,1-3,1-3,1-5", seed, "").unwrap();
        let mut buf = Vec::new();
        spec.write(&mut buf).unwrap();
        let mut sp = Spine::from_reader(&buf[..]).unwrap();
        sp.apply_bypass(Bypass::Zcdp);
        let schema = Schema::parse(schema).unwrap();
        let s2: Vec<Rational> = ["20", "3", "7", "5", "40"].iter().map(|s| crate::num::parse_rational(s).unwrap()).collect();
        let (mut r, sig) = layout(&sp, &schema, &DEFAULT_QUERIES, &s2).unwrap();
        let truth = truth_histograms(&sp, &schema, 4, 6);
        let samplers: Vec<DiscreteGaussianSampler> = sig.into_iter().map(|s| DiscreteGaussianSampler::new(s).unwrap()).collect();
        fill(&mut r, &truth, Some(&samplers), seed);
        set_invariants(&mut r, &truth, 2);
        (r, truth)
    }

    /// TopDown's loop with every family through `family` (the shortcuts of `postprocess` kept: a
    /// single child copies its parent, an empty parent gives empty children).
    fn top_down(run: &RunData, lp: &[LevelPasses], traces: &mut Vec<(Vec<u32>, Trace)>) -> Vec<i64> {
        let sp = &run.spine;
        let nc = run.schema.cells();
        let mut est = vec![0i64; sp.n_units() * nc];
        let mut t = Trace::default();
        let y = family(run, None, &[sp.root], &lp[0], Some(&mut t)).unwrap();
        est[sp.root as usize * nc..(sp.root as usize + 1) * nc].copy_from_slice(&y);
        traces.push((vec![sp.root], t));
        let mut order: Vec<u32> = (0..sp.n_units() as u32).collect();
        order.sort_by_key(|&u| sp.level[u as usize]);
        for u in order {
            let ch = sp.children(u);
            if ch.is_empty() {
                continue;
            }
            let p = est[u as usize * nc..(u as usize + 1) * nc].to_vec();
            let y = if ch.len() == 1 {
                p.clone()
            } else if p.iter().all(|&v| v == 0) {
                vec![0; nc * ch.len()]
            } else {
                let mut t = Trace::default();
                let y = family(run, Some(&p), ch, &lp[sp.level[u as usize] as usize + 1], Some(&mut t)).unwrap();
                traces.push((ch.to_vec(), t));
                y
            };
            for (i, &c) in ch.iter().enumerate() {
                est[c as usize * nc..(c as usize + 1) * nc].copy_from_slice(&y[i * nc..(i + 1) * nc]);
            }
        }
        est
    }

    #[test]
    fn one_pass_through_the_multipass_route_is_the_single_pass_answer() {
        for seed in 0..5u64 {
            let (r, _) = noisy_run(40 + seed, if seed % 2 == 0 { "small" } else { "hhgq=3,votingage=2,hispanic=2" });
            let lp = resolve(&r, &PassSpec::Single, None).unwrap();
            assert!(lp.iter().all(|l| l.is_single()));
            let (a, _) = postprocess(&r).unwrap();
            assert_eq!(postprocess_with(&r, Some(&lp)).unwrap().0, a, "seed {seed}");
            let b = top_down(&r, &lp, &mut Vec::new());
            assert_eq!(b, a, "seed {seed}");
        }
    }

    /// Σ over the answer cells of q of child c's cells.
    fn answers(q: &MarginalQuery, live: &[usize], y: &[i64], nc: usize, c: usize) -> Vec<i64> {
        answer_cells(q, live).iter().map(|cs| cs.iter().map(|&j| y[c * nc + live[j as usize]]).sum()).collect()
    }

    #[test]
    fn every_pass_keeps_the_answers_of_the_passes_before_it() {
        for (spec, rounder) in [("production", None), ("total | hhgq | *", Some("total | hhgq | detailed"))] {
            let mut total_multi = 0;
            for seed in 0..4u64 {
                let (r, _) = noisy_run(60 + seed, "hhgq=3,votingage=2,hispanic=2");
                let rp = rounder.map(|s| PassSpec::parse(s).unwrap());
                let lp = resolve(&r, &PassSpec::parse(spec).unwrap(), rp.as_ref()).unwrap();
                let mut traces = Vec::new();
                let est = top_down(&r, &lp, &mut traces);
                check(&r, &est).unwrap();
                let nc = r.schema.cells();
                let mut multi = 0;
                for (ch, t) in &traces {
                    if t.rounded.len() < 2 {
                        continue;
                    }
                    multi += 1;
                    total_multi += 1;
                    // the output, restricted to the family's children
                    let y: Vec<i64> = ch.iter().flat_map(|&c| est[c as usize * nc..(c as usize + 1) * nc].to_vec()).collect();
                    // every earlier rounding pass's integer answers hold exactly in the final counts
                    for pass in &t.rounded[..t.rounded.len() - 1] {
                        for (name, a) in pass {
                            let q = MarginalQuery::parse(name, &r.schema).unwrap();
                            let got: Vec<i64> = (0..ch.len()).flat_map(|c| answers(&q, &t.live, &y, nc, c)).collect();
                            assert_eq!(&got, a, "{spec}, seed {seed}, query {name}");
                        }
                    }
                    // and each L2 pass solved in full keeps the earlier L2 passes' answers (within the tolerance)
                    let nk = t.live.len();
                    let x = t.xs.last().unwrap();
                    for pass in &t.l2[..t.l2.len() - 1] {
                        for (name, a) in pass {
                            let q = MarginalQuery::parse(name, &r.schema).unwrap();
                            let cells = answer_cells(&q, &t.live);
                            for c in 0..ch.len() {
                                for (j, cs) in cells.iter().enumerate() {
                                    let v: f64 = cs.iter().map(|&k| x[c * nk + k as usize]).sum();
                                    let want = a[c * cells.len() + j];
                                    // the pass's tolerance, and the interior point's own residual (1e-11 relative)
                                    assert!(
                                        (v - want).abs() <= t.tol * (1.0 + 1e-6) + 1e-9 * want.abs().max(1.0),
                                        "{spec}, {name}: {v} vs {want}"
                                    );
                                }
                            }
                        }
                    }
                }
                let _ = multi;
            }
            assert!(total_multi >= 8, "{spec}: {total_multi} families with several passes");
        }
    }

    #[test]
    fn structural_zeros_bounds_and_group_invariants_hold_and_exact_data_comes_back() {
        use crate::topdown::estimation::constraints::{aggregate_units, parse_structural_zeros};
        use crate::topdown::measurement::schema::{hhgq_of_cells, synthetic_units};
        for seed in 0..3u64 {
            let (mut r, truth) = noisy_run(80 + seed, "hhgq=5,votingage=2");
            let nc = r.schema.cells();
            // nursing minors (hhgq 3, votingage 0) moved to households in the truth
            let zero = parse_structural_zeros("hhgq=3&votingage=0", &r.schema).unwrap();
            let mut truth = truth;
            let sp = r.spine.clone();
            for &b in &sp.blocks {
                let z = r.schema.cell([3, 0, 0, 0]);
                let h = r.schema.cell([0, 0, 0, 0]);
                let v = truth[b as usize * nc + z];
                truth[b as usize * nc + z] = 0;
                truth[b as usize * nc + h] += v;
            }
            for u in (0..sp.n_units()).rev() {
                if sp.block_no[u] == NONE {
                    for k in 0..nc {
                        truth[u * nc + k] = sp.children(u as u32).iter().map(|&c| truth[c as usize * nc + k]).sum();
                    }
                }
            }
            let hh = hhgq_of_cells(&r.schema);
            let mut bu = Vec::new();
            let mut one = Vec::new();
            for &b in &sp.blocks {
                synthetic_units(&truth[b as usize * nc..(b as usize + 1) * nc], &hh, 5, &mut one);
                bu.extend_from_slice(&one);
            }
            r.cons.structural_zero = zero;
            r.cons.units = aggregate_units(&sp, &bu, 5);
            r.cons.types = 5;
            // the first state's total as a group invariant with its sibling
            let st: Vec<u32> = sp.children(sp.root).to_vec();
            set_invariants(&mut r, &truth, 1);
            if st.len() >= 2 {
                let t: u64 = st[..2].iter().map(|&u| truth[u as usize * nc..(u as usize + 1) * nc].iter().sum::<u64>()).sum();
                r.cons.groups = vec![(st[..2].to_vec(), t as i64)];
            }
            let noisy = r.clone();
            let (est, _) = postprocess(&noisy).unwrap();
            check(&noisy, &est).unwrap();
            // production passes too
            let lp = resolve(&noisy, &PassSpec::Production, None).unwrap();
            let (est2, _) = postprocess_with(&noisy, Some(&lp)).unwrap();
            check(&noisy, &est2).unwrap();
            // exact measurements: the truth comes back
            let mut exact = r.clone();
            fill(&mut exact, &truth, None, 0);
            // one pass and the production passes
            let (e1, _) = postprocess(&exact).unwrap();
            assert_eq!(e1, truth.iter().map(|&v| v as i64).collect::<Vec<_>>(), "seed {seed}");
            let (e, _) = postprocess_with(&exact, Some(&lp)).unwrap();
            assert_eq!(e, truth.iter().map(|&v| v as i64).collect::<Vec<_>>(), "seed {seed}");
        }
    }
}
