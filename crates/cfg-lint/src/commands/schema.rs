//! `cfg-lint schema`: print one JSON Schema, or write or check them all.

use std::path::Path;

use cfg_core::FileKind;
use cfg_core::schema::schema_text;

use crate::args::{CmdResult, Io, SchemaKind};

fn kinds(kind: Option<SchemaKind>) -> Vec<FileKind> {
    match kind {
        None => FileKind::ALL.to_vec(),
        Some(SchemaKind::Config) => vec![FileKind::Config],
        Some(SchemaKind::Settings) => vec![FileKind::Settings],
        Some(SchemaKind::Result) => vec![FileKind::Result],
    }
}

pub fn run(kind: Option<SchemaKind>, write: Option<&Path>, check: Option<&Path>, io: &mut Io<'_>) -> CmdResult {
    if let Some(dir) = write {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for k in kinds(kind) {
            let path = dir.join(k.schema_file_name());
            std::fs::write(&path, schema_text(k)).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let _ = writeln!(io.out, "wrote {}", path.display());
        }
        return Ok(0);
    }
    if let Some(dir) = check {
        let mut stale = Vec::new();
        for k in kinds(kind) {
            let path = dir.join(k.schema_file_name());
            if std::fs::read_to_string(&path).ok().as_deref() != Some(schema_text(k).as_str()) {
                stale.push(path.display().to_string());
            }
        }
        if stale.is_empty() {
            let _ = writeln!(io.out, "schemas in {} are up to date", dir.display());
            return Ok(0);
        }
        let _ = writeln!(
            io.err,
            "error: generated schemas differ from {}\nregenerate them with: cargo run -p cfg-lint -- schema --write {}",
            stale.join(", "),
            dir.display()
        );
        return Ok(1);
    }
    let ks = kinds(kind);
    if ks.len() > 1 {
        return Err("name a schema (config, settings or result), or use --write DIR".into());
    }
    io.out.write_all(schema_text(ks[0]).as_bytes()).map_err(|e| e.to_string())?;
    Ok(0)
}
