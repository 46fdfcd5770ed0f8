//! `cfg-lint init`: starter files with their schema headers, and the schemas.

use std::path::Path;

use cfg_core::FileKind;
use cfg_core::schema::schema_text;

use crate::args::{CmdResult, Io};

pub fn run(dir: &Path, force: bool, io: &mut Io<'_>) -> CmdResult {
    let files = [
        (dir.join("config.toml"), cfg_core::starter::config_toml("./schemas/config.schema.json")),
        (dir.join("settings.json"), cfg_core::starter::settings_json("./schemas/settings.schema.json")),
        (dir.join("schemas").join(FileKind::Config.schema_file_name()), schema_text(FileKind::Config)),
        (dir.join("schemas").join(FileKind::Settings.schema_file_name()), schema_text(FileKind::Settings)),
    ];
    if !force && let Some((existing, _)) = files.iter().take(2).find(|(p, _)| p.exists()) {
        return Err(format!("{} already exists; pass --force to overwrite", existing.display()));
    }
    std::fs::create_dir_all(dir.join("schemas")).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (path, text) in &files {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let _ = writeln!(io.out, "wrote {}", path.display());
    }
    let _ = writeln!(
        io.out,
        "next: edit them, then run `cfg-lint check {} {}`",
        files[0].0.display(),
        files[1].0.display()
    );
    Ok(0)
}
