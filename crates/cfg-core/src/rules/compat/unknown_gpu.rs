use crate::catalog::GPUS;
use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::suggest::nearest;

declare_rule! {
    /// # GPU not in the catalog
    ///
    /// **What:** `[hardware] gpu` names a GPU the built-in catalog does not
    /// know, and `memory_gib` is not given.
    ///
    /// **Why:** without the GPU's memory and compute capability the linter
    /// cannot check the memory fit, the dtype or the quantization method.
    ///
    /// **Example:** `gpu = "H100 SXM 80"`
    ///
    /// **Fix:** use a catalog name (`cfg-lint memory --list-gpus`), or add
    /// `memory_gib` and `compute_capability` for this GPU.
    pub static RULE = { code: "CFG311", name: "unknown-gpu", severity: Warning, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(hw) = &config.hardware else { return };
    let Some(name) = &hw.gpu else { return };
    if d.gpu.as_ref().is_some_and(|g| g.in_catalog) {
        return;
    }
    let names: Vec<String> = GPUS.iter().map(|g| g.name.to_string()).collect();
    if hw.memory_gib.is_some() && hw.compute_capability.is_some() {
        return;
    }
    if hw.memory_gib.is_some() {
        out.push(
            RULE.finding(format!("GPU \"{name}\" is not in the catalog and has no compute_capability: dtype and quantization support are not checked"), Target::config("/hardware/gpu"))
                .help("add compute_capability = \"major.minor\" (e.g. \"8.9\") under [hardware]"),
        );
        return;
    }
    let mut f = RULE.finding(
        format!("GPU \"{name}\" is not in the catalog: memory fit, dtype and quantization are not checked"),
        Target::config("/hardware/gpu"),
    );
    f = match nearest(name, &names) {
        Some(best) => f.label(format!("did you mean \"{best}\"?")).help(format!(
            "did you mean \"{best}\"? Otherwise add memory_gib and compute_capability for this GPU under [hardware]"
        )),
        None => f.help(format!("use one of: {}; or add memory_gib and compute_capability", names.join(", "))),
    };
    out.push(f);
}
