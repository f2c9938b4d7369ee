//! Who may talk to the server, decided from the head alone (before any body byte is read or
//! any store opened): a `Host` that is a loopback name or a configured one (a page whose own
//! name was rebound to 127.0.0.1 still sends its name), an `Origin`, when a browser sends one,
//! that is configured (so no web page drives the server unless it is allowed to), the token on
//! `/rpc`, compared in constant time, and a JSON `Content-Type` on `/rpc` (which a page cannot
//! send across origins without a preflight this server only grants to configured origins).

use super::reply::Refusal;
use super::request::Head;
use rewind_core::ErrorKind;
use std::net::{Ipv4Addr, Ipv6Addr};
use subtle::ConstantTimeEq as _;

/// The server's rules for one run.
#[derive(Debug)]
pub(super) struct Guard {
    /// The port bound: a `Host` with a port must name it.
    pub(super) port: u16,
    /// Configured `Host`s: a name (any port the server may be reached at: none or the bound
    /// one) or `name:port`.
    pub(super) hosts: Vec<String>,
    /// Configured origins, as browsers send them (`http://localhost:5173`).
    pub(super) origins: Vec<String>,
    pub(super) token: String,
    /// Where the token is, for the 401's message.
    pub(super) token_hint: String,
}

/// `host[:port]` split, the name lower case, brackets kept on an IPv6 literal.
fn split_host(value: &str) -> Option<(String, Option<u16>)> {
    let (name, port) = if value.starts_with('[') {
        let end = value.find(']')?;
        let (name, rest) = value.split_at(end + 1);
        match rest {
            "" => (name, None),
            rest => (name, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match value.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (value, None),
        }
    };
    if name.is_empty() {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((name.to_ascii_lowercase(), port))
}

fn loopback_name(name: &str) -> bool {
    if name == "localhost" {
        return true;
    }
    if let Some(v6) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
    }
    name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// A configured `Host` or origin that could never match is a mistake to say at start, not a
/// door that silently stays shut.
pub(super) fn check_configured(hosts: &[String], origins: &[String]) -> Result<(), String> {
    if let Some(h) = hosts.iter().find(|h| split_host(h).is_none()) {
        return Err(format!("--allow-host {h:?}: a host is NAME or NAME:PORT"));
    }
    let origin_ok = |o: &str| {
        o.split_once("://").is_some_and(|(scheme, rest)| {
            !scheme.is_empty() && !rest.contains('/') && split_host(rest).is_some()
        })
    };
    if let Some(o) = origins.iter().find(|o| !origin_ok(o)) {
        return Err(format!(
            "--allow-origin {o:?}: an origin is scheme://host[:port], as browsers send it (no \
             path, no trailing /)"
        ));
    }
    Ok(())
}

impl Guard {
    fn host_allowed(&self, value: &str) -> bool {
        let Some((name, port)) = split_host(value) else {
            return false;
        };
        let ours = port.is_none_or(|p| p == self.port);
        if loopback_name(&name) {
            return ours;
        }
        self.hosts
            .iter()
            .filter_map(|h| split_host(h))
            .any(|(n, p)| {
                n == name
                    && match p {
                        Some(p) => port == Some(p),
                        None => ours,
                    }
            })
    }

    /// The checks every request passes, whatever its path: its `Host` and `Origin`. The
    /// allowed origin is returned, for the CORS headers of the answer.
    pub(super) fn admit<'h>(&self, head: &'h Head) -> Result<Option<&'h str>, Refusal> {
        let Some(host) = head.single("host")? else {
            return Err(Refusal::bad("a Host header is required"));
        };
        if !self.host_allowed(host) {
            return Err(Refusal::new(
                403,
                ErrorKind::Untrusted,
                format!(
                    "Host {host:?} is not this server's: it answers localhost, 127.0.0.1 and \
                     [::1] (add a name with --allow-host or \"hosts\" in --config)"
                ),
            ));
        }
        let origin = head.single("origin")?;
        if let Some(origin) = origin
            && !self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
        {
            return Err(Refusal::new(
                403,
                ErrorKind::Untrusted,
                format!(
                    "requests from origin {origin:?} are refused (allow one with \
                     --allow-origin or \"origins\" in --config)"
                ),
            ));
        }
        Ok(origin)
    }

    /// The token and the media type of a `POST /rpc`.
    pub(super) fn authorise_rpc(&self, head: &Head) -> Result<(), Refusal> {
        let unauthorised = |message: String| {
            Refusal::new(401, ErrorKind::Untrusted, message)
                .with_header("WWW-Authenticate", "Bearer")
        };
        let Some(given) = head.single("authorization")? else {
            return Err(unauthorised(format!(
                "a token is required: send Authorization: Bearer <token> ({})",
                self.token_hint
            )));
        };
        let given = match given.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") => t.trim(),
            // `Bearer` and nothing: an empty token, wrong like any other.
            None if given.eq_ignore_ascii_case("bearer") => "",
            _ => {
                return Err(unauthorised(
                    "the Authorization header must be Bearer <token>".into(),
                ));
            }
        };
        // Constant time over the bytes (a length that differs is told at once: the length of
        // a token is no secret worth the trouble, a generated one is always 64 characters).
        if !bool::from(given.as_bytes().ct_eq(self.token.as_bytes())) {
            return Err(unauthorised(format!(
                "the token is wrong ({})",
                self.token_hint
            )));
        }
        let media = head
            .single("content-type")?
            .map(|v| v.split(';').next().unwrap_or("").trim());
        if !media.is_some_and(|m| m.eq_ignore_ascii_case("application/json")) {
            return Err(Refusal::new(
                415,
                ErrorKind::InvalidInput,
                format!(
                    "POST /rpc takes Content-Type: application/json, not {}",
                    media.unwrap_or("none")
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(hosts: &[&str]) -> Guard {
        Guard {
            port: 8080,
            hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
            origins: Vec::new(),
            token: "t".into(),
            token_hint: String::new(),
        }
    }

    #[test]
    fn loopback_names_with_our_port_or_none() {
        let g = guard(&[]);
        for ok in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.3.4.5:8080",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(g.host_allowed(ok), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8080",
            "localhost:8081",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "10.0.0.1:8080",
            "[::2]:8080",
            "[::1]8080",
            "localhost:",
            "localhost:80a",
            ":8080",
            "",
            "0.0.0.0",
        ] {
            assert!(!g.host_allowed(refused), "{refused}");
        }
    }

    #[test]
    fn configured_names_are_checked() {
        let ok = |h: &[&str], o: &[&str]| {
            let v = |x: &[&str]| x.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
            check_configured(&v(h), &v(o)).is_ok()
        };
        assert!(ok(
            &["dev.box", "dev.box:1", "[::1]:2"],
            &["http://a.example:5173"]
        ));
        assert!(!ok(&["dev.box:"], &[]));
        assert!(!ok(&[], &["http://a.example/"]));
        assert!(!ok(&[], &["a.example"]));
        assert!(!ok(&[], &["http://"]));
    }

    #[test]
    fn configured_hosts() {
        let g = guard(&["dev.box", "Proxy.Example:443"]);
        assert!(g.host_allowed("dev.box"));
        assert!(g.host_allowed("DEV.box:8080"));
        assert!(!g.host_allowed("dev.box:9000"));
        assert!(g.host_allowed("proxy.example:443"));
        assert!(!g.host_allowed("proxy.example"));
        assert!(!g.host_allowed("box"));
    }
}
