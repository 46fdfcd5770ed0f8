//! A model's config.json comes from wherever the user (or the Hub) got it:
//! whatever its numbers, reading it and checking a config against it answers,
//! and never panics.

use cfg_core::{FileKind, Input, Options, lint};

const CONFIG: &str = "[model]\nname = \"acme/odd\"\nmax_model_len = 8192\n[batching]\nmax_num_seqs = 64\n\
                      max_num_batched_tokens = 8192\n[parallel]\ntensor_parallel_size = 2\n[hardware]\ngpu = \"H100-80GB\"\ngpu_count = 2\n";

fn hostile() -> Vec<String> {
    let base = r#""model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"max_position_embeddings":131072"#;
    let mut cases: Vec<String> = [
        // A pattern or interval that truncates to zero in 32 bits.
        r#""sliding_window":4,"sliding_window_pattern":4294967296"#,
        r#""linear_num_value_heads":2,"linear_num_key_heads":2,"linear_key_head_dim":128,"linear_value_head_dim":128,"full_attention_interval":4294967296"#,
        // Sizes that overflow every product.
        r#""intermediate_size":18446744073709551615,"num_local_experts":4000000000,"num_experts_per_tok":4000000000"#,
        r#""head_dim":0"#,
        r#""head_dim":-1,"num_key_value_heads":0"#,
        r#""vocab_size":1e300,"max_position_embeddings":-5"#,
        r#""rope_scaling":{"type":"linear","factor":-3.0}"#,
        r#""rope_scaling":{"type":"linear","factor":1e308}"#,
        r#""kv_lora_rank":4294967295,"qk_rope_head_dim":4294967295"#,
        r#""linear_num_value_heads":4294967295,"linear_num_key_heads":4294967295,"linear_key_head_dim":4294967295,"linear_value_head_dim":4294967295,"linear_conv_kernel_dim":0,"layer_types":["linear_attention","full_attention"]"#,
        r#""layer_types":["sliding_attention","sliding_attention"],"sliding_window":0"#,
        r#""hybrid_override_pattern":"M-*E","quantization_config":{"quant_method":"modelopt","quant_algo":7}"#,
        r#""quantization_config":{"quant_method":"gptq","bits":18446744073709551615},"model_max_length":1e30"#,
        r#""text_config":{"text_config":{"text_config":{}}},"vision_config":{"hidden_size":4294967295,"num_hidden_layers":4294967295,"image_size":4294967295,"patch_size":0}"#,
    ]
    .iter()
    .map(|extra| format!("{{{base},{extra}}}"))
    .collect();
    cases.push(format!("{{{}}}", "\"a\":{".repeat(200) + &"}".repeat(200)));
    cases.push("[]".into());
    cases.push(
        "{\"num_hidden_layers\": 4294967295, \"hidden_size\": 1, \"num_attention_heads\": 1, \"vocab_size\": 1}".into(),
    );
    cases
}

#[test]
fn any_config_json_reads_and_checks_without_a_panic() {
    for text in hostile() {
        let Ok(arch) = cfg_core::hf::read_model(&text, Some("{\"metadata\":{\"total_size\":-1}}"), "hostile") else {
            continue;
        };
        let inputs = [Input::new(FileKind::Config, "config.toml", CONFIG)];
        let report = lint(&inputs, &Options { models: vec![("acme/odd".into(), arch)], ..Options::default() });
        if let Some(m) = &report.memory {
            for figure in [m.weights_bytes, m.kv_cache_bytes, m.activation_bytes, m.max_concurrency] {
                assert!(figure.is_finite(), "{text}: a figure that is not a number: {m:?}");
            }
        }
    }
}
