//! The `.ltl` grammar of the kernel's ltl2ba.py:
//!
//! ```text
//! file    := (NAME '=' formula)+            NAME: [A-Z_][A-Z0-9_]*
//! formula := operand | operand INFIX formula | PREFIX formula
//! operand := NAME | true | false | '(' formula ')'
//! INFIX   := until | and | or | imply        PREFIX := always | eventually | next | not
//! ```
//!
//! A definition may span lines: a line that does not start `NAME =`
//! continues the previous one.  Names defined in the file are substituted
//! into RULE (transitively; a cycle is an error), the others are atoms.

use std::collections::BTreeMap;
use std::path::Path;

use super::Formula;
use crate::Diagnostic;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Word(String),
    Open,
    Close,
}

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '(' || c == ')' {
            chars.next();
            out.push(if c == '(' { Tok::Open } else { Tok::Close });
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut end = i;
            while let Some(&(j, d)) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let w = &text[i..end];
            if w.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') && w.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
                out.push(Tok::Name(w.to_string()));
            } else if matches!(w, "always" | "eventually" | "next" | "not" | "until" | "and" | "or" | "imply" | "true" | "false") {
                out.push(Tok::Word(w.to_string()));
            } else {
                return Err(format!(
                    "`{w}` is neither an operator (always, eventually, next, not, until, and, or, imply, true, false) nor an UPPER_CASE atom"
                ));
            }
        } else {
            return Err(format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

type Unary = fn(Box<Formula>) -> Formula;
type Binary = fn(Box<Formula>, Box<Formula>) -> Formula;

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn formula(&mut self) -> Result<Formula, String> {
        if let Some(Tok::Word(w)) = self.toks.get(self.at) {
            let w = w.clone();
            let unary: Option<Unary> = match w.as_str() {
                "always" => Some(Formula::Always),
                "eventually" => Some(Formula::Eventually),
                "next" => Some(Formula::Next),
                "not" => Some(Formula::Not),
                _ => None,
            };
            if let Some(make) = unary {
                self.at += 1;
                return Ok(make(Box::new(self.formula()?)));
            }
        }
        let left = self.operand()?;
        if let Some(Tok::Word(w)) = self.toks.get(self.at) {
            let binary: Option<Binary> = match w.as_str() {
                "until" => Some(Formula::Until),
                "and" => Some(Formula::And),
                "or" => Some(Formula::Or),
                "imply" => Some(Formula::Imply),
                _ => None,
            };
            if let Some(make) = binary {
                self.at += 1;
                return Ok(make(Box::new(left), Box::new(self.formula()?)));
            }
        }
        Ok(left)
    }

    fn operand(&mut self) -> Result<Formula, String> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        match t {
            Some(Tok::Name(n)) => Ok(Formula::Atom(n)),
            Some(Tok::Word(w)) if w == "true" => Ok(Formula::True),
            Some(Tok::Word(w)) if w == "false" => Ok(Formula::False),
            Some(Tok::Open) => {
                let f = self.formula()?;
                match self.toks.get(self.at) {
                    Some(Tok::Close) => {
                        self.at += 1;
                        Ok(f)
                    }
                    _ => Err("missing `)`".into()),
                }
            }
            Some(Tok::Word(w)) => Err(format!("`{w}` where an atom or `(` was expected")),
            Some(Tok::Close) => Err("`)` where an atom or `(` was expected".into()),
            None => Err("the formula ends where an atom or `(` was expected".into()),
        }
    }
}

pub(super) fn formula(text: &str) -> Result<Formula, String> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err("empty formula".into());
    }
    let mut p = Parser { toks, at: 0 };
    let f = p.formula()?;
    if p.at < p.toks.len() {
        return Err(format!("unexpected {:?} after a complete formula (an infix operator's left side must be an atom or parenthesised)", p.toks[p.at]).replace("Name(", "").replace("Word(", "").replace(['"', ')'], ""));
    }
    Ok(f)
}

/// The definitions of a file, joined across continuation lines.
pub(super) fn definitions(path: &Path, text: &str) -> Result<Vec<(String, String, u32)>, Diagnostic> {
    let mut defs: Vec<(String, String, u32)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let head = line.split_once('=').map(|(l, r)| (l.trim(), r));
        match head {
            Some((name, rest)) if !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') => {
                if let Some((_, _, first)) = defs.iter().find(|d| d.0 == name) {
                    return Err(Diagnostic::new(path, n, format!("`{name}` is defined twice (first at line {first})")));
                }
                defs.push((name.to_string(), rest.to_string(), n));
            }
            _ => match defs.last_mut() {
                Some(d) => {
                    d.1.push(' ');
                    d.1.push_str(line);
                }
                None => return Err(Diagnostic::new(path, n, "expected `NAME = formula` (e.g. `RULE = always (RT imply not PAGEFAULT)`)")),
            },
        }
    }
    Ok(defs)
}

