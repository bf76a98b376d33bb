//! `vigil explain --static FILE.c...`: the static checker's verdict on each
//! assertion of a program (docs/static.md), as text, JSON or SARIF.
//!
//! The files are linked as `vigil cc -O1 -g` would link them (the checker
//! needs the whole program, main included), in report mode, with
//! `VIGIL_STATIC_JSON` naming a file the pass writes the verdicts to; the
//! program itself is thrown away.  The exit status is 1 when an assertion is
//! violated, so a CI step fails on it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::cc::{echo, plan, verbose};
use crate::error::{Error, Result};
use crate::explain::Format;
use crate::sarif::{parse_location, path_uri, sarif_log};
use crate::tempdir::TempDir;

/// The verdicts of the program made of `files`, and whether one is violated.
pub fn run(files: &[PathBuf], format: Format, extra: &[OsString]) -> Result<(Vec<u8>, bool)> {
    for f in files {
        if !f.is_file() {
            return Err(Error::failure(format!("{}: no such file", f.display())));
        }
    }
    let tmp = TempDir::create("static")
        .map_err(|e| Error::setup(format!("cannot create a temporary directory: {e}")))?;
    let verdicts = tmp.path().join("static.json");
    let mut user: Vec<OsString> = ["-O1", "-g"].map(OsString::from).to_vec();
    user.extend(files.iter().map(|f| f.as_os_str().to_owned()));
    user.extend(extra.iter().cloned());
    user.push("-o".into());
    user.push(tmp.path().join("prog").into_os_string());
    let (clang, args) = plan(&user)?;
    if verbose() {
        echo(&clang, &args);
    }
    let out = Command::new(&clang)
        .args(&args)
        .env("VIGIL_STATIC", "report")
        .env("VIGIL_STATIC_JSON", &verdicts)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::setup(format!("cannot execute {}: {e}", clang.display())))?;
    if !out.status.success() || !verdicts.is_file() {
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        return Err(Error::failure(format!(
            "linking {} for the static checker failed ({})",
            files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" "),
            out.status
        )));
    }
    let text = std::fs::read_to_string(&verdicts)
        .map_err(|e| Error::failure(format!("cannot read {}: {e}", verdicts.display())))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| Error::failure(format!("{}: malformed verdicts: {e}", verdicts.display())))?;
    let items = doc["assertions"].as_array().cloned().unwrap_or_default();
    let violated = items.iter().any(|a| a["verdict"] == "violated");
    let bytes = match format {
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()).into_bytes(),
        Format::Sarif => format!("{}\n", serde_json::to_string_pretty(&to_sarif(&items)).unwrap_or_default())
            .into_bytes(),
        Format::Text => to_text(&items).into_bytes(),
        _ => {
            return Err(Error::setup(
                "--static prints text, json or sarif (--format text|json|sarif)".to_string(),
            ))
        }
    };
    Ok((bytes, violated))
}

/// One paragraph per assertion, then the counts.
pub fn to_text(items: &[Value]) -> String {
    let mut out = String::new();
    let mut counts = [0usize; 3];
    for a in items {
        let verdict = a["verdict"].as_str().unwrap_or("unknown");
        counts[match verdict {
            "proven" => 0,
            "violated" => 1,
            _ => 2,
        }] += 1;
        out += &format!(
            "{}: {}\n  {}\n  {}\n",
            a["location"].as_str().unwrap_or("?"),
            verdict,
            a["assertion"].as_str().unwrap_or(""),
            a["reason"].as_str().unwrap_or("")
        );
        if let Some(f) = a.get("failure") {
            out += &format!("  a run that fails: ./prog{}\n", shell_args(&f["args"]));
            for step in f["trace"].as_array().into_iter().flatten() {
                out += &format!("    {}\n", step.as_str().unwrap_or(""));
            }
        }
    }
    out += &format!(
        "{} assertions: {} proven, {} violated, {} unknown (kept at run time)\n",
        items.len(),
        counts[0],
        counts[1],
        counts[2]
    );
    out
}

fn shell_args(args: &Value) -> String {
    let words: Vec<OsString> = args
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| OsString::from(a.as_str().unwrap_or("")))
        .collect();
    if words.is_empty() {
        String::new()
    } else {
        format!(" {}", crate::shell::join(&words))
    }
}

