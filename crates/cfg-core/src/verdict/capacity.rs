//! The capacity plan: instances = ceil(target x redundancy / per-instance
//! throughput), and whether P99 TTFT holds at that load.

use super::Facts;
use crate::model::CapacityPlan;

pub(super) fn plan(f: &Facts<'_>) -> Option<CapacityPlan> {
    let t = f.settings.target.as_ref()?;
    // requests_per_sec already counts successful requests only.
    let per = f.result.throughput.requests_per_sec;
    if per <= 0.0 {
        return None;
    }
    let instances = (t.qps * t.redundancy / per).ceil().max(1.0) as u64;
    let load = t.qps / instances as f64;
    let holds = f.sla.ttft_p99_ms.zip(f.ttft_p99).map(|(limit, v)| v <= limit && load <= per);
    Some(CapacityPlan {
        target_qps: t.qps,
        redundancy: t.redundancy,
        per_instance_requests_per_sec: per,
        instances,
        load_per_instance: load,
        ttft_p99_holds: holds,
        explanation: format!(
            "ceil({} qps x {} / {per:.2} rps per instance) = {instances}; each carries {load:.2} rps at the target, at most the {per:.2} rps measured here{}",
            t.qps,
            t.redundancy,
            match holds {
                Some(true) => ", where P99 TTFT was inside the SLA",
                Some(false) => ", but P99 TTFT was already over the SLA at that load: fix latency first",
                None => "",
            }
        ),
    })
}
