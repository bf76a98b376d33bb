//! [`Compiled`] → the blob the C engines map (`include/vigil/vk.h`): an
//! 80-byte header, then each section at an 8-aligned offset, little-endian,
//! no pointers.  The last section holds the names (model, files, states,
//! events, sources), so that an engine given only the blob (the BPF
//! loader) can say what it monitors and report in the model's words.  An
//! LTL model adds its Büchi automaton at `off_ltl` (`struct vk_ltl`, then
//! per state its successors and label, then the labels' terms:
//! [`super::labels`]).  The struct sizes here are the header's
//! `_Static_assert`s; the conformance corpus runs the C engines on these
//! bytes.

use super::*;
use crate::binding::{AtomAction, Scope};

pub const MAGIC: u32 = 0x314b_5456; // "VTK1"
pub const ABI: u16 = 3;
const HEADER: usize = 80;

fn op_code(op: Op) -> u8 {
    match op {
        Op::Eq => 0,
        Op::Ne => 1,
        Op::Lt => 2,
        Op::Le => 3,
        Op::Gt => 4,
        Op::Ge => 5,
    }
}

fn mode_code(m: Mode) -> u8 {
    match m {
        Mode::Plain => 0,
        Mode::Start => 1,
        Mode::Run => 2,
    }
}

/// A rule's `atom_op` and `atom_value` (`VK_ATOM_*`): what an LTL rule
/// does to its atom.  No action is a pulse, as in the step.
fn atom_code(a: Option<AtomAction>) -> (u8, u8) {
    match a {
        None | Some(AtomAction::Pulse) => (0, 0),
        Some(AtomAction::Set(v)) => (1, v as u8),
        Some(AtomAction::Update(v)) => (2, v as u8),
    }
}

fn scope_code(s: Scope) -> u8 {
    match s {
        Scope::Global => 0,
        Scope::Cpu => 1,
        Scope::Task => 2,
        Scope::Object => 3,
    }
}

/// A section writer: 8-aligned starts.
struct Out(Vec<u8>);

impl Out {
    fn section(&mut self) -> u32 {
        while !self.0.len().is_multiple_of(8) {
            self.0.push(0);
        }
        self.0.len() as u32
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
}

impl Compiled {
    /// The names section, in the order `vk_model_names` returns them:
    /// model name, model file, binding file, states, events, sources.
    /// A name holds no NUL (they come from identifiers and paths).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [self.model_name.as_str(), self.model_path.as_str(), self.binding_path.as_str()]
            .into_iter()
            .chain(self.states.iter().map(String::as_str))
            .chain(self.events.iter().map(String::as_str))
            .chain(self.sources.iter().map(String::as_str))
    }

