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
}

impl Tableau {
    fn fresh(&mut self) -> usize {
        self.ids += 1;
        self.ids
    }

    /// GPVW's `expand`, with an explicit stack.
    fn expand(&mut self, start: Node) {
        let mut work = vec![start];
        while let Some(mut node) = work.pop() {
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
    /// The automaton of `rule` over `atoms`.
    pub fn of(rule: &Formula, atoms: &[String]) -> Buchi {
        let mut t = Tableau { nodes: Vec::new(), ids: 0 };
        let first = Node { id: 0, incoming: [INIT].into(), new: [normal(rule)].into(), old: BTreeSet::new(), next: BTreeSet::new() };
        t.expand(first);
        t.nodes.sort_by_key(|n| n.id);
        let index = |id: usize| t.nodes.iter().position(|n| n.id == id);
        let states = t
            .nodes
            .iter()
            .map(|n| BuchiState {
                label: n.old.iter().filter(|f| f.is_propositional() && **f != Formula::True).cloned().collect(),
                init: n.incoming.contains(&INIT),
                succ: t.nodes.iter().enumerate().filter(|(_, m)| m.incoming.contains(&n.id)).map(|(j, _)| j).collect(),
            })
            .collect();
        let _ = index;
        Buchi { atoms: atoms.to_vec(), states }
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
