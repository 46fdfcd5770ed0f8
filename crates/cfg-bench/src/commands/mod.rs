//! One module per subcommand of `cfg-bench`.

pub mod compare;
pub mod demo;
pub mod merge;
pub mod report;
pub mod run;
pub mod serve;
pub mod sim;
pub mod smoke;
