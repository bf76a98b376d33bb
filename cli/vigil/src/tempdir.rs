//! A minimal self-removing temporary directory (no extra dependency).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU32 = AtomicU32::new(0);

#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    /// Create a fresh directory `vigil-<prefix>-…` under the system temp dir.
    /// Panics if that fails (used by tests); see [`TempDir::create`].
    pub fn new(prefix: &str) -> TempDir {
        TempDir::create(prefix).expect("cannot create a temporary directory")
    }

    pub fn create(prefix: &str) -> io::Result<TempDir> {
        let base = std::env::temp_dir();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let mut last_err = None;
        for _ in 0..100 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!(
                "vigil-{prefix}-{}-{nanos:x}-{n}",
                std::process::id()
            ));
            match fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path, keep: false }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last_err.unwrap_or_else(|| io::Error::other("cannot create a temporary directory")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Do not delete the directory when dropped.
    pub fn keep(&mut self) {
        self.keep = true;
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_then_removed() {
        let p;
        {
            let t = TempDir::new("t");
            p = t.path().to_path_buf();
            assert!(p.is_dir());
            fs::write(p.join("f"), "x").unwrap();
        }
        assert!(!p.exists());
    }

    #[test]
    fn kept_directory_survives() {
        let p;
        {
            let mut t = TempDir::new("k");
            t.keep();
            p = t.path().to_path_buf();
        }
        assert!(p.is_dir());
        fs::remove_dir_all(&p).unwrap();
    }

    #[test]
    fn distinct_directories() {
        let a = TempDir::new("d");
        let b = TempDir::new("d");
        assert_ne!(a.path(), b.path());
    }
}
