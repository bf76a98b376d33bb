//! The Büchi automaton of a formula, built as the kernel's ltl2ba.py builds
//! it: negation normal form (`always F` = `false V F`, `eventually F` =
//! `true U F`, `P imply Q` = `not P or Q`), then the tableau of Gerth,
//! Peled, Vardi and Wolper.  A propositional sub-formula (no temporal
//! operator) is kept whole as one label, as the kernel's generator does,
//! so labels are conjunctions of propositional formulas.  Nodes are
//! numbered in creation order; the kernel's numbering depends on Python's
//! hash order, so the same automaton may carry other numbers there.

use std::collections::BTreeSet;

use super::Formula;

/// One state: its label (all must hold when it is entered), whether it is
/// initial, and its successors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuchiState {
    pub label: Vec<Formula>,
    pub init: bool,
    pub succ: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buchi {
    pub atoms: Vec<String>,
    pub states: Vec<BuchiState>,
}

/// Negation normal form with the kernel's rewrites.
pub fn normal(f: &Formula) -> Formula {
    use Formula::*;
    let b = |f: &Formula| Box::new(normal(f));
    match f {
        True | False | Atom(_) => f.clone(),
        Always(a) => Release(Box::new(False), b(a)),
        Eventually(a) => Until(Box::new(True), b(a)),
        Imply(p, q) => Or(Box::new(negate(p)), b(q)),
        And(x, y) => And(b(x), b(y)),
        Or(x, y) => Or(b(x), b(y)),
        Until(x, y) => Until(b(x), b(y)),
        Release(x, y) => Release(b(x), b(y)),
        Next(a) => Next(b(a)),
        Not(a) => negate(a),
    }
}

/// `not f`, in negation normal form.
fn negate(f: &Formula) -> Formula {
    use Formula::*;
    let n = |f: &Formula| Box::new(negate(f));
    match f {
        True => False,
        False => True,
        Atom(_) => Not(Box::new(f.clone())),
        Not(a) => normal(a),
        And(x, y) => Or(n(x), n(y)),
        Or(x, y) => And(n(x), n(y)),
        Imply(p, q) => And(Box::new(normal(p)), n(q)),
        Until(x, y) => Release(n(x), n(y)),
        Release(x, y) => Until(n(x), n(y)),
        Always(a) => Until(Box::new(True), n(a)),
        Eventually(a) => Release(Box::new(False), n(a)),
        Next(a) => Next(n(a)),
    }
}

const INIT: usize = usize::MAX;

#[derive(Debug, Clone)]
struct Node {
    id: usize,
    incoming: BTreeSet<usize>,
    new: BTreeSet<Formula>,
    old: BTreeSet<Formula>,
    next: BTreeSet<Formula>,
}

struct Tableau {
    nodes: Vec<Node>,
    ids: usize,
    /// The construction is exponential in the formula: it stops once the
    /// automaton is already larger than any monitor takes.
    overflow: bool,
}

/// Nodes kept, or pending, past which the construction stops.
const NODE_CAP: usize = 4 * super::MAX_STATES;
const WORK_CAP: usize = 100_000;

impl Tableau {
    fn fresh(&mut self) -> usize {
        self.ids += 1;
        self.ids
    }

    /// GPVW's `expand`, with an explicit stack.
    fn expand(&mut self, start: Node) {
        let mut work = vec![start];
        while let Some(mut node) = work.pop() {
            if self.nodes.len() > NODE_CAP || work.len() > WORK_CAP {
                self.overflow = true;
                return;
            }
            let Some(f) = node.new.pop_first() else {
                if let Some(n) = self.nodes.iter_mut().find(|n| n.old == node.old && n.next == node.next) {
                    n.incoming.extend(node.incoming);
                    continue;
                }
                let succ = Node { id: self.fresh(), incoming: [node.id].into(), new: node.next.clone(), old: BTreeSet::new(), next: BTreeSet::new() };
                self.nodes.push(node);
                work.push(succ);
                continue;
            };
            if node.old.contains(&f) {
                work.push(node);
                continue;
            }
            use Formula::*;
            match &f {
                False => {}
                True | Atom(_) | Not(_) => {
                    if !node.old.contains(&negate(&f)) {
                        node.old.insert(f);
                        work.push(node);
                    }
                }
                _ if f.is_propositional() => {
                    node.old.insert(f);
                    work.push(node);
                }
                And(a, b) => {
                    for x in [a, b] {
                        if !node.old.contains(x) {
                            node.new.insert((**x).clone());
                        }
                    }
                    node.old.insert(f);
                    work.push(node);
                }
                Next(a) => {
                    node.next.insert((**a).clone());
                    node.old.insert(f);
                    work.push(node);
                }
                Or(a, b) | Until(a, b) | Release(a, b) => {
                    // Or: (a) | (b); a U b: (a, next a U b) | (b);
                    // a V b: (b, next a V b) | (a, b).
                    let (first, later, second): (Vec<&Formula>, bool, Vec<&Formula>) = match &f {
                        Or(..) => (vec![a], false, vec![b]),
                        Until(..) => (vec![a], true, vec![b]),
                        _ => (vec![b], true, vec![a, b]),
                    };
                    let mut n2 = node.clone();
                    n2.id = self.fresh();
                    for (n, add) in [(&mut node, &first), (&mut n2, &second)] {
                        for x in add {
                            if !n.old.contains(*x) {
                                n.new.insert((*x).clone());
                            }
                        }
                        n.old.insert(f.clone());
                    }
                    if later {
                        node.next.insert(f.clone());
                    }
                    work.push(n2);
                    work.push(node);
                }
                Imply(..) | Always(..) | Eventually(..) => unreachable!("not in normal form"),
            }
        }
    }
}

