//! Histogram schema, marginal query groups and synthetic person records.
//!
//! The schema is the redistricting one ([KR22, §2]: HHGQ × VOTINGAGE ×
//! HISPANIC × CENRACE, 8·2·2·63 = 2016 cells) with configurable cardinalities, so that tests and
//! benchmarks can use small histograms. A query group ([CAK24, §2.3]) is a
//! marginal: a Kronecker product of identities (kept attributes) and rows of ones (summed ones).
//! Names follow the TopDown strategy: `total`, `detailed`, `hhinstlevels` (HHGQ collapsed to
//! household / institutional / non-institutional) and products like `votingage * hispanic`.

use crate::error::Fallible;
use crate::{err, fallible};
use rand::{Rng, SeedableRng};
use std::io::Write;

pub const ATTRS: [&str; 4] = ["hhgq", "votingage", "hispanic", "cenrace"];

#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// Cardinality of hhgq, votingage, hispanic, cenrace.
    pub card: [u32; 4],
}

impl Schema {
    pub fn parse(s: &str) -> Fallible<Schema> {
        match s.trim() {
            "pl94" => return Ok(Schema { card: [8, 2, 2, 63] }),
            "small" => return Ok(Schema { card: [3, 2, 2, 4] }),
            "scalar" => return Ok(Schema { card: [1, 1, 1, 1] }),
            _ => {}
        }
        let mut card = [1u32; 4];
        for part in s.split(',') {
            let (k, v) =
                part.split_once('=').ok_or_else(|| err!(Input, "--schema: expected pl94, small, scalar or NAME=N,..., got '{part}'"))?;
            let i = attr_index(k.trim())
                .ok_or_else(|| err!(Input, "--schema: unknown attribute '{}' (hhgq, votingage, hispanic, cenrace)", k.trim()))?;
            let n: u32 = v.trim().parse().map_err(|_| err!(Input, "--schema: bad cardinality '{v}'"))?;
            if !(1..=1000).contains(&n) {
                return fallible!(Input, "--schema: cardinality of {} must be between 1 and 1000", ATTRS[i]);
            }
            card[i] = n;
        }
        Ok(Schema { card })
    }

    pub fn cells(&self) -> usize {
        self.card.iter().map(|&c| c as usize).product()
    }

    /// Cell index of a record (row-major in ATTRS order).
    pub fn cell(&self, v: [u32; 4]) -> usize {
        let mut i = 0usize;
        for k in 0..4 {
            i = i * self.card[k] as usize + v[k] as usize;
        }
        i
    }

    pub fn decode(&self, mut i: usize) -> [u32; 4] {
        let mut v = [0u32; 4];
        for k in (0..4).rev() {
            v[k] = (i % self.card[k] as usize) as u32;
            i /= self.card[k] as usize;
        }
        v
    }

    pub fn describe(&self) -> String {
        ATTRS.iter().zip(self.card).map(|(a, c)| format!("{a}={c}")).collect::<Vec<_>>().join(",")
    }
}

fn attr_index(s: &str) -> Option<usize> {
    match s.to_lowercase().as_str() {
        "hhgq" | "gq" => Some(0),
        "votingage" | "va" | "voting_age" => Some(1),
        "hispanic" | "hisp" => Some(2),
        "cenrace" | "race" => Some(3),
        _ => None,
    }
}

/// hhgq code → household (0) / institutional (1) / non-institutional (2): codes 1..=⌈(K−1)/2⌉ are
/// institutional (for K = 8: correctional, juvenile, nursing, other institutional).
fn inst_level(h: u32, k: u32) -> u32 {
    if h == 0 {
        0
    } else if h <= k / 2 {
        1
    } else {
        2
    }
}

/// A marginal query group over the schema.
#[derive(Clone, Debug)]
pub struct MarginalQuery {
    pub name: String,
    /// Histogram cell → query cell.
    pub map: Vec<u32>,
    pub cells: usize,
}

/// The ten queries used for allocations that only give a query count (`queries = 10`).
pub const DEFAULT_QUERIES: [&str; 10] = [
    "total",
    "hhgq",
    "votingage",
    "hispanic",
    "cenrace",
    "votingage * hispanic",
    "votingage * cenrace",
    "hispanic * cenrace",
    "votingage * hispanic * cenrace",
    "detailed",
];

