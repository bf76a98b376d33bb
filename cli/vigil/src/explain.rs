//! `vigil explain FILE.c`: ask the Clang plugin to describe the assertions
//! of a file (text, Graphviz dot, JSON, or SVG through Graphviz).

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::ValueEnum;

use crate::cc::{echo, verbose};
use crate::error::{Error, Result};
use crate::install::{clang_from_env, search_path, Install};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable description of each assertion and its automaton
    Text,
    /// Graphviz dot graph of the automata
    Dot,
    /// Machine-readable JSON
    Json,
    /// SVG drawing (dot piped through Graphviz `dot -Tsvg`)
    Svg,
    /// SARIF 2.1.0 (--static only), for CI systems
    Sarif,
}

impl Format {
    /// The format the plugin is asked for.
    pub fn plugin_format(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Dot | Format::Svg => "dot",
            Format::Json | Format::Sarif => "json",
        }
    }
}

/// Arguments after clang's argv[0] for explaining `file`.
pub fn explain_args(
    include: &Path,
    clang_plugin: &Path,
    format: Format,
    extra: &[OsString],
    file: &Path,
) -> Vec<OsString> {
    let mut plugin = OsString::from("-fplugin=");
    plugin.push(clang_plugin);
    let mut inc = OsString::from("-I");
    inc.push(include);
    let mut v: Vec<OsString> = vec![
        "-fsyntax-only".into(),
        "-D__VIGIL__=1".into(),
        inc,
        plugin,
        "-Xclang".into(),
        "-plugin-arg-vigil".into(),
        "-Xclang".into(),
        format!("explain={}", format.plugin_format()).into(),
    ];
    v.extend(extra.iter().cloned());
    v.push(file.as_os_str().to_owned());
    v
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().filter(|&c| c != 0).unwrap_or(1)
}

pub fn run(file: &Path, format: Format, output: Option<&Path>, extra: &[OsString]) -> Result<()> {
    if format == Format::Sarif {
        return Err(Error::setup("--format sarif needs --static".to_string()));
    }
    if !file.is_file() {
        return Err(Error::failure(format!("{}: no such file", file.display())));
    }
    let install = Install::locate()?;
    let include = install.include_dir()?;
    let plugin = install.clang_plugin()?;
    let clang = clang_from_env()?;
    let args = explain_args(&include, &plugin, format, extra, file);
    if verbose() {
        echo(&clang, &args);
    }
    // stderr is inherited: clang's diagnostics reach the user as they are.
    let out = Command::new(&clang)
        .args(&args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::setup(format!("cannot execute {}: {e}", clang.display())))?;
    if !out.status.success() {
        if output.is_none() {
            io::stdout().write_all(&out.stdout).ok();
        }
        return Err(Error::with_code(
            format!("explaining {} failed ({})", file.display(), out.status),
            exit_code(out.status),
        ));
    }
    let bytes = if format == Format::Svg {
        to_svg(&out.stdout)?
    } else {
        out.stdout
    };
    match output {
        Some(path) => fs::write(path, &bytes)
            .map_err(|e| Error::failure(format!("cannot write {}: {e}", path.display()))),
        None => {
            let mut stdout = io::stdout().lock();
            stdout
                .write_all(&bytes)
                .and_then(|_| stdout.flush())
                .or_else(|e| {
                    if e.kind() == io::ErrorKind::BrokenPipe {
                        Ok(())
                    } else {
                        Err(e)
                    }
                })
                .map_err(|e| Error::failure(format!("cannot write output: {e}")))
        }
    }
}

/// Graphviz: `$VIGIL_DOT`, else `dot` in PATH.
fn find_dot() -> Result<PathBuf> {
    if let Some(d) = std::env::var_os("VIGIL_DOT").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    search_path("dot".as_ref(), std::env::var_os("PATH").as_deref()).ok_or_else(|| {
        Error::setup("Graphviz `dot` not found in PATH (needed for --format svg; install graphviz or use --format dot)")
    })
}

fn to_svg(dot_source: &[u8]) -> Result<Vec<u8>> {
    let dot = find_dot()?;
    let mut child = Command::new(&dot)
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Error::setup(format!("cannot execute {}: {e}", dot.display())))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let source = dot_source.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&source);
    });
    let out = child
        .wait_with_output()
        .map_err(|e| Error::failure(format!("{} failed: {e}", dot.display())))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(Error::failure(format!(
            "{} -Tsvg failed ({})",
            dot.display(),
            out.status
        )));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_layout() {
        let got = explain_args(
            Path::new("/v/include"),
            Path::new("/v/lib/vigil-clang.so"),
            Format::Json,
            &["-DX".into(), "-Isrc".into()],
            Path::new("a.c"),
        );
        let want: Vec<OsString> = [
            "-fsyntax-only",
            "-D__VIGIL__=1",
            "-I/v/include",
            "-fplugin=/v/lib/vigil-clang.so",
            "-Xclang",
            "-plugin-arg-vigil",
            "-Xclang",
            "explain=json",
            "-DX",
            "-Isrc",
            "a.c",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn svg_asks_plugin_for_dot() {
        assert_eq!(Format::Svg.plugin_format(), "dot");
        assert_eq!(Format::Dot.plugin_format(), "dot");
        assert_eq!(Format::Text.plugin_format(), "text");
        assert_eq!(Format::Json.plugin_format(), "json");
    }
}
