//! "Did you mean": the nearest candidate to a typo, and the common spellings
//! of valid values (fp16 for float16, ...).

/// The closest candidate by edit distance, if it is close enough to be a typo.
pub fn nearest(word: &str, candidates: &[String]) -> Option<String> {
    let lower = word.to_lowercase();
    candidates
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.clone())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Common spellings of valid values (fp16 for float16, ...).
pub fn alias(value: &str) -> Option<String> {
    let alias = match value.to_ascii_lowercase().as_str() {
        "fp16" | "f16" | "half" => "float16",
        "bf16" => "bfloat16",
        "fp32" | "f32" => "float32",
        "fp8_e4m3fn" => "fp8_e4m3",
        "fifo" | "fcfs" => "fcfs",
        "compressed_tensors" => "compressed-tensors",
        _ => return None,
    };
    Some(alias.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typo_suggestions() {
        let c = vec!["max_num_seqs".to_string(), "max_num_batched_tokens".to_string()];
        assert_eq!(nearest("max_num_seq", &c).as_deref(), Some("max_num_seqs"));
        assert_eq!(nearest("banana", &c), None);
        assert_eq!(alias("FP16").as_deref(), Some("float16"));
    }
}
