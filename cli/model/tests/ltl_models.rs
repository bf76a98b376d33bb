//! The kernel's LTL models (../shared/models/kernel-rv/rtapp/*.ltl, read in
//! place): parsed, and compiled to automata of the sizes the kernel's own
//! generator gives (measured with rvgen's ltl2ba.py on these files: atoms /
//! states / initial states).

use std::path::PathBuf;

use vigil_model::ltl::LtlModel;

mod common;

fn rtapp() -> Option<PathBuf> {
    common::kernel_rv().map(|k| k.join("rtapp"))
}

#[test]
fn the_kernels_ltl_models_as_its_generator_builds_them() {
    let Some(dir) = rtapp() else { return };
    for (file, atoms, states, init) in [("pagefault.ltl", 2, 1, 1), ("wakeup.ltl", 6, 1, 1), ("sleep.ltl", 19, 8, 4)] {
        let m = LtlModel::from_file(&dir.join(file)).unwrap_or_else(|d| panic!("{d}"));
        let b = m.buchi().unwrap();
        assert_eq!(m.atoms.len(), atoms, "{file}: {:?}", m.atoms);
        assert_eq!(b.states.len(), states, "{file}: {b:#?}");
        assert_eq!(b.states.iter().filter(|s| s.init).count(), init, "{file}");
        for s in &b.states {
            assert!(!s.succ.is_empty(), "{file}: a state with no successor");
        }
    }
}
