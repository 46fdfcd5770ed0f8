//! Everything measured, in mergeable HDR histograms (memory stays flat
//! however long the run) plus one small bucket per second for the charts.

use hdrhistogram::Histogram;
use indexmap::IndexMap;

use cfg_core::model::{ClassResult, ErrorClass, Percentiles, TimePoint};
use cfg_core::sim::nearest_rank;

/// Latencies are recorded in microseconds, 4 significant digits (a bucket is at most
/// 0.1% wide: 0.26 ms at 2.5 s, where 3 digits gave 2 ms), up to 1 hour. Each
/// histogram is 311,296 u32 counts, 1.2 MiB, all of it resident (hdrhistogram fills
/// the array): a run holds 4 per class, 4 overall and 2 for intended-time latency,
/// fixed in size however long it runs.
pub const BOUNDS: (u64, u64, u8) = (1, 3_600_000_000, 4);

pub fn histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(BOUNDS.0, BOUNDS.1, BOUNDS.2).expect("valid bounds")
}

fn record(h: &mut Histogram<u32>, seconds: f64) {
    let us = (seconds * 1e6).round().max(1.0) as u64;
    let _ = h.record(us.min(h.high()));
}

/// Latency distributions of one population (all requests, or one class).
#[derive(Clone)]
pub struct Latencies {
    pub ttft: Histogram<u32>,
    pub tpot: Histogram<u32>,
    pub e2e: Histogram<u32>,
    pub itl: Histogram<u32>,
    pub requests: u64,
    pub failed: u64,
    pub output_tokens: u64,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            ttft: histogram(),
            tpot: histogram(),
            e2e: histogram(),
            itl: histogram(),
            requests: 0,
            failed: 0,
            output_tokens: 0,
        }
    }
}

/// Percentiles in milliseconds, keyed `p50`, ...; null with no samples.
pub fn percentiles(h: &Histogram<u32>, ps: &[f64]) -> Percentiles {
    let mut out = IndexMap::new();
    for &p in ps {
        let key = if p.fract() == 0.0 { format!("p{}", p as u64) } else { format!("p{p}") };
        let v = (!h.is_empty()).then(|| h.value_at_quantile(p / 100.0) as f64 / 1000.0);
        out.insert(key, v);
    }
    out.insert("mean".into(), (!h.is_empty()).then(|| h.mean() / 1000.0));
    Percentiles(out)
}

/// One finished request as the collector sees it.
pub struct Outcome {
    pub class: usize,
    /// Seconds since the measured phase started, when the request was sent.
    pub sent_at: f64,
    /// Seconds since the measured phase started, when the request finished.
    pub at: f64,
    pub result: Result<crate::client::Timing, crate::client::Failure>,
    /// Open loop: seconds between the intended and the actual send.
    pub send_delay: Option<f64>,
    pub prompt_target: u32,
    pub output_target: u32,
}

/// What happened in one second of the run.
#[derive(Default, Clone)]
struct Second {
    /// Requests sent in this second (those that finished or failed; requests
    /// abandoned after a stop are in no count).
    started: u64,
    /// Requests that finished in this second (successful; the good ones too).
    completed: u64,
    good: u64,
    errors: u64,
    /// Output tokens streamed in this second: each chunk counted when it arrived.
    streamed: f64,
    /// The same, by request class.
    streamed_by_class: Vec<f64>,
    /// Prompt tokens of the requests whose first token arrived in this second.
    prompt_tokens: f64,
    ttft_p50_ms: Option<f64>,
    ttft_p99_ms: Option<f64>,
}

/// What a measured window held: tokens streamed, requests completed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Window {
    pub seconds: f64,
    pub output_tokens: f64,
    pub prompt_tokens: f64,
    pub completed: f64,
    pub good: f64,
    pub output_tokens_by_class: Vec<f64>,
}

/// Aggregates outcomes of the measured phase.
pub struct Collector {
    pub overall: Latencies,
    pub classes: Vec<(String, Latencies)>,
    pub intended_ttft: Histogram<u32>,
    pub intended_e2e: Histogram<u32>,
    pub late_sends: u64,
    pub errors: IndexMap<String, (u64, String)>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub prompt_target: u64,
    pub completion_target: u64,
    pub without_usage: u64,
    pub itl_gaps: u64,
    /// ITL samples of exactly 0: two chunks from one read (see `TokenCounts`).
    pub itl_gaps_in_one_read: u64,
    pub simulated: bool,
    pub good: u64,
    seconds: Vec<Second>,
    /// TTFT samples (ms) by the second their first token arrived in, for the
    /// seconds still open. A second closes (its samples become p50/p99) once
    /// no request still to finish can have its first token in it: requests
    /// finish at most `horizon` seconds after they were sent. So memory holds
    /// `horizon` seconds of samples, not the whole run's.
    open_ttft: std::collections::BTreeMap<usize, Vec<f64>>,
    horizon: f64,
    sla: (Option<f64>, Option<f64>),
}

