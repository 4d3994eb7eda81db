//! Shuffled batches beside Poisson subsampling (`tightdp shuffle`, `tightdp.shuffle` in Python): the
//! certified lower bound of one explicit attack on shuffled training (`attack::shuffle`) and the certified
//! Poisson accounting of the same expected batch size (q = 1/T over T·E steps), which practitioners often
//! quote for shuffled training, with the verdict the two give together.

use crate::account::{Accountant, Options};
use crate::attack::shuffle::{Relation, Shuffle, TestBound};
use crate::error::{ErrorKind, Fallible};
use crate::fallible;
use crate::model::{spec::parse_mech, Composition, Neighbors};
use crate::num::format::{fmt_down, fmt_rational};
use crate::record::Record;
use rug::Rational;

/// What is asked: ε at δ, or δ at ε.
#[derive(Clone, Debug)]
pub enum ShuffleQuery {
    Epsilon(Rational),
    Delta(Rational),
}

/// The CSV columns of the row.
pub const SHUFFLE_COLUMNS: &[&str] = &[
    "sampler",
    "neighbors",
    "sigma",
    "steps_per_epoch",
    "epochs",
    "measure",
    "at",
    "shuffled_at_least",
    "trust",
    "test",
    "poisson_lo",
    "poisson_hi",
    "poisson_method",
    "poisson_digits",
    "verdict",
];

/// The row: the bound, its test, the Poisson bracket at `digits` and the verdict.
pub fn shuffle_row(sigma: &Rational, steps: u64, epochs: u64, query: &ShuffleQuery, neighbors: &str, digits: u32) -> Fallible<Record> {
    let (nb, relation) = match neighbors {
        "add-remove" => (Neighbors::AddRemove, Relation::AddRemove),
        "replace" => (Neighbors::Replace, Relation::Replace),
        other => return fallible!(Input, "neighbors must be add-remove or replace, got '{other}'"),
    };
    if !(1..=40).contains(&digits) {
        return fallible!(Input, "digits must be between 1 and 40");
    }
    let s = Shuffle::new(sigma.clone(), steps, epochs, relation)?;
    // Poisson subsampling at the same expected batch: q = 1/T, T·E steps
    let total = steps.checked_mul(epochs).filter(|&n| n <= crate::model::spec::MAX_N).ok_or_else(|| {
        crate::err!(
            Input,
            "steps times epochs is more than the {} steps the Poisson accounting beside the bound takes",
            crate::model::spec::MAX_N
        )
    })?;
    let (measure, at, bound) = match query {
        ShuffleQuery::Epsilon(d) => ("epsilon", d.clone(), s.epsilon_lower(d)?),
        ShuffleQuery::Delta(e) => ("delta", e.clone(), s.delta_lower(e)?),
    };
    let spec = format!("gauss:sigma={},q=1/{steps},n={total}", fmt_rational(sigma));
    let acc = Accountant::new(Composition::new(vec![parse_mech(&spec)?], nb)?, Options { digits, ..Options::default() })?;
    let answer = if measure == "epsilon" { acc.epsilon(&at) } else { acc.delta(&at).map(|d| d.delta) };
    // the comparison beyond every engine (a tiny noise multiplier: refused by size or range once settled):
    // the bound stands alone, saying why
    let poisson = match answer {
        Ok(c) => Ok(c),
        Err(e) if matches!(e.kind(), ErrorKind::Declined | ErrorKind::Resource | ErrorKind::Input) => Err(e.to_string()),
        Err(e) => return Err(e),
    };
    let mut r = Record::new();
    r.push("sampler", "shuffle and iterate");
    r.push("neighbors", nb.as_str());
    r.push("sigma", fmt_rational(sigma));
    r.push("steps_per_epoch", steps.to_string());
    r.push("epochs", epochs.to_string());
    r.push("measure", measure);
    r.push("at", fmt_rational(&at));
    match &bound {
        Some(b) => {
            r.push("shuffled_at_least", fmt_down(b.value.lo(), 12));
            r.push("trust", "certified-lower-bound");
            r.push("test", describe(b, epochs, relation));
        }
        None => {
            r.push("shuffled_at_least", "");
            r.push("trust", "");
            r.push("test", "no test of the family gives a positive bound here");
        }
    }
    match &poisson {
        Ok(c) => {
            let p = c.printed(digits as usize + 5);
            r.push("poisson_lo", p.lo.clone());
            r.push("poisson_hi", p.hi.clone());
            r.push("poisson_method", c.engine().as_str());
            r.push("poisson_digits", p.digits_field());
            r.push("verdict", verdict(&bound, c.hi(), measure));
        }
        Err(why) => {
            for k in ["poisson_lo", "poisson_hi", "poisson_method", "poisson_digits"] {
                r.push(k, "");
            }
            r.push("verdict", format!("no comparison: the Poisson accounting of the same expected batches is not certified here ({why})"));
        }
    }
    Ok(r)
}

fn describe(b: &TestBound, epochs: u64, relation: Relation) -> String {
    let tau = fmt_down(&rug::Float::with_val(64, &b.tau), 6);
    let (rel, k) = if b.with_record_first { (">=", b.k) } else { ("<", b.k) };
    let (input, first) = match relation {
        Relation::AddRemove => ("every other gradient 0, the record's +1 present or absent", "the record present"),
        Relation::Replace => ("every other gradient -1, the record's +1 replaced by -1", "the record's +1"),
    };
    let order = if b.with_record_first { "first" } else { "second" };
    format!("one input ({input}); the test: largest output of an epoch above {tau} in {rel} {k} of {epochs} epochs ({first} {order})")
}

fn verdict(bound: &Option<TestBound>, poisson_hi: &rug::Float, measure: &str) -> String {
    match bound {
        Some(b) if *b.value.lo() > *poisson_hi => format!(
            "shuffling is provably less private than the Poisson accounting of the same expected batches: its {measure} is at least {}, above Poisson's",
            fmt_down(b.value.lo(), 6)
        ),
        Some(_) => format!("this attack does not contradict the Poisson accounting (the shuffled {measure} is at least the bound, possibly more)"),
        None => "no conclusion from this attack".to_string(),
    }
}
