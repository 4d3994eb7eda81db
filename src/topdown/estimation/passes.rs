//! The query passes of TopDown's estimation (the production `multipass`): which queries each L2 pass
//! targets and which each rounding pass rounds, per geolevel of the geounits being estimated.
//!
//! Spelling (`topdown postprocess --passes`, `--rounder-passes`): passes separated by `|`, queries
//! within a pass by `,`, `*` for every measured query no other pass names, e.g. `total | *`. A query
//! a geolevel does not measure is left out of that geolevel's passes, and a pass left empty is
//! dropped. `--passes production` is the ordering of the Bureau's redistricting production run
//! (uscensusbureau/DAS_2020_Redistricting_Production_Code, `programs/strategies/strategies.py`,
//! `Strategy1b_ST_CTY_TR_BG_isoTot_Ordering_dsepJune3`; read for the ordering, no code taken): the
//! root and the blocks in one pass; every geolevel in between first the total, then the other
//! queries constrained to it. The rounding passes follow the L2 passes (every L2 pass but the last
//! rounds its queries' answers, the last pass rounds cell by cell), unless `--rounder-passes` names
//! them: there `detailed` means the cellwise rounding and every other query an L1 penalty on its
//! answers. (Production rounds the final pass with the chain total, hhgq, hhgq × hispanic, …,
//! detailed: `--rounder-passes "total | hhgq, hhgq * hispanic, hhgq * hispanic * cenrace, detailed"`.)

use crate::error::Fallible;
use crate::fallible;
use crate::topdown::estimation::run::RunData;
use crate::topdown::measurement::schema::MarginalQuery;

/// The passes as written.
#[derive(Clone, Debug, PartialEq)]
pub enum PassSpec {
    /// One pass of every query (`*`): the single-pass problem.
    Single,
    /// The production ordering (module comment).
    Production,
    Custom(Vec<Vec<String>>),
}

impl PassSpec {
    pub fn parse(s: &str) -> Fallible<PassSpec> {
        let s = s.trim();
        match s {
            "" | "*" | "single" => return Ok(PassSpec::Single),
            "production" => return Ok(PassSpec::Production),
            _ => {}
        }
        let passes: Vec<Vec<String>> = s
            .split('|')
            .map(|p| p.split(',').map(|q| q.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|q| !q.is_empty()).collect())
            .collect();
        if passes.iter().any(|p: &Vec<String>| p.is_empty()) {
            return fallible!(Input, "passes '{s}': an empty pass (passes are separated by |, queries by ,)");
        }
        let mut seen: Vec<&String> = Vec::new();
        for q in passes.iter().flatten() {
            if seen.contains(&q) {
                return fallible!(Input, "passes '{s}': query '{q}' appears twice");
            }
            seen.push(q);
        }
        if passes.len() == 1 && passes[0] == ["*"] {
            return Ok(PassSpec::Single);
        }
        Ok(PassSpec::Custom(passes))
    }
}

/// One rounding pass: L1 penalties on these queries' answers, and the cellwise rounding or not.
#[derive(Clone, Debug)]
pub struct RoundingPass {
    pub penalties: Vec<MarginalQuery>,
    pub cellwise: bool,
}

impl PartialEq for RoundingPass {
    fn eq(&self, o: &RoundingPass) -> bool {
        self.cellwise == o.cellwise
            && self.penalties.len() == o.penalties.len()
            && self.penalties.iter().zip(&o.penalties).all(|(a, b)| a.map == b.map)
    }
}

/// The passes of one geolevel, as query indices into `RunData::queries`.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelPasses {
    pub l2: Vec<Vec<usize>>,
    pub rounding: Vec<RoundingPass>,
}

impl LevelPasses {
    /// The single-pass problem (one L2 pass, cellwise rounding).
    pub fn is_single(&self) -> bool {
        self.l2.len() <= 1 && self.rounding.len() == 1 && self.rounding[0] == RoundingPass { penalties: Vec::new(), cellwise: true }
    }
}

