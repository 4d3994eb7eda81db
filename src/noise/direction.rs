//! Which data set of a neighbouring pair holds the record (a leaf: the loss-law slot and the moment
//! generating functions both name it).

/// Which data set of a neighbouring pair holds the record: the one the output law A is drawn from
/// (`Remove`: A = M(D), B = M(D minus the record)) or the other one (`Add`: A = M(D), B = M(D plus the
/// record)). For the replace relation the laws say which pair they mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Remove,
    Add,
}

impl Direction {
    /// The other data set: the swapped pair.
    pub fn swapped(self) -> Direction {
        match self {
            Direction::Remove => Direction::Add,
            Direction::Add => Direction::Remove,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Direction::Remove => "remove",
            Direction::Add => "add",
        }
    }
}
