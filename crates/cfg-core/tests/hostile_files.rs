//! Files built to cost the linter time or flood its output: what a user sees
//! stays bounded whatever the file holds.

use cfg_core::kind::FileKind;
use cfg_core::lint::{Input, MAX_FINDINGS_PER_FILE, Options, lint};
use cfg_core::parse::MAX_VALUES;

fn settings_with_unknown_keys(n: usize) -> String {
    let keys: Vec<String> = (0..n).map(|i| format!("\"unknown_key_{i}\": {i}")).collect();
    format!("{{{}}}", keys.join(", "))
}

#[test]
fn thousands_of_problems_show_the_first_ones_and_say_there_are_more() {
    let text = settings_with_unknown_keys(MAX_VALUES / 2);
    let report = lint(&[Input::new(FileKind::Settings, "settings.json", &text)], &Options::default());
    let unknown = report.diagnostics.iter().filter(|d| d.message.starts_with("unknown key")).count();
    assert!(report.diagnostics.len() <= MAX_FINDINGS_PER_FILE + 5, "{} diagnostics", report.diagnostics.len());
    assert!(unknown >= MAX_FINDINGS_PER_FILE - 5, "{unknown} unknown-key diagnostics");
    assert!(
        report.notes.iter().any(|n| n.contains(&format!("more than {MAX_FINDINGS_PER_FILE} problems"))),
        "{:?}",
        report.notes
    );
}

#[test]
fn a_few_problems_are_all_shown_without_a_note() {
    let text = settings_with_unknown_keys(3);
    let report = lint(&[Input::new(FileKind::Settings, "settings.json", &text)], &Options::default());
    assert_eq!(report.diagnostics.iter().filter(|d| d.message.starts_with("unknown key")).count(), 3);
    assert!(!report.notes.iter().any(|n| n.contains("problems;")), "{:?}", report.notes);
}

#[test]
fn a_file_with_more_values_than_any_config_holds_is_one_error() {
    let text = settings_with_unknown_keys(MAX_VALUES + 10);
    let report = lint(&[Input::new(FileKind::Settings, "settings.json", &text)], &Options::default());
    assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    assert_eq!(report.diagnostics[0].message, format!("more than {MAX_VALUES} values"));
    let toml: String = (0..MAX_VALUES + 10).map(|i| format!("k{i} = {i}\n")).collect();
    let report = lint(&[Input::new(FileKind::Config, "config.toml", &toml)], &Options::default());
    assert_eq!(report.diagnostics[0].message, format!("more than {MAX_VALUES} values"));
    // result.json is written by the runner and may be long: no such limit.
    let result = format!("{{\"timeseries\": [{}]}}", vec!["1"; MAX_VALUES + 10].join(", "));
    let report = lint(&[Input::new(FileKind::Result, "result.json", &result)], &Options::default());
    assert!(!report.diagnostics.iter().any(|d| d.message.contains("values")), "a result file was refused for its size");
}
