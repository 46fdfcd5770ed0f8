//! Typed models of the three files. Doc comments become schema descriptions.

mod config;
mod enums;
mod lengths;
mod result;
mod settings;
mod verdict;

pub use config::*;
pub use enums::*;
pub use lengths::MaxModelLen;
pub use result::*;
pub use settings::*;
pub use verdict::*;
