//! Algorithm 3 of [CAK24, §5] ("Move_Spine_to_Pareto_Frontier") with its pure-DP branch.
//!
//! Bottom-up, from the geolevel above the blocks to the root's children, every geounit u (share γ_u)
//! with c children (shares γ_1 … γ_c, after the bypasses below them) is bypassed when
//! * c = 1 (both branches: Observation 1), or
//! * pure DP: 2·min_i γ_i ≥ (c − 1)·γ_u (Theorem 2: then no diagonal element of Var(V x̂) grows
//!   under Laplace noise; with equal shares, c ≤ 3), where the production code adds two conditions
//!   (uscensusbureau/DAS_2020_Redistricting_Production_Code, `programs/geographic_spines/
//!   optimize_spine.py`, `bypassing_improves_parent` and `move_to_pareto_frontier`; read for the
//!   rules, no code taken): u's parent must have at most `bypass_cutoff` children afterwards (its
//!   siblings + c; production 150), and the rule runs at the county geolevel and below only
//!   (`define_spines.py`, `bypass_above_county`: above, single children only).
//!
//! Bypassing u ([CAK24, §5]): u is replaced by c geounits at its geolevel, one per child, each with
//! that child alone and share γ_u + γ_i; the child's share becomes 0. Path sums are unchanged
//! (Theorem 3). For c = 1 that is `Spine::apply_bypass`'s span absorption (the tree keeps its
//! shape), so only the multi-child bypasses change the tree: a new geounit is named `u~child`. The
//! spine returned is then exactly what `apply_bypass(PureDp)` (absorption only) gives on the new
//! tree, which is how a run directory reloads it.

use crate::error::Fallible;
use crate::fallible;
use crate::num::parse_rational;
use crate::topdown::geography::spine::{Bypass, Spine, NONE};
use rug::Rational;
use std::collections::HashSet;

/// What Algorithm 3 did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Alg3Stats {
    /// Single-child parents (their child's share moved up).
    pub single: usize,
    /// Multi-child geounits bypassed by the pure-DP rule.
    pub multi: usize,
    /// Geounits created by those bypasses.
    pub created: usize,
}

/// Equal geolevel shares 1/L, for spines summarised without an allocation.
pub fn equal_shares(levels: usize) -> Vec<Rational> {
    (0..levels).map(|_| Rational::from((1, levels as u32))).collect()
}

/// Parse shares given as a comma list (fractions or decimals) — one per geolevel, summing to 1.
pub fn parse_shares(list: &str, levels: usize) -> Fallible<Vec<Rational>> {
    let v: Vec<Rational> =
        list.split(',').map(|s| parse_rational(s.trim()).map_err(|e| e.context("--shares"))).collect::<Result<_, _>>()?;
    if v.len() != levels {
        return fallible!(Input, "--shares gives {} geolevel shares, the spine has {levels} geolevels", v.len());
    }
    if v.iter().any(|x| *x <= 0) || v.iter().fold(Rational::new(), |s, x| s + x) != 1 {
        return fallible!(Input, "--shares must be positive and sum to 1");
    }
    Ok(v)
}

/// The geolevel from which multi-child bypasses are considered: the county (production), else the
/// root's children.
pub fn default_top(sp: &Spine) -> usize {
    sp.level_index("County").unwrap_or(1).max(1)
}

