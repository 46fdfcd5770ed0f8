//! A server on 127.0.0.1 shaped like the Hub, for tests of `--fetch` in this
//! crate and in the tools that use it (feature `test-hub`): no test reaches the
//! internet.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// A server on 127.0.0.1 that answers like the Hub: /ORG/NAME/resolve/main/FILE,
/// with the revision in x-repo-commit; records the Authorization header it saw.
pub fn hub(files: Vec<(&'static str, &'static str)>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut auth = String::new();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
                if h.to_ascii_lowercase().starts_with("authorization:") {
                    auth = h.trim().to_string();
                }
            }
            log.lock().unwrap().push(format!("{path} {auth}"));
            let body = files.iter().find(|(p, _)| path == *p).map(|(_, b)| *b);
            let mut out = stream;
            let reply = match body {
                Some(b) => format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nx-repo-commit: c0ffee42\r\nconnection: close\r\n\r\n{b}",
                    b.len()
                ),
                None => "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string(),
            };
            let _ = out.write_all(reply.as_bytes());
        }
    });
    (format!("http://{addr}"), seen)
}
