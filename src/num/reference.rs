//! Reading the reference tables under `scripts/reference/` (whitespace-separated columns, `#` comments):
//! one reader for the tests that hold this crate's brackets to them.

/// The data rows of a reference table: every line that is neither blank nor a `#` comment, split on
/// whitespace.
pub(crate) fn rows(text: &'static str) -> Vec<Vec<&'static str>> {
    text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| l.split_whitespace().collect()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn comments_and_blank_lines_are_not_rows() {
        let r = super::rows("# a b\n1 2\n\n  \n3\t4  5\n");
        assert_eq!(r, vec![vec!["1", "2"], vec!["3", "4", "5"]]);
    }
}
