//! Writes the `stream` fuzz target's seeds into a directory:
//!   stream_seeds DIR
//! (streams made by vigil-stream's encoders: vigil_fuzz::stream_seeds).
fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: stream_seeds DIR");
        std::process::exit(2);
    };
    for (name, bytes) in vigil_fuzz::stream_seeds() {
        let path = std::path::Path::new(&dir).join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