impl Buchi {
    /// The automaton of `rule` over `atoms`; `None` when it has more than
    /// four times the states a monitor takes (the construction stops).
    pub fn of(rule: &Formula, atoms: &[String]) -> Option<Buchi> {
        let mut t = Tableau { nodes: Vec::new(), ids: 0, overflow: false };
        let first = Node { id: 0, incoming: [INIT].into(), new: [normal(rule)].into(), old: BTreeSet::new(), next: BTreeSet::new() };
        t.expand(first);
        if t.overflow {
            return None;
        }
        t.nodes.sort_by_key(|n| n.id);
        let states = t
            .nodes
            .iter()
            .map(|n| BuchiState {
                label: n.old.iter().filter(|f| f.is_propositional() && **f != Formula::True).cloned().collect(),
                init: n.incoming.contains(&INIT),
                succ: t.nodes.iter().enumerate().filter(|(_, m)| m.incoming.contains(&n.id)).map(|(j, _)| j).collect(),
            })
            .collect();
        Some(Buchi { atoms: atoms.to_vec(), states })
    }

    /// Whether state `s`'s label holds for the atoms in `set`.
    pub fn label_holds(&self, s: usize, set: u64) -> bool {
        self.states[s].label.iter().all(|f| f.holds(&self.atoms, set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn buchi(text: &str) -> Buchi {
        let m = super::super::parse(Path::new("t.ltl"), text).unwrap();
        m.buchi().unwrap()
    }

    #[test]
    fn pagefault_is_one_state() {
        let b = buchi("RULE = always (RT imply not PAGEFAULT)\n");
        assert_eq!(b.atoms, ["PAGEFAULT", "RT"]);
        assert_eq!(b.states.len(), 1);
        assert!(b.states[0].init);
        assert_eq!(b.states[0].succ, [0]);
        assert_eq!(b.states[0].label.len(), 1);
        assert_eq!(b.states[0].label[0].to_string(), "(!rt || !pagefault)");
        // PAGEFAULT=bit 0, RT=bit 1
        assert!(b.label_holds(0, 0b01) && b.label_holds(0, 0b10) && !b.label_holds(0, 0b11));
    }

    #[test]
    fn a_formula_too_large_stops_the_construction() {
        let mut f = String::from("A0");
        for i in 1..24 {
            f = format!("(A{i} until ({f}))");
        }
        let m = super::super::parse(Path::new("big.ltl"), &format!("RULE = always {f}\n")).unwrap();
        let e = m.buchi().unwrap_err();
        assert!(e.message.contains("far more than 32 states") || e.message.contains("the kernel's monitors take at most"), "{e}");
    }

    #[test]
    fn always_a_imply_next_b_as_the_kernel() {
        // The kernel: 4 states, 2 initial, one labelled !a, one unlabelled,
        // two labelled b.
        let b = buchi("RULE = always (A imply next B)\n");
        assert_eq!(b.states.len(), 4, "{b:#?}");
        assert_eq!(b.states.iter().filter(|s| s.init).count(), 2, "{b:#?}");
        let labels: Vec<String> = b.states.iter().map(|s| s.label.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(" && ")).collect();
        assert_eq!(labels.iter().filter(|l| *l == "!a").count(), 1, "{labels:?}");
        assert_eq!(labels.iter().filter(|l| l.is_empty()).count(), 1, "{labels:?}");
        assert_eq!(labels.iter().filter(|l| l.starts_with('b')).count(), 2, "{labels:?}");
    }
}

/// One task's LTL monitor, as the kernel's `struct ltl_monitor`: the set of
/// Büchi states it may be in (empty: not started, or just violated), the
/// atoms' values and which of them are known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LtlInst {
    pub states: u32,
    pub atoms: u32,
    pub known: u32,
}

impl Buchi {
    fn all_atoms(&self) -> u32 {
        if self.atoms.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << self.atoms.len()) - 1
        }
    }

