//! A loaded measurement run, as post-processing reads it (`load.rs` fills it from a run directory;
//! `postprocess.rs`, `multipass.rs` and `by_state.rs` solve it).

use crate::error::Fallible;
use crate::topdown::estimation::constraints::Constraints;
use crate::topdown::geography::spine::{Spine, NONE};
use crate::topdown::measurement::schema::{MarginalQuery, Schema};
use crate::{err, fallible};

/// One noise entry of a measurement group: a query of the level, its σ² (the weight is 1/σ²), and
/// where its answers sit in a unit's measurement vector.
#[derive(Clone, Debug)]
pub struct GroupEntry {
    pub noise_id: usize,
    /// Index into `RunData::queries`.
    pub query: usize,
    pub sigma2: f64,
    pub offset: usize,
}

/// The measurements of the units of one geolevel and budget span: every unit of the group has the
/// same queries with the same noise.
#[derive(Clone, Debug)]
pub struct MeasurementGroup {
    pub level: usize,
    pub span: usize,
    pub entries: Vec<GroupEntry>,
    /// Length of a unit's measurement vector (Σ query cells).
    pub len: usize,
}

/// Everything post-processing needs: the spine (with its bypass), the schema, the queries, the
/// measurement groups, per unit its group and measurements, and the invariant totals.
#[derive(Clone, Debug)]
pub struct RunData {
    pub spine: Spine,
    pub schema: Schema,
    pub queries: Vec<MarginalQuery>,
    pub groups: Vec<MeasurementGroup>,
    /// Group of each unit (NONE: not measured, span 0).
    pub unit_group: Vec<u32>,
    /// Offset of each measured unit's vector in `values`.
    pub unit_off: Vec<usize>,
    pub values: Vec<f64>,
    /// Invariant total of each unit, or −1.
    pub invariant: Vec<i64>,
    /// Structural zeros, group-quarters bounds, group invariants (`constraints.rs`; default none).
    pub cons: Constraints,
}

impl RunData {
    /// Lay out the measurement vectors for the spine's measured units (values NaN until filled).
    /// `groups` must hold one group for every (level, span) of a measured unit.
    pub fn new(spine: Spine, schema: Schema, queries: Vec<MarginalQuery>, groups: Vec<MeasurementGroup>) -> Fallible<RunData> {
        RunData::new_layout(spine, schema, queries, groups, true)
    }

    /// As `new`; without `values` the measurement vector is left empty (a run read state by state).
    pub fn new_layout(
        spine: Spine,
        schema: Schema,
        queries: Vec<MarginalQuery>,
        groups: Vec<MeasurementGroup>,
        values: bool,
    ) -> Fallible<RunData> {
        let nu = spine.n_units();
        let mut unit_group = vec![NONE; nu];
        let mut unit_off = vec![0usize; nu];
        let mut total = 0usize;
        for u in 0..nu {
            let k = spine.span[u] as usize;
            if k == 0 {
                continue;
            }
            let l = spine.level[u] as usize;
            let g = groups.iter().position(|g| g.level == l && g.span == k).ok_or_else(|| {
                err!(
                    Input,
                    "no measurements are declared for geolevel '{}' with budget span {k} (geounit '{}')",
                    spine.levels[l],
                    spine.ids[u]
                )
            })?;
            unit_group[u] = g as u32;
            unit_off[u] = total;
            total += groups[g].len;
        }
        let invariant = vec![-1i64; nu];
        Ok(RunData {
            spine,
            schema,
            queries,
            groups,
            unit_group,
            unit_off,
            values: if values { vec![f64::NAN; total] } else { Vec::new() },
            invariant,
            cons: Constraints::default(),
        })
    }

    /// The measurement vector of a measured unit.
    pub fn unit_values(&self, u: usize) -> Option<&[f64]> {
        let g = self.unit_group[u];
        if g == NONE {
            return None;
        }
        let o = self.unit_off[u];
        Some(&self.values[o..o + self.groups[g as usize].len])
    }

