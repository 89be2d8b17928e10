//! The command line's flags and the app's URL keys are one table (`cli::keys`): every flag the
//! table lists is one `estimate` or `recommend` takes, every sizing flag is in it, every advisor
//! input's URL key has its flag, and README.md shows the table as the code writes it.

use gpu_advisor::cli::keys::{readme_table, sizing_flags, FLAG_URL_KEYS};
use gpu_advisor::state::advisor::Field;
use std::ffi::OsString;

/// The error `command --flag x` prints (empty when it ran).
fn error_of(command: &str, flag: &str) -> String {
    let args: Vec<OsString> = [command, &format!("--{flag}"), "x"].iter().map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    gpu_advisor::cli::run(args, &mut out, &mut err);
    String::from_utf8_lossy(&err).into_owned()
}

#[test]
fn every_listed_flag_is_one_a_command_takes() {
    for (flag, _) in FLAG_URL_KEYS {
        // lexopt's message for a flag a command does not know: "invalid option '--flag'".
        let unknown = format!("invalid option '--{flag}'");
        let taken = ["estimate", "recommend"].iter().any(|c| !error_of(c, flag).contains(&unknown));
        assert!(taken, "--{flag} is in the table but neither command takes it");
    }
    // The check can fail: a made-up flag is refused by both.
    assert!(error_of("recommend", "no-such-flag").contains("invalid option '--no-such-flag'"));
}

#[test]
fn every_sizing_flag_is_listed() {
    let listed: Vec<&str> = FLAG_URL_KEYS.iter().map(|(f, _)| *f).collect();
    let missing: Vec<&&str> = sizing_flags().iter().filter(|f| !listed.contains(f)).collect();
    assert!(missing.is_empty(), "sizing flags missing from cli::keys: {missing:?}");
}

#[test]
fn every_advisor_input_has_its_flag() {
    let keys: Vec<&str> = FLAG_URL_KEYS.iter().filter_map(|(_, k)| *k).collect();
    let url_only: Vec<&str> = Field::ALL.iter().map(|f| f.key()).filter(|k| !keys.contains(k)).collect();
    assert!(url_only.is_empty(), "URL keys without a command-line flag: {url_only:?}");
    // And the table names no URL key the app does not read (the two constraint keys are the
    // app's own checkboxes, read by the link parser).
    for k in keys {
        assert!(Field::from_key(k).is_some() || ["need_nvlink", "dc_only"].contains(&k), "`{k}` is not a URL key");
    }
}

#[test]
fn the_readme_shows_the_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    assert!(readme.contains(&readme_table()), "README.md's flag table differs from cli::keys; paste this:\n{}", readme_table());
}