    /// `ltl_atom_set`: a value, no step.
    pub fn set(&self, m: &mut LtlInst, atom: usize, value: bool) {
        m.known |= 1 << atom;
        if value {
            m.atoms |= 1 << atom;
        } else {
            m.atoms &= !(1 << atom);
        }
    }

    /// One step on the current atoms: `true` when it is a violation (the
    /// set of states became empty).
    fn validate(&self, m: &mut LtlInst) -> bool {
        let mut next = 0u32;
        for s in 0..self.states.len() {
            if m.states & (1 << s) == 0 {
                continue;
            }
            for &t in &self.states[s].succ {
                if self.label_holds(t, m.atoms as u64) {
                    next |= 1 << t;
                }
            }
        }
        m.states = next;
        next == 0
    }

    /// `ltl_atom_update`: set, then step.  A monitor not started starts
    /// once every atom is known (the initial states whose labels hold; no
    /// verdict, even when none does: the kernel retries at the next update).
    pub fn update(&self, m: &mut LtlInst, atom: usize, value: bool) -> bool {
        self.set(m, atom, value);
        if m.states == 0 {
            if m.known == self.all_atoms() {
                m.states = (0..self.states.len())
                    .filter(|&s| self.states[s].init && self.label_holds(s, m.atoms as u64))
                    .fold(0, |acc, s| acc | 1 << s);
            }
            return false;
        }
        self.validate(m)
    }

    /// `ltl_atom_pulse`: true for one step, then false for the next (two
    /// steps; the second only if the monitor is still running).
    pub fn pulse(&self, m: &mut LtlInst, atom: usize, value: bool) -> bool {
        let violated = self.update(m, atom, value);
        self.set(m, atom, !value);
        if m.states == 0 {
            return violated;
        }
        self.validate(m) || violated
    }
}

#[cfg(test)]
mod monitor_tests {
    use super::*;
    use std::path::Path;

    /// The kernel's pagefault_kunit.c: a fault as a normal task starts the
    /// monitor; then a fault as an RT task is reported, once.
    #[test]
    fn pagefault_as_the_kernels_kunit_test() {
        let m = super::super::parse(Path::new("p.ltl"), "RULE = always (RT imply not PAGEFAULT)\n").unwrap();
        let b = m.buchi().unwrap();
        let (pf, rt) = (0, 1);
        let mut t = LtlInst::default();
        b.set(&mut t, rt, false);
        assert!(!b.pulse(&mut t, pf, true), "a normal task's fault starts it");
        assert_ne!(t.states, 0);
        b.set(&mut t, rt, true);
        assert!(b.pulse(&mut t, pf, true), "an RT task's fault is a violation");
        assert_eq!(t.states, 0);
        assert!(!b.pulse(&mut t, pf, true), "reported once: the start fails silently while RT faults");
        // A task that is RT from its first fault is never reported.
        let mut u = LtlInst::default();
        b.set(&mut u, rt, true);
        assert!(!b.pulse(&mut u, pf, true));
        assert!(!b.pulse(&mut u, pf, true));
    }

    /// `next`: the obligation is checked at the task's next step.
    #[test]
    fn next_is_the_next_step() {
        let m = super::super::parse(Path::new("n.ltl"), "RULE = always (A imply next B)\n").unwrap();
        let b = m.buchi().unwrap();
        let (a, bb) = (0, 1);
        let mut t = LtlInst::default();
        b.set(&mut t, bb, false);
        assert!(!b.update(&mut t, a, false), "start");
        assert!(!b.update(&mut t, a, true), "A: B is due at the next step");
        assert!(!b.update(&mut t, bb, true), "B came");
        assert!(!b.update(&mut t, a, false));
        b.set(&mut t, bb, false);
        assert!(!b.update(&mut t, a, true));
        assert!(b.update(&mut t, a, false), "B did not come at the next step");
    }
}
