use crate::diagnostic::Target;
use crate::memory::Missing;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Memory fit could not be checked
    ///
    /// **What:** the config lacks what the memory model needs: the GPU
    /// (`[hardware] gpu`, or `memory_gib` for a GPU outside the catalog) or the
    /// model's architecture (a catalog model, or `[model.architecture]`).
    ///
    /// **Why:** "does the model fit in gpu_memory_utilization?" is the first
    /// question of a deployment; without these keys the linter cannot answer it.
    ///
    /// **Example:** a config with no `[hardware]` section.
    ///
    /// **Fix:** add the key named in the help line.
    pub static RULE = { code: "CFG205", name: "memory-not-checked", severity: Info, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let Err(missing) = &d.memory else { return };
    // A named GPU outside the catalog is unknown-gpu's to report, with its fix.
    let gpu_named = d.config.hardware.as_ref().is_some_and(|h| h.gpu.is_some());
    if *missing == Missing::Gpu && gpu_named {
        return;
    }
    let (message, help, pointer) = match missing {
        Missing::Gpu => (
            "GPU memory fit not checked: no GPU named".to_string(),
            "add `[hardware]` with `gpu = \"H100-80GB\"` (see `cfg-lint memory --list-gpus`), or `memory_gib` for a GPU outside the catalog".to_string(),
            "/hardware",
        ),
        Missing::Architecture(field) => (
            format!("GPU memory fit not checked: the model's `{field}` is unknown"),
            format!("add `{field}` under `[model.architecture]` (from the model's config.json), or use `--model-config config.json`"),
            "/model/name",
        ),
        Missing::Value(field) => (
            format!("GPU memory fit not checked: `{field}` is not a usable number"),
            format!("give `{field}` a finite value in its range (the schema error above says which)"),
            if *field == "memory_gib" { "/hardware/memory_gib" } else { "/model/gpu_memory_utilization" },
        ),
    };
    out.push(RULE.finding(message, Target::config(pointer)).help(help).skipped_check());
}
