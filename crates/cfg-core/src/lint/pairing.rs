//! Which config.toml goes with which settings.json. A load test's two files
//! live side by side, so files pair by folder: in a folder with one of each,
//! those two; otherwise by name (`canary.vllm.toml` with `canary.loadtest.json`,
//! `config.toml` with `settings.json`). The caller may name pairs itself.

use crate::kind::FileKind;

/// The folder part of a file name as given (`a/b/config.toml` -> `a/b`).
pub fn folder(name: &str) -> &str {
    name.rfind(['/', '\\']).map_or("", |i| &name[..i])
}

/// What is left of a file name once the kind's usual words are taken off:
/// `vllm-canary.toml`, `canary.vllm.toml` and `canary-config.toml` are all
/// `canary`; `config.toml` and `settings.json` are both the empty stem.
pub fn stem(name: &str, kind: FileKind) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name).to_ascii_lowercase();
    let mut s = base.trim_end_matches(".toml").trim_end_matches(".json").to_string();
    let words: &[&str] = match kind {
        FileKind::Config => &["vllm", "config", "server"],
        FileKind::Settings => &["loadtest", "settings", "load-test", "bench"],
        FileKind::Result => &["result"],
    };
    for w in words {
        if s == *w {
            return String::new();
        }
        for sep in ['.', '-', '_'] {
            if let Some(rest) = s.strip_suffix(&format!("{sep}{w}")) {
                s = rest.to_string();
            }
            if let Some(rest) = s.strip_prefix(&format!("{w}{sep}")) {
                s = rest.to_string();
            }
        }
    }
    s
}

/// Pairs `(config, settings)` of input indices: the caller's `explicit` pairs
/// first, then by folder and name among the files left.
pub fn pair(files: &[(FileKind, &str)], explicit: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = explicit.to_vec();
    let taken = |pairs: &[(usize, usize)], i: usize| pairs.iter().any(|&(c, s)| c == i || s == i);
    let mut folders: Vec<&str> = files.iter().map(|(_, n)| folder(n)).collect();
    folders.dedup();
    folders.sort_unstable();
    folders.dedup();
    for dir in folders {
        let here = |kind: FileKind, pairs: &[(usize, usize)]| -> Vec<usize> {
            (0..files.len()).filter(|&i| files[i].0 == kind && folder(files[i].1) == dir && !taken(pairs, i)).collect()
        };
        // Same stem first.
        for c in here(FileKind::Config, &pairs) {
            let want = stem(files[c].1, FileKind::Config);
            if let Some(s) =
                here(FileKind::Settings, &pairs).into_iter().find(|&s| stem(files[s].1, FileKind::Settings) == want)
            {
                pairs.push((c, s));
            }
        }
        // Then the last of each kind in the folder, whatever their names.
        if let ([c], [s]) = (here(FileKind::Config, &pairs).as_slice(), here(FileKind::Settings, &pairs).as_slice()) {
            pairs.push((*c, *s));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use FileKind::{Config, Settings};

    #[test]
    fn stems_drop_the_kinds_words() {
        assert_eq!(stem("a/config.toml", Config), "");
        assert_eq!(stem("settings.json", Settings), "");
        assert_eq!(stem("vllm-canary.toml", Config), "canary");
        assert_eq!(stem("canary.vllm.toml", Config), "canary");
        assert_eq!(stem("loadtest-canary.json", Settings), "canary");
        assert_eq!(stem("Canary.Loadtest.json", Settings), "canary");
        assert_eq!(stem("staging.toml", Config), "staging");
    }

    #[test]
    fn files_pair_by_folder_then_by_name() {
        let files = [
            (Config, "a/config.toml"),
            (Settings, "a/settings.json"),
            (Config, "b/config.toml"),
            (Settings, "b/settings.json"),
        ];
        assert_eq!(pair(&files, &[]), [(0, 1), (2, 3)]);
        // Two configs beside one settings: the one with its name.
        let files = [(Config, "config.toml"), (Settings, "settings.json"), (Config, "staging.toml")];
        assert_eq!(pair(&files, &[]), [(0, 1)]);
        // Odd names, one of each in the folder.
        let files = [(Settings, "x/load.json"), (Config, "x/prod.toml")];
        assert_eq!(pair(&files, &[]), [(1, 0)]);
        // Across folders nothing pairs unless asked.
        let files = [(Config, "a/config.toml"), (Settings, "b/settings.json")];
        assert_eq!(pair(&files, &[]), []);
        assert_eq!(pair(&files, &[(0, 1)]), [(0, 1)]);
    }
}
