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
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
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
        let host = self.host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        let v4 = host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_link_local());
        let v6 = host.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| (ip.segments()[0] & 0xffc0) == 0xfe80);
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

#[cfg(test)]
mod tests {
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
