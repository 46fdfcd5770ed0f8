//! The batching knobs and the context length (vLLM `SchedulerConfig` checks).

pub mod batched_tokens_above_seqs_times_len;
pub mod batched_tokens_below_max_model_len;
pub mod batched_tokens_below_max_num_seqs;
pub mod batching_knobs_defaulted;
pub mod chunked_prefill_disabled;
pub mod max_model_len_exceeds_model;
