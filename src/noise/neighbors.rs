//! The neighbour relation between data sets, and its one spelling.
//!
//! * add/remove: one record added or removed;
//! * replace: one record changes its value. What that does to a query depends on the query, and each law
//!   has one definition (`docs/neighbors.md`): the lattice laws (`dgauss:`, `dlap:`, allocation files)
//!   are histogram queries, two cells move — two independent unit shifts per query, the TopDown code's
//!   relation; the continuous laws (`gauss:`, `laplace:`) are sum queries whose record contribution lies
//!   within `mu` of none, so the value moves by up to 2·mu along one direction — dp_accounting's REPLACE
//!   pair, the same with Poisson subsampling (q = 1 is no subsampling).

use crate::error::Fallible;
use crate::fallible;

/// The neighbour relation between data sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Neighbors {
    AddRemove,
    Replace,
}

impl Neighbors {
    pub fn as_str(&self) -> &'static str {
        match self {
            Neighbors::AddRemove => "add-remove",
            Neighbors::Replace => "replace",
        }
    }

    /// The one parser of the relation's names, everywhere (command line, allocation files, manifests):
    /// `add-remove` (also `add_remove`, `addremove`, `add/remove`, `unbounded`) or `replace` (also
    /// `bounded`).
    pub fn parse(s: &str) -> Fallible<Neighbors> {
        match s.trim() {
            "add-remove" | "add_remove" | "addremove" | "add/remove" | "unbounded" => Ok(Neighbors::AddRemove),
            "replace" | "bounded" => Ok(Neighbors::Replace),
            other => fallible!(Input, "neighbors must be 'add-remove' or 'replace', got '{other}'"),
        }
    }

    /// Unit shifts per query of a histogram query (the lattice laws): 1 (add/remove) or 2 (replace).
    pub fn shifts_per_query(&self) -> u64 {
        match self {
            Neighbors::AddRemove => 1,
            Neighbors::Replace => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_spelling_for_every_reader() {
        for s in ["add-remove", "add_remove", "addremove", "add/remove", "unbounded", " add-remove "] {
            assert_eq!(Neighbors::parse(s).unwrap(), Neighbors::AddRemove, "{s}");
        }
        for s in ["replace", "bounded"] {
            assert_eq!(Neighbors::parse(s).unwrap(), Neighbors::Replace, "{s}");
        }
        let e = Neighbors::parse("swap").unwrap_err();
        assert_eq!(e.to_string(), "neighbors must be 'add-remove' or 'replace', got 'swap'");
        assert_eq!(Neighbors::Replace.shifts_per_query(), 2);
    }
}
