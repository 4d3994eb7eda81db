//! Property/fuzz harness of the input parsers (robustness issue, "What it must show"): arbitrary text
//! and mutations of the bundled files go through every parser a user's input reaches; each must answer
//! Ok or a one-line Err, never panic. Where a generated input is valid, the parsed value is checked
//! against an independent construction in the test (integer arithmetic), not against the parser.
//! Case counts are small so the suite stays fast (PROPTEST_CASES raises them for a longer run).

use proptest::prelude::*;
use rug::ops::Pow;
use rug::Rational;
use std::path::Path;
use tightdp::Allocation;
use tightdp::GeoSpec;
use tightdp::{parse_count, parse_mech, parse_sensitivity};
use tightdp::{parse_count_field, parse_rational, COUNT_FIELD_MAX};

fn one_line(e: &str) -> bool {
    !e.is_empty() && !e.contains('\n')
}

/// Arbitrary text biased toward the characters numbers, specs and TOML are made of.
fn texty() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        "[-+0-9eE./,:=a-z ]{0,30}",
        "(dgauss|dlap):[a-z0-9=.,/e+-]{0,30}",
        "[0-9]{1,25}(\\.[0-9]{0,10})?([eE][-+]?[0-9]{1,6})?",
    ]
}

/// Replace, delete or insert one byte range of a text (keeps it valid UTF-8).
fn mutate(base: &str, at: usize, cut: usize, insert: &str) -> String {
    let chars: Vec<char> = base.chars().collect();
    let at = at % (chars.len() + 1);
    let end = (at + cut).min(chars.len());
    let mut s: String = chars[..at].iter().collect();
    s.push_str(insert);
    s.extend(&chars[end..]);
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::proptest_cases(64)))]

    #[test]
    fn number_parsers_never_panic(s in texty()) {
        for r in [parse_rational(&s).err(), parse_count_field(&s, "count").err(), parse_count(&s, "n").err(), parse_sensitivity(&s).err()]
            .into_iter()
            .flatten()
        {
            prop_assert!(one_line(&r.to_string()), "{r:?}");
        }
    }

    /// A decimal m.f·10^e parses to exactly (m·10^|f| + f)·10^(e − |f|), built here from integers.
    #[test]
    fn decimals_parse_exactly(m in 0u64..1_000_000_000, f in "[0-9]{0,8}", e in -40i32..40) {
        let text = if f.is_empty() { format!("{m}e{e}") } else { format!("{m}.{f}e{e}") };
        let digits = rug::Integer::from(m) * rug::Integer::from(10u32).pow(f.len() as u32)
            + f.parse::<rug::Integer>().unwrap_or_default();
        let scale = e - f.len() as i32;
        let want = if scale >= 0 {
            Rational::from(digits * rug::Integer::from(10u32).pow(scale as u32))
        } else {
            Rational::from((digits, rug::Integer::from(10u32).pow((-scale) as u32)))
        };
        prop_assert_eq!(parse_rational(&text).unwrap(), want);
    }

    /// Counts: Ok exactly for the integers 0..=COUNT_FIELD_MAX, with their value.
    #[test]
    fn count_fields_accept_exactly_the_counts(v in any::<u64>(), neg in any::<bool>()) {
        let text = if neg { format!("-{v}") } else { v.to_string() };
        let r = parse_count_field(&text, "count");
        if (neg && v != 0) || v > COUNT_FIELD_MAX as u64 {
            prop_assert!(r.is_err());
        } else {
            prop_assert_eq!(r.unwrap(), v as i64);
        }
    }

    #[test]
    fn mechanism_specs_never_panic(s in texty()) {
        if let Err(e) = parse_mech(&s) {
            prop_assert!(one_line(&e.to_string()), "{e:?}");
        }
    }

    /// A generated valid spec parses to the count and sensitivity it names.
    #[test]
    fn mechanism_specs_parse_what_they_say(num in 1u32..100_000, den in 1u32..1000, n in 1u64..1_000_000, mu in 1u32..100) {
        let g = parse_mech(&format!("dgauss:sigma2={num}/{den},n={n},mu={mu}")).unwrap();
        prop_assert_eq!(g.count, n);
        prop_assert_eq!(g.mu, mu);
        let g = parse_mech(&format!("dlap:scale={num}/{den},n={n}")).unwrap();
        prop_assert_eq!(g.count, n);
    }

    #[test]
    fn allocation_files_never_panic(at in 0usize..4000, cut in 0usize..40, insert in texty(), which in 0usize..6) {
        let files = ["dhc-2022-08-25.toml", "dhc-persons-us-2023.toml", "dhc-units-us-2023.toml", "redistricting-2020.toml",
                     "redistricting-persons-us-2021.toml", "safetab-p-2023.toml"];
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/allocations").join(files[which]);
        let text = std::fs::read_to_string(p).unwrap();
        if let Err(e) = Allocation::from_toml(&mutate(&text, at, cut, &insert)) {
            prop_assert!(one_line(&e.to_string()) && e.kind() != tightdp::ErrorKind::Internal, "{e:?}");
        }
    }

    /// `tightdp safetab` configurations (mutated shipped files, both noise kinds): Ok or one line.
    #[test]
    fn safetab_configs_never_panic(at in 0usize..3500, cut in 0usize..20, insert in texty(), dg in any::<bool>()) {
        let name = if dg { "safetab-dgauss.toml" } else { "safetab-geometric.toml" };
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/safetab").join(name)).unwrap();
        if let Err(e) = tightdp::ReConfig::parse(&mutate(&text, at, cut, &insert), name) {
            prop_assert!(one_line(&e.to_string()) && e.kind() != tightdp::ErrorKind::Internal, "{e:?}");
        }
    }

    #[test]
    fn manifests_never_panic(at in 0usize..3000, cut in 0usize..20, insert in texty()) {
        let m = tightdp::safetab_p_production(false);
        let text = serde_json::to_string_pretty(&m).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("m.json");
        std::fs::write(&f, mutate(&text, at, cut, &insert)).unwrap();
        match tightdp::Manifest::from_path(&f) {
            Ok(m) => { let _ = m.validate(); }
            Err(e) => prop_assert!(one_line(&e.to_string()) && e.kind() != tightdp::ErrorKind::Internal, "{e:?}"),
        }
    }

    #[test]
    fn geography_specs_never_panic(levels in "[A-Za-z, ]{0,30}", fanout in "[0-9,\\- ]{0,30}", ose in "[a-z:0-9., ]{0,20}") {
        if let Err(e) = GeoSpec::parse(&levels, &fanout, 1, &ose) {
            prop_assert!(one_line(&e.to_string()) && e.kind() != tightdp::ErrorKind::Internal, "{e:?}");
        }
    }
}
