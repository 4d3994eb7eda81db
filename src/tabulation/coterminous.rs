//! Algorithm 4 of [HBC25] (§5.3.3, "Coterminous geographies"): post-processing
//! that makes the counts of coterminous population groups identical.
//!
//! Geographic entities of different summary levels are coterminous when they are aggregated from
//! identical collections of blocks (D.C. as state, county and place; a county with a single tract).
//! A characteristic iteration gets independent noisy counts at each of them, and may be suppressed
//! at some and not others. For each set C of coterminous population groups (same iteration,
//! coterminous entities), Algorithm 4 walks the summary levels in the order R; the first group
//! (hierarchically highest) that has data — was not suppressed — is the donor, and every other group
//! of C has its counts removed and replaced by the donor's counts M (lines 5–13). The paper's loop
//! has no `break`: after the first donor every member holds M, so later iterations copy M again;
//! stopping at the first donor gives the same output. If every member is suppressed nothing changes.
//!
//! Privacy: the sets C and the order R are functions of the public geography only, and the step
//! reads nothing but the released output, so it is post-processing (Lemma 4): the manifest and
//! `tightdp certify` are unchanged.
//!
//! Choices of this implementation (the paper takes C and R as inputs and does not list them):
//! * C is derived exactly from the geography file: two entities are coterminous iff every block of
//!   each lies in the other. The paper also treats "statistically equivalent" entities (a county with
//!   one water-only tract and one other tract) as coterminous; the geography file carries no water
//!   flag, so such sets are not formed here.
//! * R = USA, STATE, COUNTY, TRACT, PLACE, AIANNH: the nested spine first (nation ⊃ state ⊃ county ⊃
//!   tract), then the off-spine levels. This reproduces the paper's example (D.C.: the state is the
//!   donor for county and place).

use crate::tabulation::safetab_spec::{GeoLevel, Geography, NONE};

/// R: the summary levels from hierarchically highest to lowest.
pub const ORDER: [GeoLevel; 6] = [GeoLevel::Usa, GeoLevel::State, GeoLevel::County, GeoLevel::Tract, GeoLevel::Place, GeoLevel::Aiannh];

