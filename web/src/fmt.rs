//! Numbers as people read them: 1,019 tok/s, 62.2 GiB, 0.42 ms.

/// An integer with thousands separators: 443,216 (the core's messages write them so).
pub use cfg_core::rules::thousands;

/// A measured figure with about three significant digits, separators above a
/// thousand: 1,019 / 62.2 / 7.25 / 0.042. Not finite: "n/a".
pub fn figure(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    let sign = if v < 0.0 { "-" } else { "" };
    if a >= 999.5 {
        format!("{sign}{}", thousands(a.round() as u64))
    } else if a >= 99.95 {
        format!("{v:.0}")
    } else if a >= 9.995 {
        format!("{v:.1}")
    } else if a >= 0.9995 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Bytes as GiB with one decimal: 62.2 GiB.
pub fn gib(bytes: f64) -> String {
    format!("{:.1} GiB", bytes / cfg_core::memory::GIB)
}

/// A JSON value that should be a number, formatted; anything else as "n/a".
pub fn json_figure(v: &serde_json::Value) -> String {
    v.as_f64().map_or_else(|| "n/a".into(), figure)
}

/// "1 error", "2 errors".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!(figure(1019.5383493862508), "1,020");
        assert_eq!(figure(443216.0), "443,216");
        assert_eq!(figure(123.4), "123");
        assert_eq!(figure(62.24), "62.2");
        assert_eq!(figure(7.254), "7.25");
        assert_eq!(figure(0.04213), "0.042");
        assert_eq!(figure(0.0), "0.00");
        assert_eq!(figure(-1234.0), "-1,234");
        assert_eq!(figure(f64::NAN), "n/a");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(gib(62.2 * cfg_core::memory::GIB), "62.2 GiB");
        assert_eq!(count(1, "error", "errors"), "1 error");
        assert_eq!(json_figure(&serde_json::json!("x")), "n/a");
    }
}
