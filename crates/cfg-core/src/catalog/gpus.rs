//! GPU catalog: per-GPU figures from the vendors' data sheets.
//!
//! `memory_gib` is the marketed capacity (an "80 GB" part is 80 here), which is
//! what vLLM's batching defaults compare against (NVML). `reported_gib` is what
//! the device reports to torch, which vLLM's budget multiplies: an "80 GB" H100
//! reports 79.19 GiB. Where no log shows it, it is estimated from a part with
//! the same kind of memory (HBM keeps 99%, GDDR with ECC 92.5%, GDDR6X 98%), and
//! the comment says so. `bf16_dense_tflops` is the dense (no 2:4
//! sparsity) BF16 tensor-core figure; T4 and V100 have no BF16 tensor cores, so
//! they carry their FP16 tensor figure. GeForce cards are quoted with FP32
//! accumulate, which is what PyTorch/vLLM GEMMs use.
//!
//! Aliases must stay unique across the whole table after normalisation
//! (lower-case, `-`, `_` and spaces removed), and must not normalise to the
//! entry's own canonical name. Spellings `nvidia-smi` / `rocm-smi` print are
//! included so a pasted device name resolves.

use super::{GpuSpec, Vendor};

pub static GPUS: &[GpuSpec] = &[
    // ---------------------------------------------------------------- Hopper
    GpuSpec {
        name: "H100-80GB",
        aliases: &[
            "H100",
            "H100-SXM",
            "H100-SXM5",
            "H100-SXM5-80GB",
            "H100-SXM-80GB",
            "H100-80GB-HBM3",
            "NVIDIA H100 80GB HBM3",
        ],
        vendor: Vendor::Nvidia,
        memory_gib: 80.0,
        // logged (vLLM start-up logs, e.g. tests/memory-logs planner-h100-*)
        reported_gib: 79.19,
        compute_capability: Some((9, 0)),
        memory_bandwidth_gbps: 3350.0,
        bf16_dense_tflops: 989.4,
        // NVLink 4: 900 GB/s both ways.
        link_gbps: 450.0,
    },
    GpuSpec {
        name: "H100-PCIE",
        aliases: &["H100-PCIE-80GB", "H100-80GB-PCIE", "NVIDIA H100 PCIe"],
        vendor: Vendor::Nvidia,
        memory_gib: 80.0,
        // logged (tests/memory-logs vlm-vllm-h100pcie-llava16-mistral7b)
        reported_gib: 79.19,
        compute_capability: Some((9, 0)),
        // Data sheet says "2 TB/s" (HBM2e); some tables quote 2039 GB/s.
        memory_bandwidth_gbps: 2000.0,
        bf16_dense_tflops: 756.0,
        // PCIe Gen5 x16 (an NVLink bridge is optional).
        link_gbps: 64.0,
    },
    GpuSpec {
        name: "H100-NVL",
        aliases: &["H100-NVL-94GB", "NVIDIA H100 NVL"],
        vendor: Vendor::Nvidia,
        memory_gib: 94.0,
        // estimated: 94 x 79.19/80, the HBM ratio
        reported_gib: 93.05,
        compute_capability: Some((9, 0)),
        memory_bandwidth_gbps: 3900.0,
        // 1671 TFLOPS with sparsity per card in the current data sheet, halved.
        bf16_dense_tflops: 835.5,
        // NVLink bridge between a pair: 600 GB/s both ways.
        link_gbps: 300.0,
    },
    GpuSpec {
        name: "H200",
        aliases: &["H200-SXM", "H200-141GB", "H200-SXM-141GB", "NVIDIA H200"],
        vendor: Vendor::Nvidia,
        memory_gib: 141.0,
        // logged (vllm-0.33-audit.md, real H200 logs)
        reported_gib: 139.81,
        compute_capability: Some((9, 0)),
        memory_bandwidth_gbps: 4800.0,
        bf16_dense_tflops: 989.4,
        // NVLink 4: 900 GB/s both ways.
        link_gbps: 450.0,
    },
    GpuSpec {
        // The export part of Hopper: the H100's memory system with about a
        // seventh of its tensor throughput, so prefill is slow and decode is not.
        name: "H20",
        aliases: &["H20-96GB", "NVIDIA H20"],
        vendor: Vendor::Nvidia,
        memory_gib: 96.0,
        // estimated: 96 x 79.19/80, the HBM ratio (nvidia-smi shows 97,871 MiB)
        reported_gib: 95.03,
        compute_capability: Some((9, 0)),
        memory_bandwidth_gbps: 4000.0,
        bf16_dense_tflops: 148.0,
        // NVLink 4: 900 GB/s both ways.
        link_gbps: 450.0,
    },
    GpuSpec {
        // The H20 with the H200's 141 GB of HBM3e.
        name: "H20-141GB",
        aliases: &["H20-3e", "H20-3e-141GB", "NVIDIA H20-3e"],
        vendor: Vendor::Nvidia,
        memory_gib: 141.0,
        // estimated: as the H200 (the same 141 GB of HBM3e)
        reported_gib: 139.81,
        compute_capability: Some((9, 0)),
        memory_bandwidth_gbps: 4800.0,
        bf16_dense_tflops: 148.0,
        // NVLink 4: 900 GB/s both ways.
        link_gbps: 450.0,
    },
    GpuSpec {
        name: "GH200",
        aliases: &["GH200-96GB", "NVIDIA GH200 480GB"],
        vendor: Vendor::Nvidia,
        // The original Grace Hopper superchip: 96 GB HBM3 at 4 TB/s. A later
        // variant has 144 GB HBM3e at 4.9 TB/s; override [hardware] for it.
        memory_gib: 96.0,
        // estimated: 96 x 79.19/80, the HBM ratio
        reported_gib: 95.03,
        compute_capability: Some((9, 0)),
        memory_bandwidth_gbps: 4000.0,
        bf16_dense_tflops: 989.4,
        // NVLink 4: 900 GB/s both ways.
        link_gbps: 450.0,
    },
    // ------------------------------------------------------------- Blackwell
    GpuSpec {
        name: "B200",
        aliases: &["B200-SXM", "B200-180GB", "NVIDIA B200"],
        vendor: Vendor::Nvidia,
        // Shipping HGX/DGX B200 parts have 180 GB HBM3e (DGX B200: 1440 GB / 8);
        // early announcements said 192 GB.
        memory_gib: 180.0,
        // estimated: 180 x 79.19/80, the HBM ratio
        reported_gib: 178.18,
        compute_capability: Some((10, 0)),
        memory_bandwidth_gbps: 8000.0,
        // HGX B200 (1000 W): 4.5 PFLOPS sparse FP16/BF16, 2.25 dense.
        bf16_dense_tflops: 2250.0,
        // NVLink 5: 1.8 TB/s both ways.
        link_gbps: 900.0,
    },
    GpuSpec {
        name: "RTX-5090",
        aliases: &["GeForce RTX 5090", "NVIDIA GeForce RTX 5090"],
        vendor: Vendor::Nvidia,
        memory_gib: 32.0,
        // logged as 31.4 at two decimals (tests/memory-logs club3090-1087)
        reported_gib: 31.36,
        compute_capability: Some((12, 0)),
        memory_bandwidth_gbps: 1792.0,
        // unverified: FP16/BF16 tensor with FP32 accumulate, dense, assuming the
        // GeForce half-rate FP32-accumulate as on Ada.
        bf16_dense_tflops: 209.5,
        // PCIe Gen5 x16; GeForce has no peer-to-peer, so transfers go through the host.
        link_gbps: 64.0,
    },
    GpuSpec {
        name: "RTX-PRO-6000",
        aliases: &[
            "RTX-PRO-6000-Blackwell",
            "RTX-PRO-6000-Blackwell-Server",
            "NVIDIA RTX PRO 6000 Blackwell Server Edition",
            "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        ],
        vendor: Vendor::Nvidia,
        memory_gib: 96.0,
        // logged: "Free memory on device cuda:0 (52.81/95.01 GiB)" in a vLLM
        // start-up error on this card; CUDA reports 102,011,043,840 bytes.
        reported_gib: 95.01,
        compute_capability: Some((12, 0)),
        // 512-bit GDDR7 at 28 Gbps, as the RTX 5090.
        memory_bandwidth_gbps: 1792.0,
        // unverified: 4,000 "AI TOPS" (FP4 with sparsity) / 8; the professional
        // cards run FP32 accumulate at full rate, unlike GeForce.
        bf16_dense_tflops: 500.0,
        // PCIe Gen5 x16.
        link_gbps: 64.0,
    },
    // ---------------------------------------------------------------- Ampere
    GpuSpec {
        name: "A100-80GB",
        aliases: &[
            "A100",
            "A100-SXM4-80GB",
            "A100-SXM-80GB",
            "NVIDIA A100-SXM4-80GB",
            // The 80 GB PCIe card has 1935 GB/s instead of 2039; same otherwise.
            "A100-PCIE-80GB",
            "NVIDIA A100 80GB PCIe",
        ],
        vendor: Vendor::Nvidia,
        memory_gib: 80.0,
        // logged (vllm-0.33-audit.md)
        reported_gib: 79.25,
        compute_capability: Some((8, 0)),
        memory_bandwidth_gbps: 2039.0,
        bf16_dense_tflops: 312.0,
        // NVLink 3: 600 GB/s both ways (the PCIe card: 32 without a bridge).
        link_gbps: 300.0,
    },
    GpuSpec {
        name: "A100-40GB",
        aliases: &["A100-SXM4-40GB", "A100-PCIE-40GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 40.0,
        // estimated: 40 x 79.25/80, the HBM ratio
        reported_gib: 39.6,
        compute_capability: Some((8, 0)),
        memory_bandwidth_gbps: 1555.0,
        bf16_dense_tflops: 312.0,
        // NVLink 3: 600 GB/s both ways.
        link_gbps: 300.0,
    },
    GpuSpec {
        // The export A100: the same chip and memory, NVLink cut to 400 GB/s.
        name: "A800-80GB",
        aliases: &["A800", "A800-SXM4-80GB", "NVIDIA A800-SXM4-80GB", "A800-PCIE-80GB", "NVIDIA A800 80GB PCIe"],
        vendor: Vendor::Nvidia,
        memory_gib: 80.0,
        // estimated: as the A100 80GB (the same memory)
        reported_gib: 79.25,
        compute_capability: Some((8, 0)),
        memory_bandwidth_gbps: 2039.0,
        bf16_dense_tflops: 312.0,
        // NVLink 3 cut to 400 GB/s both ways.
        link_gbps: 200.0,
    },
    GpuSpec {
        name: "A10G",
        aliases: &["NVIDIA A10G"],
        vendor: Vendor::Nvidia,
        memory_gib: 24.0,
        // estimated: as the A10 (same 24 GB GDDR6 with ECC)
        reported_gib: 22.18,
        compute_capability: Some((8, 6)),
        memory_bandwidth_gbps: 600.0,
        // unverified: AWS-only part with no public NVIDIA data sheet; ~70 dense
        // BF16 is the commonly cited figure (vs 125 on the A10).
        bf16_dense_tflops: 70.0,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "A10",
        aliases: &["NVIDIA A10", "A10-24GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 24.0,
        // logged by torch: "total capacity of 22.18 GiB" (OpenBMB/MiniCPM-V#640)
        reported_gib: 22.18,
        compute_capability: Some((8, 6)),
        memory_bandwidth_gbps: 600.0,
        bf16_dense_tflops: 125.0,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "RTX-A6000",
        aliases: &["A6000", "NVIDIA RTX A6000"],
        vendor: Vendor::Nvidia,
        memory_gib: 48.0,
        // estimated: as the L40S (48 GB GDDR6 with ECC)
        reported_gib: 44.42,
        compute_capability: Some((8, 6)),
        memory_bandwidth_gbps: 768.0,
        bf16_dense_tflops: 154.8,
        // PCIe Gen4 x16 (a 112.5 GB/s NVLink bridge is optional).
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "RTX-3090",
        aliases: &["3090", "GeForce RTX 3090", "NVIDIA GeForce RTX 3090"],
        vendor: Vendor::Nvidia,
        memory_gib: 24.0,
        // logged (vllm-0.33-audit.md)
        reported_gib: 23.54,
        compute_capability: Some((8, 6)),
        memory_bandwidth_gbps: 936.0,
        // GA102 whitepaper: BF16 tensor with FP32 accumulate, dense
        // (142 with FP16 accumulate, which BF16 GEMMs do not use).
        bf16_dense_tflops: 71.0,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    // ----------------------------------------------------------- Ada Lovelace
    GpuSpec {
        name: "L4",
        aliases: &["NVIDIA L4", "L4-24GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 24.0,
        // logged (vllm-0.33-audit.md)
        reported_gib: 22.03,
        compute_capability: Some((8, 9)),
        memory_bandwidth_gbps: 300.0,
        bf16_dense_tflops: 121.0,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "L40S",
        aliases: &["NVIDIA L40S", "L40S-48GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 48.0,
        // logged (vllm-0.33-audit.md)
        reported_gib: 44.42,
        compute_capability: Some((8, 9)),
        memory_bandwidth_gbps: 864.0,
        bf16_dense_tflops: 362.05,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "L40",
        aliases: &["NVIDIA L40", "L40-48GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 48.0,
        // estimated: as the L40S (same memory)
        reported_gib: 44.42,
        compute_capability: Some((8, 9)),
        memory_bandwidth_gbps: 864.0,
        bf16_dense_tflops: 181.05,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "RTX-4090",
        aliases: &["4090", "GeForce RTX 4090", "NVIDIA GeForce RTX 4090"],
        vendor: Vendor::Nvidia,
        memory_gib: 24.0,
        // estimated: as the RTX 3090 (24 GB GDDR6X, no ECC)
        reported_gib: 23.54,
        compute_capability: Some((8, 9)),
        memory_bandwidth_gbps: 1008.0,
        // Ada whitepaper: FP16/BF16 tensor with FP32 accumulate, dense
        // (330.3 with FP16 accumulate).
        bf16_dense_tflops: 165.2,
        // PCIe Gen4 x16; no peer-to-peer.
        link_gbps: 32.0,
    },
    GpuSpec {
        name: "RTX-6000-ADA",
        aliases: &["RTX-6000-Ada-Generation", "NVIDIA RTX 6000 Ada Generation", "6000-Ada"],
        vendor: Vendor::Nvidia,
        memory_gib: 48.0,
        // estimated: as the L40S (48 GB GDDR6 with ECC)
        reported_gib: 44.42,
        compute_capability: Some((8, 9)),
        memory_bandwidth_gbps: 960.0,
        // Data sheet: 1457 TFLOPS FP8 with sparsity -> 728.5 FP16 sparse -> 364.2 dense.
        bf16_dense_tflops: 364.2,
        // PCIe Gen4 x16.
        link_gbps: 32.0,
    },
    // ----------------------------------------------------------- Volta/Turing
    GpuSpec {
        name: "V100-32GB",
        aliases: &["V100-SXM2-32GB", "V100-PCIE-32GB", "Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 32.0,
        // estimated: 32 x 79.19/80, the HBM ratio
        reported_gib: 31.7,
        compute_capability: Some((7, 0)),
        memory_bandwidth_gbps: 900.0,
        // FP16 tensor (no BF16 on Volta); SXM2 figure, the PCIe card is 112.
        bf16_dense_tflops: 125.0,
        // NVLink 2 (SXM2): 300 GB/s both ways.
        link_gbps: 150.0,
    },
    GpuSpec {
        name: "V100-16GB",
        aliases: &["V100", "V100-SXM2-16GB", "V100-PCIE-16GB", "Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 16.0,
        // estimated: 16 x 79.19/80, the HBM ratio
        reported_gib: 15.85,
        compute_capability: Some((7, 0)),
        memory_bandwidth_gbps: 900.0,
        // FP16 tensor (no BF16 on Volta); SXM2 figure, the PCIe card is 112.
        bf16_dense_tflops: 125.0,
        // NVLink 2 (SXM2): 300 GB/s both ways.
        link_gbps: 150.0,
    },
    GpuSpec {
        name: "T4",
        aliases: &["Tesla T4", "NVIDIA T4", "T4-16GB"],
        vendor: Vendor::Nvidia,
        memory_gib: 16.0,
        // logged (vllm-0.33-audit.md)
        reported_gib: 14.56,
        compute_capability: Some((7, 5)),
        memory_bandwidth_gbps: 320.0,
        // FP16 tensor (mixed precision); Turing has no BF16.
        bf16_dense_tflops: 65.0,
        // PCIe Gen3 x16.
        link_gbps: 16.0,
    },
    // ------------------------------------------------------------------- AMD
    GpuSpec {
        name: "MI300X",
        aliases: &["AMD Instinct MI300X", "Instinct MI300X", "MI300X-192GB"],
        vendor: Vendor::Amd,
        memory_gib: 192.0,
        // estimated: 192 less 0.5 GiB the ROCm runtime keeps
        reported_gib: 191.5,
        compute_capability: None,
        memory_bandwidth_gbps: 5300.0,
        bf16_dense_tflops: 1307.4,
        // Infinity Fabric: 7 links x 128 GB/s both ways.
        link_gbps: 448.0,
    },
    GpuSpec {
        name: "MI325X",
        aliases: &["AMD Instinct MI325X", "Instinct MI325X", "MI325X-256GB"],
        vendor: Vendor::Amd,
        memory_gib: 256.0,
        // estimated: 256 less 0.5 GiB the ROCm runtime keeps
        reported_gib: 255.5,
        compute_capability: None,
        memory_bandwidth_gbps: 6000.0,
        bf16_dense_tflops: 1307.4,
        // Infinity Fabric: 7 links x 128 GB/s both ways.
        link_gbps: 448.0,
    },
    GpuSpec {
        name: "MI250X",
        aliases: &["AMD Instinct MI250X", "Instinct MI250X", "MI250X-128GB"],
        vendor: Vendor::Amd,
        // Per OAM package (two GCDs). ROCm exposes each GCD as its own device
        // with 64 GB and half the bandwidth/compute.
        memory_gib: 128.0,
        // estimated: 128 less 0.5 GiB the ROCm runtime keeps
        reported_gib: 127.5,
        compute_capability: None,
        memory_bandwidth_gbps: 3276.8,
        bf16_dense_tflops: 383.0,
        // unverified: Infinity Fabric, 800 GB/s both ways across its links.
        link_gbps: 400.0,
    },
];
