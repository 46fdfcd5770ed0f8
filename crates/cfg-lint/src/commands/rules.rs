//! `cfg-lint rules` and `cfg-lint explain`: the registry, and one rule's
//! documentation (its doc comment).

use cfg_core::output::human::{Styles, paint};
use cfg_core::rules::{self, RULES};

use crate::args::{CmdResult, Io, TableFormat};

pub fn list(format: TableFormat, io: &mut Io<'_>) -> CmdResult {
    if format == TableFormat::Json {
        let rules: Vec<serde_json::Value> = RULES.iter().map(|r| serde_json::json!({"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary(), "documentation": r.documentation()})).collect();
        let _ = writeln!(io.out, "{:#}", serde_json::Value::Array(rules));
        return Ok(0);
    }
    let styles = Styles::new(io.color);
    for r in RULES {
        let severity = paint(styles.severity(r.severity), &format!("{:<8}", r.severity.as_str()));
        let _ = writeln!(io.out, "{}  {severity} {:<38} {}", r.code, r.name, r.summary());
    }
    let _ = writeln!(io.out, "\n{} rules; `cfg-lint explain CODE` prints one in full", RULES.len());
    Ok(0)
}

pub fn explain(code: &str, io: &mut Io<'_>) -> CmdResult {
    let rule = rules::find(code).ok_or_else(|| {
        let names: Vec<String> = RULES.iter().flat_map(|r| [r.code.to_string(), r.name.to_string()]).collect();
        match cfg_core::suggest::nearest(code, &names) {
            Some(best) => format!("no rule {code}; did you mean {best}? (`cfg-lint rules` lists them)"),
            None => format!("no rule {code} (`cfg-lint rules` lists them)"),
        }
    })?;
    let _ = writeln!(
        io.out,
        "{} {} (default severity: {})\n\n{}",
        rule.code,
        rule.name,
        rule.severity,
        rule.documentation()
    );
    Ok(0)
}
