//! Classifying a compiler command line: does it link, and at which `-O`?
//!
//! The arguments are only read, never rewritten: `vigil cc` passes them to
//! clang unchanged and only decides which flags to add around them.

use std::ffi::OsString;
use std::fs;

/// Optimisation level, as the linker's LTO back end understands it (0..=3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptLevel(pub u8);

/// What a compiler command line asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Invocation {
    /// The option that stops before linking (`-c`, `-S`, `-E`,
    /// `-fsyntax-only`, `-M`, `-MM`), if any.
    pub stops_at: Option<String>,
    /// Number of input files (sources, objects, archives, `-` for stdin).
    pub inputs: usize,
    /// The last `-O…` option, mapped to a linker LTO level.
    pub opt: Option<OptLevel>,
}

impl Invocation {
    /// True when clang will run the linker.
    pub fn links(&self) -> bool {
        self.stops_at.is_none() && self.inputs > 0
    }
}

/// Options that stop the driver before the link step.
const STOP_OPTIONS: &[&str] = &["-c", "-S", "-E", "-fsyntax-only", "-M", "-MM"];

/// Options whose value is the *next* argument (when not joined).  The value
/// must not be mistaken for an input file or an option.
const TAKES_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-x",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-isysroot",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-iframework",
    "-cxx-isystem",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-L",
    "-l",
    "-T",
    "-u",
    "-z",
    "-e",
    "-F",
    "-B",
    "-Xclang",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xanalyzer",
    "-Xarch_device",
    "-Xarch_host",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-Xopenmp-target",
    "-mllvm",
    "-arch",
    "-target",
    "--target",
    "--sysroot",
    "-resource-dir",
    "--gcc-toolchain",
    "-gcc-toolchain",
    "-serialize-diagnostics",
    "-dependency-file",
    "-dependency-dot",
    "-framework",
    "-install_name",
    "-working-directory",
    "-ivfsoverlay",
    "-fmodules-cache-path",
    "--param",
    "-aux-target",
    "-G",
];

/// Map a `-O` option to the LTO level the linker understands.
pub fn opt_level(arg: &str) -> Option<OptLevel> {
    let level = arg.strip_prefix("-O")?;
    let n = match level {
        "" => 1, // clang: -O means -O1
        "0" => 0,
        "1" => 1,
        "2" => 2,
        "s" | "z" => 2,
        "g" => 1,
        "fast" => 3,
        digits if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            // -O3 and above (clang treats -O4 and up as -O3).
            3
        }
        _ => return None,
    };
    Some(OptLevel(n))
}

