use crate::diagnostic::Target;
use crate::model::KvCacheDtype;
use crate::resolve::ResolvedDtype;
use crate::rules::ConfigContext;

declare_rule! {
    /// # A 16-bit `kv_cache_dtype` that differs from the model dtype
    ///
    /// **What:** `kv_cache_dtype = "float16"` or `"bfloat16"` while the model
    /// runs in the other 16-bit type (or float32).
    ///
    /// **Why:** vLLM refuses to start: `kv_cache_dtype="float16" is
    /// incompatible with dtype="bfloat16". Please set --kv-cache-dtype to auto
    /// or bfloat16.`
    ///
    /// **Example:** `dtype = "bfloat16"` with `kv_cache_dtype = "float16"`.
    ///
    /// **Fix:** use `auto` (the model dtype) or the model's dtype.
    pub static RULE = { code: "CFG306", name: "kv-cache-dtype-mismatch", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let wanted = match config.model.kv_cache_dtype {
        Some(KvCacheDtype::Float16) => ResolvedDtype::Float16,
        Some(KvCacheDtype::Bfloat16) => ResolvedDtype::Bfloat16,
        _ => return,
    };
    if wanted == d.dtype {
        return;
    }
    let fix = if d.dtype == ResolvedDtype::Float32 {
        "set kv_cache_dtype = \"auto\"".to_string()
    } else {
        format!("set kv_cache_dtype = \"auto\" or \"{}\"", d.dtype.as_str())
    };
    out.push(
        RULE.finding(
            format!(
                "kv_cache_dtype=\"{}\" is incompatible with the model dtype \"{}\"",
                wanted.as_str(),
                d.dtype.as_str()
            ),
            Target::config("/model/kv_cache_dtype"),
        )
        .label("vLLM refuses to start")
        .help(fix),
    );
}
