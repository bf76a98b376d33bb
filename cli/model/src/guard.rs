//! Hybrid-automaton constraints as the kernel writes them on edges and
//! states (`clk < 100us`, `is_constr_dl == 1 || is_defer == 1`,
//! `clk < DEADLINE_NS()`): parsed here into disjunctive normal form, resolved
//! against the binding in [`crate::compiled`].
//!
//! Grammar (the kernel's rvgen accepts the same atoms):
//!
//! ```text
//! expr    := term ('||' term)*
//! term    := cmp ('&&' cmp)*
//! cmp     := operand OP operand          OP: == != < <= > >=
//! operand := NAME | NAME '(' ')' | INTEGER [ns|us|ms|s|j]
//! ```
//!
//! `&&` binds tighter than `||`, as in C.  rvgen reads a chain left to right
//! without precedence; the two readings agree on every model that uses only
//! one of the operators in a constraint, which is every kernel model.

use crate::binding::Op;

/// One side of a comparison, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// `clk`, `irq_off`, `threshold_jiffies`.
    Name(String),
    /// `DEADLINE_NS()`: a value the binding defines (`const DEADLINE_NS = 10ms`).
    Call(String),
    /// A number; with a time unit it is in nanoseconds, with `j` in jiffies.
    Num { value: i64, unit: Unit },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    None,
    Ns,
    Jiffies,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCmp {
    pub lhs: Atom,
    pub op: Op,
    pub rhs: Atom,
}

/// A constraint in disjunctive normal form: an OR of ANDs.
pub type Dnf = Vec<Vec<RawCmp>>;

/// Parse a guard or an invariant; the error says what was expected where.
pub fn parse(text: &str) -> Result<Dnf, String> {
    let toks = lex(text)?;
    let mut p = Parser { toks: &toks, at: 0 };
    let mut dnf = vec![p.term()?];
    while p.eat("||") {
        dnf.push(p.term()?);
    }
    if let Some(t) = toks.get(p.at) {
        return Err(format!("unexpected `{t}` in constraint `{text}`"));
    }
    Ok(dnf)
}

fn lex(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if b"=!<>&|".contains(&c) {
            while i < b.len() && b"=!<>&|".contains(&b[i]) {
                i += 1;
            }
        } else if c == b'(' || c == b')' || c == b'-' {
            i += 1;
        } else {
            return Err(format!(
                "unexpected character `{}` in constraint `{text}`",
                text[i..].chars().next().unwrap_or('?')
            ));
        }
        out.push(text[start..i].to_string());
    }
    if out.is_empty() {
        return Err("empty constraint".into());
    }
    Ok(out)
}

struct Parser<'a> {
    toks: &'a [String],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.at).map(|s| s.as_str())
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn term(&mut self) -> Result<Vec<RawCmp>, String> {
        let mut cmps = vec![self.cmp()?];
        while self.eat("&&") {
            cmps.push(self.cmp()?);
        }
        Ok(cmps)
    }

    fn cmp(&mut self) -> Result<RawCmp, String> {
        let lhs = self.operand()?;
        let op_text = self.peek().unwrap_or("the end").to_string();
        let op = Op::parse(&op_text).ok_or_else(|| {
            format!("expected a comparison (== != < <= > >=) after `{}`, found `{op_text}`", show(&lhs))
        })?;
        self.at += 1;
        let rhs = self.operand()?;
        Ok(RawCmp { lhs, op, rhs })
    }

    fn operand(&mut self) -> Result<Atom, String> {
        let Some(t) = self.peek().map(str::to_string) else {
            return Err("a constraint ends where a value or name was expected".into());
        };
        self.at += 1;
        if t == "-" {
            let Some(Atom::Num { value, unit }) = self.operand().ok() else {
                return Err("`-` must be followed by a number".into());
            };
            return Ok(Atom::Num { value: -value, unit });
        }
        if t.as_bytes()[0].is_ascii_digit() {
            return number(&t);
        }
        if !(t.as_bytes()[0].is_ascii_alphabetic() || t.starts_with('_')) {
            return Err(format!("expected a value or a name, found `{t}`"));
        }
        if self.eat("(") {
            if !self.eat(")") {
                return Err(format!("`{t}(` takes no arguments: write `{t}()`"));
            }
            return Ok(Atom::Call(t));
        }
        Ok(Atom::Name(t))
    }
}

/// A value as a binding's `const` line writes it: `4s`, `-3`, `250j`.
pub fn parse_value(t: &str) -> Result<(i64, Unit), String> {
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("`{t}` is not a number (with an optional unit ns, us, ms, s or j)"));
    }
    match number(digits)? {
        Atom::Num { value, unit } => Ok((if neg { -value } else { value }, unit)),
        _ => unreachable!(),
    }
}

/// `100us` → 100 000 ns; `12` → 12; `10j` → 10 jiffies.
fn number(t: &str) -> Result<Atom, String> {
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("number `{digits}` is out of range"))?;
    let (scale, unit) = match unit {
        "" => (1, Unit::None),
        "ns" => (1, Unit::Ns),
        "us" => (1_000, Unit::Ns),
        "ms" => (1_000_000, Unit::Ns),
        "s" => (1_000_000_000, Unit::Ns),
        "j" => (1, Unit::Jiffies),
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{t}`: use ns, us, ms, s or j (jiffies)"
            ))
        }
    };
    let value = n
        .checked_mul(scale)
        .ok_or_else(|| format!("`{t}` is out of range"))?;
    Ok(Atom::Num { value, unit })
}

pub fn show(a: &Atom) -> String {
    match a {
        Atom::Name(n) => n.clone(),
        Atom::Call(n) => format!("{n}()"),
        Atom::Num { value, .. } => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Atom {
        Atom::Name(s.into())
    }

    #[test]
    fn units_and_precedence() {
        let d = parse("clk < 100us").unwrap();
        assert_eq!(d, vec![vec![RawCmp { lhs: name("clk"), op: Op::Lt, rhs: Atom::Num { value: 100_000, unit: Unit::Ns } }]]);
        let d = parse("a == 1 || b == 1 && c != 2").unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[1].len(), 2);
        let d = parse("clk < DEADLINE_NS()").unwrap();
        assert_eq!(d[0][0].rhs, Atom::Call("DEADLINE_NS".into()));
        assert_eq!(parse("x>=-3").unwrap()[0][0].rhs, Atom::Num { value: -3, unit: Unit::None });
        assert_eq!(parse("clk<10j").unwrap()[0][0].rhs, Atom::Num { value: 10, unit: Unit::Jiffies });
    }

    #[test]
    fn errors_say_what_was_expected() {
        assert!(parse("").unwrap_err().contains("empty"));
        assert!(parse("clk").unwrap_err().contains("expected a comparison"));
        assert!(parse("clk <").unwrap_err().contains("ends where"));
        assert!(parse("clk < 10 parsecs").unwrap_err().contains("unexpected `parsecs`"));
        assert!(parse("clk < 10h").unwrap_err().contains("unknown unit `h`"));
        assert!(parse("clk < 10 ||").unwrap_err().contains("ends where"));
        assert!(parse("clk ~ 1").unwrap_err().contains("unexpected character `~`"));
        assert!(parse("f(x) < 1").unwrap_err().contains("takes no arguments"));
        assert!(parse("clk < 99999999999999999999").unwrap_err().contains("out of range"));
        assert!(parse("clk < 9999999999999s").unwrap_err().contains("out of range"));
    }
}