/// A SARIF location from "file:line[:col]".
fn location(loc: &str) -> Value {
    match parse_location(loc) {
        Some((file, line, col)) => {
            let mut region = json!({ "startLine": line });
            if let Some(c) = col {
                region["startColumn"] = json!(c);
            }
            json!({"physicalLocation": {"artifactLocation": {"uri": path_uri(file)}, "region": region}})
        }
        None => json!({"message": {"text": loc}}),
    }
}

/// SARIF 2.1.0: a violated assertion is an error with the failing run as a
/// code flow; an unknown one a note ("open": checked at run time); a proven
/// one a "pass" result, so a CI view lists what was proven too.
pub fn to_sarif(items: &[Value]) -> Value {
    let results: Vec<Value> = items
        .iter()
        .map(|a| {
            let verdict = a["verdict"].as_str().unwrap_or("unknown");
            let loc = a["location"].as_str().unwrap_or("");
            let text = format!("{}: {}", verdict, a["reason"].as_str().unwrap_or(""));
            let (kind, level) = match verdict {
                "proven" => ("pass", "none"),
                "violated" => ("fail", "error"),
                _ => ("open", "note"),
            };
            let mut r = json!({
                "ruleId": format!("static/{verdict}"),
                "kind": kind,
                "level": level,
                "message": {"text": text},
                "locations": [location(loc)],
                "properties": {"assertion": a["assertion"]},
            });
            if let Some(f) = a.get("failure") {
                let steps: Vec<Value> = f["trace"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|s| {
                        let (at, what) = split_step(s);
                        let mut l = location(at);
                        l["message"] = json!({ "text": what });
                        json!({ "location": l })
                    })
                    .collect();
                r["codeFlows"] = json!([{
                    "message": {"text": format!("a run that fails: ./prog{}", shell_args(&f["args"]))},
                    "threadFlows": [{"locations": steps}],
                }]);
            }
            r
        })
        .collect();
    let rules: Vec<Value> = ["proven", "violated", "unknown"]
        .iter()
        .map(|v| json!({"id": format!("static/{v}"), "shortDescription": {"text": format!("the static checker's verdict: {v}")}}))
        .collect();
    sarif_log(rules, results)
}

/// "file:line:col: what happens" -> ("file:line:col", "what happens").
fn split_step(step: &str) -> (&str, &str) {
    match step.find(": ") {
        Some(i) => (&step[..i], &step[i + 2..]),
        None => ("", step),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Value> {
        serde_json::from_str::<Value>(
            r#"{"version":1,"assertions":[
              {"location":"a.c:5:3","assertion":"TESLA_WITHIN(f, previously(call(g)))","verdict":"proven","reason":"every path"},
              {"location":"a.c:6:3","assertion":"x","verdict":"violated","reason":"the site is reached","failure":{"at":"a.c:6:3","why":"w","args":["4 2"],"trace":["a.c:9:1: calls f","a.c:6:3: reaches the assertion's site"]}}]}"#,
        )
        .unwrap()["assertions"]
            .as_array()
            .unwrap()
            .clone()
    }

    #[test]
    fn text_lists_each_verdict_and_the_failing_run() {
        let t = to_text(&sample());
        assert!(t.contains("a.c:5:3: proven"));
        assert!(t.contains("a run that fails: ./prog '4 2'"));
        assert!(t.contains("    a.c:9:1: calls f"));
        assert!(t.ends_with("2 assertions: 1 proven, 1 violated, 0 unknown (kept at run time)\n"));
    }

    #[test]
    fn sarif_has_a_code_flow_for_the_violated_one() {
        let s = to_sarif(&sample());
        let r = &s["runs"][0]["results"];
        assert_eq!(r[0]["kind"], "pass");
        assert_eq!(r[1]["level"], "error");
        let step = &r[1]["codeFlows"][0]["threadFlows"][0]["locations"][0]["location"];
        assert_eq!(step["physicalLocation"]["region"]["startLine"], 9);
        assert_eq!(step["message"]["text"], "calls f");
    }
}
