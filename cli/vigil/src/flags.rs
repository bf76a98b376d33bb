//! The flags vigil adds to a clang command line.

use std::ffi::OsString;
use std::path::Path;

use crate::args::{classify, OptLevel};
use crate::error::Result;
use crate::install::Install;

fn joined(prefix: &str, path: &Path) -> OsString {
    let mut s = OsString::from(prefix);
    s.push(path.as_os_str());
    s
}

fn strs(items: &[&str]) -> Vec<OsString> {
    items.iter().map(OsString::from).collect()
}

/// Flags for every compilation: define `__VIGIL__`, find `<tesla.h>`, load
/// the Clang plugin, and keep full-LTO bitcode unoptimised so the link-time
/// pass sees the program as written.  When the user asks for debug info
/// without a DWARF version, it is DWARF 4: Debian 12's valgrind (3.19)
/// cannot read the DWARF 5 clang-19 emits by default and gives up on the
/// whole program (an explicit `-gdwarf-5` still wins).
pub fn compile_flags(include: &Path, clang_plugin: &Path) -> Vec<OsString> {
    let mut v = vec![
        OsString::from("-D__VIGIL__=1"),
        joined("-I", include),
        joined("-fplugin=", clang_plugin),
    ];
    v.extend(strs(&[
        "-flto=full",
        "-Xclang",
        "-disable-llvm-passes",
        "-fdebug-default-version=4",
    ]));
    v
}

/// Link flags that go before the user's arguments: link with lld, run the
/// instrumentation pass during LTO, export symbols for the runtime.
pub fn link_flags_before(pass_plugin: &Path) -> Vec<OsString> {
    vec![
        OsString::from("-fuse-ld=lld"),
        joined("-Wl,--load-pass-plugin=", pass_plugin),
        OsString::from("-Wl,--export-dynamic"),
    ]
}

/// Link flags that go after the user's arguments: the whole runtime, and
/// libbson (static: the event stream's marshalling, so that instrumented
/// programs need nothing installed to run).
pub fn link_flags_after(runtime_lib: &Path) -> Vec<OsString> {
    vec![
        OsString::from("-Wl,--whole-archive"),
        runtime_lib.as_os_str().to_owned(),
        OsString::from("-Wl,--no-whole-archive"),
        OsString::from("-l:libbson-static-1.0.a"),
        OsString::from("-lm"),
        OsString::from("-lpthread"),
    ]
}

/// `-Wl,--lto-O<n>`: the LTO back end's optimisation level.
pub fn lto_opt_flag(level: OptLevel) -> OsString {
    OsString::from(format!("-Wl,--lto-O{}", level.0))
}

/// Paths of vigil's files, as far as a given command needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files<P> {
    pub include: P,
    pub clang_plugin: P,
    /// Only needed when linking.
    pub link: Option<(P, P)>, // (pass plugin, runtime library)
}

/// Build the full argument list (after the compiler's argv[0]) for
/// `vigil cc USER_ARGS`, asking `install` only for the files it needs.
pub fn cc_args(install: &Install, user: &[OsString]) -> Result<Vec<OsString>> {
    let inv = classify(user);
    let include = install.include_dir()?;
    let clang_plugin = install.clang_plugin()?;
    let link = if inv.links() {
        Some((install.pass_plugin()?, install.runtime_lib()?))
    } else {
        None
    };
    let files = Files {
        include,
        clang_plugin,
        link,
    };
    Ok(assemble(&files, user))
}

/// The pure part of [`cc_args`]: vigil's compile flags, then (when linking)
/// the link flags and the LTO level, then the user's arguments unchanged,
/// then (when linking) the runtime library.
pub fn assemble<P: AsRef<Path>>(files: &Files<P>, user: &[OsString]) -> Vec<OsString> {
    let inv = classify(user);
    let mut out = compile_flags(files.include.as_ref(), files.clang_plugin.as_ref());
    match &files.link {
        Some((pass, runtime)) if inv.links() => {
            out.extend(link_flags_before(pass.as_ref()));
            if let Some(level) = inv.opt {
                out.push(lto_opt_flag(level));
            }
            out.extend(user.iter().cloned());
            out.extend(link_flags_after(runtime.as_ref()));
        }
        _ => out.extend(user.iter().cloned()),
    }
    out
}

/// `vigil flags --cflags`.
pub fn cflags(install: &Install) -> Result<Vec<OsString>> {
    Ok(compile_flags(
        &install.include_dir()?,
        &install.clang_plugin()?,
    ))
}

