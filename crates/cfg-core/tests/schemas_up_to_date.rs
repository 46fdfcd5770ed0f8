//! The committed schemas under `schemas/` must be exactly what the types
//! generate. Regenerate with `cargo run -p cfg-lint -- schema --write schemas`
//! (or run this test with UPDATE_SCHEMAS=1).

use std::path::Path;

use cfg_core::FileKind;
use cfg_core::schema::schema_text;

#[test]
fn committed_schemas_match_the_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let mut stale = Vec::new();
    for kind in FileKind::ALL {
        let path = dir.join(kind.schema_file_name());
        let generated = schema_text(kind);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != generated {
            if std::env::var_os("UPDATE_SCHEMAS").is_some() {
                std::fs::write(&path, &generated).unwrap();
            } else {
                stale.push(kind.schema_file_name());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "schemas/{} differ from the types; regenerate with:\n    cargo run -p cfg-lint -- schema --write schemas",
        stale.join(", schemas/")
    );
}

#[test]
fn example_files_point_at_their_schemas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let config = std::fs::read_to_string(root.join("examples/config.toml")).unwrap();
    assert!(config.starts_with("#:schema ../schemas/config.schema.json"));
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("examples/settings.json")).unwrap()).unwrap();
    assert_eq!(settings["$schema"], "../schemas/settings.schema.json");
}
