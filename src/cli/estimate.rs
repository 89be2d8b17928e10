//! `gpu-advisor estimate`: sizes one job on one card (filled in by the sizing-engine work).

use super::CliError;
use std::ffi::OsString;
use std::io::Write;

/// Parses the estimate flags and prints the estimate.
pub fn cmd_estimate(_args: Vec<OsString>, _out: &mut dyn Write) -> Result<(), CliError> {
    Err(CliError("estimate is not built yet".into()))
}
