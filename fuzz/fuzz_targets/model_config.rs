//! A model's config.json (hf::read_model and the checks on it): no panic, no hang, no NaN (checks.rs).
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|text: &str| checks::model_config(text));
