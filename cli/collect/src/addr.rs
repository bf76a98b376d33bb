//! Where a collector listens, and how a peer is named in messages.

use std::fmt;
use std::path::PathBuf;

/// A listening address: `tcp://HOST:PORT` (or `HOST:PORT`) or
/// `unix:PATH`, as producers write them in `VIGIL_STREAM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Tcp(String),
    Unix(PathBuf),
}

impl Endpoint {
    pub fn parse(s: &str) -> Result<Endpoint, String> {
        if let Some(p) = s.strip_prefix("unix:") {
            if p.is_empty() {
                return Err(format!("`{s}`: unix: needs a socket path"));
            }
            return Ok(Endpoint::Unix(PathBuf::from(p)));
        }
        if s.starts_with("file:") {
            return Err(format!(
                "`{s}`: a collector listens on tcp://HOST:PORT or unix:PATH; store a file stream with --import"
            ));
        }
        let hp = s.strip_prefix("tcp://").unwrap_or(s);
        match hp.rsplit_once(':') {
            Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => {
                Ok(Endpoint::Tcp(hp.to_string()))
            }
            _ => Err(format!(
                "`{s}`: expected tcp://HOST:PORT, HOST:PORT or unix:PATH (PORT 0 picks a free port)"
            )),
        }
    }
}

impl fmt::Display for Endpoint {
    /// As a producer's `VIGIL_STREAM` names it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Tcp(hp) => write!(f, "tcp://{hp}"),
            Endpoint::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(
            Endpoint::parse("tcp://127.0.0.1:7070").unwrap(),
            Endpoint::Tcp("127.0.0.1:7070".into())
        );
        assert_eq!(
            Endpoint::parse("localhost:0").unwrap(),
            Endpoint::Tcp("localhost:0".into())
        );
        assert_eq!(
            Endpoint::parse("unix:/tmp/s").unwrap(),
            Endpoint::Unix("/tmp/s".into())
        );
        assert_eq!(
            Endpoint::parse("[::1]:9").unwrap().to_string(),
            "tcp://[::1]:9"
        );
        for bad in ["7070", "tcp://:1", "host:99999", "unix:", "file:/x", "tcp://h:"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
    }
}
