//! The load-test settings on their own.

pub mod endpoint_path;
pub mod no_warmup;
pub mod percentiles;
pub mod weights_do_not_sum_to_one;
pub mod zero_weight_class;
