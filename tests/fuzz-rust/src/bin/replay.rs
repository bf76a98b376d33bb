//! Runs files through a fuzz target without libFuzzer, catching panics:
//!   replay TARGET FILE...
//! Prints "replay: TARGET: N inputs, no panic" or each panicking file.
use std::panic;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: replay dot|bind|ltl|ftrace|tracecmd|cmdline|stream FILE...");
        std::process::exit(2);
    };
    let f: fn(&[u8]) = match target.as_str() {
        "dot" => vigil_fuzz::dot,
        "bind" => vigil_fuzz::bind,
        "ltl" => vigil_fuzz::ltl,
        "ftrace" => vigil_fuzz::ftrace,
        "tracecmd" => vigil_fuzz::tracecmd,
        "cmdline" => vigil_fuzz::cmdline,
        "stream" => vigil_fuzz::stream,
        _ => {
            eprintln!("replay: unknown target {target}");
            std::process::exit(2);
        }
    };
    let mut bad = 0;
    for file in files {
        let data = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        if panic::catch_unwind(|| f(&data)).is_err() {
            eprintln!("replay: {target}: {file} panics");
            bad += 1;
        }
    }
    if bad > 0 {
        std::process::exit(1);
    }
    println!("replay: {target}: {} inputs, no panic", files.len());
}
