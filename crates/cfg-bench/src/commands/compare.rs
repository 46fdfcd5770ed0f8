//! `cfg-bench runs` and `cfg-bench compare`: the archive, and two results
//! metric by metric.

use std::path::Path;

use crate::archive;

pub fn list(runs_dir: &Path) -> Result<u8, String> {
    print!("{}", archive::list(runs_dir)?);
    Ok(0)
}

pub fn run(baseline: &str, candidate: &str, runs_dir: &Path, fail_over: Option<f64>) -> Result<u8, String> {
    let a = archive::load(runs_dir, baseline)?;
    let b = archive::load(runs_dir, candidate)?;
    let (text, regressed) = archive::compare(&a, &b, fail_over);
    print!("{text}");
    Ok(u8::from(regressed))
}
