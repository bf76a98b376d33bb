//! End-to-end tests of the `vigil` binary.  No real compiler or plugin is
//! needed: each test builds a fake installation in a temporary directory
//! (empty plugin files) and a fake `clang` shell script that prints the
//! arguments it received, one per line.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vigil::tempdir::TempDir;

const VIGIL: &str = env!("CARGO_BIN_EXE_vigil");

/// Prints "ARG:<arg>" per argument; exits with $FAKE_CLANG_EXIT (default 0);
/// writes $FAKE_CLANG_STDERR to stderr when set.
const FAKE_CLANG: &str = r#"#!/bin/sh
for a in "$@"; do printf 'ARG:%s\n' "$a"; done
if [ -n "$FAKE_CLANG_STDERR" ]; then printf '%s\n' "$FAKE_CLANG_STDERR" >&2; fi
exit "${FAKE_CLANG_EXIT:-0}"
"#;

fn write_exec(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

struct Fixture {
    _tmp: TempDir,
    root: PathBuf,
    home: PathBuf,
    clang: PathBuf,
}

impl Fixture {
    /// A complete fake installation at `<tmp>/<home_name>`.
    fn new(home_name: &str) -> Fixture {
        let tmp = TempDir::new("clitest");
        let root = tmp.path().canonicalize().unwrap();
        let home = root.join(home_name);
        fs::create_dir_all(home.join("lib")).unwrap();
        fs::create_dir_all(home.join("include")).unwrap();
        fs::create_dir_all(home.join("bin")).unwrap();
        for f in ["vigil-clang.so", "vigil-pass.so", "libvigil.a"] {
            fs::write(home.join("lib").join(f), "").unwrap();
        }
        fs::write(home.join("include/tesla.h"), "").unwrap();
        let clang = root.join("fake-clang");
        write_exec(&clang, FAKE_CLANG);
        Fixture {
            _tmp: tmp,
            root,
            home,
            clang,
        }
    }

    fn lib(&self, name: &str) -> String {
        self.home.join("lib").join(name).display().to_string()
    }

    fn include(&self) -> String {
        self.home.join("include").display().to_string()
    }

    /// `vigil` (the built binary) with VIGIL_HOME and VIGIL_CLANG pointing
    /// into the fixture.
    fn vigil(&self) -> Command {
        self.command(Path::new(VIGIL))
    }

    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        for v in [
            "VIGIL_HOME",
            "VIGIL_CLANG",
            "VIGIL_VERBOSE",
            "VIGIL_ON_FAILURE",
            "VIGIL_REPORT",
            "VIGIL_DOT",
        ] {
            c.env_remove(v);
        }
        c.env("VIGIL_HOME", &self.home)
            .env("VIGIL_CLANG", &self.clang);
        // Temporary directories (vigil demo) go inside the fixture.
        c.env("TMPDIR", &self.root);
        c.current_dir(&self.root);
        c
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The arguments the fake clang received.
fn clang_args(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter_map(|l| l.strip_prefix("ARG:"))
        .map(str::to_string)
        .collect()
}

fn pos(args: &[String], s: &str) -> usize {
    args.iter()
        .position(|a| a == s)
        .unwrap_or_else(|| panic!("{s:?} not in {args:?}"))
}

/// Runs the command; retries ETXTBSY, which a freshly copied executable
/// gets while another test thread's fork still holds its write descriptor.
fn run(c: &mut Command) -> Output {
    for _ in 0..50 {
        match c.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            r => return r.expect("cannot run vigil"),
        }
    }
    c.output().expect("cannot run vigil")
}

#[test]
fn version_and_help() {
    let o = run(Command::new(VIGIL).arg("--version"));
    assert!(o.status.success());
    assert_eq!(
        stdout(&o).trim(),
        format!("vigil {}", env!("CARGO_PKG_VERSION"))
    );

    let o = run(Command::new(VIGIL).arg("help"));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for sub in ["cc", "flags", "explain", "demo"] {
        assert!(
            text.contains(&format!("  {sub}")),
            "help lacks {sub}:\n{text}"
        );
    }

    // No arguments: usage on stderr, non-zero.
    let o = run(&mut Command::new(VIGIL));
    assert!(!o.status.success());
}

#[test]
fn cc_link_adds_everything_in_order() {
    let fx = Fixture::new("home");
    let o = run(fx
        .vigil()
        .args(["cc", "-O2", "-o", "prog", "main.c", "-lm"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let args = clang_args(&o);
    let want_prefix = [
        "-D__VIGIL__=1".to_string(),
        format!("-I{}", fx.include()),
        format!("-fplugin={}", fx.lib("vigil-clang.so")),
        "-flto=full".into(),
        "-Xclang".into(),
        "-disable-llvm-passes".into(),
        "-fdebug-default-version=4".into(),
        "-fuse-ld=lld".into(),
        format!("-Wl,--load-pass-plugin={}", fx.lib("vigil-pass.so")),
        "-Wl,--export-dynamic".into(),
        "-Wl,--lto-O2".into(),
        "-O2".into(),
        "-o".into(),
        "prog".into(),
        "main.c".into(),
        "-lm".into(),
        "-Wl,--whole-archive".into(),
        fx.lib("libvigil.a"),
        "-Wl,--no-whole-archive".into(),
        "-l:libbson-static-1.0.a".into(),
        "-lm".into(),
        "-lpthread".into(),
    ];
    assert_eq!(args, want_prefix);
}

#[test]
fn cc_opt_mapping_reaches_the_linker() {
    let fx = Fixture::new("home");
    for (o_flag, lto) in [
        ("-Os", "-Wl,--lto-O2"),
        ("-Og", "-Wl,--lto-O1"),
        ("-Ofast", "-Wl,--lto-O3"),
        ("-O0", "-Wl,--lto-O0"),
    ] {
        let o = run(fx.vigil().args(["cc", o_flag, "x.c"]));
        let args = clang_args(&o);
        assert!(args.contains(&lto.to_string()), "{o_flag}: {args:?}");
    }
    let o = run(fx.vigil().args(["cc", "x.c"]));
    assert!(!clang_args(&o).iter().any(|a| a.starts_with("-Wl,--lto-O")));
}

#[test]
fn cc_compile_only_needs_no_link_files() {
    let fx = Fixture::new("home");
    fs::remove_file(fx.home.join("lib/vigil-pass.so")).unwrap();
    fs::remove_file(fx.home.join("lib/libvigil.a")).unwrap();
    for stop in ["-c", "-S", "-E", "-fsyntax-only", "-M", "-MM"] {
        let o = run(fx.vigil().args(["cc", stop, "x.c"]));
        assert!(o.status.success(), "{stop}: {}", stderr(&o));
        let args = clang_args(&o);
        assert_eq!(args.last().unwrap(), "x.c");
        assert!(args.contains(&format!("-fplugin={}", fx.lib("vigil-clang.so"))));
        assert!(
            !args
                .iter()
                .any(|a| a == "-fuse-ld=lld" || a.contains("libvigil.a")),
            "{stop}: {args:?}"
        );
    }
    // ... but linking does, and says which file is missing.
    let o = run(fx.vigil().args(["cc", "x.c"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&fx.lib("vigil-pass.so")),
        "{}",
        stderr(&o)
    );
    assert!(clang_args(&o).is_empty(), "clang must not run");
}

#[test]
fn cc_missing_plugin_is_exit_2_naming_the_path() {
    let fx = Fixture::new("home");
    fs::remove_file(fx.home.join("lib/vigil-clang.so")).unwrap();
    let o = run(fx.vigil().args(["cc", "-c", "x.c"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&fx.lib("vigil-clang.so")),
        "{}",
        stderr(&o)
    );
    assert!(clang_args(&o).is_empty());
}

#[test]
fn cc_missing_runtime_is_exit_2() {
    let fx = Fixture::new("home");
    fs::remove_file(fx.home.join("lib/libvigil.a")).unwrap();
    let o = run(fx.vigil().args(["cc", "-o", "p", "p.c"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&fx.lib("libvigil.a")), "{}", stderr(&o));
}

#[test]
fn cc_missing_compiler_is_exit_2() {
    let fx = Fixture::new("home");
    let o = run(fx
        .vigil()
        .env("VIGIL_CLANG", fx.root.join("no-such-clang"))
        .args(["cc", "-c", "x.c"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-clang"), "{}", stderr(&o));
}

#[test]
fn cc_version_and_help_reach_clang() {
    let fx = Fixture::new("home");
    for flag in ["--version", "--help", "-v"] {
        let o = run(fx.vigil().args(["cc", flag]));
        assert!(o.status.success(), "{}", stderr(&o));
        let args = clang_args(&o);
        assert_eq!(args.last().map(String::as_str), Some(flag), "{args:?}");
        assert!(
            !args.iter().any(|a| a == "-fuse-ld=lld"),
            "no link flags without inputs: {args:?}"
        );
        assert!(
            !stdout(&o).contains("Usage: vigil"),
            "clap must not handle {flag}"
        );
    }
}

#[test]
fn cc_exit_status_and_stderr_are_clangs() {
    let fx = Fixture::new("home");
    let o = run(fx
        .vigil()
        .env("FAKE_CLANG_EXIT", "7")
        .env("FAKE_CLANG_STDERR", "x.c:1:1: error: boom")
        .args(["cc", "-c", "x.c"]));
    assert_eq!(o.status.code(), Some(7));
    assert_eq!(stderr(&o).trim(), "x.c:1:1: error: boom");
}

#[test]
fn cc_arguments_pass_through_verbatim() {
    let fx = Fixture::new("home");
    let tricky = [
        "-DMSG=\"hello world\"",
        "-Wl,-rpath,$ORIGIN",
        "a b.c",
        "-x",
        "c",
        "-",
    ];
    let o = run(fx.vigil().arg("cc").args(tricky));
    let args = clang_args(&o);
    let start = pos(&args, tricky[0]);
    assert_eq!(
        &args[start..start + tricky.len()],
        &tricky.map(String::from)[..]
    );
}

#[test]
fn cc_verbose_prints_the_command() {
    let fx = Fixture::new("home dir");
    let o = run(fx
        .vigil()
        .env("VIGIL_VERBOSE", "1")
        .args(["cc", "-c", "x.c"]));
    assert!(o.status.success());
    let err = stderr(&o);
    let line = err.lines().next().unwrap_or_default();
    assert!(line.starts_with(&fx.clang.display().to_string()), "{err}");
    // The path with a space is shell-quoted.
    assert!(line.contains(&format!("'-I{}'", fx.include())), "{line}");
    assert!(line.ends_with(" -c x.c"), "{line}");

    let o = run(fx.vigil().args(["cc", "-c", "x.c"]));
    assert_eq!(stderr(&o), "", "quiet without VIGIL_VERBOSE");
}

#[test]
fn vigil_cc_name_dispatch() {
    let fx = Fixture::new("home");
    let link = fx.root.join("vigil-cc");
    symlink(VIGIL, &link).unwrap();
    let o = run(fx.command(&link).args(["--version"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(clang_args(&o).last().map(String::as_str), Some("--version"));

    // `cc` is an ordinary (input) argument for vigil-cc: it links.
    let o = run(fx.command(&link).args(["-O3", "cc"]));
    let args = clang_args(&o);
    assert!(args.contains(&"-Wl,--lto-O3".to_string()), "{args:?}");
    assert_eq!(args.last().unwrap(), "-lpthread");
    assert!(pos(&args, "cc") < pos(&args, &fx.lib("libvigil.a")));
}

#[test]
fn home_is_found_from_the_executable() {
    // An installation without VIGIL_HOME: HOME/bin/vigil (a copy) and a
    // vigil-cc symlink somewhere else, which resolves to it.
    let fx = Fixture::new("inst");
    let exe = fx.home.join("bin/vigil");
    fs::copy(VIGIL, &exe).unwrap();
    let elsewhere = fx.root.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    symlink(&exe, elsewhere.join("vigil-cc")).unwrap();

    for program in [exe.clone(), elsewhere.join("vigil-cc")] {
        let mut c = fx.command(&program);
        c.env_remove("VIGIL_HOME");
        if program == exe {
            c.arg("cc");
        }
        let o = run(c.args(["-c", "x.c"]));
        assert!(o.status.success(), "{}: {}", program.display(), stderr(&o));
        let args = clang_args(&o);
        assert!(
            args.contains(&format!("-fplugin={}", fx.lib("vigil-clang.so"))),
            "{args:?}"
        );
        assert!(args.contains(&format!("-I{}", fx.include())), "{args:?}");
    }
}

#[test]
fn build_tree_header_fallback() {
    // build/{bin,lib} with the headers at <repo>/include.
    let fx = Fixture::new("build");
    fs::remove_dir_all(fx.home.join("include")).unwrap();
    fs::create_dir_all(fx.root.join("include")).unwrap();
    fs::write(fx.root.join("include/tesla.h"), "").unwrap();
    let o = run(fx.vigil().args(["flags", "--cflags"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("-I{}/include ", fx.root.display())),
        "{}",
        stdout(&o)
    );

    fs::remove_dir_all(fx.root.join("include")).unwrap();
    let o = run(fx.vigil().args(["flags", "--cflags"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}/include/tesla.h", fx.home.display())),
        "{}",
        stderr(&o)
    );
}

#[test]
fn vigil_home_must_exist() {
    let fx = Fixture::new("home");
    let o = run(fx
        .vigil()
        .env("VIGIL_HOME", fx.root.join("nowhere"))
        .args(["flags", "--cflags"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nowhere"));
}

#[test]
fn flags_output() {
    let fx = Fixture::new("home");
    let o = run(fx.vigil().args(["flags", "--cflags"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "-D__VIGIL__=1 -I{} -fplugin={} -flto=full -Xclang -disable-llvm-passes -fdebug-default-version=4\n",
            fx.include(),
            fx.lib("vigil-clang.so")
        )
    );

    let o = run(fx.vigil().args(["flags", "--ldflags"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "-fuse-ld=lld -Wl,--load-pass-plugin={} -Wl,--export-dynamic -Wl,--whole-archive {} -Wl,--no-whole-archive -l:libbson-static-1.0.a -lm -lpthread\n",
            fx.lib("vigil-pass.so"),
            fx.lib("libvigil.a")
        )
    );

    let o = run(fx.vigil().args(["flags", "--cc"]));
    assert_eq!(stdout(&o), format!("{}\n", fx.clang.display()));

    let o = run(fx.vigil().args(["flags", "--cflags", "--ldflags"]));
    assert_eq!(stdout(&o).lines().count(), 1);
    assert!(stdout(&o).contains("-fdebug-default-version=4 -fuse-ld=lld"));
}

#[test]
fn flags_are_shell_quoted() {
    let fx = Fixture::new("my vigil's home");
    let o = run(fx.vigil().args(["flags", "--cflags", "--ldflags"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o);
    // Read the line back with a real shell: each flag must be one word.
    let sh = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "for w in {}; do printf '%s\\n' \"$w\"; done",
            line.trim()
        ))
        .output()
        .unwrap();
    let words: Vec<String> = stdout(&sh).lines().map(String::from).collect();
    assert!(words.contains(&format!("-I{}", fx.include())), "{words:?}");
    assert!(words.contains(&fx.lib("libvigil.a")), "{words:?}");
    assert_eq!(words.len(), 7 + 9, "{words:?}");
}

#[test]
fn flags_missing_file_is_exit_2() {
    let fx = Fixture::new("home");
    fs::remove_file(fx.home.join("lib/vigil-pass.so")).unwrap();
    let o = run(fx.vigil().args(["flags", "--cflags"]));
    assert!(o.status.success(), "cflags do not need the pass");
    let o = run(fx.vigil().args(["flags", "--ldflags"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&fx.lib("vigil-pass.so")));
    assert_eq!(stdout(&o), "");
}

#[test]
fn explain_runs_the_plugin() {
    let fx = Fixture::new("home");
    fs::write(fx.root.join("a.c"), "int main(void){return 0;}\n").unwrap();
    let o = run(fx
        .vigil()
        .args(["explain", "a.c", "--format", "json", "--", "-Iinc", "-DX=1"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let args = clang_args(&o);
    let want: Vec<String> = vec![
        "-fsyntax-only".into(),
        "-D__VIGIL__=1".into(),
        format!("-I{}", fx.include()),
        format!("-fplugin={}", fx.lib("vigil-clang.so")),
        "-Xclang".into(),
        "-plugin-arg-vigil".into(),
        "-Xclang".into(),
        "explain=json".into(),
        "-Iinc".into(),
        "-DX=1".into(),
        "a.c".into(),
    ];
    assert_eq!(args, want);

    // Default format is text; -o writes the file and nothing to stdout.
    let o = run(fx.vigil().args(["explain", "a.c", "-o", "out.txt"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let written = fs::read_to_string(fx.root.join("out.txt")).unwrap();
    assert!(written.contains("ARG:explain=text"), "{written}");
}

#[test]
fn explain_failure_forwards_diagnostics() {
    let fx = Fixture::new("home");
    fs::write(fx.root.join("a.c"), "").unwrap();
    let o = run(fx
        .vigil()
        .env("FAKE_CLANG_EXIT", "1")
        .env("FAKE_CLANG_STDERR", "a.c:3:5: error: bad assertion")
        .args(["explain", "a.c", "-o", "out.txt"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("a.c:3:5: error: bad assertion"),
        "{}",
        stderr(&o)
    );
    assert!(
        !fx.root.join("out.txt").exists(),
        "no output file on failure"
    );

    let o = run(fx.vigil().args(["explain", "missing.c"]));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("missing.c"));
}

#[test]
fn explain_svg_pipes_through_dot() {
    let fx = Fixture::new("home");
    fs::write(fx.root.join("a.c"), "").unwrap();
    // A fake Graphviz that wraps its input.
    let dot = fx.root.join("fake-dot");
    write_exec(
        &dot,
        "#!/bin/sh\n[ \"$1\" = -Tsvg ] || exit 9\nprintf '<svg>'\ncat\nprintf '</svg>'\n",
    );
    let o = run(fx
        .vigil()
        .env("VIGIL_DOT", &dot)
        .args(["explain", "a.c", "--format", "svg"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("<svg>") && out.ends_with("</svg>"), "{out}");
    assert!(out.contains("ARG:explain=dot"), "{out}");
}

/// A fake clang that "builds" the demo: it writes, as the -o output, a
/// shell script that behaves like an instrumented demo (or, with
/// FAKE_DEMO=quiet, one that never reports anything).
const FAKE_DEMO_CLANG: &str = r#"#!/bin/sh
out=
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; shift; fi
  shift
done
[ -f demo.c ] || exit 3
cat > "$out" <<'PROG'
#!/bin/sh
echo "demo: running"
if [ -n "$DEMO_BUG" ] && [ "$FAKE_DEMO" != quiet ]; then
  [ "$VIGIL_ON_FAILURE" = log ] || exit 134
  echo "vigil: assertion violated" >&2
  echo '{"assertion":"demo.c:63:3","reason":"previously","event":"vfs_open","thread":1}' >> "$VIGIL_REPORT"
fi
exit 0
PROG
chmod +x "$out"
"#;

#[test]
fn demo_runs_both_paths_and_shows_the_report() {
    let fx = Fixture::new("home");
    write_exec(&fx.clang, FAKE_DEMO_CLANG);
    let keep = fx.root.join("kept");
    let o = run(fx.vigil().args(["demo", "--keep"]).arg(&keep));
    let out = stdout(&o);
    assert!(o.status.success(), "{out}\n{}", stderr(&o));
    assert!(out.contains("previously(mac_check(c, f) == 0)"), "{out}");
    assert!(out.contains("vigil cc -O1 -g -o demo demo.c"), "{out}");
    assert!(
        out.contains("\"reason\":\"previously\""),
        "report printed: {out}"
    );
    assert!(out.contains("Demo OK"), "{out}");
    // The program's stderr (vigil's report) is shown inline, in order.
    assert!(out.contains("  | vigil: assertion violated"), "{out}");
    assert!(keep.join("demo.c").is_file());
    assert!(keep.join("report.jsonl").is_file());
}

#[test]
fn demo_fails_when_the_bug_goes_unreported() {
    let fx = Fixture::new("home");
    write_exec(&fx.clang, FAKE_DEMO_CLANG);
    let o = run(fx.vigil().env("FAKE_DEMO", "quiet").args(["demo"]));
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("Demo FAILED"));
    assert!(stderr(&o).contains("no violation report"), "{}", stderr(&o));
}

#[test]
fn demo_fails_when_the_build_fails() {
    let fx = Fixture::new("home");
    let o = run(fx.vigil().env("FAKE_CLANG_EXIT", "1").args(["demo"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("building the demo failed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn demo_needs_the_installation() {
    let fx = Fixture::new("home");
    fs::remove_file(fx.home.join("lib/libvigil.a")).unwrap();
    let o = run(fx.vigil().args(["demo"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&fx.lib("libvigil.a")));
}
