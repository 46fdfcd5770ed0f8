//! Prompts of a given length without a tokenizer: common English words, each
//! about one token for Llama/Qwen/Mistral tokenizers, drawn at random so no
//! two prompts share a prefix (prefix caching would otherwise flatter TTFT).
//! The server's `usage` is the truth; the runner reports the deviation.
//!
//! A server that offers vLLM's `/tokenize` gets lengths that match on average instead:
//! before the run, [`calibrate`] finds for each class the word count that its tokenizer
//! (and chat template) turns into the class's `input_tokens`, over 48 sample prompts.

use cfg_core::sim::rng::SplitMix64;

use futures_util::StreamExt;

use crate::client::Api;

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

/// Where `/tokenize` lives for an OpenAI-style endpoint: the server root.
/// Behind a gateway the server root carries a prefix (`/models/llama/v1/...`): it is kept.
pub fn tokenize_url(endpoint: &str) -> Option<String> {
    let mut url = reqwest::Url::parse(endpoint).ok()?;
    let path = url.path().to_string();
    let root = match path.find("/v1/") {
        Some(i) => &path[..i],
        None => path.trim_end_matches('/').rsplit_once('/').map_or("", |(head, _)| head),
    };
    url.set_path(&format!("{root}/tokenize"));
    url.set_query(None);
    Some(url.to_string())
}

/// Asks the server how many tokens a request with this prompt has, as the
/// completion endpoint would count it (chat template included for chat).
async fn count(http: &reqwest::Client, url: &str, api: Api, key: Option<&str>, model: &str, text: &str) -> Option<u32> {
    let body = match api {
        Api::Chat => {
            serde_json::json!({"model": model, "messages": [{"role": "user", "content": text}], "add_generation_prompt": true})
        }
        Api::Completions => serde_json::json!({"model": model, "prompt": text}),
    };
    let mut req = http.post(url).json(&body).timeout(std::time::Duration::from_secs(10));
    if let Some(k) = key {
        req = req.bearer_auth(k);
    }
    let mut resp = req.send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    // The answer lists the token ids: a few hundred kilobytes for the longest prompts.
    let body = crate::client::read_capped(&mut resp, 4 << 20).await.ok()?;
    let v: serde_json::Value = serde_json::from_slice(&body).ok()?;
    v.get("count").and_then(serde_json::Value::as_u64).and_then(|c| u32::try_from(c).ok())
}

/// For each target length, the word count whose prompt the server counts closest to
/// it, or `None` when the server has no `/tokenize` (then words stand for tokens).
/// Token counts grow almost linearly with words, so a few secant steps converge.
pub async fn calibrate(
    http: &reqwest::Client,
    endpoint: &str,
    api: Api,
    key: Option<&str>,
    model: &str,
    targets: &[u32],
) -> Option<Vec<u32>> {
    let url = tokenize_url(endpoint)?;
    // One quick question first: a server without a working /tokenize is found out
    // in seconds, not after a round of 48 slow ones.
    let probe =
        tokio::time::timeout(std::time::Duration::from_secs(3), count(http, &url, api, key, model, "hello")).await;
    probe.ok().flatten()?;
    let mut words = Vec::with_capacity(targets.len());
    for (class, &target) in targets.iter().enumerate() {
        // The mean over many prompts: each request draws its own words, and one prompt's
        // count varies by about 4% (12 samples left a 2-3% bias on a real tokenizer).
        let measure = |w: u32| {
            let (http, url) = (http, url.as_str());
            async move {
                let counts: Vec<Option<u32>> = futures_util::stream::iter(0..SAMPLES)
                    .map(|s| {
                        let text = synthesize(w, 0x5EED ^ ((class as u64) << 8) ^ s);
                        async move { count(http, url, api, key, model, &text).await }
                    })
                    .buffer_unordered(8)
                    .collect()
                    .await;
                let total: u64 = counts.into_iter().map(|c| c.map(u64::from)).sum::<Option<u64>>()?;
                // A server that counts nothing cannot be calibrated against.
                (total > 0).then(|| (total as f64 / SAMPLES as f64).round() as u32)
            }
        };
        let target = target.max(1);
        // Words stay within 1/16 and 16 times the target: a tokenizer outside that is
        // not counting words, and a prompt of u32::MAX words would not fit in memory.
        let bound = |w: u32| w.clamp((target / 16).max(1), target.saturating_mul(16));
        let (mut w0, mut c0) = (target, measure(target).await?);
        let mut best = (c0.abs_diff(target), w0);
        let mut w1 = bound(scale(w0, target, c0));
        for _ in 0..6 {
            if best.0 == 0 || w1 == w0 {
                break;
            }
            let c1 = measure(w1).await?;
            best = best.min((c1.abs_diff(target), w1));
            // Secant step through the last two points.
            let slope = (f64::from(c1) - f64::from(c0)) / (f64::from(w1) - f64::from(w0));
            let next = if slope > 0.0 {
                (f64::from(w1) + (f64::from(target) - f64::from(c1)) / slope).round().max(1.0) as u32
            } else {
                scale(w1, target, c1)
            };
            let next = bound(next);
            (w0, c0, w1) = (w1, c1, next);
        }
        words.push(best.1);
    }
    Some(words)
}

const SAMPLES: u64 = 48;

/// The longest calibration the runner waits for before sizing prompts by words.
pub const CALIBRATION_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

fn scale(words: u32, target: u32, counted: u32) -> u32 {
    ((f64::from(words) * f64::from(target) / f64::from(counted.max(1))).round() as u32).max(1)
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

    #[test]
    fn tokenize_lives_at_the_server_root() {
        assert_eq!(
            super::tokenize_url("http://127.0.0.1:8000/v1/chat/completions?x=1").as_deref(),
            Some("http://127.0.0.1:8000/tokenize")
        );
        assert_eq!(super::tokenize_url("not a url"), None);
        assert_eq!(
            super::tokenize_url("https://gw.example/models/llama/v1/chat/completions").as_deref(),
            Some("https://gw.example/models/llama/tokenize"),
            "a gateway's prefix is kept"
        );
    }
}
