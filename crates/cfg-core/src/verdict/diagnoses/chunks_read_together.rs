use super::Found;
use crate::verdict::Facts;

declare_diagnosis! {
    /// # Many tokens arrived in one read with the token before: ITL and TPOT understate
    ///
    /// **What:** 5% or more of the gaps between content chunks were inside one read
    /// (ITL 0), over at least a hundred gaps.
    ///
    /// **Why:** either the runner fell behind (busy, or sharing its CPU with the
    /// server), or the server sends several tokens per write; either way the
    /// per-token gaps are not what the stream looked like.
    ///
    /// **Advice:** give the runner cores of its own (`--threads`, `--shard`); if
    /// the server batches its writes, TPOT is still right on average.
    pub static DIAGNOSIS = { code: "chunks-read-together", severity: Warning, title: "Many tokens arrived in one read with the token before: ITL and TPOT understate", check }
}

fn check(f: &Facts<'_>) -> Option<Found> {
    let tokens = &f.result.tokens;
    // Below a hundred gaps the share says little.
    let together = tokens.itl_gaps_in_one_read as f64 / tokens.itl_gaps.max(1) as f64;
    (tokens.itl_gaps >= 100 && together >= 0.05).then(|| {
        Found::new(
            format!(
                "{:.0}% of the {} gaps between content chunks were inside one read (ITL 0)",
                together * 100.0,
                tokens.itl_gaps
            ),
            &[
                "if the runner shares its CPU with the server or is busy, give it cores of its own (--threads, --shard)",
                "if the server sends several tokens per write (a stream interval, a buffering gateway), \
                 the gaps are the server's and TPOT is still right on average",
            ],
        )
    })
}
