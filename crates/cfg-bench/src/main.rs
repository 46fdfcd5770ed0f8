fn main() -> std::process::ExitCode {
    cfg_bench::main()
}
