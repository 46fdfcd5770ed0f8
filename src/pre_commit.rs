//! The binary pre-commit's `language: rust` hook installs from the repository
//! root (`cargo install --path .` needs a package there). It is `cfg-lint`
//! under another name, so it does not collide with `crates/cfg-lint`'s binary.

fn main() -> std::process::ExitCode {
    cfg_lint::main()
}
