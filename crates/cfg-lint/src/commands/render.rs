//! `cfg-lint render`: the real `vllm serve` launch of a config, as a command
//! line or as the YAML file `vllm serve --config` reads.

use std::path::Path;

use cfg_core::output::human::{self, Styles, paint};
use cfg_core::{Diagnostic, Severity};

use crate::args::{CmdResult, Io, RenderFormat};
use crate::files::{ModelLookup, lint_paths};

pub fn run(config: &Path, format: RenderFormat, output: Option<&Path>, force: bool, io: &mut Io<'_>) -> CmdResult {
    let (inputs, report) = lint_paths(&[config.to_path_buf()], &ModelLookup::default())?;
    let styles = Styles::new(io.color);
    let errors: Vec<&Diagnostic> = report.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    let cfg = match &report.config {
        Some(cfg) => Some(cfg).filter(|_| force || errors.is_empty()),
        None => report.config_unchecked.as_ref().filter(|_| force),
    };
    let Some(cfg) = cfg else {
        for d in &errors {
            let _ = write!(io.err, "{}", human::render(d, Some(&inputs[0].source), &styles));
        }
        let _ = writeln!(
            io.err,
            "{} not rendering a config with errors (vLLM would refuse it); fix them or pass --force",
            paint(styles.error, "error:")
        );
        return Ok(1);
    };
    if !errors.is_empty() {
        let _ = writeln!(
            io.err,
            "{} rendering despite {} error(s) (--force): vLLM will refuse this launch",
            paint(styles.warning, "warning:"),
            errors.len()
        );
    }
    let launch = cfg_core::render::launch(cfg);
    let text = match format {
        RenderFormat::Shell => cfg_core::render::command_line(&launch),
        RenderFormat::Yaml => cfg_core::render::yaml(&launch),
    };
    match output {
        Some(path) => std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => io.out.write_all(text.as_bytes()).map_err(|e| e.to_string())?,
    }
    if format == RenderFormat::Shell {
        for u in &launch.unrendered {
            let _ = writeln!(io.err, "note: not rendered: {}: {}", u.key, u.reason);
        }
    }
    Ok(0)
}
