//! Prompts of a given length without a tokenizer: common English words, each
//! about one token for Llama/Qwen/Mistral tokenizers, drawn at random so no
//! two prompts share a prefix (prefix caching would otherwise flatter TTFT).
//! The server's `usage` is the truth; the runner reports the deviation.

use cfg_core::sim::rng::SplitMix64;

const WORDS: &[&str] = &[
    "time",
    "year",
    "people",
    "way",
    "day",
    "man",
    "thing",
    "woman",
    "life",
    "child",
    "world",
    "school",
    "state",
    "family",
    "student",
    "group",
    "country",
    "problem",
    "hand",
    "part",
    "place",
    "case",
    "week",
    "company",
    "system",
    "program",
    "question",
    "work",
    "government",
    "number",
    "night",
    "point",
    "home",
    "water",
    "room",
    "mother",
    "area",
    "money",
    "story",
    "fact",
    "month",
    "lot",
    "right",
    "study",
    "book",
    "eye",
    "job",
    "word",
    "business",
    "issue",
    "side",
    "kind",
    "head",
    "house",
    "service",
    "friend",
    "father",
    "power",
    "hour",
    "game",
    "line",
    "end",
    "member",
    "law",
    "car",
    "city",
    "name",
    "team",
    "minute",
    "idea",
    "kid",
    "body",
    "information",
    "back",
    "parent",
    "face",
    "level",
    "office",
    "door",
    "health",
    "person",
    "art",
    "war",
    "history",
    "party",
    "result",
    "change",
    "morning",
    "reason",
    "research",
    "girl",
    "guy",
    "moment",
    "air",
    "teacher",
    "force",
    "education",
    "green",
    "river",
    "stone",
    "light",
    "music",
    "paper",
];

/// A prompt of about `tokens` tokens, the same for the same seed.
pub fn synthesize(tokens: u32, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut out = String::with_capacity(tokens as usize * 7);
    for i in 0..tokens {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(WORDS[(rng.next_u64() % WORDS.len() as u64) as usize]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn word_count_is_the_target_and_seeded() {
        let p = super::synthesize(300, 9);
        assert_eq!(p.split(' ').count(), 300);
        assert_eq!(p, super::synthesize(300, 9));
        assert_ne!(p, super::synthesize(300, 10));
    }
}
