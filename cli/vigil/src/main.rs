fn main() {
    let code = vigil::app::run(std::env::args_os().collect());
    std::process::exit(code);
}