    /// The blob `vk_model_open` maps.
    pub fn to_blob(&self) -> Vec<u8> {
        let mut o = Out(vec![0; HEADER]);
        let off_next = o.section();
        self.next.iter().for_each(|&n| o.u16(n));
        let off_final = o.section();
        self.finals.iter().for_each(|&f| o.u8(f as u8));
        let off_edge = o.section();
        for e in &self.edges {
            o.u16(e.guard);
            o.u8(e.resets);
            o.u8(0);
        }
        let off_inv = o.section();
        for inv in &self.invariants {
            let (clock, present, after) = inv.as_ref().map_or((0, 0, 0), |i| (i.clock, 1, i.expires_after));
            o.u8(clock);
            o.u8(present);
            o.u16(0);
            o.u32(0);
            o.u64(after);
        }
        let off_cmp = o.section();
        for c in &self.cmps {
            for b in [op_code(c.op), c.lhs_kind as u8, c.lhs, c.rhs_kind as u8, c.rhs, c.end_term as u8] {
                o.u8(b);
            }
            o.u16(0);
            o.u64(c.value as u64);
        }
        let off_guard = o.section();
        for g in &self.guards {
            o.u16(g.first);
            o.u16(g.n);
        }
        let off_rule = o.section();
        for r in &self.rules {
            o.u16(r.event);
            o.u8(mode_code(r.mode));
            o.u8(r.key);
            o.u16(r.cond_first);
            o.u16(r.cond_n);
            r.env_fields.iter().for_each(|&f| o.u8(f));
            o.u16(r.source);
            let (op, value) = atom_code(r.atom);
            o.u8(op);
            o.u8(value);
            o.u32(r.line);
            o.u32(0);
            o.u64(0);
        }
        let off_ltl = self.ltl_section(&mut o);
        let off_names = o.section();
        for name in self.names() {
            o.0.extend_from_slice(name.as_bytes());
            o.u8(0);
        }
        let names_len = o.0.len() as u32 - off_names;
        o.section();
        let size = o.0.len() as u32;
        let mut h = Out(Vec::with_capacity(HEADER));
        h.u32(MAGIC);
        h.u32(size);
        h.u16(ABI);
        h.u8(self.kind as u8);
        h.u8(scope_code(self.scope));
        for n in [self.nstates, self.nevents, self.rules.len() as u16, self.cmps.len() as u16, self.guards.len() as u16, self.sources.len() as u16] {
            h.u16(n);
        }
        for b in [self.has_start as u8, self.check_exit as u8, self.clocks.len() as u8, self.envs.len() as u8] {
            h.u8(b);
        }
        for off in [off_next, off_final, off_edge, off_inv, off_cmp, off_guard, off_rule, off_names, names_len, off_ltl] {
            h.u32(off);
        }
        h.0.resize(HEADER, 0); // reserved: 0
        assert_eq!(h.0.len(), HEADER, "vk_header is 80 bytes");
        o.0[..HEADER].copy_from_slice(&h.0);
        o.0
    }
}

