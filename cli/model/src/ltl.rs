//! Linear temporal logic models in the kernel's `.ltl` syntax (rvgen's
//! ltl2ba.py), compiled to a Büchi automaton the way the kernel's generator
//! does (Gerth, Peled, Vardi, Wolper, "Simple on-the-fly automatic
//! verification of linear temporal logic", 1995).
//!
//! ```text
//! RULE = always (RT imply not PAGEFAULT)
//! ```
//!
//! A file is `NAME = formula` lines (`#` comments); `RULE` is the property,
//! other names are sub-formulas it may use.  Operators: `always`,
//! `eventually`, `next`, `not` (prefix), `until`, `and`, `or`, `imply`
//! (infix), parentheses, `true`, `false`; atoms are UPPER_CASE names not
//! defined in the file.  The kernel's grammar has no precedence: the left
//! side of an infix operator is an operand (an atom or a parenthesised
//! formula), so infix operators group to the right and a prefix operator
//! extends to the end of the formula: `not A and B` is `not (A and B)`,
//! `A and B or C` is `A and (B or C)`.  vigil reads them the same way.
//!
//! The automaton monitors safety only, as the kernel's does: a state set
//! that becomes empty is a violation; acceptance (an `eventually` that
//! never comes) is not checked.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::Diagnostic;

mod buchi;
pub mod ltl2k;
mod parse;

pub use buchi::{Buchi, BuchiState, LtlInst};

/// A formula.  `Release` appears only after normalisation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Formula {
    True,
    False,
    Atom(String),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    Imply(Box<Formula>, Box<Formula>),
    Until(Box<Formula>, Box<Formula>),
    Release(Box<Formula>, Box<Formula>),
    Always(Box<Formula>),
    Eventually(Box<Formula>),
    Next(Box<Formula>),
}

impl Formula {
    /// True when no temporal operator occurs in it.
    pub fn is_propositional(&self) -> bool {
        use Formula::*;
        match self {
            True | False | Atom(_) => true,
            Not(a) => a.is_propositional(),
            And(a, b) | Or(a, b) | Imply(a, b) => a.is_propositional() && b.is_propositional(),
            _ => false,
        }
    }

    /// Its value for the atoms in `set` (propositional formulas only).
    pub fn holds(&self, atoms: &[String], set: u64) -> bool {
        use Formula::*;
        match self {
            True => true,
            False => false,
            Atom(a) => atoms.iter().position(|x| x == a).is_some_and(|i| set & (1 << i) != 0),
            Not(a) => !a.holds(atoms, set),
            And(a, b) => a.holds(atoms, set) && b.holds(atoms, set),
            Or(a, b) => a.holds(atoms, set) || b.holds(atoms, set),
            Imply(a, b) => !a.holds(atoms, set) || b.holds(atoms, set),
            _ => unreachable!("a temporal formula has no value in one step"),
        }
    }

    fn atoms(&self, out: &mut BTreeSet<String>) {
        use Formula::*;
        match self {
            True | False => {}
            Atom(a) => {
                out.insert(a.clone());
            }
            Not(a) | Always(a) | Eventually(a) | Next(a) => a.atoms(out),
            And(a, b) | Or(a, b) | Imply(a, b) | Until(a, b) | Release(a, b) => {
                a.atoms(out);
                b.atoms(out)
            }
        }
    }
}

/// As the kernel's generator prints labels: atoms lower-cased, `!`, `&&`,
/// `||`; temporal operators as words.
impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Formula::*;
        match self {
            True => write!(f, "true"),
            False => write!(f, "false"),
            Atom(a) => write!(f, "{}", a.to_lowercase()),
            Not(a) => write!(f, "!{a}"),
            And(a, b) => write!(f, "({a} && {b})"),
            Or(a, b) => write!(f, "({a} || {b})"),
            Imply(a, b) => write!(f, "({a} -> {b})"),
            Until(a, b) => write!(f, "({a} U {b})"),
            Release(a, b) => write!(f, "({a} V {b})"),
            Always(a) => write!(f, "G {a}"),
            Eventually(a) => write!(f, "F {a}"),
            Next(a) => write!(f, "X {a}"),
        }
    }
}

/// An LTL model: its rule (sub-formulas substituted) and its atoms.
#[derive(Debug, Clone)]
pub struct LtlModel {
    pub name: String,
    pub path: PathBuf,
    pub rule: Formula,
    /// Sorted, as the kernel's `enum ltl_atom`.
    pub atoms: Vec<String>,
    /// Line of the `RULE =` definition.
    pub rule_line: u32,
}

/// The kernel's limits (`RV_MAX_LTL_ATOM`, `RV_MAX_BA_STATES`).
pub const MAX_ATOMS: usize = 32;
pub const MAX_STATES: usize = 32;

impl LtlModel {
    pub fn from_file(path: &Path) -> Result<LtlModel, Diagnostic> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Diagnostic::new(path, 0, format!("cannot read model: {e}")))?;
        parse(path, &text)
    }

    /// The Büchi automaton of the rule (see [`buchi`]).
    pub fn buchi(&self) -> Result<Buchi, Diagnostic> {
        let b = Buchi::of(&self.rule, &self.atoms).ok_or_else(|| {
            Diagnostic::new(&self.path, self.rule_line, format!("the rule's automaton has far more than {MAX_STATES} states, the most the kernel's monitors take"))
        })?;
        if b.states.len() > MAX_STATES {
            return Err(Diagnostic::new(
                &self.path,
                self.rule_line,
                format!("the rule's automaton has {} states; the kernel's monitors take at most {MAX_STATES}", b.states.len()),
            ));
        }
        Ok(b)
    }
}

impl LtlModel {
    /// As a [`crate::Model`]: states `S0`... of the automaton, its atoms as
    /// events (so a binding names them), the automaton in `ltl`.
    pub fn to_model(&self) -> Result<crate::Model, Diagnostic> {
        let b = self.buchi()?;
        let n = b.states.len();
        if n == 0 {
            return Err(Diagnostic::new(&self.path, self.rule_line, "the rule is unsatisfiable: no run satisfies it, so every task would fail at once"));
        }
        Ok(crate::Model {
            name: self.name.clone(),
            path: self.path.clone(),
            states: (0..n).map(|i| format!("S{i}")).collect(),
            events: self.atoms.clone(),
            initial: 0,
            finals: vec![true; n],
            function: vec![vec![None; self.atoms.len()]; n],
            annotations: Vec::new(),
            invariants: Vec::new(),
            state_lines: vec![self.rule_line; n],
            event_lines: vec![self.rule_line; self.atoms.len()],
            ltl: Some(b),
        })
    }
}

/// Parse an `.ltl` file.
pub fn parse(path: &Path, text: &str) -> Result<LtlModel, Diagnostic> {
    let (rule, rule_line) = parse::file(path, text)?;
    let mut atoms = BTreeSet::new();
    rule.atoms(&mut atoms);
    let atoms: Vec<String> = atoms.into_iter().collect();
    if atoms.len() > MAX_ATOMS {
        return Err(Diagnostic::new(path, rule_line, format!("{} atoms; the kernel's monitors take at most {MAX_ATOMS}", atoms.len())));
    }
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(LtlModel { name, path: path.to_path_buf(), rule, atoms, rule_line })
}
