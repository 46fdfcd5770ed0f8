//! The TOML parser: no panic, no hang, no unbounded memory on any input (checks.rs says what holds).
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|text: &str| checks::parse_toml(text));
