use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # Requests rejected with 401/403
    ///
    /// **What:** the server or gateway refused requests as unauthorised.
    ///
    /// **Why:** the SPEC's gateway rule: when direct access works and the gateway
    /// refuses, the key is missing, revoked, sent in the wrong header, or the model
    /// name is not mapped on the gateway.
    ///
    /// **Advice:** check, in order: the key is read from the environment variable
    /// `api_key_env` names, it is not revoked, it is sent as `Authorization: Bearer
    /// <key>`, and the gateway maps the model name.
    pub static DIAGNOSIS = { code: "auth-rejected", severity: Error, title: "Requests rejected with 401/403", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let auth: u64 =
        f.result.errors.iter().filter(|e| e.kind == "http_401" || e.kind == "http_403").map(|e| e.count).sum();
    if auth == 0 {
        return None;
    }
    let mut found = Found::new(
        format!("{auth} request(s) got 401/403"),
        &[
            "check the key is read from the environment (the variable named by api_key_env is set in this shell)",
            "check the key is not revoked",
            "check it is sent as `Authorization: Bearer <key>` (some gateways want another header)",
            "check the model name is mapped on the gateway side",
        ],
    );
    if let Some(env) = &f.settings.api_key_env {
        found.advice[0] = format!("check the key is read from the environment (${env} is set and is the right key)");
    }
    Some(found)
}
