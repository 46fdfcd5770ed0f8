use crate::diagnostic::Target;
use crate::fix::{Applicability, Proposal};
use crate::kind::FileKind;
use crate::secrets::{env_reference, looks_like_secret};
use crate::tree::Node;
use crate::tree::pointer_tokens;

declare_rule! {
    /// # A literal key or secret in the file
    ///
    /// **What:** `server.api_key` is not an environment reference like
    /// `${VLLM_INTERNAL_KEY}`, or any value in either file looks like a key
    /// (`sk-...`, `hf_...`, a bearer token, a JWT, a password in a URL), or
    /// `api_key_env` holds a key instead of a variable name.
    ///
    /// **Why:** these files are committed, shared and pasted into tickets; a key
    /// in them is a leaked key. Keys come from the environment only, one per
    /// environment (load test, canary, production), so a leak is traced and
    /// revoked fast.
    ///
    /// **Example:** `api_key = "sk-live-3f9a..."`
    ///
    /// **Fix:** put the key in an environment variable and reference it:
    /// `api_key = "${VLLM_INTERNAL_KEY}"` in config.toml, `"api_key_env":
    /// "GATEWAY_API_KEY"` in settings.json. Revoke the key that was in the file.
    pub static RULE = { code: "CFG601", name: "literal-secret", severity: Error, tree }
}

/// The variable a fix moves a key to: the one vLLM itself reads for its key.
const KEY_VARIABLE: &str = "VLLM_API_KEY";

fn check(tree: &Node, file: FileKind, out: &mut Vec<crate::diagnostic::Finding>) {
    let in_settings = file == FileKind::Settings;
    for (pointer, value, span) in tree.strings() {
        let key = pointer_tokens(&pointer).last().unwrap_or_default();
        let is_api_key = !in_settings && pointer == "/server/api_key";
        if is_api_key && let Some(f) = not_a_reference(value, &span, &pointer) {
            out.push(f);
            continue;
        }
        let kind = looks_like_secret(value, &key);
        let message = if is_api_key && env_reference(value).is_none() {
            Some(match kind {
                Some(kind) => format!("server.api_key holds {kind}; it must be an environment reference"),
                None => "server.api_key must be an environment reference like ${VLLM_INTERNAL_KEY}, not a literal"
                    .to_string(),
            })
        } else if in_settings && pointer == "/api_key_env" && kind.is_some() {
            Some("api_key_env holds a key; it must hold the NAME of the environment variable".to_string())
        } else {
            kind.map(|kind| format!("`{key}` looks like {kind}; keys must not be written in files"))
        };
        if let Some(message) = message {
            let help = if in_settings {
                "put the key in an environment variable and set \"api_key_env\" to its name; revoke the exposed key"
            } else {
                "put the key in an environment variable and write api_key = \"${VLLM_INTERNAL_KEY}\"; revoke the exposed key"
            };
            // Point at the value but never quote it back: diagnostics are logged.
            let mut f = RULE.finding(message, Target::span(file, span, pointer.clone())).help(help).redacted();
            // The key moves to the environment: unsafe, since the variable must then be set.
            if is_api_key {
                f = f.fix(
                    Proposal::new(
                        format!("Replace the key by \"${{{KEY_VARIABLE}}}\" (then export {KEY_VARIABLE})"),
                        Applicability::Unsafe,
                    )
                    .set(FileKind::Config, pointer, format!("${{{KEY_VARIABLE}}}")),
                );
            } else if in_settings && pointer == "/api_key_env" {
                f = f.fix(
                    Proposal::new(
                        format!("Name the variable {KEY_VARIABLE} instead (then export it)"),
                        Applicability::Unsafe,
                    )
                    .set(FileKind::Settings, pointer, KEY_VARIABLE),
                );
            }
            out.push(f);
        }
    }
}

/// An api_key that is no key at all: empty, or a shell-style `$NAME` that the
/// config takes literally. Nothing was exposed, so nothing needs revoking.
fn not_a_reference(value: &str, span: &std::ops::Range<usize>, pointer: &str) -> Option<crate::diagnostic::Finding> {
    let target = || Target::span(FileKind::Config, span.clone(), pointer);
    if value.trim().is_empty() {
        return Some(
            RULE.finding(
                "server.api_key is empty: vLLM treats an empty key as no key and serves without one",
                target(),
            )
            .help("write api_key = \"${VLLM_INTERNAL_KEY}\" (the variable holding the key), or remove api_key"),
        );
    }
    let name = value.strip_prefix('$').filter(|n| env_reference(&format!("${{{n}}}")).is_some())?;
    let reference = format!("${{{name}}}");
    Some(
        RULE.finding(
            format!("server.api_key = \"${name}\" is taken literally: the key would be the text ${name}"),
            target(),
        )
        .help(format!("write api_key = \"{reference}\": references to environment variables take braces"))
        // What was meant: the same variable, written as the config reads it.
        .fix(Proposal::new(format!("Write api_key = \"{reference}\""), Applicability::Safe).set(
            FileKind::Config,
            pointer,
            reference,
        )),
    )
}
