//! Rules that need both files: the load test against the server it targets.

pub mod concurrency_above_max_num_seqs;
pub mod endpoint_port_mismatch;
pub mod endpoint_route_not_served;
pub mod missing_api_key_env;
pub mod model_name_not_served;
pub mod request_class_exceeds_max_model_len;
