//! The `gpu-advisor` command line: the same engine as the web app, printing tables or JSON.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = gpu_advisor::cli::run(args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