/// `vigil flags --ldflags`: everything a separate link step needs,
/// including the runtime library.
pub fn ldflags(install: &Install) -> Result<Vec<OsString>> {
    let mut v = link_flags_before(&install.pass_plugin()?);
    v.extend(link_flags_after(&install.runtime_lib()?));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    fn files(link: bool) -> Files<PathBuf> {
        Files {
            include: PathBuf::from("/v/include"),
            clang_plugin: PathBuf::from("/v/lib/vigil-clang.so"),
            link: link.then(|| {
                (
                    PathBuf::from("/v/lib/vigil-pass.so"),
                    PathBuf::from("/v/lib/libvigil.a"),
                )
            }),
        }
    }

    fn pos(v: &[OsString], s: &str) -> usize {
        v.iter()
            .position(|a| a == s)
            .unwrap_or_else(|| panic!("{s} not in {v:?}"))
    }

    #[test]
    fn compile_only_gets_compile_flags_then_user_args() {
        let user = os(&["-c", "-O2", "x.c", "-o", "x.o"]);
        let got = assemble(&files(false), &user);
        let want = os(&[
            "-D__VIGIL__=1",
            "-I/v/include",
            "-fplugin=/v/lib/vigil-clang.so",
            "-flto=full",
            "-Xclang",
            "-disable-llvm-passes",
            "-fdebug-default-version=4",
            "-c",
            "-O2",
            "x.c",
            "-o",
            "x.o",
        ]);
        assert_eq!(got, want);
    }

    #[test]
    fn link_adds_pass_and_runtime_after_user_args() {
        let user = os(&["-o", "prog", "main.c", "-lm"]);
        let got = assemble(&files(true), &user);
        assert_eq!(
            &got[..7],
            &compile_flags(Path::new("/v/include"), Path::new("/v/lib/vigil-clang.so"))[..]
        );
        assert_eq!(
            &got[7..10],
            &os(&[
                "-fuse-ld=lld",
                "-Wl,--load-pass-plugin=/v/lib/vigil-pass.so",
                "-Wl,--export-dynamic"
            ])[..]
        );
        assert_eq!(&got[10..14], &user[..]);
        assert_eq!(
            &got[14..],
            &os(&[
                "-Wl,--whole-archive",
                "/v/lib/libvigil.a",
                "-Wl,--no-whole-archive",
                "-l:libbson-static-1.0.a",
                "-lm",
                "-lpthread"
            ])[..]
        );
        // The runtime comes after every user argument, including -lm.
        assert!(pos(&got, "/v/lib/libvigil.a") > pos(&got, "-lm"));
        assert!(pos(&got, "-lpthread") > pos(&got, "/v/lib/libvigil.a"));
        assert!(!got
            .iter()
            .any(|a| a.to_string_lossy().starts_with("-Wl,--lto-O")));
    }

    #[test]
    fn opt_level_becomes_lto_level() {
        for (o, n) in [
            ("-O0", 0),
            ("-O1", 1),
            ("-O2", 2),
            ("-O3", 3),
            ("-Os", 2),
            ("-Oz", 2),
            ("-Og", 1),
            ("-Ofast", 3),
        ] {
            let got = assemble(&files(true), &os(&[o, "x.c"]));
            let flag = format!("-Wl,--lto-O{n}");
            assert_eq!(
                got.iter().filter(|a| **a == *flag).count(),
                1,
                "{o}: {got:?}"
            );
            assert!(pos(&got, &flag) < pos(&got, "x.c"));
        }
    }

    #[test]
    fn user_args_pass_through_unchanged() {
        let user = os(&["-DNAME=a b", "it's.c", "-Wl,-rpath,$ORIGIN", "--", "-odd.c"]);
        let got = assemble(&files(true), &user);
        let start = pos(&got, "-DNAME=a b");
        assert_eq!(&got[start..start + user.len()], &user[..]);
    }

    #[test]
    fn version_is_not_a_link() {
        let got = assemble(&files(true), &os(&["--version"]));
        // Link files are on offer, but nothing links: no link flags.
        assert_eq!(got.last().unwrap(), "--version");
        assert!(!got.iter().any(|a| a == "-fuse-ld=lld"));
        let got = assemble(&files(true), &os(&["-c", "x.c"]));
        assert!(!got.iter().any(|a| a == "/v/lib/libvigil.a"));
    }
}
