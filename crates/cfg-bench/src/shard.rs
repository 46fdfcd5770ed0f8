//! Sharded runs, for more load than one runner process makes.
//!
//! `run --shard I/N` sends its share of the load (concurrency, rate and warm-up
//! split N ways) with a seed stream of its own, and writes its latency histograms
//! into its result. `merge` adds the histograms back together, so the merged
//! percentiles are exactly those one run over every sample would report: HDR
//! histograms add bucket by bucket, and a percentile reads only the buckets.

use std::str::FromStr;

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use indexmap::IndexMap;

use cfg_core::model::{
    BenchResult, ClassResult, ErrorClass, IntendedLatency, LoadTestSettings, Metadata, Percentiles, RequestCounts,
    ServerConfig, ShardInfo, Throughput, TimePoint, TokenCounts,
};
use cfg_core::sim::rng::SplitMix64;

use crate::stats::{Collector, percentiles};

/// More shards than this is a typo, not a fleet.
pub const MAX_SHARDS: u32 = 1024;

/// `I/N`: shard I (from 0) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("--shard wants I/N with 0 <= I < N <= {MAX_SHARDS} (e.g. 0/4), not `{s}`");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
        if count == 0 || index >= count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// This shard's part of `total`: the remainder goes to the lowest indices.
    pub fn share(self, total: u32) -> u32 {
        total / self.count + u32::from(self.index < total % self.count)
    }

    /// A seed of this shard's own, derived from the run's: no two shards send the same
    /// request sequence, and the same shard of the same run always sends the same one.
    pub fn seed(self, base: u64) -> u64 {
        SplitMix64::new(base ^ (u64::from(self.index) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
    }

    /// The settings this shard runs: its share of concurrency, rate and warm-up.
    pub fn settings(self, s: &LoadTestSettings) -> Result<LoadTestSettings, String> {
        // Every shard refuses, not only those that would get no stream: a run that
        // can never be merged must not load the server at all.
        if s.concurrency < self.count {
            return Err(format!(
                "concurrency {} cannot be split over {} shards: every shard needs at least one stream",
                s.concurrency, self.count
            ));
        }
        let mut mine = s.clone();
        mine.concurrency = self.share(s.concurrency);
        mine.warmup_requests = s.warmup_requests.map(|w| self.share(w));
        if let Some(a) = mine.arrival.as_mut() {
            // The runner's default rate, split like an explicit one.
            a.rate_qps = Some(a.rate_qps.unwrap_or(crate::schedule::DEFAULT_RATE_QPS) / f64::from(self.count));
        }
        mine.seed = Some(self.seed(s.seed.unwrap_or(0)));
        Ok(mine)
    }

    /// Where this shard's constant-rate clock starts, given its own rate: its slot
    /// among the whole run's arrivals, so N shards interleave instead of sending together.
    pub fn arrival_offset(self, shard_rate: f64) -> f64 {
        f64::from(self.index) / (shard_rate * f64::from(self.count))
    }
}

fn encode(h: &Histogram<u32>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new().serialize(h, &mut bytes).expect("serializing into memory does not fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A serialized histogram is a few kB; anything near this is not ours.
const MAX_HISTOGRAM_TEXT: usize = 1 << 20;

fn decode(key: &str, text: &str) -> Result<Histogram<u32>, String> {
    if text.len() > MAX_HISTOGRAM_TEXT {
        return Err(format!("histogram `{key}` is {} bytes, more than a shard writes", text.len()));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("histogram `{key}` is not base64: {e}"))?;
    // The V2 header states the payload length; refuse one that the bytes cannot hold
    // (the decoder would otherwise allocate whatever the header says).
    if let Some(len) = bytes.get(4..8).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
        && len > MAX_HISTOGRAM_TEXT * 8
    {
        return Err(format!("histogram `{key}` claims a {len}-byte payload: corrupt"));
    }
    let h: Histogram<u32> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| format!("histogram `{key}` is corrupt: {e:?}"))?;
    if (h.low(), h.high(), h.sigfig()) != crate::stats::BOUNDS {
        return Err(format!("histogram `{key}` has other bounds than cfg-bench records with"));
    }
    Ok(h)
}

/// What a shard's result carries for the merge.
pub fn info(c: &Collector, shard: Shard, base_seed: u64, open_loop: bool) -> ShardInfo {
    let mut histograms = IndexMap::new();
    let o = &c.overall;
    for (key, h) in [("ttft", &o.ttft), ("tpot", &o.tpot), ("e2e", &o.e2e), ("itl", &o.itl)] {
        histograms.insert(key.to_string(), encode(h));
    }
    if open_loop {
        histograms.insert("intended_ttft".into(), encode(&c.intended_ttft));
        histograms.insert("intended_e2e".into(), encode(&c.intended_e2e));
    }
    for (name, l) in &c.classes {
        for (key, h) in [("ttft", &l.ttft), ("tpot", &l.tpot), ("e2e", &l.e2e)] {
            histograms.insert(format!("class/{name}/{key}"), encode(h));
        }
    }
    ShardInfo { index: shard.index, count: shard.count, base_seed, histograms }
}

/// Combines the shards of one run. `percentile_list` is the run's (settings plus p99).
pub fn merge(
    mut shards: Vec<BenchResult>,
    settings: &LoadTestSettings,
    config: Option<&ServerConfig>,
    percentile_list: &[f64],
) -> Result<BenchResult, String> {
    let count = check_set(&mut shards)?;
    if let Some(warning) = check_overlap(&shards)? {
        eprintln!("warning: {warning}");
    }
    let hist = add_histograms(&shards)?;
    let pct = |key: &str| {
        hist.get(key).map(|h| percentiles(h, percentile_list)).ok_or(format!("every shard lacks histogram `{key}`"))
    };
    let (requests, tokens, throughput) = add_counts(&shards);
    let intended = if shards.iter().any(|r| r.intended.is_some()) {
        Some(IntendedLatency {
            ttft_ms: pct("intended_ttft")?,
            e2e_ms: pct("intended_e2e")?,
            late_sends: shards.iter().filter_map(|r| r.intended.as_ref()).map(|i| i.late_sends).sum(),
            dropped_sends: shards.iter().filter_map(|r| r.intended.as_ref()).map(|i| i.dropped_sends).sum(),
        })
    } else {
        None
    };
    let first = &shards[0];
    let total = requests.total;
    let mut merged = BenchResult {
        ttft_ms: pct("ttft")?,
        tpot_ms: pct("tpot")?,
        throughput_tokens_per_sec: throughput.output_tokens_per_sec,
        error_rate: if total > 0 { requests.failed as f64 / total as f64 } else { 0.0 },
        // The server-side series come from shard 0: every shard scraped the same server.
        gpu_utilization_avg: first.gpu_utilization_avg,
        gpu_utilization_reason: first.gpu_utilization_reason.clone(),
        format_version: first.format_version,
        complete: shards.iter().all(|r| r.complete),
        stopped_reason: shards.iter().find_map(|r| {
            let index = r.shard.as_ref().map_or(0, |s| s.index);
            r.stopped_reason.as_ref().map(|why| format!("shard {index}/{count}: {why}"))
        }),
        simulated: shards.iter().any(|r| r.simulated),
        metadata: merge_metadata(&shards, count),
        requests,
        e2e_ms: pct("e2e")?,
        itl_ms: pct("itl")?,
        intended,
        throughput,
        tokens,
        per_class: merge_classes(&shards, &pct)?,
        errors: merge_errors(&shards),
        server: first.server.clone(),
        timeseries: merge_timeseries(&shards),
        phases: merge_phases(&shards),
        verdict: None,
        shard: None,
    };
    merged.verdict = Some(cfg_core::verdict::judge(&merged, settings, config, None));
    Ok(merged)
}

/// Checks that the results are one whole set of shards of one run, and sorts
/// them by index; returns the shard count.
fn check_set(shards: &mut [BenchResult]) -> Result<u32, String> {
    if shards.is_empty() {
        return Err("no shard results given".into());
    }
    for (i, r) in shards.iter().enumerate() {
        if r.shard.is_none() {
            return Err(format!("input {} is not a shard result (run it with --shard I/N)", i + 1));
        }
    }
    shards.sort_by_key(|r| r.shard.as_ref().map(|s| s.index));
    let count = shards[0].shard.as_ref().map_or(0, |s| s.count);
    let indices: Vec<u32> = shards.iter().filter_map(|r| r.shard.as_ref().map(|s| s.index)).collect();
    if shards.iter().any(|r| r.shard.as_ref().is_some_and(|s| s.count != count)) {
        return Err("the shards come from runs with different shard counts".into());
    }
    if count == 0 || count > MAX_SHARDS || indices.iter().any(|&i| i >= count) {
        return Err(format!("shard numbers out of range: indices {indices:?} of {count}"));
    }
    if shards.len() > count as usize {
        return Err(format!("{} results for a run of {count} shards: a shard appears twice", shards.len()));
    }
    let keys = |r: &BenchResult| r.shard.as_ref().map(|s| s.histograms.keys().cloned().collect::<Vec<_>>());
    if shards.iter().any(|r| keys(r) != keys(&shards[0])) {
        return Err("the shards carry different histograms (different request classes or arrival modes)".into());
    }
    if indices != (0..count).collect::<Vec<_>>() {
        let missing: Vec<String> =
            (0..count).filter(|i| !indices.contains(i)).map(|i| format!("{i}/{count}")).collect();
        return Err(if missing.is_empty() {
            format!("a shard appears twice: got indices {indices:?} of {count}")
        } else {
            format!("missing shard(s) {}: merge needs all {count}", missing.join(", "))
        });
    }
    let sha = |r: &BenchResult| r.metadata.as_ref().map(|m| m.settings_sha256.clone());
    if shards.iter().any(|r| sha(r) != sha(&shards[0])) {
        return Err("the shards ran different settings.json files (settings_sha256 differs)".into());
    }
    Ok(count)
}

/// The shards' measured windows must overlap: merged rates add up only for load
/// the server carried at the same time. Refuses under 90% overlap; warns under 99%.
fn check_overlap(shards: &[BenchResult]) -> Result<Option<String>, String> {
    let windows: Vec<(f64, f64)> = shards
        .iter()
        .filter_map(|r| {
            let m = r.metadata.as_ref()?;
            let start = humantime::parse_rfc3339_weak(&m.started_at).ok()?;
            let start = start.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64();
            Some((start, start + m.duration_seconds))
        })
        .collect();
    if windows.len() < shards.len() {
        return Err(
            "a shard result has no start time (metadata.started_at): cannot check the shards ran together".into()
        );
    }
    let latest_start = windows.iter().map(|w| w.0).fold(f64::MIN, f64::max);
    let earliest_end = windows.iter().map(|w| w.1).fold(f64::MAX, f64::min);
    let shortest = windows.iter().map(|w| w.1 - w.0).fold(f64::MAX, f64::min).max(1e-9);
    let overlap = (earliest_end - latest_start).max(0.0);
    let spread = latest_start - windows.iter().map(|w| w.0).fold(f64::MAX, f64::min);
    let said = format!(
        "the shards' measured windows overlap for {overlap:.1} s of {shortest:.1} s (their starts are {spread:.1} s apart)"
    );
    if overlap < 0.9 * shortest {
        return Err(format!(
            "{said}: the server never carried their load together, so their rates cannot be added; \
             run the shards with the same --barrier DIR (or --start-at TIME)"
        ));
    }
    Ok((overlap < 0.99 * shortest).then_some(said))
}

/// Every shard's histograms, decoded and added key by key.
fn add_histograms(shards: &[BenchResult]) -> Result<IndexMap<String, Histogram<u32>>, String> {
    let mut hist: IndexMap<String, Histogram<u32>> = IndexMap::new();
    for r in shards {
        for (key, text) in &r.shard.as_ref().expect("checked by check_set").histograms {
            let h = decode(key, text)?;
            match hist.get_mut(key) {
                Some(total) => total.add(&h).map_err(|e| format!("histogram `{key}` cannot be added: {e:?}"))?,
                None => {
                    hist.insert(key.clone(), h);
                }
            }
        }
    }
    Ok(hist)
}

/// Counts add up, and so do rates: shards run side by side over the same duration.
fn add_counts(shards: &[BenchResult]) -> (RequestCounts, TokenCounts, Throughput) {
    let sum = |f: &dyn Fn(&BenchResult) -> u64| shards.iter().map(f).sum::<u64>();
    let fsum = |f: &dyn Fn(&BenchResult) -> f64| shards.iter().map(f).sum::<f64>();
    let requests = RequestCounts {
        total: sum(&|r| r.requests.total),
        succeeded: sum(&|r| r.requests.succeeded),
        failed: sum(&|r| r.requests.failed),
        warmup: sum(&|r| r.requests.warmup),
        good: sum(&|r| r.requests.good),
        abandoned: sum(&|r| r.requests.abandoned),
    };
    let prompt_total = sum(&|r| r.tokens.prompt_total);
    let prompt_target_total = sum(&|r| r.tokens.prompt_target_total);
    let tokens = TokenCounts {
        prompt_total,
        completion_total: sum(&|r| r.tokens.completion_total),
        prompt_target_total,
        completion_target_total: sum(&|r| r.tokens.completion_target_total),
        prompt_deviation_pct: if prompt_target_total > 0 {
            (prompt_total as f64 - prompt_target_total as f64) / prompt_target_total as f64 * 100.0
        } else {
            0.0
        },
        requests_without_usage: sum(&|r| r.tokens.requests_without_usage),
        prompts_calibrated: shards.iter().all(|r| r.tokens.prompts_calibrated),
        itl_gaps: sum(&|r| r.tokens.itl_gaps),
        itl_gaps_in_one_read: sum(&|r| r.tokens.itl_gaps_in_one_read),
    };
    let throughput = Throughput {
        requests_per_sec: fsum(&|r| r.throughput.requests_per_sec),
        output_tokens_per_sec: fsum(&|r| r.throughput.output_tokens_per_sec),
        total_tokens_per_sec: fsum(&|r| r.throughput.total_tokens_per_sec),
        goodput_requests_per_sec: fsum(&|r| r.throughput.goodput_requests_per_sec),
    };
    (requests, tokens, throughput)
}

/// Each class: its counts added, its percentiles from the added histograms.
fn merge_classes(
    shards: &[BenchResult],
    pct: &dyn Fn(&str) -> Result<Percentiles, String>,
) -> Result<IndexMap<String, ClassResult>, String> {
    let mut per_class = IndexMap::new();
    for name in shards[0].per_class.keys() {
        let part = |f: &dyn Fn(&ClassResult) -> u64| shards.iter().filter_map(|r| r.per_class.get(name)).map(f).sum();
        per_class.insert(
            name.clone(),
            ClassResult {
                requests: part(&|c| c.requests),
                failed: part(&|c| c.failed),
                ttft_ms: pct(&format!("class/{name}/ttft"))?,
                tpot_ms: pct(&format!("class/{name}/tpot"))?,
                e2e_ms: pct(&format!("class/{name}/e2e"))?,
                output_tokens_per_sec: shards
                    .iter()
                    .filter_map(|r| r.per_class.get(name))
                    .map(|c| c.output_tokens_per_sec)
                    .sum(),
            },
        );
    }
    Ok(per_class)
}

/// Error classes by kind, counts added, most frequent first.
fn merge_errors(shards: &[BenchResult]) -> Vec<ErrorClass> {
    let mut errors: IndexMap<String, ErrorClass> = IndexMap::new();
    for e in shards.iter().flat_map(|r| &r.errors) {
        errors.entry(e.kind.clone()).or_insert_with(|| ErrorClass { count: 0, ..e.clone() }).count += e.count;
    }
    let mut errors: Vec<ErrorClass> = errors.into_values().collect();
    errors.sort_by_key(|e| std::cmp::Reverse(e.count));
    errors
}

/// Shard 0's metadata, spanning every shard's time and concurrency.
fn merge_metadata(shards: &[BenchResult], count: u32) -> Option<Metadata> {
    let first = &shards[0];
    let mut metadata = first.metadata.clone();
    if let Some(m) = metadata.as_mut() {
        let metas: Vec<_> = shards.iter().filter_map(|r| r.metadata.as_ref()).collect();
        m.concurrency = metas.iter().map(|m| m.concurrency).sum();
        m.started_at = metas.iter().map(|m| m.started_at.clone()).min().unwrap_or_default();
        m.ended_at = metas.iter().map(|m| m.ended_at.clone()).max().unwrap_or_default();
        m.duration_seconds = metas.iter().map(|m| m.duration_seconds).fold(0.0, f64::max);
        m.seed = first.shard.as_ref().map_or(m.seed, |s| s.base_seed);
        m.shards = Some(count);
        if metas.iter().any(|x| x.timestamps != m.timestamps) {
            m.timestamps = Some("mixed".into());
        }
    }
    metadata
}

/// Seconds each shard's measured phase began after the earliest one's, from
/// `metadata.started_at` (0 when a shard has none).
fn start_offsets(shards: &[BenchResult]) -> Vec<f64> {
    let starts: Vec<Option<std::time::SystemTime>> = shards
        .iter()
        .map(|r| r.metadata.as_ref().and_then(|m| humantime::parse_rfc3339_weak(&m.started_at).ok()))
        .collect();
    let Some(earliest) = starts.iter().flatten().min().copied() else { return vec![0.0; shards.len()] };
    starts.iter().map(|s| s.and_then(|s| s.duration_since(earliest).ok()).map_or(0.0, |d| d.as_secs_f64())).collect()
}

/// Second by second on the wall clock: each shard's series is moved by the
/// seconds its measured phase began after the earliest shard's (rounded to
/// the second), then counts and rates add up. Per-second TTFT percentiles
/// cannot be recombined from summaries, so p50 is the weighted mean of the
/// shards' (by requests that finished in that second) and p99 the highest
/// shard's (the overall percentiles above are exact).
fn merge_timeseries(shards: &[BenchResult]) -> Vec<TimePoint> {
    let offsets: Vec<usize> = start_offsets(shards).iter().map(|o| o.round() as usize).collect();
    let len = shards.iter().zip(&offsets).map(|(r, o)| r.timeseries.len() + o).max().unwrap_or(0);
    (0..len)
        .map(|i| {
            let points: Vec<&TimePoint> = shards
                .iter()
                .zip(&offsets)
                .filter_map(|(r, &o)| i.checked_sub(o).and_then(|j| r.timeseries.get(j)))
                .collect();
            let completed: u64 = points.iter().map(|p| p.completed).sum();
            let weighted: Vec<(f64, u64)> =
                points.iter().filter_map(|p| Some((p.ttft_p50_ms?, p.completed.max(1)))).collect();
            let n: u64 = weighted.iter().map(|(_, n)| n).sum();
            TimePoint {
                t: (i + 1) as f64,
                started: points.iter().map(|p| p.started).sum(),
                completed,
                errors: points.iter().map(|p| p.errors).sum(),
                output_tokens_per_sec: points.iter().map(|p| p.output_tokens_per_sec).sum(),
                ttft_p50_ms: (n > 0).then(|| weighted.iter().map(|(v, k)| v * *k as f64).sum::<f64>() / n as f64),
                ttft_p99_ms: points.iter().filter_map(|p| p.ttft_p99_ms).reduce(f64::max),
                in_flight: points.iter().map(|p| p.in_flight).sum(),
            }
        })
        .collect()
}

/// The merged run's phases on the same clock: the longest warm-up, the
/// measured window from the first shard's start to the last one's end, then
/// the drain (or the stop) until the last shard ended.
fn merge_phases(shards: &[BenchResult]) -> Vec<cfg_core::model::RunPhase> {
    use cfg_core::model::PhaseName;
    let offsets = start_offsets(shards);
    let mut warmup: f64 = 0.0;
    let (mut window, mut end) = (0.0_f64, 0.0_f64);
    let mut stopped = None;
    for (r, o) in shards.iter().zip(&offsets) {
        for p in &r.phases {
            match p.name {
                PhaseName::Warmup => warmup = warmup.max(-p.start - o),
                PhaseName::Measured => window = window.max(p.end + o),
                PhaseName::Stopped => stopped = stopped.or(p.reason.clone()),
                PhaseName::Drain => {}
            }
            end = end.max(p.end + o);
        }
    }
    if shards.iter().all(|r| r.phases.is_empty()) {
        return Vec::new();
    }
    cfg_core::model::run_phases(warmup, window, end, stopped.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_and_refuse_nonsense() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["4/4", "1/0", "a/2", "1", "-1/2", "0/2000"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shares_add_up_to_the_whole_and_seeds_differ() {
        for total in [1, 7, 32, 33] {
            let shares: Vec<u32> = (0..4).map(|index| Shard { index, count: 4 }.share(total)).collect();
            assert_eq!(shares.iter().sum::<u32>(), total, "{shares:?}");
            assert!(shares.iter().max().unwrap() - shares.iter().min().unwrap() <= 1);
        }
        let seeds: std::collections::HashSet<u64> = (0..16).map(|index| Shard { index, count: 16 }.seed(7)).collect();
        assert_eq!(seeds.len(), 16);
        assert_eq!(Shard { index: 3, count: 16 }.seed(7), Shard { index: 3, count: 16 }.seed(7));
    }

    /// The claim the merge rests on: histograms recorded apart, serialized, read back
    /// and added give exactly the percentiles of one histogram of every sample.
    #[test]
    fn merged_percentiles_equal_one_histogram_of_all_samples() {
        let mut rng = SplitMix64::new(42);
        let mut whole = crate::stats::histogram();
        let mut parts: Vec<Histogram<u32>> = (0..3).map(|_| whole.clone()).collect();
        for i in 0..30_000u64 {
            // A long-tailed latency in microseconds: 1 ms to about 20 s.
            let us = 1_000 + (rng.next_u64() % 1_000) * (rng.next_u64() % 20_000) / 1_000 * (1 + i % 7);
            whole.record(us).unwrap();
            parts[(rng.next_u64() % 3) as usize].record(us).unwrap();
        }
        let mut merged = decode("p0", &encode(&parts[0])).unwrap();
        for p in &parts[1..] {
            merged.add(decode("p", &encode(p)).unwrap()).unwrap();
        }
        let ps = [50.0, 90.0, 99.0, 99.9, 100.0];
        assert_eq!(merged.len(), whole.len());
        assert_eq!(percentiles(&merged, &ps), percentiles(&whole, &ps));
        assert!(decode("x", "not base64!").unwrap_err().contains("`x`"));
    }

    fn shard_at(started_at: &str, duration: f64) -> BenchResult {
        let metadata = Metadata { started_at: started_at.into(), duration_seconds: duration, ..Metadata::default() };
        BenchResult { metadata: Some(metadata), ..BenchResult::default() }
    }

    #[test]
    fn shards_that_did_not_run_together_are_refused() {
        let together = [shard_at("2026-12-01T10:00:00.000Z", 20.0), shard_at("2026-12-01T10:00:00.050Z", 20.0)];
        assert_eq!(check_overlap(&together), Ok(None));
        let close = [shard_at("2026-12-01T10:00:00.000Z", 20.0), shard_at("2026-12-01T10:00:01.000Z", 20.0)];
        assert!(check_overlap(&close).unwrap().unwrap().contains("overlap for 19.0 s of 20.0 s"));
        let apart = [shard_at("2026-12-01T10:00:00.000Z", 20.0), shard_at("2026-12-01T10:00:16.000Z", 20.0)];
        let err = check_overlap(&apart).unwrap_err();
        assert!(err.contains("overlap for 4.0 s of 20.0 s") && err.contains("--barrier"), "{err}");
    }

    /// Shards are added up by wall-clock second: a shard that began 2 s after
    /// the other has its first second added to the other's third.
    #[test]
    fn merged_series_are_aligned_by_wall_clock() {
        let point =
            |t: f64, tokens: f64| TimePoint { t, output_tokens_per_sec: tokens, started: 1, ..TimePoint::default() };
        let mut a = shard_at("2026-12-01T10:00:00.000Z", 4.0);
        a.timeseries = (1..=4).map(|t| point(f64::from(t), 100.0)).collect();
        a.phases = cfg_core::model::run_phases(1.0, 4.0, 4.5, None);
        let mut b = shard_at("2026-12-01T10:00:02.000Z", 4.0);
        b.timeseries = (1..=4).map(|t| point(f64::from(t), 10.0)).collect();
        b.phases = cfg_core::model::run_phases(1.0, 4.0, 5.0, None);
        let merged: Vec<f64> =
            merge_timeseries(&[a.clone(), b.clone()]).iter().map(|p| p.output_tokens_per_sec).collect();
        assert_eq!(merged, vec![100.0, 100.0, 110.0, 110.0, 10.0, 10.0]);
        let phases = merge_phases(&[a, b]);
        let spans: Vec<(f64, f64)> = phases.iter().map(|p| (p.start, p.end)).collect();
        assert_eq!(spans, vec![(-1.0, 0.0), (0.0, 6.0), (6.0, 7.0)], "{phases:?}");
    }
}