impl Collector {
    pub fn new(class_names: &[String], sla_ttft_ms: Option<f64>, sla_tpot_ms: Option<f64>) -> Self {
        Collector {
            overall: Latencies::default(),
            classes: class_names.iter().map(|n| (n.clone(), Latencies::default())).collect(),
            intended_ttft: histogram(),
            intended_e2e: histogram(),
            late_sends: 0,
            errors: IndexMap::new(),
            prompt_tokens: 0,
            completion_tokens: 0,
            prompt_target: 0,
            completion_target: 0,
            without_usage: 0,
            itl_gaps: 0,
            itl_gaps_in_one_read: 0,
            simulated: false,
            good: 0,
            seconds: Vec::new(),
            open_ttft: std::collections::BTreeMap::new(),
            horizon: f64::INFINITY,
            sla: (sla_ttft_ms, sla_tpot_ms),
        }
    }

    /// Requests finish at most `seconds` after they were sent (the request
    /// timeout): per-second TTFT samples older than that are summarised.
    pub fn with_horizon(mut self, seconds: f64) -> Self {
        self.horizon = seconds.max(1.0);
        self
    }

    /// The per-second bucket of `t` seconds since the start, created on demand.
    fn second(&mut self, t: f64) -> &mut Second {
        let sec = t.max(0.0) as usize;
        if self.seconds.len() <= sec {
            let classes = self.classes.len();
            self.seconds.resize(sec + 1, Second { streamed_by_class: vec![0.0; classes], ..Second::default() });
        }
        &mut self.seconds[sec]
    }

    /// Spreads a request's output tokens over the seconds its chunks arrived in.
    fn stream(&mut self, class: usize, finished_at: f64, t: &crate::client::Timing) {
        let sent_at = finished_at - t.e2e;
        let chunks = 1 + t.itl.len();
        let per_chunk = f64::from(t.output_tokens) / chunks as f64;
        let mut at = sent_at + t.ttft;
        let prompt = f64::from(t.prompt_tokens.unwrap_or(0));
        self.second(at).prompt_tokens += prompt;
        self.open_ttft.entry(at.max(0.0) as usize).or_default().push(t.ttft * 1000.0);
        for i in 0..chunks {
            if i > 0 {
                at += t.itl[i - 1];
            }
            let s = self.second(at);
            s.streamed += per_chunk;
            s.streamed_by_class[class] += per_chunk;
        }
    }

    /// What the first `seconds` of the run held (a partial last second counts in
    /// proportion): the measured window, whatever the drain after it.
    pub fn window(&self, seconds: f64) -> Window {
        let mut w = Window { seconds, output_tokens_by_class: vec![0.0; self.classes.len()], ..Window::default() };
        for (i, s) in self.seconds.iter().enumerate() {
            let share = (seconds - i as f64).clamp(0.0, 1.0);
            if share == 0.0 {
                break;
            }
            w.output_tokens += s.streamed * share;
            w.prompt_tokens += s.prompt_tokens * share;
            w.completed += s.completed as f64 * share;
            w.good += s.good as f64 * share;
            for (total, part) in w.output_tokens_by_class.iter_mut().zip(&s.streamed_by_class) {
                *total += part * share;
            }
        }
        w
    }

    pub fn add(&mut self, o: Outcome) {
        self.second(o.sent_at).started += 1;
        self.second(o.at);
        let sec = (o.at.max(0.0)) as usize;
        self.overall.requests += 1;
        self.classes[o.class].1.requests += 1;
        self.prompt_target += u64::from(o.prompt_target);
        self.completion_target += u64::from(o.output_target);
        if let Some(delay) = o.send_delay
            && delay > 0.010
        {
            self.late_sends += 1;
        }
        match o.result {
            Ok(t) => {
                self.simulated |= t.simulated;
                let delay = o.send_delay.unwrap_or(0.0);
                for l in [&mut self.overall, &mut self.classes[o.class].1] {
                    record(&mut l.ttft, t.ttft);
                    record(&mut l.e2e, t.e2e);
                    if let Some(tpot) = t.tpot() {
                        record(&mut l.tpot, tpot);
                    }
                    for &gap in &t.itl {
                        record(&mut l.itl, gap);
                    }
                    l.output_tokens += u64::from(t.output_tokens);
                }
                if o.send_delay.is_some() {
                    record(&mut self.intended_ttft, t.ttft + delay);
                    record(&mut self.intended_e2e, t.e2e + delay);
                }
                self.completion_tokens += u64::from(t.output_tokens);
                self.itl_gaps += t.itl.len() as u64;
                self.itl_gaps_in_one_read += t.itl.iter().filter(|&&gap| gap == 0.0).count() as u64;
                match t.prompt_tokens {
                    Some(p) => self.prompt_tokens += u64::from(p),
                    None => self.without_usage += 1,
                }
                let ok_ttft = self.sla.0.is_none_or(|l| t.ttft * 1000.0 <= l);
                let ok_tpot = self.sla.1.is_none_or(|l| t.tpot().is_none_or(|v| v * 1000.0 <= l));
                let good = ok_ttft && ok_tpot;
                self.good += u64::from(good);
                self.stream(o.class, o.at, &t);
                let s = &mut self.seconds[sec];
                s.completed += 1;
                s.good += u64::from(good);
            }
            Err(f) => {
                self.overall.failed += 1;
                self.classes[o.class].1.failed += 1;
                let e = self.errors.entry(f.kind.name()).or_insert((0, f.message.clone()));
                e.0 += 1;
                self.seconds[sec].errors += 1;
            }
        }
        self.close_seconds_before(o.at - self.horizon);
    }