impl MarginalQuery {
    pub fn parse(name: &str, schema: &Schema) -> Fallible<MarginalQuery> {
        let n = name.trim().to_lowercase();
        let nc = schema.cells();
        let mut map = vec![0u32; nc];
        let cells;
        if n == "total" {
            cells = 1;
        } else if n == "detailed" {
            for (c, m) in map.iter_mut().enumerate() {
                *m = c as u32;
            }
            cells = nc;
        } else if n == "hhinstlevels" {
            let k = schema.card[0];
            for (c, m) in map.iter_mut().enumerate() {
                *m = inst_level(schema.decode(c)[0], k);
            }
            cells = (k as usize).min(3);
        } else {
            let mut dims: Vec<usize> = Vec::new();
            for part in n.split('*') {
                let i = attr_index(part.trim()).ok_or_else(|| err!(Input, "unknown query '{name}' (attribute '{}')", part.trim()))?;
                if dims.contains(&i) {
                    return fallible!(Input, "query '{name}' repeats an attribute");
                }
                dims.push(i);
            }
            for (c, m) in map.iter_mut().enumerate() {
                let v = schema.decode(c);
                let mut j = 0usize;
                for &d in &dims {
                    j = j * schema.card[d] as usize + v[d] as usize;
                }
                *m = j as u32;
            }
            cells = dims.iter().map(|&d| schema.card[d] as usize).product();
        }
        Ok(MarginalQuery { name: name.trim().to_string(), map, cells })
    }

    /// Query answers from a histogram.
    pub fn answer(&self, hist: &[u64], out: &mut Vec<u64>) {
        out.clear();
        out.resize(self.cells, 0);
        for (c, &h) in hist.iter().enumerate() {
            out[self.map[c] as usize] += h;
        }
    }
}

/// Synthetic persons of one block, deterministic from (seed, block number): population uniform on
/// [0, 2·mean], attributes with census-like skews. Each person is a cell index.
pub fn synth_block(seed: u64, block_no: u64, mean: u32, schema: &Schema, out: &mut Vec<[u32; 4]>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(block_no);
    out.clear();
    let n = rng.gen_range(0..=2 * mean);
    for _ in 0..n {
        let pick = |rng: &mut rand_chacha::ChaCha8Rng, k: u32, p0: f64| -> u32 {
            if k == 1 || rng.gen::<f64>() < p0 {
                0
            } else {
                rng.gen_range(1..k)
            }
        };
        let h = pick(&mut rng, schema.card[0], 0.95);
        let va = pick(&mut rng, schema.card[1], 0.23);
        let hi = pick(&mut rng, schema.card[2], 0.81);
        let r = pick(&mut rng, schema.card[3], 0.6);
        out.push([h, va, hi, r]);
    }
}

/// Write a synthetic person file for the blocks (in block order).
pub fn write_persons<W: Write>(w: W, block_ids: &[String], seed: u64, mean: u32, schema: &Schema) -> Fallible<u64> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
    let e = |e: std::io::Error| err!(Io, "write failed: {e}");
    writeln!(w, "block,{}", ATTRS.join(",")).map_err(e)?;
    let mut buf = Vec::new();
    let mut n = 0u64;
    for (i, b) in block_ids.iter().enumerate() {
        synth_block(seed, i as u64, mean, schema, &mut buf);
        for p in &buf {
            writeln!(w, "{b},{},{},{},{}", p[0], p[1], p[2], p[3]).map_err(e)?;
            n += 1;
        }
    }
    w.flush().map_err(e)?;
    Ok(n)
}

/// Read a person file into block histograms (block number → cells). Columns: `block` and the
/// four attributes (any order), optionally `count` (a non-negative weight for aggregated rows).
pub fn read_persons<R: std::io::Read>(r: R, block_index: &std::collections::HashMap<&str, u32>, schema: &Schema) -> Fallible<Vec<u32>> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(r);
    let hdr = rdr.headers().map_err(|e| crate::error::Error::from(e).context("bad header"))?.clone();
    let col = |name: &str| hdr.iter().position(|h| h.trim().eq_ignore_ascii_case(name));
    let bcol = col("block").ok_or_else(|| err!(Input, "person file: missing column 'block'"))?;
    let mut acol = [0usize; 4];
    for (k, a) in ATTRS.iter().enumerate() {
        acol[k] = col(a).ok_or_else(|| err!(Input, "person file: missing column '{a}'"))?;
    }
    let ccol = col("count");
    let nc = schema.cells();
    let mut hist = vec![0u32; block_index.len() * nc];
    let mut rec = csv::StringRecord::new();
    let mut line = 1usize;
    while rdr.read_record(&mut rec).map_err(|e| crate::error::Error::from(e).context(format!("person file line {}", line + 1)))? {
        line += 1;
        let b = rec[bcol].trim();
        let bi = *block_index.get(b).ok_or_else(|| err!(Input, "person file line {line}: unknown block '{b}'"))?;
        let mut v = [0u32; 4];
        for k in 0..4 {
            let s = rec[acol[k]].trim();
            let x: i64 = s.parse().map_err(|_| err!(Input, "person file line {line}: {} '{s}' is not an integer", ATTRS[k]))?;
            if x < 0 || x >= schema.card[k] as i64 {
                return fallible!(Input, "person file line {line}: {} = {x} outside 0..{} of the schema", ATTRS[k], schema.card[k]);
            }
            v[k] = x as u32;
        }
        let cnt: i64 = match ccol {
            None => 1,
            Some(c) => crate::num::parse::parse_count_field(&rec[c], "count").map_err(|e| e.context(format!("person file line {line}")))?,
        };
        let slot = &mut hist[bi as usize * nc + schema.cell(v)];
        *slot = slot
            .checked_add(u32::try_from(cnt).map_err(|_| err!(Input, "person file line {line}: count too large"))?)
            .ok_or_else(|| err!(Input, "person file line {line}: count overflow"))?;
    }
    Ok(hist)
}

