//! One module per subcommand of `cfg-lint`.

pub mod check;
pub mod init;
pub mod memory;
pub mod render;
pub mod rules;
pub mod schema;
