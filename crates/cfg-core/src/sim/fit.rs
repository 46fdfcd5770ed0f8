//! The simulator's efficiency constants, and where they came from.
//!
//! The step-time model is a roofline (`engine::CostModel`): a step costs the
//! larger of its compute time and its memory time, plus a fixed overhead.
//! What the roofline cannot know is how close a real vLLM gets to the GPU's
//! peak, and what a step and a request cost outside the kernels. Those five
//! numbers were fitted on the "fitted" rows of the public benchmark set in
//! `tests/sim-benchmarks/benchmarks.csv` (every row whose number in the file
//! is even; the odd rows are held out and reported apart), by a grid search
//! that minimises the median relative error of output throughput, mean TTFT
//! and mean TPOT together (`cargo test -p cfg-core --release --test
//! sim_benchmarks -- --ignored fit` prints the search).

/// How close a served model gets to the GPU's peak, and the fixed costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Share of the GPU's dense BF16 FLOP/s a step reaches (prefill is compute-bound).
    pub flops_efficiency: f64,
    /// Share of the GPU's memory bandwidth a step reaches (decode is memory-bound).
    pub bandwidth_efficiency: f64,
    /// Seconds a step costs beyond its kernels: scheduling, sampling, launches.
    pub step_overhead_s: f64,
    /// Seconds of one all-reduce between tensor-parallel GPUs (two per layer).
    pub all_reduce_s: f64,
    /// How much slower a mixture of experts computes than a dense model of its
    /// active size (routing, grouped GEMMs over few tokens per expert): its
    /// FLOPs per token are multiplied by this.
    pub moe_compute_factor: f64,
    /// Seconds a request spends outside the engine before its first token is
    /// with the client (HTTP, tokenisation, detokenisation): it dominates TTFT
    /// at low load.
    pub request_overhead_s: f64,
    /// Seconds each layer adds to a step when CUDA graphs are off
    /// (`enforce_eager`): every kernel of the layer is launched from Python,
    /// one after another, instead of replayed as one graph.
    pub eager_layer_s: f64,
}

impl Calibration {
    /// The constants in use: see the module's documentation for the fit.
    pub const FITTED: Calibration = Calibration {
        flops_efficiency: 0.79,
        bandwidth_efficiency: 0.942,
        step_overhead_s: 0.001_490,
        all_reduce_s: 0.000_128_8,
        request_overhead_s: 0.007_252,
        moe_compute_factor: 3.6225,
        eager_layer_s: 0.000_021_25,
    };
}