impl Compiled {
    /// The LTL section (0 for other kinds): `struct vk_ltl`, `struct
    /// vk_ltl_state[nstates]`, `struct vk_ltl_term[nterms]`.  `compile`
    /// has checked that every label fits.
    fn ltl_section(&self, o: &mut Out) -> u32 {
        let Some(b) = &self.ltl else { return 0 };
        let labels: Vec<super::labels::Label> =
            (0..b.states.len()).map(|s| super::labels::label(b, s).expect("compile checks the labels")).collect();
        let off = o.section();
        o.u8(b.states.len() as u8);
        o.u8(b.atoms.len() as u8);
        o.u16(labels.iter().map(|l| l.terms.len()).sum::<usize>() as u16);
        o.u32(b.states.iter().enumerate().filter(|(_, s)| s.init).fold(0, |m, (i, _)| m | 1 << i));
        let mut first = 0;
        for (s, l) in b.states.iter().zip(&labels) {
            o.u32(s.succ.iter().fold(0, |m, &t| m | 1 << t));
            o.u16(first);
            o.u8(l.terms.len() as u8);
            o.u8(l.negated as u8);
            first += l.terms.len() as u16;
        }
        for t in labels.iter().flat_map(|l| &l.terms) {
            o.u32(t.pos);
            o.u32(t.neg);
        }
        off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_aligned_and_sized() {
        let c = Compiled {
            kind: Kind::Da,
            scope: Scope::Task,
            has_start: true,
            check_exit: false,
            nstates: 2,
            nevents: 3,
            next: vec![1, NONE, 0, NONE, 0, NONE],
            finals: vec![true, false],
            edges: vec![],
            invariants: vec![],
            cmps: vec![Cmp { op: Op::Eq, lhs_kind: Opnd::Field, lhs: 1, rhs_kind: Opnd::Const, rhs: 0, end_term: false, value: -2 }],
            guards: vec![],
            rules: vec![Rule { event: 2, mode: Mode::Start, key: 0, cond_first: 0, cond_n: 1, env_fields: [NO_FIELD; MAX_ENVS], source: 0, line: 7, atom: None }],
            sources: vec!["tp:sched_switch".into()],
            clocks: vec![],
            envs: vec![],
            model_name: "m".into(),
            model_path: "m.dot".into(),
            binding_path: "m.bind".into(),
            states: vec!["a".into(), "b".into()],
            events: vec!["x".into(), "y".into(), "z".into()],
            ltl: None,
        };
        let b = c.to_blob();
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(u32_at(0), MAGIC);
        assert_eq!(u32_at(4) as usize, b.len());
        assert_eq!(b.len() % 8, 0);
        let off_next = u32_at(28) as usize;
        assert_eq!(off_next, 80);
        assert_eq!(u16::from_le_bytes([b[off_next + 2], b[off_next + 3]]), NONE);
        let off_cmp = u32_at(44) as usize;
        assert_eq!(i64::from_le_bytes(b[off_cmp + 8..off_cmp + 16].try_into().unwrap()), -2);
        let off_rule = u32_at(52) as usize;
        assert_eq!(b[off_rule + 2], 1, "mode start");
        assert_eq!(u32_at(off_rule + 16), 7, "line");
        let off_names = u32_at(56) as usize;
        assert_eq!(off_names - off_rule, 32);
        let names: Vec<&[u8]> = b[off_names..off_names + u32_at(60) as usize].split(|&c| c == 0).collect();
        assert_eq!(names[..8], [&b"m"[..], b"m.dot", b"m.bind", b"a", b"b", b"x", b"y", b"z"]);
        assert_eq!(names[8], b"tp:sched_switch");
        assert_eq!(u32_at(64), 0, "no LTL section");
    }

    #[test]
    fn the_ltl_section() {
        use std::path::Path;
        let model = crate::ltl::parse(Path::new("n.ltl"), "RULE = always (A imply next B)\n").unwrap().to_model().unwrap();
        let text = "scope task\nA <- call:a key=arg0 set true\nA <- call:b key=arg0 false\nB <- call:c key=arg0 pulse\n";
        let binding = crate::Binding::from_str(Path::new("n.bind"), text, &model).unwrap();
        let c = super::super::compile(&model, &binding).unwrap();
        let buchi = c.ltl.as_ref().unwrap();
        let b = c.to_blob();
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        assert_eq!(b[14], Kind::Ltl as u8);
        let off_rule = u32_at(52) as usize;
        let atom = |r: usize| (b[off_rule + 32 * r + 14], b[off_rule + 32 * r + 15]);
        assert_eq!([atom(0), atom(1), atom(2)], [(1, 1), (2, 0), (0, 0)], "set true, update false, pulse");
        let off = u32_at(64) as usize;
        assert!(off.is_multiple_of(8) && off > off_rule && off < u32_at(56) as usize, "before the names");
        let n = buchi.states.len();
        assert_eq!((b[off] as usize, b[off + 1]), (n, 2));
        let init = (0..n).filter(|&s| buchi.states[s].init).fold(0, |m, s| m | 1 << s);
        assert_eq!(u32_at(off + 4), init);
        let nterms = u16::from_le_bytes([b[off + 2], b[off + 3]]) as usize;
        let terms = off + 8 + 8 * n;
        assert_eq!(terms + 8 * nterms, u32_at(56) as usize, "the names follow, 8-aligned");
        for s in 0..n {
            let st = off + 8 + 8 * s;
            assert_eq!(u32_at(st), buchi.states[s].succ.iter().fold(0, |m, &t| m | 1 << t));
            let first = u16::from_le_bytes([b[st + 4], b[st + 5]]) as usize;
            let (k, negated) = (b[st + 6] as usize, b[st + 7] != 0);
            assert!(first + k <= nterms);
            for set in 0..4u32 {
                let any = (first..first + k).any(|t| {
                    let (pos, neg) = (u32_at(terms + 8 * t), u32_at(terms + 8 * t + 4));
                    set & pos == pos && set & neg == 0
                });
                assert_eq!(any != negated, buchi.label_holds(s, set as u64), "S{s}, atoms {set:#b}");
            }
        }
    }
}
