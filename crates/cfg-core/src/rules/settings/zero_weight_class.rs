use crate::diagnostic::Target;
use crate::rules::SettingsContext;

declare_rule! {
    /// # A request class with weight 0
    ///
    /// **What:** a class in `request_distribution` whose `weight` is 0.
    ///
    /// **Why:** it is never drawn, so it looks tested but is not; often it is
    /// the tail class someone switched off to get a better P99.
    ///
    /// **Example:** `"tail": {"weight": 0, ...}`
    ///
    /// **Fix:** give it its real share of traffic, or delete it.
    pub static RULE = { code: "CFG404", name: "zero-weight-class", severity: Warning, settings }
}

fn check(s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    for (name, class) in &settings.request_distribution {
        if class.weight == 0.0 {
            let pointer = format!("/request_distribution/{}/weight", crate::tree::escape_token(name));
            out.push(
                RULE.finding(
                    format!("request class `{name}` has weight 0 and is never sent"),
                    Target::settings(pointer),
                )
                .help("give it its real share of the traffic, or delete the class"),
            );
        }
    }
}
