use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::suggest::nearest;

declare_rule! {
    /// # The model's architecture was found nowhere
    ///
    /// **What:** `model.name` is not a catalog model, its config.json was not
    /// given or found (a local folder, the Hugging Face cache, the Hub when asked),
    /// and `[model.architecture]` does not describe it.
    ///
    /// **Why:** the memory fit, the tensor-parallel divisibility, the context
    /// length and the quantization checks need the architecture (layers, heads,
    /// sizes, its own quantization). Without it they do not run.
    ///
    /// **Example:** `name = "/models/my-finetune"`
    ///
    /// **Fix:** give the model's config.json: `cfg-lint --model-config PATH`
    /// (a config.json or the model's folder), have it in the Hugging Face cache
    /// (`huggingface-cli download ORG/NAME config.json`), or add `--fetch` to
    /// read it from the Hub (honouring `HF_ENDPOINT` and `HF_TOKEN`); in the web
    /// app, drop the config.json on the page.
    pub static RULE = { code: "CFG312", name: "unknown-model", severity: Info, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    if d.arch.origin.is_some() || config.model.architecture.is_some() {
        return;
    }
    let ids: Vec<String> = crate::catalog::ids().map(str::to_string).collect();
    let name = &config.model.name;
    let mut f = RULE
        .finding(
            format!("no config.json for \"{name}\": not in the catalog, not given, not in the Hugging Face cache"),
            Target::config("/model/name"),
        )
        .label("the memory, length and quantization checks need the model's architecture");
    let ways = format!(
        "pass --model-config PATH (a config.json or the model's folder), download it into the Hugging Face cache \
         (huggingface-cli download {name} config.json), or add --fetch to read it from the Hub"
    );
    f = match nearest(name, &ids) {
        Some(best) => f.help(format!("did you mean \"{best}\"? Otherwise {ways}")),
        None => f.help(ways),
    };
    out.push(f);
}