/// Resolve the specifications for every geolevel of the run's spine (index: the geolevel of the
/// geounits being estimated; 0 is the root's own solve).
pub fn resolve(run: &RunData, l2: &PassSpec, rounder: Option<&PassSpec>) -> Fallible<Vec<LevelPasses>> {
    let nl = run.spine.n_levels();
    let mut out = Vec::with_capacity(nl);
    for l in 0..nl {
        // queries measured at l, in the manifest's order
        let mut measured: Vec<usize> = Vec::new();
        for g in run.groups.iter().filter(|g| g.level == l) {
            for e in &g.entries {
                if !measured.contains(&e.query) {
                    measured.push(e.query);
                }
            }
        }
        let name = |i: usize| run.queries[i].name.as_str();
        let by_name = |n: &str| measured.iter().copied().find(|&i| name(i).eq_ignore_ascii_case(n));
        let expand = |spec: &[Vec<String>]| -> Fallible<Vec<Vec<usize>>> {
            let named: Vec<usize> = spec.iter().flatten().filter_map(|q| by_name(q)).collect();
            for q in spec.iter().flatten() {
                if q != "*" && MarginalQuery::parse(q, &run.schema).is_err() {
                    return fallible!(Input, "passes: unknown query '{q}'");
                }
            }
            let passes = spec
                .iter()
                .map(|p| {
                    let mut v: Vec<usize> = Vec::new();
                    for q in p {
                        if q == "*" {
                            v.extend(measured.iter().copied().filter(|i| !named.contains(i)));
                        } else if let Some(i) = by_name(q) {
                            v.push(i);
                        }
                    }
                    v
                })
                .filter(|p| !p.is_empty())
                .collect();
            Ok(passes)
        };
        let l2_passes: Vec<Vec<usize>> = match l2 {
            PassSpec::Single => vec![measured.clone()],
            PassSpec::Production => match by_name("total") {
                Some(t) if l > 0 && l + 1 < nl && measured.len() > 1 => {
                    vec![vec![t], measured.iter().copied().filter(|&i| i != t).collect()]
                }
                _ => vec![measured.clone()],
            },
            PassSpec::Custom(spec) => {
                let v = expand(spec)?;
                // queries measured but in no pass join the last one
                let mut v = if v.is_empty() { vec![measured.clone()] } else { v };
                let rest: Vec<usize> = measured.iter().copied().filter(|i| !v.iter().flatten().any(|j| j == i)).collect();
                if let Some(last) = v.last_mut() {
                    last.extend(rest);
                }
                v
            }
        };
        let rounding = match rounder {
            Some(PassSpec::Single) => vec![RoundingPass { penalties: Vec::new(), cellwise: true }],
            None | Some(PassSpec::Production) => {
                let mut r: Vec<RoundingPass> = l2_passes[..l2_passes.len().saturating_sub(1)]
                    .iter()
                    .map(|p| RoundingPass { penalties: p.iter().map(|&i| run.queries[i].clone()).collect(), cellwise: false })
                    .collect();
                r.push(RoundingPass { penalties: Vec::new(), cellwise: true });
                r
            }
            Some(PassSpec::Custom(spec)) => {
                // the rounder's queries need not be measured: they are answered from the L2 solution
                let mut r = Vec::new();
                for p in spec {
                    let mut pass = RoundingPass { penalties: Vec::new(), cellwise: false };
                    for q in p {
                        if q.eq_ignore_ascii_case("detailed") {
                            pass.cellwise = true;
                        } else if q == "*" {
                            return fallible!(Input, "rounder passes: name the queries (no *)");
                        } else {
                            pass.penalties.push(MarginalQuery::parse(q, &run.schema).map_err(|e| e.context("rounder passes"))?);
                        }
                    }
                    r.push(pass);
                }
                r
            }
        };
        out.push(LevelPasses { l2: l2_passes, rounding });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(PassSpec::parse("*").unwrap(), PassSpec::Single);
        assert_eq!(PassSpec::parse(" production ").unwrap(), PassSpec::Production);
        assert_eq!(
            PassSpec::parse("total | votingage*hispanic, *").unwrap(),
            PassSpec::Custom(vec![vec!["total".into()], vec!["votingage*hispanic".into(), "*".into()]])
        );
        assert!(PassSpec::parse("total || *").is_err());
        assert!(PassSpec::parse("total | total").is_err());
    }
}