fn entity(level: GeoLevel, b: &[u32; 5]) -> u32 {
    match level {
        GeoLevel::Usa => 0,
        GeoLevel::State => b[0],
        GeoLevel::County => b[1],
        GeoLevel::Tract => b[2],
        GeoLevel::Place => b[3],
        GeoLevel::Aiannh => b[4],
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Image {
    Unset,
    One(u32),
    Many,
}

fn see(slot: &mut Image, v: u32) {
    *slot = match *slot {
        _ if v == NONE => Image::Many,
        Image::Unset => Image::One(v),
        Image::One(w) if w == v => Image::One(v),
        _ => Image::Many,
    };
}

fn find(p: &mut [usize], mut x: usize) -> usize {
    while p[x] != x {
        p[x] = p[p[x]];
        x = p[x];
    }
    x
}

/// The sets (≥ 2 members) of coterminous geographic entities, each as (level, entity index) ordered
/// by [`ORDER`]; sets sorted by their first member. Exact: A at level a and B at level b are joined
/// iff the blocks of A all map to B at level b and the blocks of B all map to A at level a.
pub fn coterminous_geographies(geo: &Geography) -> Vec<Vec<(GeoLevel, u32)>> {
    let n: Vec<usize> = ORDER.iter().map(|l| geo.ids.get(l).map_or(0, |v| v.len())).collect();
    let mut offset = vec![0usize; ORDER.len() + 1];
    for i in 0..ORDER.len() {
        offset[i + 1] = offset[i] + n[i];
    }
    let mut parent: Vec<usize> = (0..offset[ORDER.len()]).collect();
    for a in 0..ORDER.len() {
        for b in a + 1..ORDER.len() {
            let mut fa = vec![Image::Unset; n[a]];
            let mut fb = vec![Image::Unset; n[b]];
            for blk in geo.blocks.values() {
                let (ea, eb) = (entity(ORDER[a], blk), entity(ORDER[b], blk));
                if ea != NONE {
                    see(&mut fa[ea as usize], eb);
                }
                if eb != NONE {
                    see(&mut fb[eb as usize], ea);
                }
            }
            for (ea, img) in fa.iter().enumerate() {
                if let Image::One(eb) = *img {
                    if fb[eb as usize] == Image::One(ea as u32) {
                        let (x, y) = (find(&mut parent, offset[a] + ea), find(&mut parent, offset[b] + eb as usize));
                        if x != y {
                            parent[x.max(y)] = x.min(y);
                        }
                    }
                }
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<(GeoLevel, u32)>> = Default::default();
    for (li, level) in ORDER.iter().enumerate() {
        for e in 0..n[li] {
            let r = find(&mut parent, offset[li] + e);
            groups.entry(r).or_default().push((*level, e as u32));
        }
    }
    // members were pushed level by level in ORDER, so each set is already ordered by R
    groups.into_values().filter(|g| g.len() >= 2).collect()
}

/// Algorithm 4 on a released output: `df[g]` holds the counts of population group g, `None` when
/// the group was suppressed (no data). Each set lists the groups of one set of coterminous
/// population groups, ordered by R. Returns the number of groups whose counts were replaced.
pub fn algorithm4<T: Clone>(df: &mut [Option<T>], sets: &[Vec<usize>]) -> usize {
    let mut replaced = 0;
    for c in sets {
        // line 6–8: the first P in R order for which df contains data
        let Some(&donor) = c.iter().find(|&&p| df[p].is_some()) else { continue };
        let m = df[donor].clone(); // line 9
        for &q in c.iter().filter(|&&q| q != donor) {
            df[q] = m.clone(); // lines 11–12: remove the counts of P', add M for P'
            replaced += 1;
        }
    }
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A hand-built geography (block key → [state, county, tract, place, aiannh]):
    /// * state 0 ("11", D.C.-like): one county 0 with one tract 0 (blocks 1, 2), place 0 covering
    ///   both blocks → {STATE 0, COUNTY 0, TRACT 0, PLACE 0} coterminous (not USA: two states);
    /// * state 1 ("22"): county 1 with tracts 1 (blocks 3, 4) and 2 (block 5); place 1 = blocks 3, 4
    ///   (coterminous with tract 1); AIANNH 0 = block 5 plus block 6 of tract 3 in county 2 — not
    ///   coterminous with anything (it spans two tracts and two counties); tract 3 = blocks 6, 7 is
    ///   alone in county 2, so {COUNTY 2, TRACT 3}; place 2 = block 7 only (part of tract 3): none.
    fn geo() -> Geography {
        let mut ids: HashMap<GeoLevel, Vec<String>> = HashMap::new();
        ids.insert(GeoLevel::Usa, vec!["1".into()]);
        ids.insert(GeoLevel::State, vec!["11".into(), "22".into()]);
        ids.insert(GeoLevel::County, vec!["11001".into(), "22001".into(), "22003".into()]);
        ids.insert(GeoLevel::Tract, vec!["11001000100".into(), "22001000100".into(), "22001000200".into(), "22003000100".into()]);
        ids.insert(GeoLevel::Place, vec!["1150000".into(), "2200100".into(), "2200200".into()]);
        ids.insert(GeoLevel::Aiannh, vec!["0001".into()]);
        let mut blocks = HashMap::new();
        blocks.insert(1, [0, 0, 0, 0, NONE]);
        blocks.insert(2, [0, 0, 0, 0, NONE]);
        blocks.insert(3, [1, 1, 1, 1, NONE]);
        blocks.insert(4, [1, 1, 1, 1, NONE]);
        blocks.insert(5, [1, 1, 2, NONE, 0]);
        blocks.insert(6, [1, 2, 3, NONE, 0]);
        blocks.insert(7, [1, 2, 3, 2, NONE]);
        Geography { ids, blocks }
    }

    #[test]
    fn coterminous_sets_of_a_hand_built_geography() {
        use GeoLevel::*;
        let sets = coterminous_geographies(&geo());
        // derived by hand in the doc comment of `geo`
        assert_eq!(
            sets,
            vec![vec![(State, 0), (County, 0), (Tract, 0), (Place, 0)], vec![(County, 2), (Tract, 3)], vec![(Tract, 1), (Place, 1)]]
        );
    }

    #[test]
    fn one_state_makes_the_nation_coterminous_with_it() {
        use GeoLevel::*;
        let mut g = geo();
        g.blocks.retain(|_, b| b[0] == 0);
        g.ids.insert(State, vec!["11".into()]);
        g.ids.insert(County, vec!["11001".into()]);
        g.ids.insert(Tract, vec!["11001000100".into()]);
        g.ids.insert(Place, vec!["1150000".into()]);
        g.ids.insert(Aiannh, vec![]);
        assert_eq!(coterminous_geographies(&g), vec![vec![(Usa, 0), (State, 0), (County, 0), (Tract, 0), (Place, 0)]]);
    }

    /// Algorithm 4 on a constructed output; the expected result is worked out from §5.3.3 by hand:
    /// set A = groups 0 (state), 1 (county), 2 (tract), 3 (place): the state has data → it is the
    /// donor, all others get its counts (3 replaced), including the suppressed county.
    /// set B = 4 (tract, suppressed), 5 (place, total 3): the tract has no data, the place is the
    /// donor, so the tract now holds 3 (1 replaced). set C = 6, 7 both suppressed: unchanged.
    /// Group 8 is in no set: unchanged.
    #[test]
    fn donor_is_the_highest_unsuppressed_group() {
        let mut df: Vec<Option<Vec<i64>>> =
            vec![Some(vec![50]), None, Some(vec![10, 12, 9, 14]), Some(vec![47]), None, Some(vec![3]), None, None, Some(vec![8])];
        let sets = vec![vec![0, 1, 2, 3], vec![4, 5], vec![6, 7]];
        let n = algorithm4(&mut df, &sets);
        assert_eq!(n, 4);
        assert_eq!(
            df,
            vec![Some(vec![50]), Some(vec![50]), Some(vec![50]), Some(vec![50]), Some(vec![3]), Some(vec![3]), None, None, Some(vec![8])]
        );
        // idempotent: a second pass changes nothing (every set now agrees)
        let before = df.clone();
        algorithm4(&mut df, &sets);
        assert_eq!(df, before);
    }
}
