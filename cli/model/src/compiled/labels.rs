//! An LTL model's state labels as the C step reads them: each label (a
//! conjunction of propositional formulas, [`crate::ltl::BuchiState`]) as an
//! OR of [`Term`]s, conjunctions of literals over the atoms, or as the
//! negation of such an OR, whichever is shorter.  The C step then decides
//! a label with two mask tests per term, no formula interpreter (which a
//! BPF verifier would also have to accept).
//!
//! Both forms, because labels come in both shapes: `always (P imply Q)`
//! gives labels `not P or Q` whose OR form multiplies out (the kernel's
//! rtapp/sleep.ltl: 25 terms) while their negation, `P and not Q`, stays
//! small (4 terms).  The forms are exact: contradictory terms are dropped
//! and a term implied by a shorter one is absorbed, so they only lose
//! redundancy.  They can be exponential in the label, hence [`MAX_TERMS`]:
//! a model whose label needs more in both forms is refused at compile
//! time, for every engine alike.

use crate::ltl::{Buchi, Formula};

/// The most terms per state label (`VK_LTL_MAX_TERMS`): a constant bound
/// for the C step's loop.
pub const MAX_TERMS: usize = 16;
/// Past this size an intermediate form is abandoned (it cannot shrink back
/// below [`MAX_TERMS`] often enough to be worth the time).
const WORK_CAP: usize = 4096;

/// Atoms in `pos` true and atoms in `neg` false (`struct vk_ltl_term`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Term {
    pub pos: u32,
    pub neg: u32,
}

impl Term {
    pub const TRUE: Term = Term { pos: 0, neg: 0 };

    pub fn holds(self, atoms: u32) -> bool {
        atoms & self.pos == self.pos && atoms & self.neg == 0
    }

    /// `self`'s literals are a subset of `other`'s: wherever `other` holds,
    /// `self` does, so `other` adds nothing to their OR.
    fn absorbs(self, other: Term) -> bool {
        self.pos & other.pos == self.pos && self.neg & other.neg == self.neg
    }
}

/// Sorted, no contradiction, no term absorbed by another.
fn simplify(mut terms: Vec<Term>) -> Vec<Term> {
    terms.retain(|t| t.pos & t.neg == 0);
    terms.sort_by_key(|t| (t.pos.count_ones() + t.neg.count_ones(), *t));
    terms.dedup();
    let mut out: Vec<Term> = Vec::with_capacity(terms.len());
    for t in terms {
        if !out.iter().any(|o| o.absorbs(t)) {
            out.push(t);
        }
    }
    out.sort();
    out
}

fn and(a: &[Term], b: &[Term]) -> Option<Vec<Term>> {
    if a.len() * b.len() > WORK_CAP {
        return None;
    }
    let product = a.iter().flat_map(|x| b.iter().map(move |y| Term { pos: x.pos | y.pos, neg: x.neg | y.neg }));
    Some(simplify(product.collect()))
}

fn or(a: Vec<Term>, b: Vec<Term>) -> Option<Vec<Term>> {
    if a.len() + b.len() > WORK_CAP {
        return None;
    }
    Some(simplify([a, b].concat()))
}

/// `f` (or `not f` when `!positive`) in normal form; `None` past
/// [`WORK_CAP`].  An atom not among `atoms` is false, as
/// [`Formula::holds`] has it.
fn dnf(f: &Formula, atoms: &[String], positive: bool) -> Option<Vec<Term>> {
    use Formula::*;
    let constant = |v: bool| if v == positive { vec![Term::TRUE] } else { vec![] };
    match f {
        True => Some(constant(true)),
        False => Some(constant(false)),
        Atom(a) => Some(match atoms.iter().position(|x| x == a) {
            Some(i) if positive => vec![Term { pos: 1 << i, neg: 0 }],
            Some(i) => vec![Term { pos: 0, neg: 1 << i }],
            None => constant(false),
        }),
        Not(a) => dnf(a, atoms, !positive),
        And(x, y) | Or(x, y) | Imply(x, y) => {
            // Imply(x, y) is Or(not x, y); negation swaps And and Or.
            let x = dnf(x, atoms, positive != matches!(f, Imply(..)))?;
            let y = dnf(y, atoms, positive)?;
            if matches!(f, And(..)) == positive {
                and(&x, &y)
            } else {
                or(x, y)
            }
        }
        _ => unreachable!("a state label is propositional"),
    }
}

/// A state's label: it holds when one of `terms` holds, or when none
/// does if `negated` (`struct vk_ltl_state`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub negated: bool,
    pub terms: Vec<Term>,
}

impl Label {
    pub fn holds(&self, atoms: u32) -> bool {
        self.terms.iter().any(|t| t.holds(atoms)) != self.negated
    }
}

