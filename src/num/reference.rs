//! Reading the reference tables under `scripts/reference/` (whitespace-separated columns, `#` comments):
//! one reader for the tests that hold this crate's brackets to them.

/// The data rows of a reference table: every line that is neither blank nor a `#` comment, split on
/// whitespace.
pub(crate) fn rows(text: &'static str) -> Vec<Vec<&'static str>> {
    text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| l.split_whitespace().collect()).collect()
}

/// The data rows of a reference table whose first column is `kind` (tables that hold several kinds of row).
pub(crate) fn kind_rows(text: &'static str, kind: &str) -> Vec<Vec<&'static str>> {
    rows(text).into_iter().filter(|f| f[0] == kind).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn comments_and_blank_lines_are_not_rows() {
        let r = super::rows("# a b\n1 2\n\n  \n3\t4  5\n");
        assert_eq!(r, vec![vec!["1", "2"], vec!["3", "4", "5"]]);
    }

    #[test]
    fn kind_rows_match_the_whole_first_column() {
        let r = super::kind_rows("# one 0\none 1\none-two 2\ntwo 3\none 4 5\n", "one");
        assert_eq!(r, vec![vec!["one", "1"], vec!["one", "4", "5"]]);
    }
}