    /// Invariants must sit on a top part of the tree: a unit with an invariant has a parent with one
    /// (or is the root), all its siblings have one, and siblings' totals add up to their parent's.
    pub fn check_invariants(&self) -> Fallible<()> {
        let sp = &self.spine;
        for u in 0..sp.n_units() {
            if self.invariant[u] < 0 {
                continue;
            }
            let p = sp.parent[u];
            if p == NONE {
                continue;
            }
            if self.invariant[p as usize] < 0 {
                return fallible!(
                    Input,
                    "invariant for {} '{}' but none for its parent '{}': invariants must cover the geolevels above them",
                    sp.levels[sp.level[u] as usize],
                    sp.ids[u],
                    sp.ids[p as usize]
                );
            }
            let ch = sp.children(p);
            let in_group = |c: u32| self.cons.groups.iter().any(|(g, _)| g.contains(&c));
            if let Some(&c) = ch.iter().find(|&&c| self.invariant[c as usize] < 0 && !in_group(c)) {
                return fallible!(
                    Input,
                    "invariant for '{}' but none for its sibling '{}': invariants must cover all children of a parent",
                    sp.ids[u],
                    sp.ids[c as usize]
                );
            }
        }
        for u in 0..sp.n_units() {
            let ch = sp.children(u as u32);
            // (children covered by group invariants are checked below)
            if self.invariant[u] >= 0 && !ch.is_empty() && ch.iter().all(|&c| self.invariant[c as usize] >= 0) {
                let s = checked_sum(ch.iter().map(|&c| self.invariant[c as usize]))
                    .ok_or_else(|| err!(Input, "the invariant totals of the children of '{}' overflow when added", sp.ids[u]))?;
                if s != self.invariant[u] {
                    return fallible!(
                        Input,
                        "the invariant totals of the children of '{}' add up to {s}, not to its invariant {}",
                        sp.ids[u],
                        self.invariant[u]
                    );
                }
            }
        }
        // group invariants: siblings; where they and unit invariants cover a parent's children, the
        // totals add up to the parent's invariant
        for (us, _) in &self.cons.groups {
            let p = sp.parent[us[0] as usize];
            if us.iter().any(|&u| sp.parent[u as usize] != p) {
                return fallible!(Input, "a group invariant's geounits are not siblings");
            }
        }
        let mut parents: Vec<u32> = self.cons.groups.iter().map(|(us, _)| sp.parent[us[0] as usize]).collect();
        parents.sort_unstable();
        parents.dedup();
        for p in parents {
            if p == NONE || self.invariant[p as usize] < 0 {
                continue;
            }
            let ch = sp.children(p);
            let groups = self.cons.groups_of(sp, ch);
            let covered = |i: usize| self.invariant[ch[i] as usize] >= 0 || groups.iter().any(|(g, _)| g.contains(&i));
            if (0..ch.len()).all(covered) {
                let s = checked_sum(
                    (0..ch.len())
                        .filter(|&i| self.invariant[ch[i] as usize] >= 0)
                        .map(|i| self.invariant[ch[i] as usize])
                        .chain(groups.iter().map(|(_, t)| *t)),
                )
                .ok_or_else(|| err!(Input, "invariant totals overflow when added"))?;
                if s != self.invariant[p as usize] {
                    return fallible!(
                        Input,
                        "the invariant totals under '{}' (its groups of geounits) add up to {s}, not to its invariant {}",
                        sp.ids[p as usize],
                        self.invariant[p as usize]
                    );
                }
            }
        }
        Ok(())
    }
}

/// Σ of integers, `None` on i64 overflow (counts come from files: an overflow is bad input, not a bug).
pub(crate) fn checked_sum(mut it: impl Iterator<Item = i64>) -> Option<i64> {
    it.try_fold(0i64, |s, x| s.checked_add(x))
}
