//! Keys and exposure. Keys come from environment variables only; they never
//! appear in the files, and the server does not listen openly without one.

pub mod key_over_plain_http;
pub mod literal_secret;
pub mod port_conflict;
pub mod public_listen_without_key;