    /// Summarises the TTFT samples of every open second that ends before `t`.
    fn close_seconds_before(&mut self, t: f64) {
        while let Some(entry) = self.open_ttft.first_entry() {
            if (*entry.key() + 1) as f64 > t {
                break;
            }
            let (sec, mut samples) = entry.remove_entry();
            samples.sort_by(f64::total_cmp);
            if let Some(s) = self.seconds.get_mut(sec) {
                s.ttft_p50_ms = nearest_rank(&samples, 50.0);
                s.ttft_p99_ms = nearest_rank(&samples, 99.0);
            }
        }
    }

    /// Live figures for the progress line: (completed, errors, TTFT p99 ms).
    pub fn live(&self) -> (u64, u64, Option<f64>) {
        let p99 = (!self.overall.ttft.is_empty()).then(|| self.overall.ttft.value_at_quantile(0.99) as f64 / 1000.0);
        (self.overall.requests - self.overall.failed, self.overall.failed, p99)
    }

    pub fn error_classes(&self) -> Vec<ErrorClass> {
        let mut v: Vec<ErrorClass> = self
            .errors
            .iter()
            .map(|(k, (n, s))| ErrorClass { kind: k.clone(), count: *n, sample: s.clone() })
            .collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.count));
        v
    }

    pub fn per_class(&self, ps: &[f64], window: &Window) -> IndexMap<String, ClassResult> {
        self.classes
            .iter()
            .enumerate()
            .map(|(i, (name, l))| {
                (
                    name.clone(),
                    ClassResult {
                        requests: l.requests,
                        failed: l.failed,
                        ttft_ms: percentiles(&l.ttft, ps),
                        tpot_ms: percentiles(&l.tpot, ps),
                        e2e_ms: percentiles(&l.e2e, ps),
                        output_tokens_per_sec: window.output_tokens_by_class[i] / window.seconds.max(1e-9),
                    },
                )
            })
            .collect()
    }

    /// One point per second: the requests sent, finished and failed in it, the
    /// tokens streamed in it, and the TTFT p50/p99 of the first tokens that
    /// arrived in it.
    pub fn timeseries(&mut self, in_flight: &[u64]) -> Vec<TimePoint> {
        self.close_seconds_before(f64::INFINITY);
        self.seconds
            .iter()
            .enumerate()
            .map(|(i, s)| TimePoint {
                t: (i + 1) as f64,
                started: s.started,
                completed: s.completed,
                errors: s.errors,
                output_tokens_per_sec: s.streamed,
                ttft_p50_ms: s.ttft_p50_ms,
                ttft_p99_ms: s.ttft_p99_ms,
                in_flight: in_flight.get(i).copied().unwrap_or(0),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_percentiles_are_within_a_tenth_of_a_percent() {
        let mut h = histogram();
        for ms in 1..=1000 {
            record(&mut h, ms as f64 / 1000.0);
        }
        let p = percentiles(&h, &[50.0, 99.0, 99.9]);
        assert!((p.get("p50").unwrap() - 500.0).abs() <= 0.5, "{p:?}");
        assert!((p.get("p99").unwrap() - 990.0).abs() <= 1.0, "{p:?}");
        assert!(p.0.contains_key("p99.9"));
        assert_eq!(percentiles(&histogram(), &[50.0]).get("p50"), None);
    }

    /// A request streaming at a steady 10 tokens a second from t = 0.5 s to 6.5 s,
    /// in a 4-second window: the window holds what streamed inside it, whatever the
    /// drain after it, and each second holds what streamed in that second.
    #[test]
    fn rates_count_what_streamed_inside_the_window() {
        let mut c = Collector::new(&["only".to_string()], None, None);
        let timing = crate::client::Timing {
            ttft: 0.5,
            itl: vec![0.1; 60],
            e2e: 6.5,
            output_tokens: 61,
            prompt_tokens: Some(100),
            ..Default::default()
        };
        c.add(Outcome {
            class: 0,
            sent_at: 0.0,
            at: 6.5,
            result: Ok(timing),
            send_delay: None,
            prompt_target: 100,
            output_target: 61,
        });
        let w = c.window(4.0);
        assert!((w.output_tokens - 36.0).abs() < 1.01, "chunks at 0.5 .. 3.9 s: {w:?}");
        assert_eq!(w.completed, 0.0, "it finished after the window");
        assert_eq!(w.prompt_tokens, 100.0, "its first token came inside the window");
        let series: Vec<f64> = c.timeseries(&[]).iter().map(|p| p.output_tokens_per_sec).collect();
        assert!(series[1..6].iter().all(|&v| (v - 10.0).abs() < 1.01), "a steady stream is flat: {series:?}");
        assert_eq!(c.window(10.0).completed, 1.0);
    }
}
