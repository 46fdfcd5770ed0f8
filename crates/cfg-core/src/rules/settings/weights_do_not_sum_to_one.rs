use crate::diagnostic::Target;
use crate::fix::{Applicability, Proposal};
use crate::kind::FileKind;
use crate::rules::SettingsContext;
use crate::tree::escape_token;

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
    let mut f = RULE
        .finding(
            format!("request-class weights sum to {}, not 1", round3(sum)),
            Target::settings_key("/request_distribution"),
        )
        .help(help);
    if let Some(weights) = renormalised(&classes.values().map(|c| c.weight).collect::<Vec<_>>()) {
        // The same proportions: the mix the weights already describe.
        // A class whose weight rounds to nothing would drop out of the mix: a person decides.
        let drops_a_class = classes.values().zip(&weights).any(|(c, w)| c.weight > 0.0 && *w == 0.0);
        let applicability = if drops_a_class { Applicability::Unsafe } else { Applicability::Safe };
        let mut fix = Proposal::new("Renormalise the weights to sum to 1", applicability);
        for (name, weight) in classes.keys().zip(weights) {
            fix = fix.set(FileKind::Settings, format!("/request_distribution/{}/weight", escape_token(name)), weight);
        }
        f = f.fix(fix);
    }
    out.push(f);
}

/// Parts per million: fine enough that a small class keeps its share.
const PARTS: f64 = 1e6;

/// The weights scaled to sum to 1, in millionths, with the rounding left-over
/// given to the largest, so the written sum is 1 (within the rule's tolerance).
fn renormalised(weights: &[f64]) -> Option<Vec<f64>> {
    let sum: f64 = weights.iter().sum();
    if !(sum > 0.0 && sum.is_finite()) {
        return None;
    }
    let mut parts: Vec<i64> = weights.iter().map(|w| (w / sum * PARTS).round() as i64).collect();
    let largest = (0..parts.len()).max_by(|&a, &b| weights[a].total_cmp(&weights[b]))?;
    parts[largest] += PARTS as i64 - parts.iter().sum::<i64>();
    (parts[largest] >= 0).then(|| parts.into_iter().map(|m| m as f64 / PARTS).collect())
}

fn round3(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renormalised_weights_sum_to_one_and_keep_proportions() {
        for weights in [vec![0.6, 0.3, 0.2], vec![1.0, 1.0, 1.0], vec![3.0, 0.0], vec![0.0005, 0.0005, 2.0]] {
            let w = renormalised(&weights).unwrap();
            assert!((w.iter().sum::<f64>() - 1.0).abs() <= TOLERANCE, "{weights:?} -> {w:?}");
        }
        assert_eq!(renormalised(&[0.6, 0.3, 0.2]).unwrap(), vec![0.545455, 0.272727, 0.181818]);
        // A small class keeps its share instead of rounding away.
        assert_eq!(renormalised(&[0.7, 0.3, 0.0004]).unwrap(), vec![0.69972, 0.29988, 0.0004]);
        assert_eq!(renormalised(&[0.0, 0.0]), None);
    }
}
