//! `cfg-bench report`: a self-contained HTML page of a result.

use std::path::Path;

use cfg_core::model::BenchResult;

use crate::{archive, inputs, report};

pub fn run(result: &Path, html: &Path) -> Result<u8, String> {
    let r: BenchResult = serde_json::from_str(&inputs::read(result)?).map_err(|e| archive::not_a_result(result, &e))?;
    std::fs::write(html, report::html(&r)).map_err(|e| format!("cannot write {}: {e}", html.display()))?;
    println!("wrote {}", html.display());
    Ok(0)
}
