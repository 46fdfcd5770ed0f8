use crate::diagnostic::Target;
use crate::rules::SettingsContext;

/// Accepted distance from 1.0: generous enough for 0.1 + 0.2 + 0.7 in binary
/// floating point and three-decimal weights, strict enough to catch a typo.
const TOLERANCE: f64 = 1e-6;

declare_rule! {
    /// # Request-class weights do not sum to 1
    ///
    /// **What:** the `weight`s in `request_distribution` add up to something
    /// other than 1 (within 1e-6).
    ///
    /// **Why:** the weights are the traffic mix; if they do not sum to 1, the
    /// mix you meant is not the mix you test (and it usually means a class was
    /// added or removed without rebalancing).
    ///
    /// **Example:** short 0.6, long 0.3, tail 0.2 (sum 1.1).
    ///
    /// **Fix:** rebalance the weights so they sum to 1; the help line gives the
    /// normalised values.
    pub static RULE = { code: "CFG401", name: "weights-do-not-sum-to-one", severity: Error, settings }
}

fn check(s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    let classes = &settings.request_distribution;
    let sum: f64 = classes.values().map(|c| c.weight).sum();
    if classes.is_empty() || (sum - 1.0).abs() <= TOLERANCE {
        return;
    }
    let help = if sum > 0.0 {
        let normalised: Vec<String> = classes.iter().map(|(n, c)| format!("{n} {}", round3(c.weight / sum))).collect();
        format!("rebalance the weights to sum to 1, e.g. {}", normalised.join(", "))
    } else {
        "give at least one class a positive weight".to_string()
    };
    out.push(
        RULE.finding(
            format!("request-class weights sum to {}, not 1", round3(sum)),
            Target::settings_key("/request_distribution"),
        )
        .help(help),
    );
}

fn round3(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