/// Algorithm 3 with the pure-DP rule on `sp` (its own bypass state ignored), geolevel shares `beta`.
/// Multi-child bypasses are considered at geolevel `top` and below (production: the county).
pub fn pareto_frontier(sp: &Spine, beta: &[Rational], bypass_cutoff: usize, top: usize) -> Fallible<(Spine, Alg3Stats)> {
    let nl = sp.n_levels();
    if beta.len() != nl {
        return fallible!(Input, "Algorithm 3: {} geolevel shares for {nl} geolevels", beta.len());
    }
    let mut ids = sp.ids.clone();
    let mut level: Vec<u8> = sp.level.clone();
    let mut parent = sp.parent.clone();
    let mut kids: Vec<Vec<u32>> = (0..sp.n_units() as u32).map(|u| sp.children(u).to_vec()).collect();
    let mut span: Vec<u8> = vec![1; sp.n_units()];
    let mut alive = vec![true; sp.n_units()];
    let mut taken: HashSet<String> = ids.iter().cloned().collect();
    let gamma = |l: u8, k: u8| -> Rational { beta[l as usize..(l + k) as usize].iter().fold(Rational::new(), |s, b| s + b) };
    let mut st = Alg3Stats::default();
    let mut parents_at: Vec<Vec<u32>> = vec![Vec::new(); nl];
    for u in 0..sp.n_units() {
        parents_at[sp.level[u] as usize].push(u as u32);
    }
    // unit geolevel l (the geounits considered), their parents at l − 1
    for l in (1..nl - 1).rev() {
        for &p in &parents_at[l - 1] {
            for u in kids[p as usize].clone() {
                let ui = u as usize;
                let ch = kids[ui].clone();
                if ch.len() == 1 {
                    let c = ch[0] as usize;
                    span[ui] += span[c];
                    span[c] = 0;
                    st.single += 1;
                    continue;
                }
                let siblings = kids[p as usize].len() - 1;
                if l < top || siblings + ch.len() > bypass_cutoff {
                    continue;
                }
                let gu = gamma(level[ui], span[ui]);
                let gmin = ch.iter().map(|&c| gamma(level[c as usize], span[c as usize])).min().expect("invariant: a parent has children");
                if 2 * gmin < Rational::from(&gu * (ch.len() as u32 - 1)) {
                    continue;
                }
                // bypass u: one new geounit per child, in u's place among p's children
                let pos = kids[p as usize].iter().position(|&x| x == u).expect("invariant: a child of its parent");
                let mut created = Vec::with_capacity(ch.len());
                for &c in &ch {
                    let id = format!("{}~{}", ids[ui], ids[c as usize]);
                    if !taken.insert(id.clone()) {
                        return fallible!(
                            Input,
                            "Algorithm 3: the bypass of '{}' would create geounit '{id}', an id the geography already uses",
                            ids[ui]
                        );
                    }
                    let v = ids.len() as u32;
                    ids.push(id);
                    level.push(level[ui]);
                    parent.push(p);
                    kids.push(vec![c]);
                    span.push(span[ui] + span[c as usize]);
                    alive.push(true);
                    span[c as usize] = 0;
                    parent[c as usize] = v;
                    created.push(v);
                }
                kids[p as usize].splice(pos..pos + 1, created);
                alive[ui] = false;
                kids[ui].clear();
                st.multi += 1;
                st.created += ch.len();
            }
        }
    }
    // the root's single child
    let root = sp.root as usize;
    if kids[root].len() == 1 && nl > 1 {
        let c = kids[root][0] as usize;
        span[root] += span[c];
        span[c] = 0;
        st.single += 1;
    }
    let out = renumbered(sp, ids, &level, &parent, &kids, &span, &alive)?;
    Ok((out, st))
}

