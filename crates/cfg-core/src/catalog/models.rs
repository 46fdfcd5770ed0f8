//! The model catalog: real `config.json` files of the models people serve,
//! committed under `configs/` (`SOURCES.md` says where each came from) and read
//! by [`crate::hf::read_model`], the same code that reads a user's own file.
//! It is the offline fallback: a model in the local Hugging Face cache, a local
//! directory or fetched from the Hub is read from its own files instead.

use std::sync::OnceLock;

use crate::arch::Arch;

include!(concat!(env!("OUT_DIR"), "/catalog_configs.rs"));

/// Exact weight bytes (`metadata.total_size` of the safetensors index), where
/// the index was found.
const WEIGHTS: &str = include_str!("configs/weights.json");

/// Old names the Hub redirects to a catalog model (the same repository).
const RENAMES: &[(&str, &str)] = &[
    ("meta-llama/Meta-Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),
    ("meta-llama/Meta-Llama-3.1-70B", "meta-llama/Llama-3.1-70B"),
    ("meta-llama/Meta-Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"),
    ("meta-llama/Llama-3.1-405B", "meta-llama/Meta-Llama-3.1-405B"),
    ("meta-llama/Meta-Llama-3.1-405B-Instruct-FP8", "meta-llama/Llama-3.1-405B-Instruct-FP8"),
    ("zai-org/glm-4-9b", "THUDM/glm-4-9b"),
    ("zai-org/chatglm3-6b", "THUDM/chatglm3-6b"),
];

/// One catalog model, read.
#[derive(Debug, Clone)]
pub struct CatalogModel {
    /// Hugging Face id, e.g. `meta-llama/Llama-3.1-8B-Instruct`.
    pub id: &'static str,
    pub arch: Arch,
}

/// Every catalog model, read once.
pub fn models() -> &'static [CatalogModel] {
    static MODELS: OnceLock<Vec<CatalogModel>> = OnceLock::new();
    MODELS.get_or_init(|| (0..CONFIGS.len()).map(|i| model_at(i).clone()).collect())
}

/// The catalog's model ids, without reading any config.
pub fn ids() -> impl Iterator<Item = &'static str> {
    CONFIGS.iter().map(|(id, _)| *id)
}

/// The model at an index of the catalog, read the first time it is asked for:
/// a lookup reads one config.json, not all of them (the web page starts faster).
fn model_at(index: usize) -> &'static CatalogModel {
    static READ: OnceLock<Vec<OnceLock<CatalogModel>>> = OnceLock::new();
    let cells = READ.get_or_init(|| CONFIGS.iter().map(|_| OnceLock::new()).collect());
    cells[index].get_or_init(|| {
        static WEIGHT_SIZES: OnceLock<serde_json::Value> = OnceLock::new();
        let weights = WEIGHT_SIZES.get_or_init(|| serde_json::from_str(WEIGHTS).unwrap_or_default());
        let (id, json) = CONFIGS[index];
        let origin = format!("the catalog's copy of {id}'s config.json");
        let mut arch = crate::hf::read_model(json, None, &origin)
            .unwrap_or_else(|e| panic!("catalog config of {id} does not read: {e}"));
        arch.catalog_id = Some(id.to_string());
        arch.weight_bytes = weights.pointer(&format!("/{}/total_size", id.replace('/', "~1"))).and_then(|v| v.as_u64());
        CatalogModel { id, arch }
    })
}

/// The raw config.json of a catalog model (for `cfg-lint memory --show-config`
/// and the web app's download).
pub fn config_json(id: &str) -> Option<&'static str> {
    CONFIGS.iter().find(|(i, _)| i.eq_ignore_ascii_case(id)).map(|(_, json)| *json)
}

