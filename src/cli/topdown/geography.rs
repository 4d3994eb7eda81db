//! `tightdp topdown gen-geography | persons | spine`: synthetic geographies and persons, spine summaries
//! and the spine optimisations (AIAN branch, Algorithm 2, Algorithm 3).

use crate::error::Fallible;
use crate::fallible;
use crate::record::render_rows;
use crate::record::write_streamed;
use crate::record::{Format, Record};
use crate::topdown::measurement::schema::{write_persons, Schema};
use crate::topdown::spine::{Bypass, GeoSpec, Spine};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct GenGeoArgs {
    /// Geolevel names, top (root) first, blocks last
    #[arg(long, default_value = "US,State,County,Tract,Optimized Block Group,Block")]
    pub levels: String,
    /// Fan-out per geolevel above the blocks: N or MIN-MAX, comma-separated (a leading 1 for the single root is allowed)
    #[arg(long, default_value = "2,2-3,2-4,1-3,1-6")]
    pub fanout: String,
    /// Off-spine entity categories NAME:FRACTION (fraction of blocks inside some entity; runs along the
    /// blocks). The production categories of the spines paper (§6) have their own rules: gq:F (blocks
    /// with group quarters, by combination of the 7 major GQ types), mcd (every block of a strong-MCD
    /// state outside the AIAN areas, within counties), place:F (with mcd: within a state, outside the
    /// MCDs), sd:F (school districts, within a state), cbg (conventional block groups: 12 blocks of a
    /// tract); aian:F is a run category
    #[arg(long, default_value = "place:0.3,aian:0.1")]
    pub ose: String,
    /// The production off-spine categories instead of --ose: redistricting (aian, gq, mcd, place) or
    /// dhc (aian, sd, cbg)
    #[arg(long, value_name = "NAME", conflicts_with = "ose")]
    pub ose_preset: Option<String>,
    /// Write the AIAN spine: every geounit from the State geolevel down split into its part inside the
    /// AIAN areas (id~A) and outside (id~N) by the aian category; the original states become the
    /// category ose:State
    #[arg(long)]
    pub aian_branch: bool,
    /// States (ids as written, comma-separated) whose MCDs the mcd category draws
    #[arg(long, value_name = "LIST", default_value = "09,23,25,26,27,33,34,36,42,44,50,55")]
    pub strong_mcd_states: String,
    /// Seed of the random draws: the same seed, the same output
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file (CSV)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct PersonsArgs {
    /// Geography file written by `tightdp topdown gen-geography`
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Seed of the random draws: the same seed, the same output
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mean block population (uniform on 0..2·mean)
    #[arg(long, default_value_t = 30)]
    pub mean: u32,
    /// Histogram schema: pl94 (8·2·2·63), small (3·2·2·4), scalar, or hhgq=..,votingage=..,hispanic=..,cenrace=..
    #[arg(long, default_value = "small")]
    pub schema: String,
    /// Output file (CSV)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct SpineArgs {
    /// Geography file written by `tightdp topdown gen-geography`
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Algorithm 3: none, zcdp (single children) or pure-dp (also Theorem 2's multi-child bypasses,
    /// at the county geolevel and below, with --shares and --bypass-cutoff)
    #[arg(long, value_enum, default_value = "zcdp")]
    pub bypass: Bypass,
    /// Algorithm 3, pure-dp: a geounit is not bypassed when its parent would then have more children
    #[arg(long, value_name = "N", default_value_t = 150)]
    pub bypass_cutoff: usize,
    /// Algorithm 3, pure-dp: the geolevel shares β (comma-separated, top first, summing to 1);
    /// default equal shares
    #[arg(long, value_name = "LIST")]
    pub shares: Option<String>,
    /// Apply the AIAN branch first (the AIAN spine of the spines paper, §1): geounits from the State
    /// geolevel down split by the AIAN category
    #[arg(long)]
    pub aian_branch: bool,
    /// The off-spine category of the AIAN areas
    #[arg(long, default_value = "aian", requires = "aian_branch")]
    pub aian_category: String,
    /// Apply Algorithm 2 of the spines paper first: optimized block groups and greedy tract groups;
    /// the table is then of the redefined spine, with the off-spine entity distances before and after
    #[arg(long)]
    pub alg2: bool,
    /// Algorithm 2: at most ⌊√n⌋ + CUTOFF blocks per optimized block group and tracts per tract group
    #[arg(long, value_name = "CUTOFF", default_value_t = 2, requires = "alg2")]
    pub fanout_cutoff: u32,
    /// Algorithm 2: the county geolevel (the tract geolevel must be directly below it)
    #[arg(long, default_value = "County", requires = "alg2")]
    pub county_level: String,
    /// Geolevel whose units Algorithm 2 redefines as tracts (with --alg2)
    #[arg(long, default_value = "Tract", requires = "alg2")]
    pub tract_level: String,
    /// Algorithm 2, production pre-pass: first combine tracts with identical sets of entities
    #[arg(long, requires = "alg2")]
    pub identical_tracts: bool,
    /// Algorithm 2, production: leave out entities whose distance in the county without tract groups
    /// is at most N (production: 9)
    #[arg(long, value_name = "N", requires = "alg2")]
    pub entity_threshold: Option<u64>,
    /// Write the geography after the AIAN branch, Algorithm 2 and Algorithm 3 (pure-dp's new
    /// geounits) to this file (`--alg2-out` is the old spelling)
    #[arg(long = "out", alias = "alg2-out", value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

pub(super) fn gen_geography(a: GenGeoArgs) -> Fallible<String> {
    let ose = match &a.ose_preset {
        Some(p) => GeoSpec::preset(p)?,
        None => a.ose.as_str(),
    };
    let mut spec = GeoSpec::parse(&a.levels, &a.fanout, a.seed, ose)?.with_strong_mcd_states(&a.strong_mcd_states);
    if a.aian_branch {
        spec = spec.with_aian_branch()?;
    }
    let n = write_streamed(&a.out, |w| spec.write(w))?;
    Ok(format!("wrote {} blocks to {}\n", n, a.out.display()))
}

pub(super) fn persons(a: PersonsArgs) -> Fallible<String> {
    let schema = Schema::parse(&a.schema)?;
    let sp = Spine::from_path(&a.geography)?;
    if a.mean > 100_000 {
        return fallible!(Input, "--mean must be at most 100000");
    }
    let ids: Vec<String> = sp.blocks.iter().map(|&b| sp.ids[b as usize].clone()).collect();
    let n = write_streamed(&a.out, |w| write_persons(w, &ids, a.seed, a.mean, &schema))?;
    Ok(format!("wrote {} persons in {} blocks to {}\n", n, ids.len(), a.out.display()))
}

pub(super) fn spine(a: SpineArgs) -> Fallible<String> {
    let input = Spine::from_path(&a.geography)?;
    let before = (a.aian_branch || a.alg2).then(|| osed_all(&input));
    let (sp, notes) = redefine(&a, input)?;
    let nby = sp.span.iter().filter(|&&s| s == 0).count();
    if let Some(out) = &a.out {
        write_streamed(out, |w| crate::topdown::rundir::write_geography(&sp, w))?;
    }
    let sigs = sp.path_signatures()?;
    let rows = spine_rows(&sp, before.as_deref());
    let mut out = render_rows(&rows, a.format);
    if a.format == Format::Table {
        for n in notes {
            out += &n;
            out.push('\n');
        }
        if before.is_some() {
            out += "off-spine entity distances after, and before (osed_*_before) on the input geography\n";
        }
        out += &format!(
            "blocks {}; bypass {}: {} geounits bypassed; {} distinct budget paths, each summing to 1 (Theorem 3)\n",
            sp.blocks.len(),
            a.bypass.as_str(),
            nby,
            sigs.len()
        );
    }
    Ok(out)
}

/// Each off-spine category's entities' distances (OSED) on the spine `s`.
fn osed_all(s: &Spine) -> Vec<(String, Vec<u64>)> {
    s.ose
        .iter()
        .enumerate()
        .map(|(k, o)| (o.name.clone(), (0..o.entities.len() as u32).map(|e| s.osed(&s.ose_members(k, e))).collect()))
        .collect()
}

/// The input spine redefined as asked (the AIAN branch, Algorithm 2, the bypass rule), with a note on each
/// step taken.
fn redefine(a: &SpineArgs, input: Spine) -> Fallible<(Spine, Vec<String>)> {
    use crate::topdown::geography::{aian, alg2, alg3};
    let mut sp = input;
    let mut notes = Vec::new();
    if a.aian_branch {
        sp = aian::aian_branch(&sp, &a.aian_category)?.0;
        let st = aian::state_level(&sp);
        let parts = (0..sp.n_units()).filter(|&u| sp.level[u] as usize == st).count();
        notes.push(format!("AIAN branch: {parts} AIAN and non-AIAN parts at {} and below (category ose:{})", sp.levels[st], sp.levels[st]));
    }
    if a.alg2 {
        let opts =
            alg2::Alg2Opts { fanout_cutoff: a.fanout_cutoff, identical_tracts: a.identical_tracts, entity_threshold: a.entity_threshold };
        let r = alg2::redefine_with(&sp, &a.county_level, &a.tract_level, &opts)?;
        notes.push(format!(
            "Algorithm 2 (fanout_cutoff {}{}{}): {} optimized block groups, {} tract groups ({} merges)",
            a.fanout_cutoff,
            if a.identical_tracts { ", identical-tract pre-pass" } else { "" },
            a.entity_threshold.map(|t| format!(", entity threshold {t}")).unwrap_or_default(),
            r.block_groups,
            r.tract_groups,
            r.merges
        ));
        sp = r.spine;
    }
    if a.bypass == Bypass::PureDp {
        let beta = match &a.shares {
            Some(l) => alg3::parse_shares(l, sp.n_levels())?,
            None => alg3::equal_shares(sp.n_levels()),
        };
        let (t, st) = alg3::pareto_frontier(&sp, &beta, a.bypass_cutoff, alg3::default_top(&sp))?;
        notes.push(format!(
            "Algorithm 3, pure DP (Theorem 2, bypass cut-off {}): {} multi-child geounits bypassed into {} single-child ones",
            a.bypass_cutoff, st.multi, st.created
        ));
        sp = t;
    } else {
        if a.shares.is_some() {
            return fallible!(Input, "--shares is for --bypass pure-dp (the zCDP rule does not depend on the shares)");
        }
        sp.apply_bypass(a.bypass);
    }
    Ok((sp, notes))
}

/// One row per geolevel (units, measured, fanouts) and per off-spine category (OSED after, and before on
/// the input geography where it was redefined).
fn spine_rows(sp: &Spine, before: Option<&[(String, Vec<u64>)]>) -> Vec<Record> {
    let mut rows = Vec::new();
    let mean = |d: &[u64]| if d.is_empty() { String::new() } else { format!("{:.3}", d.iter().sum::<u64>() as f64 / d.len() as f64) };
    let max = |d: &[u64]| d.iter().max().map(|x| x.to_string()).unwrap_or_default();
    for s in sp.level_stats() {
        let mut r = Record::new();
        r.push("kind", "geolevel");
        r.push("name", s.name.clone());
        r.push("units", s.units.to_string());
        r.push("measured", s.measured.to_string());
        r.push("fanout_min", s.fanout_min.to_string());
        r.push("fanout_mean", format!("{:.3}", s.fanout_mean));
        r.push("fanout_max", s.fanout_max.to_string());
        r.push("osed_mean", String::new());
        r.push("osed_max", String::new());
        if before.is_some() {
            r.push("osed_mean_before", String::new());
            r.push("osed_max_before", String::new());
        }
        rows.push(r);
    }
    for (name, d) in osed_all(sp) {
        let mut r = Record::new();
        r.push("kind", "off-spine");
        r.push("name", name.clone());
        r.push("units", d.len().to_string());
        r.push("measured", String::new());
        r.push("fanout_min", String::new());
        r.push("fanout_mean", String::new());
        r.push("fanout_max", String::new());
        r.push("osed_mean", mean(&d));
        r.push("osed_max", max(&d));
        if let Some(b) = before {
            let b = b.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_slice()).unwrap_or(&[]);
            r.push("osed_mean_before", mean(b));
            r.push("osed_max_before", max(b));
        }
        rows.push(r);
    }
    rows
}
