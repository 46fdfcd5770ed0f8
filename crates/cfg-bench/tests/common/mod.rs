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

/// A fresh scratch folder for one test, named after it and this process.
#[allow(dead_code)] // not every test binary that shares this module uses every helper
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cfg-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A port on 127.0.0.1 that nothing listens on right now.
#[allow(dead_code)]
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
