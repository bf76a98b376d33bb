//! Writes the `vk` fuzz target's seeds into a directory: `vk_seeds DIR`
//! (compiled model blobs of the fixture models: vigil_fuzz::vk_seeds).
fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: vk_seeds DIR");
        std::process::exit(2);
    };
    for (name, bytes) in vigil_fuzz::vk_seeds() {
        let path = std::path::Path::new(&dir).join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
