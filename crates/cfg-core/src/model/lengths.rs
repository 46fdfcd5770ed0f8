//! `max_model_len` as vLLM 0.33 reads it (`vllm/config/model.py`,
//! `ModelConfig.max_model_len` with `human_readable_int_or_auto` in
//! `vllm/utils/argparse_utils.py`): a count of tokens, `-1` or `"auto"` (fit the
//! longest length the KV cache can hold), or a count with a suffix: `32k` is
//! 32000 (decimal, `1.5k` allowed), `32K` is 32768 (binary, whole numbers only).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxModelLen {
    Tokens(u32),
    /// `-1` or `"auto"`: vLLM starts from the model's own maximum and, after
    /// profiling, lowers it to the longest length one request can hold in the
    /// KV cache.
    Auto,
}

impl MaxModelLen {
    /// The written length, when it is one.
    pub fn tokens(self) -> Option<u32> {
        match self {
            MaxModelLen::Tokens(n) => Some(n),
            MaxModelLen::Auto => None,
        }
    }

    /// Parses vLLM's spellings; the error says what vLLM would say.
    pub fn parse(text: &str) -> Result<MaxModelLen, String> {
        let value = text.trim();
        if value == "-1" || value.eq_ignore_ascii_case("auto") {
            return Ok(MaxModelLen::Auto);
        }
        let tokens: u64 = match value.char_indices().last() {
            Some((at, suffix)) if suffix.is_ascii_alphabetic() => {
                let number = &value[..at];
                let well_formed = !number.is_empty()
                    && number.split('.').count() <= 2
                    && number.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
                if !well_formed {
                    return Err(format!(
                        "`{value}` is not a length vLLM reads: write 8192, 32k (32000) or 32K (32768)"
                    ));
                }
                let decimal = match suffix {
                    'k' => Some(1e3),
                    'm' => Some(1e6),
                    'g' => Some(1e9),
                    't' => Some(1e12),
                    _ => None,
                };
                let binary = match suffix {
                    'K' => Some(1u64 << 10),
                    'M' => Some(1 << 20),
                    'G' => Some(1 << 30),
                    'T' => Some(1 << 40),
                    _ => None,
                };
                match (decimal, binary) {
                    (Some(mult), _) => {
                        let n: f64 = number.parse().map_err(|_| format!("`{value}` is not a number"))?;
                        (n * mult) as u64
                    }
                    (_, Some(mult)) => {
                        if number.contains('.') {
                            // vLLM's own words (argparse_utils.py).
                            return Err(format!(
                                "Decimals are not allowed with binary suffixes like {suffix}. Did you mean to use \
                                 {number}{} instead?",
                                suffix.to_ascii_lowercase()
                            ));
                        }
                        let n: u64 = number.parse().map_err(|_| format!("`{value}` is too large"))?;
                        n.saturating_mul(mult)
                    }
                    _ => {
                        return Err(format!(
                            "`{value}`: the suffix `{suffix}` is not one vLLM reads (k, m, g, t for powers of \
                             1000; K, M, G, T for powers of 1024)"
                        ));
                    }
                }
            }
            _ => value.parse().map_err(|_| format!("`{value}` is not a length vLLM reads: write 8192, 32k or auto"))?,
        };
        match u32::try_from(tokens) {
            Ok(0) => Err("max_model_len must be at least 1 token".into()),
            Ok(n) => Ok(MaxModelLen::Tokens(n)),
            Err(_) => Err(format!("`{value}` is {tokens} tokens, more than any model holds")),
        }
    }
}

impl fmt::Display for MaxModelLen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxModelLen::Tokens(n) => write!(f, "{n}"),
            MaxModelLen::Auto => f.write_str("auto"),
        }
    }
}

impl Serialize for MaxModelLen {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaxModelLen::Tokens(n) => s.serialize_u32(*n),
            MaxModelLen::Auto => s.serialize_str("auto"),
        }
    }
}

impl<'de> Deserialize<'de> for MaxModelLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Length;
        impl Visitor<'_> for Length {
            type Value = MaxModelLen;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of tokens, -1, \"auto\" or a count such as \"32k\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<MaxModelLen, E> {
                MaxModelLen::parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<MaxModelLen, E> {
                MaxModelLen::parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MaxModelLen, E> {
                MaxModelLen::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(Length)
    }
}

/// Editors complete the plain count; the other spellings validate too.
const SUFFIXED: &str = r"^\s*(-1|[Aa][Uu][Tt][Oo]|[0-9]+|[0-9]+(\.[0-9]+)?[kmgt]|[0-9]+[KMGT])\s*$";

impl JsonSchema for MaxModelLen {
    fn schema_name() -> Cow<'static, str> {
        "MaxModelLen".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "integer", "minimum": 1, "maximum": 10_000_000 },
                { "const": -1, "description": "Fit the longest length the KV cache can hold (same as \"auto\")." },
                {
                    "type": "string",
                    "pattern": SUFFIXED,
                    "description": "\"auto\", or a count with a suffix: \"32k\" = 32000, \"32K\" = 32768."
                }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::MaxModelLen::{self, *};

    #[test]
    fn reads_what_vllm_reads() {
        let cases = [
            ("8192", Tokens(8192)),
            ("32k", Tokens(32000)),
            ("1.5k", Tokens(1500)),
            ("32K", Tokens(32768)),
            ("1M", Tokens(1 << 20)),
            ("1m", Tokens(1_000_000)),
            ("-1", Auto),
            ("auto", Auto),
            ("AUTO", Auto),
            (" 4k ", Tokens(4000)),
        ];
        for (text, want) in cases {
            assert_eq!(MaxModelLen::parse(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn refuses_what_vllm_refuses_with_its_words() {
        let err = MaxModelLen::parse("1.5K").unwrap_err();
        assert_eq!(err, "Decimals are not allowed with binary suffixes like K. Did you mean to use 1.5k instead?");
        for bad in ["", "0", "k", "3x", "1.2.3k", "-2", "99T"] {
            assert!(MaxModelLen::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_schema_pattern_agrees_with_the_parser() {
        let re = regex_lite(super::SUFFIXED);
        for text in ["8192", "32k", "1.5k", "32K", "-1", "auto", "Auto"] {
            assert!(re(text), "{text}");
        }
        for text in ["1.5K", "3x", "k", "-2"] {
            assert!(!re(text), "{text}");
        }
    }

    /// The schema's pattern checked the way the schema validator checks it.
    fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool {
        let schema: &'static serde_json::Value =
            Box::leak(Box::new(serde_json::json!({ "type": "string", "pattern": pattern })));
        move |text: &str| crate::schema::is_valid(schema, schema, &serde_json::Value::from(text))
    }
}
