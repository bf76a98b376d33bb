//! Finding vigil's own files and the compiler.
//!
//! The installation root (HOME) is the parent of the directory holding the
//! `vigil` executable (symlinks resolved), or `$VIGIL_HOME` when set:
//!
//! ```text
//! HOME/bin/vigil              this program (and vigil-cc)
//! HOME/lib/vigil-clang.so     the Clang plugin
//! HOME/lib/vigil-pass.so      the link-time LLVM pass
//! HOME/lib/libvigil.a         the runtime
//! HOME/include/tesla.h        the header (build tree: HOME/../include)
//! ```

use std::env;
use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const HOME_VAR: &str = "VIGIL_HOME";
pub const CLANG_VAR: &str = "VIGIL_CLANG";
pub const DEFAULT_CLANG: &str = "clang-19";
pub const FALLBACK_CLANG: &str = "/usr/lib/llvm-19/bin/clang";

pub const CLANG_PLUGIN: &str = "vigil-clang.so";
pub const PASS_PLUGIN: &str = "vigil-pass.so";
pub const RUNTIME_LIB: &str = "libvigil.a";
pub const HEADER: &str = "tesla.h";

/// Where vigil's files live.  Only the root is decided up front; each file is
/// checked when a command actually needs it, so that e.g. a compile-only
/// invocation works before the runtime library has been built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    pub home: PathBuf,
    /// How `home` was chosen, for error messages.
    pub origin: String,
}

impl Install {
    /// Locate the installation of the running executable (or `$VIGIL_HOME`).
    pub fn locate() -> Result<Install> {
        let home_var = env::var_os(HOME_VAR);
        let exe = if home_var.as_deref().is_some_and(|v| !v.is_empty()) {
            PathBuf::new() // not needed
        } else {
            let exe = env::current_exe()
                .map_err(|e| Error::setup(format!("cannot find the vigil executable: {e}")))?;
            exe.canonicalize().unwrap_or(exe)
        };
        Install::resolve(home_var.as_deref(), &exe)
    }

