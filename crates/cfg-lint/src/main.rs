fn main() -> std::process::ExitCode {
    cfg_lint::main()
}
