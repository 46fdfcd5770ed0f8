//! What vLLM 0.33 itself does, as functions: the answers its OpenAI server
//! gives to a request's lengths, how it settles the quantization method, which
//! attention backend takes an fp8 KV cache, which models pipeline parallelism
//! can split. The rules predict with them and the simulator
//! answers with them, so the two cannot drift apart.

pub mod attention;
pub mod quantization;
pub mod registry;
pub mod requests;
