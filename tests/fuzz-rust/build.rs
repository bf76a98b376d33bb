// Links clang's libFuzzer (it provides main) into the fuzz_* binaries when
// the `libfuzzer` feature is on.  VIGIL_LIBFUZZER_DIR overrides where
// libclang_rt.fuzzer-x86_64.a is looked for.
fn main() {
    println!("cargo:rerun-if-env-changed=VIGIL_LIBFUZZER_DIR");
    if std::env::var_os("CARGO_FEATURE_LIBFUZZER").is_none() {
        return;
    }
    let dir = std::env::var("VIGIL_LIBFUZZER_DIR")
        .unwrap_or_else(|_| "/usr/lib/llvm-19/lib/clang/19/lib/linux".to_string());
    println!("cargo:rustc-link-search=native={dir}");
    println!("cargo:rustc-link-lib=static=clang_rt.fuzzer-x86_64");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
