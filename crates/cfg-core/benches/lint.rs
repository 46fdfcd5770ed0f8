//! Linting the example pair (both files, every rule), the hot path of the
//! CLI, the pre-commit hook and every keystroke in the web app.

use std::hint::black_box;

use cfg_core::{FileKind, Input, Options, lint};
use criterion::{Criterion, criterion_group, criterion_main};

const CONFIG: &str = include_str!("../../../examples/spec/config.toml");
const SETTINGS: &str = include_str!("../../../examples/spec/settings.json");

fn bench(c: &mut Criterion) {
    let inputs = vec![
        Input::new(FileKind::Config, "config.toml", CONFIG),
        Input::new(FileKind::Settings, "settings.json", SETTINGS),
    ];
    // Build the schema validators once, as a long-lived process does.
    let _ = lint(&inputs, &Options::default());
    c.bench_function("lint spec example pair", |b| b.iter(|| lint(black_box(&inputs), &Options::default())));
    c.bench_function("parse config.toml", |b| b.iter(|| cfg_core::parse::parse_toml(black_box(CONFIG))));
    c.bench_function("parse settings.json", |b| b.iter(|| cfg_core::parse::parse_json(black_box(SETTINGS))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
