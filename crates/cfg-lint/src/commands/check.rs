//! `cfg-lint check`: lint the files and print the report in the chosen format.

use cfg_core::Severity;
use cfg_core::output::{self, Format};

use crate::args::{CmdResult, Io};
use crate::files::{ModelLookup, Selection, lint_selection};

pub fn run(
    selection: &Selection,
    format: Format,
    deny_warnings: bool,
    quiet: bool,
    models: &ModelLookup,
    io: &mut Io<'_>,
) -> CmdResult {
    let (inputs, report) = lint_selection(selection, models)?;
    let options = output::Options { color: io.color, hide_info: quiet };
    let text = output::report(format, &inputs, &report, &options);
    io.out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    let failing = report.has_errors() || (deny_warnings && report.count(Severity::Warning) > 0);
    Ok(u8::from(failing))
}
