//! The keys and values of one `--mech` spelling `KIND:key=value,…`, each taken once by the law that reads
//! it (`from_params` in each law's file) or by the registry (`noise::registry`: the shared keys). A leaf:
//! the laws and the registry both read it, neither through the other.

use crate::error::Fallible;
use crate::num::parse_positive_rational;
use crate::{err, fallible};
use rug::Rational;

/// The keys and values of one `--mech` spelling, each to be taken once; [`Params::finish`] refuses the
/// keys no parser took.
#[derive(Debug)]
pub struct Params {
    spec: String,
    kv: Vec<(String, String, bool)>,
}

impl Params {
    /// `body` is the part after `KIND:` (may be empty).
    /// A key `of=` takes the rest of the body, commas and all (the inner terms of `repsel:`, `noise::repeat`).
    pub fn parse(spec: &str, body: &str) -> Fallible<Params> {
        let mut kv: Vec<(String, String, bool)> = Vec::new();
        let (body, rest) = match body.trim_start().strip_prefix("of=") {
            Some(r) => ("", Some(r)),
            None => match body.split_once(",of=") {
                Some((h, r)) => (h, Some(r)),
                None => (body, None),
            },
        };
        if let Some(r) = rest {
            kv.push(("of".to_string(), r.trim().to_string(), false));
        }
        for item in body.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| err!(Input, "mechanism '{spec}': expected key=value, got '{item}'"))?;
            let k = k.trim().to_string();
            if kv.iter().any(|(x, _, _)| *x == k) {
                return fallible!(Input, "mechanism '{spec}': key '{k}' given twice");
            }
            kv.push((k, v.trim().to_string(), false));
        }
        Ok(Params { spec: spec.to_string(), kv })
    }

    /// Every key given.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.kv.iter().map(|(k, _, _)| k.as_str())
    }

    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// The value of `key` (marked as taken), if given.
    pub fn take(&mut self, key: &str) -> Option<String> {
        self.kv.iter_mut().find(|(k, _, _)| k == key).map(|(_, v, used)| {
            *used = true;
            v.clone()
        })
    }

    /// The value of the first of `keys` given (an error if two of them are).
    pub fn take_any(&mut self, keys: &[&str]) -> Fallible<Option<(String, String)>> {
        let mut found: Option<(String, String)> = None;
        for k in keys {
            if let Some(v) = self.take(k) {
                if let Some((f, _)) = &found {
                    return fallible!(Input, "mechanism '{}': keys '{f}' and '{k}' say the same thing; give one", self.spec);
                }
                found = Some((k.to_string(), v));
            }
        }
        Ok(found)
    }

    /// The first of `keys` given (an error if two are) with its value as a positive exact rational.
    pub fn positive_any(&mut self, keys: &[&str]) -> Fallible<Option<(String, Rational)>> {
        match self.take_any(keys)? {
            None => Ok(None),
            Some((k, v)) => {
                let x = parse_positive_rational(&v, &k).map_err(|e| e.context(format!("mechanism '{}'", self.spec)))?;
                Ok(Some((k, x)))
            }
        }
    }

    /// The noise variance from `sigma2=` or `sigma=` (squared exactly), required: `missing` names it in the
    /// error ("sigma2 (the noise variance)").
    pub fn variance(&mut self, missing: &str) -> Fallible<Rational> {
        match self.positive_any(&["sigma2", "sigma"])? {
            Some((k, x)) if k == "sigma" => Ok(Rational::from(&x * &x)),
            Some((_, x)) => Ok(x),
            None => fallible!(Input, "mechanism '{}': missing {missing}", self.spec),
        }
    }

    /// A positive exact rational under `key` (required).
    pub fn positive(&mut self, key: &str) -> Fallible<Rational> {
        let v = self.take(key).ok_or_else(|| err!(Input, "mechanism '{}': missing {key}", self.spec))?;
        parse_positive_rational(&v, key).map_err(|e| e.context(format!("mechanism '{}'", self.spec)))
    }

    /// A positive exact rational under `key`, or `default`.
    pub fn positive_or(&mut self, key: &str, default: Rational) -> Fallible<Rational> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => parse_positive_rational(&v, key).map_err(|e| e.context(format!("mechanism '{}'", self.spec))),
        }
    }

    /// Refuse keys no parser took.
    pub fn finish(&self) -> Fallible<()> {
        match self.kv.iter().find(|(_, _, used)| !used) {
            Some((k, _, _)) => fallible!(Input, "mechanism '{}': unknown key '{k}'", self.spec),
            None => Ok(()),
        }
    }
}
