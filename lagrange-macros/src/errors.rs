//! Collecting every error of a model so that one build reports all of them, and finding
//! the declared name closest to a misspelt one.

use proc_macro2::Span;
use quote::ToTokens;
use std::fmt::Display;

/// An error collector: each rule pushes spanned errors; all are reported together.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn at(&mut self, span: Span, message: impl Display) {
        self.0.push(syn::Error::new(span, message));
    }

    pub fn spanning(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// All errors as one `syn::Error`, or `Ok` if there were none.
    pub fn finish(self) -> syn::Result<()> {
        let mut all = self.0.into_iter();
        match all.next() {
            None => Ok(()),
            Some(mut first) => {
                first.extend(all);
                Err(first)
            }
        }
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a
/// plausible typo: a third of the name's length in edits, at least one for names of two
/// or more characters, and only a change of case for one-letter names (`M` for `m`, but no
/// guess at which one-letter name `y` was meant to be). Ties go to the earliest candidate,
/// so pass candidates in declaration order for reproducible messages.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let length = name.chars().count();
    let limit = if length < 2 { 0 } else { (length / 3).max(1) };
    ranked(name, candidates.into_iter().filter(|c| *c != name))
        .into_iter()
        .next()
        .filter(|(d, _)| *d <= limit)
        .map(|(_, c)| c)
}

/// The `count` candidates closest to `name` by edit distance, nearest first (ties in the
/// candidates' order), however far: what a long list of names is cut to in a message.
pub fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    count: usize,
) -> Vec<&'a str> {
    ranked(name, candidates)
        .into_iter()
        .take(count)
        .map(|(_, c)| c)
        .collect()
}

/// The candidates with their edit distance to `name` (case ignored), nearest first, ties
/// in the candidates' order: what [`closest`] and [`nearest`] both pick from.
fn ranked<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<(usize, &'a str)> {
    let name = name.to_lowercase();
    let mut ranked: Vec<(usize, usize, &str)> = candidates
        .into_iter()
        .enumerate()
        .map(|(k, c)| (edit_distance(&name, &c.to_lowercase()), k, c))
        .collect();
    ranked.sort_unstable();
    ranked.into_iter().map(|(d, _, c)| (d, c)).collect()
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let names = ["theta1", "theta2", "m", "l", "g"];
        assert_eq!(closest("theta3", names), Some("theta1"));
        assert_eq!(closest("thetaa1", names), Some("theta1"));
        assert_eq!(closest("tehta2", names), Some("theta2"));
        assert_eq!(closest("velocity", names), None);
        assert_eq!(closest("y", names), None);
        assert_eq!(closest("G", names), Some("g"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn nearest_names_nearest_first() {
        let names = ["theta1", "theta2", "m", "l", "g", "phi"];
        assert_eq!(nearest("theta3", names, 3), ["theta1", "theta2", "phi"]);
        assert_eq!(nearest("velocity", names, 0), Vec::<&str>::new());
        assert_eq!(nearest("x", names, 10).len(), 6);
    }
}
