//! POSIX shell quoting, for printing command lines and flag lists that a
//! shell (or make, which hands recipes to a shell) will read back.

use std::ffi::OsStr;

/// Characters that never need quoting in a POSIX shell word.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-+=/.,:@%^".contains(c)
}

/// Quote one word so that `sh` reads it back as exactly that word.  Words made
/// only of harmless characters are returned unchanged.
pub fn quote(word: &OsStr) -> String {
    let s = word.to_string_lossy();
    if !s.is_empty() && s.chars().all(is_plain) {
        return s.into_owned();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Quote every word and join them with single spaces.
pub fn join<I, S>(words: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    words
        .into_iter()
        .map(|w| quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> String {
        quote(OsStr::new(s))
    }

    #[test]
    fn plain_words_are_unchanged() {
        assert_eq!(
            q("-fplugin=/opt/vigil/lib/vigil-clang.so"),
            "-fplugin=/opt/vigil/lib/vigil-clang.so"
        );
        assert_eq!(q("-D__VIGIL__=1"), "-D__VIGIL__=1");
        assert_eq!(q("-Wl,--whole-archive"), "-Wl,--whole-archive");
    }

    #[test]
    fn spaces_and_metacharacters_are_quoted() {
        assert_eq!(q("-I/my dir/include"), "'-I/my dir/include'");
        assert_eq!(q("a$b"), "'a$b'");
        assert_eq!(q("x;rm"), "'x;rm'");
        assert_eq!(q("*"), "'*'");
    }

    #[test]
    fn empty_word_is_quoted() {
        assert_eq!(q(""), "''");
    }

    #[test]
    fn single_quotes_are_escaped() {
        assert_eq!(q("it's"), "'it'\\''s'");
    }

    #[test]
    fn join_quotes_each_word() {
        assert_eq!(join(["a", "b c", "d"]), "a 'b c' d");
        assert_eq!(join(Vec::<String>::new()), "");
    }
}