/// The hhgq type of each histogram cell.
pub fn hhgq_of_cells(schema: &Schema) -> Vec<usize> {
    (0..schema.cells()).map(|c| schema.decode(c)[0] as usize).collect()
}

/// Synthetic facilities of a block from its histogram (block cells): a housing unit per 3 household
/// persons, a facility per 50 persons of a group quarters type (so a type with persons has at least
/// one). A stand-in for the unit table of production (`topdown measure --gq-units`).
pub fn synthetic_units(hist: &[u64], hhgq_of: &[usize], types: usize, out: &mut Vec<u32>) {
    let mut persons = vec![0u64; types];
    for (c, &h) in hist.iter().enumerate() {
        persons[hhgq_of[c]] += h;
    }
    out.clear();
    out.extend(persons.iter().enumerate().map(|(t, &n)| n.div_ceil(if t == 0 { 3 } else { 50 }) as u32));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marginals() {
        let s = Schema::parse("pl94").unwrap();
        assert_eq!(s.cells(), 2016);
        for (q, n) in [("total", 1), ("detailed", 2016), ("hhinstlevels", 3), ("votingage * hispanic * cenrace", 252), ("hhgq", 8)] {
            assert_eq!(MarginalQuery::parse(q, &s).unwrap().cells, n, "{q}");
        }
        let mut hist = vec![0u64; 2016];
        hist[s.cell([5, 1, 0, 7])] = 3;
        hist[s.cell([0, 0, 1, 7])] = 2;
        let q = MarginalQuery::parse("hhinstlevels", &s).unwrap();
        let mut out = Vec::new();
        q.answer(&hist, &mut out);
        assert_eq!(out, vec![2, 0, 3]);
        let q = MarginalQuery::parse("cenrace", &s).unwrap();
        q.answer(&hist, &mut out);
        assert_eq!(out[7], 5);
        assert!(MarginalQuery::parse("age", &s).is_err());
    }

    #[test]
    fn persons_roundtrip_and_negative_counts() {
        let s = Schema::parse("small").unwrap();
        let ids = vec!["b1".to_string(), "b2".to_string()];
        let mut buf = Vec::new();
        let n = write_persons(&mut buf, &ids, 5, 10, &s).unwrap();
        let idx: std::collections::HashMap<&str, u32> = ids.iter().enumerate().map(|(i, b)| (b.as_str(), i as u32)).collect();
        let h = read_persons(&buf[..], &idx, &s).unwrap();
        assert_eq!(h.iter().map(|&x| x as u64).sum::<u64>(), n);
        let bad = "block,hhgq,votingage,hispanic,cenrace,count\nb1,0,0,0,0,-2\n";
        assert!(read_persons(bad.as_bytes(), &idx, &s).unwrap_err().to_string().contains("count -2 is negative"));
        let bad = "block,hhgq,votingage,hispanic,cenrace\nzz,0,0,0,0\n";
        assert!(read_persons(bad.as_bytes(), &idx, &s).unwrap_err().to_string().contains("unknown block"));
    }

    /// Synthetic facilities: a housing unit per 3 household persons (7 → 3), a facility per 50 persons
    /// of a group quarters type (51 → 2).
    #[test]
    fn synthetic_units_round_up_per_type() {
        let mut out = Vec::new();
        synthetic_units(&[7, 0, 51, 0], &[0, 0, 1, 1], 2, &mut out);
        assert_eq!(out, vec![3, 2]);
    }
}