    /// The pure part of [`Install::locate`]: `vigil_home` is the value of
    /// `$VIGIL_HOME` (if set), `exe` the canonical path of the executable.
    pub fn resolve(vigil_home: Option<&OsStr>, exe: &Path) -> Result<Install> {
        if let Some(home) = vigil_home.filter(|v| !v.is_empty()) {
            let home = PathBuf::from(home);
            if !home.is_dir() {
                return Err(Error::setup(format!(
                    "{HOME_VAR}={} is not a directory",
                    home.display()
                )));
            }
            let home = home.canonicalize().unwrap_or(home);
            return Ok(Install {
                home,
                origin: format!("from ${HOME_VAR}"),
            });
        }
        let home = exe
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| {
                Error::setup(format!(
                    "cannot derive the vigil installation from the executable path {}; set {HOME_VAR}",
                    exe.display()
                ))
            })?
            .to_path_buf();
        let origin = format!("from the executable {}", exe.display());
        Ok(Install { home, origin })
    }

    pub fn lib_dir(&self) -> PathBuf {
        self.home.join("lib")
    }

    fn lib_file(&self, name: &str, what: &str) -> Result<PathBuf> {
        let path = self.lib_dir().join(name);
        if path.is_file() {
            Ok(path)
        } else {
            Err(self.missing(&path, what))
        }
    }

    fn missing(&self, path: &Path, what: &str) -> Error {
        Error::setup(format!(
            "{what} not found: {} (vigil installation {}, {}; set {HOME_VAR} to override)",
            path.display(),
            self.home.display(),
            self.origin
        ))
    }

    /// `HOME/lib/vigil-clang.so`, which must exist.
    pub fn clang_plugin(&self) -> Result<PathBuf> {
        self.lib_file(CLANG_PLUGIN, "vigil Clang plugin")
    }

    /// `HOME/lib/vigil-pass.so`, which must exist.
    pub fn pass_plugin(&self) -> Result<PathBuf> {
        self.lib_file(PASS_PLUGIN, "vigil LLVM pass plugin")
    }

    /// `HOME/lib/libvigil.a`, which must exist.
    pub fn runtime_lib(&self) -> Result<PathBuf> {
        self.lib_file(RUNTIME_LIB, "vigil runtime library")
    }

    /// The directory of the automaton models vigil ships (`wwnr.dot`...):
    /// `HOME/models` when it exists, else `HOME/../models` (the build tree:
    /// `<repo>/build/bin/vigil` → `<repo>/models`).
    pub fn models_dir(&self) -> PathBuf {
        let installed = self.home.join("models");
        let dir = if installed.is_dir() {
            installed
        } else {
            self.home.join("..").join("models")
        };
        dir.canonicalize().unwrap_or(dir)
    }

    /// The directory holding `tesla.h`: `HOME/include`, or `HOME/../include`
    /// in a build tree.
    pub fn include_dir(&self) -> Result<PathBuf> {
        let primary = self.home.join("include");
        let candidates = [primary.clone(), self.home.join("..").join("include")];
        for dir in &candidates {
            if dir.join(HEADER).is_file() {
                return Ok(dir.canonicalize().unwrap_or_else(|_| dir.clone()));
            }
        }
        Err(self.missing(&primary.join(HEADER), "vigil header"))
    }
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Look `name` up in the `PATH`-style list `path_var`.
pub fn search_path(name: &OsStr, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// The compiler to run: `$VIGIL_CLANG` (a path, or a name looked up in
/// `PATH`), else `clang-19` from `PATH`, else `/usr/lib/llvm-19/bin/clang`.
pub fn find_clang(clang_var: Option<&OsStr>, path_var: Option<&OsStr>) -> Result<PathBuf> {
    find_clang_with_fallback(clang_var, path_var, Path::new(FALLBACK_CLANG))
}

/// [`find_clang`] with the last-resort path as a parameter (for tests).
pub fn find_clang_with_fallback(
    clang_var: Option<&OsStr>,
    path_var: Option<&OsStr>,
    fallback: &Path,
) -> Result<PathBuf> {
    if let Some(name) = clang_var.filter(|v| !v.is_empty()) {
        let as_path = Path::new(name);
        if as_path.components().count() > 1 || name.to_string_lossy().contains('/') {
            if is_executable(as_path) {
                return Ok(as_path.to_path_buf());
            }
            return Err(Error::setup(format!(
                "compiler not found: {CLANG_VAR}={} is not an executable file",
                as_path.display()
            )));
        }
        return search_path(name, path_var).ok_or_else(|| {
            Error::setup(format!(
                "compiler not found: {CLANG_VAR}={} is not in PATH",
                as_path.display()
            ))
        });
    }
    if let Some(found) = search_path(OsStr::new(DEFAULT_CLANG), path_var) {
        return Ok(found);
    }
    if is_executable(fallback) {
        return Ok(fallback.to_path_buf());
    }
    Err(Error::setup(format!(
        "compiler not found: no {DEFAULT_CLANG} in PATH and no {}; install clang 19 or set {CLANG_VAR}",
        fallback.display()
    )))
}

/// [`find_clang`] using the process environment.
pub fn clang_from_env() -> Result<PathBuf> {
    let clang: Option<OsString> = env::var_os(CLANG_VAR);
    let path: Option<OsString> = env::var_os("PATH");
    find_clang(clang.as_deref(), path.as_deref())
}


/// A helper program shipped next to the running `vigil` (the eBPF loaders
/// `vigil-bpf-monitor`, `vigil-bpf-record`), or the path in `$var`.
/// `what` names it in the error when it was not built.
pub fn sibling_program(name: &str, var: &str, what: &str) -> Result<PathBuf> {
    if let Some(p) = env::var_os(var).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let exe = env::current_exe()
        .map_err(|e| Error::setup(format!("cannot find the vigil executable: {e}")))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let path = exe
        .parent()
        .map(|d| d.join(name))
        .ok_or_else(|| Error::setup("cannot find the directory of the vigil executable"))?;
    if !path.is_file() {
        return Err(Error::setup(format!(
            "{what} is not built: {} not found (`make build` builds it on a kernel with \
             /sys/kernel/btf/vmlinux and with bpftool, libbpf-dev and libelf-dev installed)",
            path.display()
        )));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::TempDir;
    use std::fs;

    fn make_exec(path: &Path) {
        fs::write(path, "#!/bin/sh\n").unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn home_is_parent_of_bin_dir() {
        let inst = Install::resolve(None, Path::new("/opt/vigil/bin/vigil")).unwrap();
        assert_eq!(inst.home, PathBuf::from("/opt/vigil"));
        assert_eq!(inst.lib_dir(), PathBuf::from("/opt/vigil/lib"));
    }

    #[test]
    fn vigil_home_overrides_exe() {
        let t = TempDir::new("home");
        let inst = Install::resolve(
            Some(t.path().as_os_str()),
            Path::new("/opt/vigil/bin/vigil"),
        )
        .unwrap();
        assert_eq!(inst.home, t.path().canonicalize().unwrap());
    }

    #[test]
    fn empty_vigil_home_is_ignored() {
        let inst = Install::resolve(Some(OsStr::new("")), Path::new("/x/bin/vigil")).unwrap();
        assert_eq!(inst.home, PathBuf::from("/x"));
    }

    #[test]
    fn missing_vigil_home_is_an_error() {
        let err = Install::resolve(
            Some(OsStr::new("/nonexistent/vigil-home")),
            Path::new("/x/bin/vigil"),
        )
        .unwrap_err();
        assert_eq!(err.code, 2);
        assert!(
            err.message.contains("/nonexistent/vigil-home"),
            "{}",
            err.message
        );
    }

    #[test]
    fn missing_plugin_names_the_path() {
        let t = TempDir::new("noplugin");
        let inst = Install::resolve(Some(t.path().as_os_str()), Path::new("/")).unwrap();
        let err = inst.clang_plugin().unwrap_err();
        assert_eq!(err.code, 2);
        let want = inst.home.join("lib").join(CLANG_PLUGIN);
        assert!(
            err.message.contains(&want.display().to_string()),
            "{}",
            err.message
        );
        assert!(inst.pass_plugin().is_err());
        assert!(inst.runtime_lib().is_err());
    }

    #[test]
    fn present_files_are_found() {
        let t = TempDir::new("full");
        fs::create_dir_all(t.path().join("lib")).unwrap();
        for f in [CLANG_PLUGIN, PASS_PLUGIN, RUNTIME_LIB] {
            fs::write(t.path().join("lib").join(f), "").unwrap();
        }
        let inst = Install::resolve(Some(t.path().as_os_str()), Path::new("/")).unwrap();
        assert_eq!(
            inst.clang_plugin().unwrap(),
            inst.home.join("lib/vigil-clang.so")
        );
        assert_eq!(
            inst.pass_plugin().unwrap(),
            inst.home.join("lib/vigil-pass.so")
        );
        assert_eq!(
            inst.runtime_lib().unwrap(),
            inst.home.join("lib/libvigil.a")
        );
    }

    #[test]
    fn include_prefers_home_include_then_build_tree() {
        let t = TempDir::new("inc");
        let home = t.path().join("build");
        fs::create_dir_all(&home).unwrap();
        let inst = Install::resolve(Some(home.as_os_str()), Path::new("/")).unwrap();
        // Neither exists yet.
        let err = inst.include_dir().unwrap_err();
        assert!(err.message.contains("tesla.h"), "{}", err.message);
        // Build-tree layout: <repo>/include next to <repo>/build.
        fs::create_dir_all(t.path().join("include")).unwrap();
        fs::write(t.path().join("include/tesla.h"), "").unwrap();
        assert_eq!(
            inst.include_dir().unwrap(),
            t.path().join("include").canonicalize().unwrap()
        );
        // Installed layout wins when present.
        fs::create_dir_all(home.join("include")).unwrap();
        fs::write(home.join("include/tesla.h"), "").unwrap();
        assert_eq!(
            inst.include_dir().unwrap(),
            home.join("include").canonicalize().unwrap()
        );
    }

    #[test]
    fn clang_from_var_path() {
        let t = TempDir::new("clangvar");
        let c = t.path().join("myclang");
        make_exec(&c);
        let got =
            find_clang_with_fallback(Some(c.as_os_str()), None, Path::new("/nonexistent")).unwrap();
        assert_eq!(got, c);
        let err = find_clang_with_fallback(
            Some(t.path().join("nope").as_os_str()),
            None,
            Path::new("/nonexistent"),
        )
        .unwrap_err();
        assert_eq!(err.code, 2);
        assert!(err.message.contains("nope"));
    }

    #[test]
    fn clang_from_var_name_searches_path() {
        let t = TempDir::new("clangname");
        make_exec(&t.path().join("my-clang"));
        let path = env::join_paths([Path::new("/nonexistent"), t.path()]).unwrap();
        let got = find_clang_with_fallback(
            Some(OsStr::new("my-clang")),
            Some(&path),
            Path::new("/nonexistent"),
        )
        .unwrap();
        assert_eq!(got, t.path().join("my-clang"));
        assert!(find_clang_with_fallback(
            Some(OsStr::new("other")),
            Some(&path),
            Path::new("/nonexistent")
        )
        .is_err());
    }

    #[test]
    fn default_clang_then_fallback() {
        let t = TempDir::new("clangdef");
        let fallback = t.path().join("fallback-clang");
        let bin = t.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        let path = bin.clone().into_os_string();
        // Nothing at all.
        assert!(find_clang_with_fallback(None, Some(&path), &fallback).is_err());
        // Fallback only.
        make_exec(&fallback);
        assert_eq!(
            find_clang_with_fallback(None, Some(&path), &fallback).unwrap(),
            fallback
        );
        // clang-19 in PATH wins.
        make_exec(&bin.join(DEFAULT_CLANG));
        assert_eq!(
            find_clang_with_fallback(None, Some(&path), &fallback).unwrap(),
            bin.join(DEFAULT_CLANG)
        );
    }

    #[test]
    fn non_executable_is_not_a_compiler() {
        let t = TempDir::new("noexec");
        let c = t.path().join("clang-19");
        fs::write(&c, "").unwrap();
        let path = t.path().as_os_str().to_owned();
        assert!(find_clang_with_fallback(None, Some(&path), Path::new("/nonexistent")).is_err());
    }
}