/// Looks a model up by Hugging Face id (or an old name the Hub redirects),
/// ignoring case. A local path whose last component is a catalog id's last
/// component also matches (`/models/Llama-3.1-8B-Instruct`), since that is how
/// checkpoints are mounted.
pub fn find_model(name: &str) -> Option<&'static CatalogModel> {
    let wanted = name.trim().trim_end_matches('/');
    let wanted = RENAMES.iter().find(|(old, _)| old.eq_ignore_ascii_case(wanted)).map_or(wanted, |(_, new)| *new);
    let index = ids().position(|id| id.eq_ignore_ascii_case(wanted)).or_else(|| {
        let tail = wanted.rsplit('/').next().unwrap_or(wanted);
        ids().position(|id| id.rsplit('/').next().is_some_and(|t| t.eq_ignore_ascii_case(tail)))
    })?;
    Some(model_at(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_covers_the_families_people_serve() {
        assert!(models().len() >= 60, "{} models", models().len());
        for family in [
            "Llama-3.1",
            "Llama-3.3",
            "Qwen2.5",
            "Qwen3-",
            "Qwen3.5",
            "Mistral",
            "Mixtral",
            "gemma-2",
            "gemma-3",
            "DeepSeek-V3",
            "DeepSeek-R1",
            "Phi-3",
            "phi-4",
            "gpt-oss",
            "GLM",
            "granite",
        ] {
            assert!(models().iter().any(|m| m.id.to_lowercase().contains(&family.to_lowercase())), "{family}");
        }
        for (old, new) in RENAMES {
            assert!(models().iter().any(|m| m.id == *new), "{old} renames to {new}, which is not in the catalog");
        }
    }

    #[test]
    fn every_catalog_model_reads_into_a_usable_architecture() {
        let mut problems = Vec::new();
        for m in models() {
            let a = &m.arch;
            let checks = [
                ("layers", a.num_hidden_layers.is_some_and(|n| n > 0)),
                ("parameters", a.num_parameters.is_some()),
                ("active <= total", a.num_active_parameters <= a.num_parameters),
                ("length", a.max_position_embeddings.is_some()),
                ("head_dim", a.head_dim().is_some_and(|h| h > 0)),
                ("kv heads", a.kv_heads().is_some_and(|h| h > 0)),
                ("vocab", a.vocab_size.is_some()),
            ];
            for (what, ok) in checks {
                if !ok {
                    problems.push(format!("{}: {what}", m.id));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// Nemotron-H (Mamba-2, attention and experts in one stack) is counted block
    /// by block; its card publishes rounded figures only: "31.6B total
    /// parameters", "approximately 3.6B" active with embeddings.
    #[test]
    fn a_hybrid_mamba_model_is_counted_block_by_block() {
        let model = find_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").expect("in the catalog");
        let a = &model.arch;
        let (total, active) = (a.num_parameters.unwrap() as f64, a.num_active_parameters.unwrap() as f64);
        assert!((total / 31.6e9 - 1.0).abs() < 0.01, "total {total}");
        assert!((active / 3.6e9 - 1.0).abs() < 0.03, "active {active}");
    }

    /// Counted from the files, against the totals the checkpoints publish
    /// (safetensors metadata on the Hub).
    #[test]
    fn parameters_match_the_published_totals() {
        let published: &[(&str, u64, u64)] = &[
            ("meta-llama/Llama-3.1-8B-Instruct", 8_030_261_248, 8_030_261_248),
            ("meta-llama/Llama-3.1-70B-Instruct", 70_553_706_496, 70_553_706_496),
            ("meta-llama/Llama-3.1-405B", 405_853_388_800, 405_853_388_800),
            ("meta-llama/Llama-3.2-1B-Instruct", 1_235_814_400, 1_235_814_400),
            ("meta-llama/Llama-3.2-3B-Instruct", 3_212_749_824, 3_212_749_824),
            ("Qwen/Qwen2.5-1.5B-Instruct", 1_543_714_304, 1_543_714_304),
            ("Qwen/Qwen2.5-7B-Instruct", 7_615_616_512, 7_615_616_512),
            ("Qwen/Qwen2.5-14B-Instruct", 14_770_033_664, 14_770_033_664),
            ("Qwen/Qwen2.5-32B-Instruct", 32_763_876_352, 32_763_876_352),
            ("Qwen/Qwen3-0.6B", 596_049_920, 596_049_920),
            ("Qwen/Qwen3-8B", 8_190_735_360, 8_190_735_360),
            ("Qwen/Qwen3-32B", 32_762_123_264, 32_762_123_264),
            ("Qwen/Qwen3-30B-A3B", 30_532_122_624, 3_353_032_704),
            ("Qwen/Qwen3-235B-A22B", 235_093_634_560, 22_190_763_520),
            ("mistralai/Mistral-7B-Instruct-v0.3", 7_248_023_552, 7_248_023_552),
            ("mistralai/Mixtral-8x7B-Instruct-v0.1", 46_702_792_704, 12_879_925_248),
            ("mistralai/Mistral-Small-24B-Instruct-2501", 23_572_403_200, 23_572_403_200),
            ("deepseek-ai/DeepSeek-V3", 671_026_419_200, 37_552_297_472),
            ("microsoft/phi-4", 14_659_507_200, 14_659_507_200),
            ("microsoft/Phi-3-mini-4k-instruct", 3_821_079_552, 3_821_079_552),
            ("microsoft/Phi-3-medium-128k-instruct", 13_960_238_080, 13_960_238_080),
            ("google/gemma-3-1b-it", 999_885_952, 999_885_952),
            ("google/gemma-2-9b", 9_241_705_984, 9_241_705_984),
            // OpenAI's active counts (3.6B and 5.1B) leave out the input embedding,
            // a lookup; ours count it, as for every other model.
            ("openai/gpt-oss-20b", 20_914_757_184, 3_608_307_264 + 201_088 * 2880),
            ("openai/gpt-oss-120b", 116_829_156_672, 5_132_849_472 + 201_088 * 2880),
        ];
        let mut wrong = Vec::new();
        for (id, total, active) in published {
            let a = &find_model(id).unwrap_or_else(|| panic!("{id} in the catalog")).arch;
            if (a.num_parameters, a.num_active_parameters) != (Some(*total), Some(*active)) {
                wrong.push(format!(
                    "{id}: counted {:?}/{:?}, published {total}/{active}",
                    a.num_parameters, a.num_active_parameters
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn lookups_ignore_case_follow_renames_and_match_mounted_paths() {
        let m = find_model("META-LLAMA/LLAMA-3.1-8B-INSTRUCT").unwrap();
        assert_eq!(m.arch.num_hidden_layers, Some(32));
        assert_eq!(find_model("/models/Llama-3.1-8B-Instruct").unwrap().id, m.id);
        assert_eq!(find_model("meta-llama/Meta-Llama-3.1-8B-Instruct").unwrap().id, m.id);
        assert!(find_model("acme/unknown-13b").is_none());
    }
}
