use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::suggest::nearest;

declare_rule! {
    /// # Model not in the catalog and no architecture given
    ///
    /// **What:** `model.name` is not one of the catalog's models and
    /// `[model.architecture]` does not describe it.
    ///
    /// **Why:** the memory fit, the tensor-parallel divisibility and the
    /// context-length checks need the architecture (parameters, layers, heads).
    ///
    /// **Example:** `name = "/models/my-finetune"`
    ///
    /// **Fix:** add `[model.architecture]` with the numbers from the model's
    /// config.json, or pass `--model-config path/to/config.json`.
    pub static RULE = { code: "CFG312", name: "unknown-model", severity: Info, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    if d.arch.origin.is_some() || config.model.architecture.is_some() {
        return;
    }
    let ids: Vec<String> = crate::catalog::models().iter().map(|m| m.id.to_string()).collect();
    let mut f = RULE.finding(
        format!("model \"{}\" is not in the catalog and has no [model.architecture]", config.model.name),
        Target::config("/model/name"),
    );
    f = match nearest(&config.model.name, &ids) {
        Some(best) => f.help(format!("did you mean \"{best}\"? Otherwise add [model.architecture] from the model's config.json")),
        None => f.help("add [model.architecture] with num_parameters, num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, vocab_size and max_position_embeddings from the model's config.json"),
    };
    out.push(f);
}
