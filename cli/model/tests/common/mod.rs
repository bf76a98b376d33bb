//! What the model crate's integration tests share: where the repository and
//! the kernel's RV models are, and the `.dot` files under a directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn kernel_rv() -> Option<PathBuf> {
    let dir = repo().join("../shared/models/kernel-rv");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: kernel RV models not found at {} (../shared is missing)",
            dir.display()
        );
        None
    }
}

pub fn dot_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dot") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