/// State `s`'s label in the shorter form; `None` when both need more than
/// [`MAX_TERMS`] terms.
pub fn label(b: &Buchi, s: usize) -> Option<Label> {
    let conj = &b.states[s].label;
    let mut plain = Some(vec![Term::TRUE]);
    let mut negated = Some(vec![]);
    for f in conj {
        plain = plain.and_then(|p| and(&p, &dnf(f, &b.atoms, true)?));
        negated = negated.and_then(|n| or(n, dnf(f, &b.atoms, false)?));
    }
    let fits = |t: Option<Vec<Term>>| t.filter(|t| t.len() <= MAX_TERMS);
    match (fits(plain), fits(negated)) {
        (Some(p), Some(n)) if n.len() < p.len() => Some(Label { negated: true, terms: n }),
        (Some(p), _) => Some(Label { negated: false, terms: p }),
        (None, n) => n.map(|terms| Label { negated: true, terms }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn buchi(text: &str) -> Buchi {
        crate::ltl::parse(Path::new("t.ltl"), text).unwrap().buchi().unwrap()
    }

    /// The terms say exactly what the label says, for every assignment.
    fn check(b: &Buchi) -> usize {
        assert!(b.atoms.len() <= 12, "exhaustive check");
        let mut most = 0;
        for s in 0..b.states.len() {
            let l = label(b, s).unwrap_or_else(|| panic!("state {s}: {:?}", b.states[s].label));
            most = most.max(l.terms.len());
            for set in 0..1u32 << b.atoms.len() {
                assert_eq!(l.holds(set), b.label_holds(s, set as u64), "state {s}, atoms {set:#b}");
            }
        }
        most
    }

    #[test]
    fn terms_are_the_labels() {
        assert_eq!(check(&buchi("RULE = always (RT imply not PAGEFAULT)\n")), 1);
        check(&buchi("RULE = always (A imply next B)\n"));
        check(&buchi("RULE = always ((A and B) imply ((C or D and E) until (F or not G)))\n"));
        check(&buchi("RULE = always (not (A or B) imply (A and not A))\n"));
        check(&buchi("RULE = (A imply B) and eventually (B or not C) and (not A until C)\n"));
    }

    /// The kernel's models (../shared, when present): sizes, and the terms
    /// against the labels on random assignments.
    #[test]
    fn the_kernels_labels() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models/kernel-rv/rtapp");
        for file in ["pagefault.ltl", "wakeup.ltl", "sleep.ltl"] {
            let Ok(m) = crate::ltl::LtlModel::from_file(&dir.join(file)) else {
                eprintln!("SKIPPED: {} not found", dir.join(file).display());
                continue;
            };
            let b = m.buchi().unwrap();
            let mut rng = 0x2545_f491_4f6c_dd1du64;
            for s in 0..b.states.len() {
                let l = label(&b, s).unwrap();
                assert!(l.terms.len() <= 4, "{file}: S{s}: {l:?}");
                for _ in 0..20_000 {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    let set = rng as u32 & ((1u64 << b.atoms.len()) - 1) as u32;
                    assert_eq!(l.holds(set), b.label_holds(s, set as u64), "{file}: S{s}, {set:#x}");
                }
            }
        }
    }

    #[test]
    fn absorbed_and_contradictory_terms_go() {
        let t = |pos, neg| Term { pos, neg };
        assert_eq!(simplify(vec![t(0b11, 0), t(0b1, 0), t(0b1, 0b1), t(0b1, 0)]), [t(0b1, 0)]);
        let a = Formula::Atom("A".into());
        let contradiction = Formula::And(Box::new(a.clone()), Box::new(Formula::Not(Box::new(a))));
        assert_eq!(dnf(&contradiction, &["A".into()], true), Some(vec![]));
        let (a, not_a) = (Term { pos: 1, neg: 0 }, Term { pos: 0, neg: 1 });
        assert_eq!(dnf(&contradiction, &["A".into()], false), Some(vec![not_a, a]), "exact, not minimal");
    }

    #[test]
    fn the_shorter_form_and_too_many_terms() {
        // (A0 or B0) and ... and (A4 or B4): 32 terms, its negation 5.
        let atoms: Vec<String> = (0..10).map(|i| format!("A{i}")).collect();
        let atom = |i: usize| Box::new(Formula::Atom(atoms[i].clone()));
        let ors: Vec<Formula> = (0..5).map(|i| Formula::Or(atom(2 * i), atom(2 * i + 1))).collect();
        let one = |label| Buchi { atoms: atoms.clone(), states: vec![crate::ltl::BuchiState { label, init: true, succ: vec![0] }] };
        let l = label(&one(ors.clone()), 0).unwrap();
        assert!(l.negated && l.terms.len() == 5, "{l:?}");
        // ... or (A0 and A1) ... : 32 terms either way.
        let mut both = ors;
        both.push((0..5).map(|i| Formula::And(atom(2 * i), atom(2 * i + 1))).reduce(|a, b| Formula::Or(Box::new(a), Box::new(b))).unwrap());
        assert_eq!(label(&one(both), 0), None);
    }
}
