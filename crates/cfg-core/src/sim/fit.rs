//! The simulator's efficiency constants, and where they came from.
//!
//! The step-time model is a roofline (`engine::CostModel`): a step costs the
//! larger of its compute time and its memory time, plus the time its
//! tensor-parallel all-reduces move activations, plus fixed costs. What the
//! roofline cannot know is how close a real vLLM gets to the GPU's peak, and
//! what a step, a layer and a request cost outside the kernels. Those ten
//! numbers were fitted on the "fitted" rows of the public benchmark set in
//! `tests/sim-benchmarks/benchmarks.csv` (every row whose number in the file
//! is even; the odd rows are held out and reported apart), by coordinate
//! descent that minimises the median |log(simulated / measured)| of output
//! throughput, TTFT and TPOT together (`cargo test -p cfg-core --release
//! --test sim_benchmarks -- --ignored --nocapture fit` prints the search; it
//! starts from the values below, and a constant new to the model from a
//! value set by hand, such as 0.7 for `link_efficiency`, NCCL's usual share
//! of a link). The values are the search's, rounded to three or four digits.
//! Which rows pull on which constant: decode-bound rows at low concurrency
//! (the RTX 4090 and H100 sweeps) set `bandwidth_efficiency` and
//! `step_overhead_s`; one-stream TTFTs set `request_overhead_s`; the
//! all-at-once prefill runs (GPUStack) set `flops_efficiency` and, for the
//! gpt-oss, Qwen3-235B and DeepSeek-R1 rows, `moe_compute_factor`; the
//! `--enforce-eager` rows (turboquant's RTX 4090 runs, vLLM #20469) set
//! `eager_layer_s`; the TP8 rows set `all_reduce_s`, and their prefills and
//! the PCIe rows (RTX PRO 6000, RTX 5090) `link_efficiency`; mixtures of
//! experts with MXFP4 or block-FP8 experts at a few streams (gpt-oss-120b at
//! four on an H100, DeepSeek-R1 at four on H200s, DeepSeek-V3.2 at 10
//! requests a second on H20s, Qwen3-235B-FP8 at 64 on B200s)
//! `scaled_expert_bandwidth`, a kernel efficiency, not a byte count (the
//! scales add almost nothing to read), fitted on those two formats only and
//! applied to NVFP4 and 4-bit groups by analogy. Moved alone in the first
//! search it took the score from 0.304 to 0.292; refitted with the rest,
//! 0.274 on the current fitted rows.
//! What is not a constant: recurrent state (Mamba, linear attention) read
//! and written per sequence per step, pipeline stages ticking through
//! micro-batches, the link bandwidths, which come from the catalog, an untied
//! input embedding that a step looks rows up in rather than reads, and a
//! mixture's experts sized at their stored width. Tried and left out: FP8
//! GEMMs at the GPU's FP8 rate (the search's best score went from 0.31 to
//! 0.40), and one bandwidth share for all routed experts, 16-bit and
//! per-tensor FP8 ones too (the search found no better score below 1).

/// How close a served model gets to the GPU's peak, and the fixed costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Share of the GPU's dense BF16 FLOP/s a step reaches (prefill is compute-bound).
    pub flops_efficiency: f64,
    /// Share of the GPU's memory bandwidth a step reaches (decode is memory-bound).
    pub bandwidth_efficiency: f64,
    /// Seconds a step costs beyond its kernels: scheduling, sampling, launches.
    pub step_overhead_s: f64,
    /// Seconds of one all-reduce between tensor-parallel GPUs (two per layer,
    /// one per block on Nemotron-H) beyond moving its data: a small one's latency.
    pub all_reduce_s: f64,
    /// Share of the GPU's link bandwidth (`link_gbps`: NVLink, Infinity Fabric
    /// or PCIe) a ring all-reduce of a step's activations reaches.
    pub link_efficiency: f64,
    /// How much slower a mixture of experts' routed experts compute than a
    /// dense layer of the same size (grouped GEMMs over few tokens per
    /// expert, unfused dequantisation): the FLOPs per token of the k routed
    /// experts are multiplied by this; attention and shared layers are not.
    pub moe_compute_factor: f64,
    /// Seconds a request spends outside the engine before its first token is
    /// with the client (HTTP, tokenisation, detokenisation): it dominates TTFT
    /// at low load.
    pub request_overhead_s: f64,
    /// Seconds each layer adds to a step when CUDA graphs are off
    /// (`enforce_eager`): every kernel of the layer is launched from Python,
    /// one after another, instead of replayed as one graph.
    pub eager_layer_s: f64,
    /// Seconds each layer of a mixture-of-experts model adds to a step beyond
    /// its roofline: routing, sorting tokens by expert and the grouped GEMMs'
    /// launches, paid even when a step decodes a single token. Charged on
    /// every layer: the architecture does not say which few leading layers
    /// (DeepSeek's, GLM's) are dense.
    pub moe_layer_s: f64,
    /// Share of the dense layers' bandwidth routed experts stored with a scale
    /// per small block (MXFP4's 32 values, block FP8's 128 x 128, 4-bit
    /// groups) are read at: the grouped GEMM loads and applies the scales as
    /// it streams each touched expert for a few tokens.
    pub scaled_expert_bandwidth: f64,
}

impl Calibration {
    /// The constants in use: see the module's documentation for the fit.
    pub const FITTED: Calibration = Calibration {
        flops_efficiency: 0.788,
        bandwidth_efficiency: 0.893,
        step_overhead_s: 0.001_71,
        all_reduce_s: 0.000_012,
        link_efficiency: 0.289,
        request_overhead_s: 0.006_912,
        moe_compute_factor: 3.784,
        eager_layer_s: 0.000_007_05,
        moe_layer_s: 0.000_014_52,
        scaled_expert_bandwidth: 0.579,
    };
}