/// The spine after Algorithm 3's bypasses (`ids`, `level`, `parent`, `kids`, `span` by working unit index,
/// `alive`: not bypassed), renumbered parents before children (breadth first); blocks keep their order.
fn renumbered(
    sp: &Spine,
    mut ids: Vec<String>,
    level: &[u8],
    parent: &[u32],
    kids: &[Vec<u32>],
    span: &[u8],
    alive: &[bool],
) -> Fallible<Spine> {
    let mut order: Vec<u32> = vec![sp.root];
    let mut i = 0;
    while i < order.len() {
        let u = order[i] as usize;
        order.extend(kids[u].iter().copied());
        i += 1;
    }
    let mut new_of = vec![NONE; ids.len()];
    for (k, &u) in order.iter().enumerate() {
        new_of[u as usize] = k as u32;
    }
    debug_assert!(order.iter().all(|&u| alive[u as usize]));
    let n_ids: Vec<String> = order.iter().map(|&u| std::mem::take(&mut ids[u as usize])).collect();
    let n_level: Vec<u8> = order.iter().map(|&u| level[u as usize]).collect();
    let n_parent: Vec<u32> =
        order.iter().map(|&u| if parent[u as usize] == NONE { NONE } else { new_of[parent[u as usize] as usize] }).collect();
    let n_blocks: Vec<u32> = sp.blocks.iter().map(|&b| new_of[b as usize]).collect();
    let mut out = Spine::assemble(sp.levels.clone(), n_ids, n_level, n_parent, n_blocks, sp.ose.clone())?;
    out.span = order.iter().map(|&u| span[u as usize]).collect();
    out.bypass = Bypass::PureDp;
    out.path_signatures()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(a: i32, b: i32) -> Rational {
        Rational::from((a, b))
    }

    /// US → S (one state) → counties C1 (3 blocks), C2 (4 blocks), C3 (1 block).
    const GEO: &str = "block,US,State,County\n\
        a1,US,S,C1\na2,US,S,C1\na3,US,S,C1\nb1,US,S,C2\nb2,US,S,C2\nb3,US,S,C2\nb4,US,S,C2\nc1,US,S,C3\n";

    #[test]
    fn theorem_2_with_equal_shares_bypasses_up_to_three_children() {
        // equal shares 1/4: C1 (c = 3): 2·(1/4) ≥ 2·(1/4) → bypassed; C2 (c = 4): 1/2 < 3/4 → kept;
        // C3 (one child) absorbs c1. Then S has children a1~, a2~, a3~ (γ 1/2 each), C2, C3 (γ 1/2):
        // c = 5, 2·(1/4) < 4·(1/4) → kept. The root's single child S absorbs it.
        let sp = Spine::from_reader(GEO.as_bytes()).unwrap();
        let (t, st) = pareto_frontier(&sp, &equal_shares(4), 150, 1).unwrap();
        assert_eq!(st, Alg3Stats { single: 2, multi: 1, created: 3 });
        let id = |s: &str| t.ids.iter().position(|x| x == s).unwrap_or_else(|| panic!("{s}"));
        let s = id("S");
        let kids: Vec<&str> = t.children(s as u32).iter().map(|&c| t.ids[c as usize].as_str()).collect();
        assert_eq!(kids, vec!["C1~a1", "C1~a2", "C1~a3", "C2", "C3"]);
        // spans (geolevels carried): C1~a1 = county + block, a1 = 0; C3 = 2, c1 = 0; US = 2, S = 0
        for (u, k) in [("C1~a1", 2), ("a1", 0), ("C2", 1), ("b1", 1), ("C3", 2), ("c1", 0), ("US", 2), ("S", 0)] {
            assert_eq!(t.span[id(u)], k, "{u}");
        }
        // path sums stay 1 (Theorem 3); absorption on the new tree gives the same spans
        let sig = t.path_signatures().unwrap();
        assert_eq!(sig[&vec![(0, 2), (2, 2)]], 4); // a1..a3, c1
        assert_eq!(sig[&vec![(0, 2), (2, 1), (3, 1)]], 4); // b1..b4
        let mut again = t.clone();
        again.apply_bypass(Bypass::PureDp);
        assert_eq!(again.span, t.span);
        assert!(!t.ids.iter().any(|x| x == "C1"));
    }

    #[test]
    fn unequal_shares_and_the_cutoff_decide() {
        let sp = Spine::from_reader(GEO.as_bytes()).unwrap();
        // shares 1/4, 1/16, 1/16, 5/8: C1 and C2 bypassed (2·5/8 ≥ 2/16, 3/16); S then has 3 + 4 + 1
        // children of share 11/16 each: 2·11/16 ≥ 7·1/16 → S bypassed too, into 8 geounits `S~…`
        let beta = vec![q(1, 4), q(1, 16), q(1, 16), q(5, 8)];
        let (t, st) = pareto_frontier(&sp, &beta, 150, 1).unwrap();
        assert_eq!((st.multi, st.created), (3, 3 + 4 + 8));
        assert!(t.ids.iter().any(|x| x == "S~C1~a1") && t.ids.iter().any(|x| x == "S~C3"));
        assert_eq!(t.path_signatures().unwrap().into_keys().collect::<Vec<_>>(), vec![vec![(0, 1), (1, 3)]]);
        // with shares 1/4, 1/4, 1/8, 3/8 S stays: 2·(1/8 + 3/8) < 7·1/4
        let (_, st) = pareto_frontier(&sp, &[q(1, 4), q(1, 4), q(1, 8), q(3, 8)], 150, 1).unwrap();
        assert_eq!((st.multi, st.created), (2, 7));
        // a cut-off of 6: C1's bypass leaves S 2 + 3 = 5 children; C2's would give it 4 + 4 = 8; S itself
        // (6 children, the smallest share C2's 1/16) stays
        let (t, st) = pareto_frontier(&sp, &beta, 6, 1).unwrap();
        assert_eq!(st.multi, 1);
        assert!(t.ids.iter().any(|x| x == "C2"));
        // and with the rule starting below the counties' level only single children move
        let (_, st) = pareto_frontier(&sp, &beta, 150, 3).unwrap();
        assert_eq!(st, Alg3Stats { single: 2, multi: 0, created: 0 });
    }
}
