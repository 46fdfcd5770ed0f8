//! Keys and secrets in text: `${NAME}` references to environment variables,
//! and strings that look like a key, a token or a URL with a password. Used by
//! the rules, the schema messages (which never echo a secret) and rendering.

/// The variable name of a `${NAME}` reference.
pub fn env_reference(value: &str) -> Option<&str> {
    let name = value.strip_prefix("${")?.strip_suffix('}')?;
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(name)
}

/// What kind of secret a string looks like, if any. Conservative: known key
/// formats anywhere, long random-looking tokens only under key-like names.
pub fn looks_like_secret(value: &str, key_name: &str) -> Option<&'static str> {
    let v = value.trim();
    let token_chars = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    const PREFIXES: &[(&str, &str)] = &[
        ("sk-ant-", "an Anthropic API key"),
        ("sk-proj-", "an OpenAI API key"),
        ("sk-", "an OpenAI-style API key"),
        ("sk_live_", "a Stripe secret key"),
        ("rk_live_", "a Stripe key"),
        ("hf_", "a Hugging Face token"),
        ("ghp_", "a GitHub token"),
        ("gho_", "a GitHub token"),
        ("ghs_", "a GitHub token"),
        ("github_pat_", "a GitHub token"),
        ("glpat-", "a GitLab token"),
        ("xoxb-", "a Slack token"),
        ("xoxp-", "a Slack token"),
        ("AKIA", "an AWS access key"),
        ("AIza", "a Google API key"),
    ];
    for (prefix, kind) in PREFIXES {
        if let Some(rest) = v.strip_prefix(prefix)
            && rest.len() >= 16
            && token_chars(rest)
        {
            return Some(kind);
        }
    }
    if v.starts_with("eyJ") && v.matches('.').count() == 2 && v.len() > 40 {
        return Some("a JSON Web Token");
    }
    if let Some(rest) = v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer "))
        && rest.len() >= 8
    {
        return Some("a bearer token");
    }
    if crate::url::Url::has_userinfo(v)
        && v.split_once("://").is_some_and(|(_, r)| r.split('@').next().is_some_and(|u| u.contains(':')))
    {
        return Some("a URL with a password");
    }
    let sensitive = ["key", "token", "secret", "password", "passwd", "auth", "credential"]
        .iter()
        .any(|w| key_name.to_ascii_lowercase().contains(w));
    let random_looking = v.len() >= 20
        && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '='))
        && v.chars().any(|c| c.is_ascii_digit())
        && v.chars().any(|c| c.is_ascii_alphabetic());
    (sensitive && random_looking && env_reference(v).is_none()).then_some("a literal key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_references() {
        assert_eq!(env_reference("${VLLM_INTERNAL_KEY}"), Some("VLLM_INTERNAL_KEY"));
        for bad in ["$KEY", "${}", "${1A}", "${A-B}", "sk-123"] {
            assert_eq!(env_reference(bad), None, "{bad}");
        }
    }

    #[test]
    fn secrets_are_recognised_but_names_are_not() {
        assert!(looks_like_secret("sk-abcdefghijklmnop1234", "x").is_some());
        assert!(looks_like_secret("hf_abcdefghijklmnopqrstu", "model").is_some());
        assert!(looks_like_secret("Bearer abcdefgh12", "endpoint").is_some());
        assert!(looks_like_secret("https://u:pw@gw.example/v1", "endpoint").is_some());
        assert!(looks_like_secret("q8Z3xk2LmP0vR7tY1wQ9eN4", "api_key").is_some());
        for fine in [
            "meta-llama/Llama-3.1-8B-Instruct",
            "GATEWAY_API_KEY",
            "${VLLM_INTERNAL_KEY}",
            "http://127.0.0.1:8000/v1/chat/completions",
            "sk-short",
        ] {
            assert!(looks_like_secret(fine, "api_key_env").is_none(), "{fine}");
        }
    }
}