fn substitute(f: Formula, defs: &BTreeMap<String, (Formula, u32)>, stack: &mut Vec<String>) -> Result<Formula, String> {
    use Formula::*;
    let b = |f: Box<Formula>, stack: &mut Vec<String>| substitute(*f, defs, stack).map(Box::new);
    Ok(match f {
        Atom(n) => match defs.get(&n) {
            None => Atom(n),
            Some((def, _)) => {
                if stack.contains(&n) {
                    return Err(format!("`{n}` is defined in terms of itself ({} -> {n})", stack.join(" -> ")));
                }
                stack.push(n);
                let out = substitute(def.clone(), defs, stack)?;
                stack.pop();
                out
            }
        },
        Not(a) => Not(b(a, stack)?),
        Always(a) => Always(b(a, stack)?),
        Eventually(a) => Eventually(b(a, stack)?),
        Next(a) => Next(b(a, stack)?),
        And(x, y) => And(b(x, stack)?, b(y, stack)?),
        Or(x, y) => Or(b(x, stack)?, b(y, stack)?),
        Imply(x, y) => Imply(b(x, stack)?, b(y, stack)?),
        Until(x, y) => Until(b(x, stack)?, b(y, stack)?),
        Release(x, y) => Release(b(x, stack)?, b(y, stack)?),
        t => t,
    })
}

/// The file's RULE with its sub-formulas substituted, and RULE's line.
pub(super) fn file(path: &Path, text: &str) -> Result<(Formula, u32), Diagnostic> {
    let mut defs = BTreeMap::new();
    for (name, body, line) in definitions(path, text)? {
        let f = formula(&body).map_err(|m| Diagnostic::new(path, line, format!("{name}: {m}")))?;
        defs.insert(name, (f, line));
    }
    let Some((rule, line)) = defs.get("RULE").cloned() else {
        return Err(Diagnostic::new(path, 0, "no `RULE = ...`: the property to monitor is the definition named RULE"));
    };
    let rule = substitute(rule, &defs, &mut vec!["RULE".into()]).map_err(|m| Diagnostic::new(path, line, m))?;
    Ok((rule, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> String {
        formula(s).unwrap().to_string()
    }

    #[test]
    fn the_kernels_grouping() {
        assert_eq!(f("not A and not B"), "!(a && !b)");
        assert_eq!(f("A and B or C"), "(a && (b || c))");
        assert_eq!(f("always (A imply next B)"), "G (a -> X b)");
        assert_eq!(f("(A and B) or C"), "((a && b) || c)");
        assert_eq!(f("A until B"), "(a U b)");
        assert_eq!(f("true or FALSE_ATOM"), "(true || false_atom)");
    }

    #[test]
    fn errors() {
        assert!(formula("").unwrap_err().contains("empty"));
        assert!(formula("(A and B").unwrap_err().contains("missing `)`"));
        assert!(formula("A B").unwrap_err().contains("after a complete formula"));
        assert!(formula("a and B").unwrap_err().contains("`a` is neither an operator"));
        assert!(formula("A & B").unwrap_err().contains("unexpected character `&`"));
        assert!(formula("A and").unwrap_err().contains("ends where"));
        let e = file(Path::new("x.ltl"), "A = B\nB = A\nRULE = always A\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("defined in terms of itself"), "{e}");
        let e = file(Path::new("x.ltl"), "A = B\n").unwrap_err();
        assert!(e.message.contains("no `RULE = ...`"), "{e}");
        let e = file(Path::new("x.ltl"), "RULE = A\nRULE = B\n").unwrap_err();
        assert_eq!((e.line, e.message.contains("defined twice")), (2, true));
        let e = file(Path::new("x.ltl"), "always A\n").unwrap_err();
        assert!(e.message.contains("expected `NAME = formula`"), "{e}");
    }

    #[test]
    fn substitution_and_continuation_lines() {
        let (r, line) = file(Path::new("x.ltl"), "# c\nRULE = always (A imply\n  OK)\nOK = B or C\n").unwrap();
        assert_eq!(line, 2);
        assert_eq!(r.to_string(), "G (a -> (b || c))");
    }
}