/// Split the contents of a GCC-style response file into arguments:
/// whitespace-separated, with '…', "…" and backslash escapes.
pub fn split_response_file(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    if d == c {
                        break;
                    }
                    if d == '\\' {
                        // As in GCC's response files, backslash escapes
                        // inside quotes too.
                        if let Some(e) = chars.next() {
                            cur.push(e);
                        }
                        continue;
                    }
                    cur.push(d);
                }
            }
            '\\' => {
                in_word = true;
                if let Some(d) = chars.next() {
                    cur.push(d);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// Classify a clang command line (the user's arguments, without argv[0]).
/// Response files (`@file`) are read for classification only.
pub fn classify(args: &[OsString]) -> Invocation {
    let strings: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut inv = Invocation::default();
    walk(&strings, &mut inv, 0);
    inv
}

fn walk(args: &[String], inv: &mut Invocation, depth: u32) {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            // Everything after `--` is an input.
            inv.inputs += args.len() - i;
            return;
        }
        if let Some(file) = a.strip_prefix('@') {
            if depth < 16 {
                if let Ok(text) = fs::read_to_string(file) {
                    walk(&split_response_file(&text), inv, depth + 1);
                    continue;
                }
            }
            // Unreadable: clang will complain; count it as an input.
            inv.inputs += 1;
            continue;
        }
        if a == "-" || !a.starts_with('-') {
            inv.inputs += 1;
            continue;
        }
        if STOP_OPTIONS.contains(&a) {
            if inv.stops_at.is_none() {
                inv.stops_at = Some(a.to_string());
            }
            continue;
        }
        if let Some(level) = opt_level(a) {
            inv.opt = Some(level);
            continue;
        }
        if TAKES_VALUE.contains(&a) {
            i += 1; // skip the value
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(args: &[&str]) -> Invocation {
        classify(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn plain_build_links() {
        assert!(c(&["main.c"]).links());
        assert!(c(&["-o", "prog", "a.o", "b.o"]).links());
        assert!(c(&["-O2", "-Wall", "-o", "x", "x.c", "-lm"]).links());
        assert!(c(&["-shared", "-fPIC", "-o", "libx.so", "x.c"]).links());
        assert!(
            c(&["-MD", "-MF", "x.d", "x.c"]).links(),
            "-MD/-MMD do not stop linking"
        );
        assert!(c(&["-MMD", "x.c"]).links());
    }

    #[test]
    fn stop_options_do_not_link() {
        for stop in STOP_OPTIONS {
            let inv = c(&["-O2", stop, "x.c", "-o", "x.o"]);
            assert!(!inv.links(), "{stop} must not link");
            assert_eq!(inv.stops_at.as_deref(), Some(*stop));
        }
    }

    #[test]
    fn no_inputs_does_not_link() {
        assert!(!c(&[]).links());
        assert!(!c(&["--version"]).links());
        assert!(!c(&["-v"]).links());
        assert!(!c(&["-print-search-dirs"]).links());
        assert!(
            !c(&["-o", "out"]).links(),
            "the value of -o is not an input"
        );
        assert!(!c(&["-lm", "-L", "/usr/lib"]).links());
    }

    #[test]
    fn option_values_are_not_inputs() {
        let inv = c(&[
            "-I", "inc", "-D", "X=1", "-include", "pre.h", "-x", "c", "-", "-o", "a.out",
        ]);
        assert_eq!(inv.inputs, 1);
        assert!(inv.links());
    }

    #[test]
    fn value_of_xclang_is_not_a_stop_option() {
        // `-Xclang -c` hands "-c" to cc1, not to the driver.
        assert!(c(&["-Xclang", "-c", "x.c"]).links());
        assert!(c(&["-Xlinker", "-S", "x.c"]).links());
    }

    #[test]
    fn dashdash_makes_inputs() {
        assert!(c(&["--", "-weird.c"]).links());
    }

    #[test]
    fn opt_mapping() {
        assert_eq!(opt_level("-O"), Some(OptLevel(1)));
        assert_eq!(opt_level("-O0"), Some(OptLevel(0)));
        assert_eq!(opt_level("-O1"), Some(OptLevel(1)));
        assert_eq!(opt_level("-O2"), Some(OptLevel(2)));
        assert_eq!(opt_level("-O3"), Some(OptLevel(3)));
        assert_eq!(opt_level("-O4"), Some(OptLevel(3)));
        assert_eq!(opt_level("-Os"), Some(OptLevel(2)));
        assert_eq!(opt_level("-Oz"), Some(OptLevel(2)));
        assert_eq!(opt_level("-Og"), Some(OptLevel(1)));
        assert_eq!(opt_level("-Ofast"), Some(OptLevel(3)));
        assert_eq!(opt_level("-Ox"), None);
        assert_eq!(opt_level("-o"), None);
        assert_eq!(opt_level("-fO2"), None);
    }

    #[test]
    fn last_opt_wins() {
        assert_eq!(c(&["-O3", "x.c", "-O0"]).opt, Some(OptLevel(0)));
        assert_eq!(c(&["-Os", "x.c"]).opt, Some(OptLevel(2)));
        assert_eq!(c(&["x.c"]).opt, None);
    }

    #[test]
    fn response_file_split() {
        assert_eq!(
            split_response_file("-c  'a b.c'\n\"-DX=\\\"1\\\"\" c\\ d"),
            vec!["-c", "a b.c", "-DX=\"1\"", "c d"]
        );
        assert_eq!(split_response_file("''"), vec![""]);
        assert!(split_response_file("  \n").is_empty());
    }

    #[test]
    fn response_files_are_read() {
        let t = crate::tempdir::TempDir::new("rsp");
        let rsp = t.path().join("args.rsp");
        std::fs::write(&rsp, "-c -O2 x.c -o x.o\n").unwrap();
        let inv = c(&[&format!("@{}", rsp.display())]);
        assert!(!inv.links());
        assert_eq!(inv.opt, Some(OptLevel(2)));
        std::fs::write(&rsp, "x.o y.o -o prog\n").unwrap();
        assert!(c(&[&format!("@{}", rsp.display())]).links());
    }
}
