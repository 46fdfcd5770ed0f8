//! Just enough URL parsing for the rules: scheme, host, port, path. (The
//! `url` crate would pull IDNA tables into the browser bundle for this.)

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    /// `host[:port]` as written, without any `user:password@` before it: this is
    /// what messages and derived URLs show, so a credential never travels with it.
    pub authority: String,
    pub host: String,
    pub port: Option<u16>,
    pub path: String,
}

impl Url {
    pub fn parse(text: &str) -> Option<Url> {
        let (scheme, rest) = text.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        // A backslash ends the host as a slash does: HTTP clients (WHATWG URLs)
        // read `http://a\@b/` as host `a`, so the rules must too.
        let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let path = rest[end..].split(['?', '#']).next().unwrap_or("").to_string();
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
        let authority = host_port;
        let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
            let (h, after) = v6.split_once(']')?;
            (h.to_string(), after.strip_prefix(':').and_then(|p| p.parse().ok()))
        } else {
            match host_port.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), Some(p.parse().ok()?)),
                None => (host_port.to_string(), None),
            }
        };
        if host.is_empty() {
            return None;
        }
        Some(Url { scheme, authority: authority.to_string(), host: host.to_ascii_lowercase(), port, path })
    }

    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(if self.scheme == "https" { 443 } else { 80 })
    }

    /// Whether the host is this machine (traffic never leaves it).
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self.host.starts_with("127.")
            || self.host == "::1"
            || self.host.ends_with(".localhost")
    }

    /// Whether the host is a link-local address (169.254.0.0/16, fe80::/10) or
    /// a cloud metadata service's name: where instance credentials are served,
    /// and where no load test has a reason to send a key.
    pub fn is_link_local_or_metadata(&self) -> bool {
        let host = self.host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.').to_ascii_lowercase();
        let v4 = ipv4_as_clients_read_it(&host).is_some_and(|ip| ip.is_link_local());
        let v6 = host.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| {
            (ip.segments()[0] & 0xffc0) == 0xfe80 || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_link_local())
        });
        v4 || v6
            || matches!(
                host.as_str(),
                "metadata.google.internal" | "metadata" | "instance-data" | "instance-data.ec2.internal"
            )
    }

    /// Whether a URL carries credentials in its user-info part.
    pub fn has_userinfo(text: &str) -> bool {
        text.split_once("://")
            .is_some_and(|(_, rest)| rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())].contains('@'))
    }
}

/// An IPv4 host as HTTP clients read it (WHATWG URL): one to four parts,
/// each decimal, hex (`0x`) or octal (leading `0`), the last filling the
/// remaining bytes, so `2852039166`, `0xa9fea9fe` and `169.254.43518` are all
/// 169.254.169.254.
fn ipv4_as_clients_read_it(host: &str) -> Option<std::net::Ipv4Addr> {
    let parts: Vec<&str> = host.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = parts
        .iter()
        .map(|p| {
            if let Some(hex) = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X")) {
                if hex.is_empty() { Some(0) } else { u64::from_str_radix(hex, 16).ok() }
            } else if p.len() > 1 && p.starts_with('0') {
                u64::from_str_radix(&p[1..], 8).ok()
            } else if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                p.parse().ok()
            } else {
                None
            }
        })
        .collect::<Option<_>>()?;
    let (last, first) = numbers.split_last()?;
    if first.iter().any(|&n| n > 255) || *last >= 1u64 << (8 * (5 - numbers.len())) {
        return None;
    }
    let mut value = *last;
    for (i, &n) in first.iter().enumerate() {
        value += n << (8 * (3 - i));
    }
    u32::try_from(value).ok().map(std::net::Ipv4Addr::from)
}

#[cfg(test)]
mod tests {
    #[test]
    fn metadata_addresses_are_found_in_every_spelling_clients_accept() {
        for url in [
            "http://169.254.169.254/latest",
            "http://2852039166/",
            "http://0xa9fea9fe/",
            "http://169.254.43518/",
            "http://0251.0376.0251.0376/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fe80::1]/",
            "http://metadata.google.internal./",
            "http://169.254.169.254\\@evil.example/",
        ] {
            assert!(Url::parse(url).unwrap().is_link_local_or_metadata(), "{url}");
        }
        for url in ["http://10.0.0.1/", "http://gateway.example/", "http://1.2.3.4/", "http://4294967296/"] {
            assert!(!Url::parse(url).unwrap().is_link_local_or_metadata(), "{url}");
        }
    }

    use super::*;

    #[test]
    fn parses_the_usual_shapes() {
        let u = Url::parse("http://127.0.0.1:8000/v1/chat/completions").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("127.0.0.1", Some(8000), "/v1/chat/completions"));
        assert!(u.is_loopback());
        let u = Url::parse("https://Gateway.example.com/v1/completions?x=1").unwrap();
        assert_eq!((u.host.as_str(), u.port_or_default()), ("gateway.example.com", 443));
        assert_eq!(Url::parse("http://[::1]:9000/").unwrap().host, "::1");
        assert!(Url::parse("not a url").is_none());
        assert!(Url::parse("http://:80/").is_none());
        assert!(Url::has_userinfo("https://user:pw@host/x"));
        // A password never reaches the parts messages are built from.
        let u = Url::parse("http://admin:PASSWORD@host:8000/v1/completions").unwrap();
        assert_eq!((u.authority.as_str(), u.host.as_str(), u.port), ("host:8000", "host", Some(8000)));
    }
}
