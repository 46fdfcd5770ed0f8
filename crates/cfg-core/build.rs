//! Embeds the catalog's config.json files (`src/catalog/configs/ORG--NAME.json`)
//! as `CONFIGS: &[(id, json)]`, whitespace removed, so adding a model is adding
//! its file: no list to keep in step with the folder.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new("src/catalog/configs");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("src/catalog/configs exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.file_name().is_some_and(|n| n != "weights.json"))
        .collect();
    files.sort();
    let mut out = String::from("pub(super) static CONFIGS: &[(&str, &str)] = &[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("UTF-8 file name");
        let (org, name) = stem.split_once("--").unwrap_or_else(|| panic!("{stem}: name it ORG--NAME.json"));
        let text = std::fs::read_to_string(&path).expect("readable config");
        let compact = without_whitespace(&text);
        assert!(!compact.contains("\"#####"), "{stem}: the raw string delimiter occurs in the file");
        writeln!(out, "    (\"{org}/{name}\", r#####\"{compact}\"#####),").expect("write to a String");
    }
    out.push_str("];\n");
    let target = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("catalog_configs.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}

/// JSON with the whitespace between tokens removed (strings kept as written).
fn without_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}
