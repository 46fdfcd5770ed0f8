//! Shared by the process tests.

/// A child process that is killed when the test ends, also when an assert fails
/// first: no simulator or TLS server outlives its test.
pub struct Reap(pub std::process::Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
