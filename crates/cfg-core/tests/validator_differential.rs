//! Our draft-07 validator against an independent one (jsonschema-rs, the
//! validator it replaced): on thousands of broken variants of the example
//! files (a value replaced by a number, a string, a table...; a key removed
//! or added), both agree on whether the file is valid and on where each
//! problem is. The web bundle carries ours; this keeps it honest.

use std::collections::BTreeSet;

use cfg_core::FileKind;
use cfg_core::schema::{schema, validator};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{Value, json};

const CI_SEED: u64 = 20_261_202;

fn examples() -> Vec<(FileKind, Value)> {
    let config = cfg_core::parse::parse_toml(include_str!("../../../examples/config.toml")).unwrap().to_json();
    let settings = cfg_core::parse::parse_json(include_str!("../../../examples/settings.json")).unwrap().to_json();
    let result = cfg_core::parse::parse_json(include_str!("../../../tests/fixtures/good-result-only/result.json"))
        .unwrap()
        .to_json();
    vec![(FileKind::Config, config), (FileKind::Settings, settings), (FileKind::Result, result)]
}

/// Every pointer into a document.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            m.iter().for_each(|(k, x)| pointers(x, format!("{at}/{}", cfg_core::tree::escape_token(k)), out))
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

fn replacement() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        (-3i64..3).prop_map(Value::from),
        prop::sample::select(vec![0u64, 1, 64, 65, 4_294_967_296, u64::MAX]).prop_map(Value::from),
        prop::sample::select(vec![32.0, 0.5, -0.0, 1e300, 0.9, 1.0]).prop_map(|f: f64| json!(f)),
        prop::sample::select(vec![
            "",
            "auto",
            "32k",
            "1.5K",
            "fp8",
            "FP8",
            "http://x",
            "ftp://x",
            "p99",
            "x".repeat(70).leak()
        ])
        .prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        Just(json!([])),
        Just(json!([50, 95, "99"])),
        Just(json!({})),
        Just(json!({"weight": 2, "input_tokens": 0})),
    ]
}

/// A broken variant: the value at one pointer replaced, removed, or given an unknown key.
fn mutate(doc: &Value, at: &str, how: u8, with: Value) -> Value {
    let mut doc = doc.clone();
    let (parent, last) = at.rsplit_once('/').unwrap_or(("", ""));
    match (how % 3, doc.pointer_mut(parent)) {
        (0, Some(_)) | (_, None) => {
            if let Some(slot) = doc.pointer_mut(at) {
                *slot = with;
            }
        }
        (1, Some(Value::Object(m))) => {
            m.shift_remove(&last.replace("~1", "/").replace("~0", "~"));
        }
        (_, Some(Value::Object(m))) => {
            m.insert("not_a_key".into(), with);
        }
        (_, Some(slot)) => *slot = with,
    }
    doc
}

fn paths_ours(kind: FileKind, v: &Value) -> BTreeSet<String> {
    validator::validate(schema(kind), v, 10_000).into_iter().map(|e| e.path).collect()
}

fn paths_theirs(kind: FileKind, v: &Value) -> BTreeSet<String> {
    static THEIRS: std::sync::OnceLock<Vec<jsonschema::Validator>> = std::sync::OnceLock::new();
    let all =
        THEIRS.get_or_init(|| FileKind::ALL.iter().map(|&k| jsonschema::draft7::new(schema(k)).unwrap()).collect());
    all[kind as usize].iter_errors(v).map(|e| e.instance_path().as_str().to_string()).collect()
}

#[test]
fn agrees_with_jsonschema_on_broken_variants_of_the_examples() {
    let seed = std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(CI_SEED);
    eprintln!("seed {seed}: replay with PROPTEST_RNG_SEED={seed}");
    let (checked, invalid) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    for (kind, doc) in examples() {
        assert!(paths_ours(kind, &doc).is_empty() && paths_theirs(kind, &doc).is_empty(), "{kind:?} example is valid");
        let mut all = Vec::new();
        pointers(&doc, String::new(), &mut all);
        let mut runner = TestRunner::new(Config {
            cases: 700,
            rng_seed: RngSeed::Fixed(seed),
            failure_persistence: None,
            ..Config::default()
        });
        let strategy = (prop::sample::select(all), any::<u8>(), replacement());
        runner
            .run(&strategy, |(at, how, with)| {
                let variant = mutate(&doc, &at, how, with);
                let (ours, theirs) = (paths_ours(kind, &variant), paths_theirs(kind, &variant));
                prop_assert_eq!(&ours, &theirs, "{:?} at {} ({}): {}", kind, at, how % 3, variant);
                checked.set(checked.get() + 1);
                invalid.set(invalid.get() + usize::from(!ours.is_empty()));
                Ok(())
            })
            .unwrap();
    }
    let (checked, invalid) = (checked.get(), invalid.get());
    eprintln!("{checked} variants, {invalid} invalid");
    assert!(invalid > checked / 3, "most variants must be broken: {invalid} of {checked}");
}
