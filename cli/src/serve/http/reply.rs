//! What the server sends: a status, a JSON body and the few headers every answer has. Every
//! answer but a 200 (or a 204) is a JSON-RPC error object with the stable rewind code in
//! `error.data.code`, so a client reads one shape whatever refused it: the transport here or
//! the engine behind it.

use rewind_core::ErrorKind;
use serde_json::json;

/// JSON-RPC "Invalid Request": the request as HTTP carried it cannot be served.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC "Internal error": the server failed.
const INTERNAL: i64 = -32603;

/// An answer other than a result: the HTTP status, the stable code and what to tell the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refusal {
    pub(super) status: u16,
    pub(super) kind: ErrorKind,
    pub(super) message: String,
    /// An extra header the status calls for (`Allow` on a 405, `WWW-Authenticate` on a 401).
    pub(super) header: Option<(&'static str, &'static str)>,
}

impl Refusal {
    pub(super) fn new(status: u16, kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            message: message.into(),
            header: None,
        }
    }

    /// A malformed request (400, `invalid_input`).
    pub(super) fn bad(message: impl Into<String>) -> Self {
        Self::new(400, ErrorKind::InvalidInput, message)
    }

    #[must_use]
    pub(super) fn with_header(mut self, name: &'static str, value: &'static str) -> Self {
        self.header = Some((name, value));
        self
    }

    /// The JSON-RPC error code for the status: refusals of the request's shape are "Invalid
    /// Request", a failure of the server "Internal error", the rest (authentication, refused
    /// names, timeouts, a server that is stopping) the server-error code engine refusals use.
    fn rpc_code(&self) -> i64 {
        match self.status {
            400 | 404 | 405 | 411 | 413 | 415 | 417 | 431 | 501 | 505 => INVALID_REQUEST,
            500 => INTERNAL,
            _ => super::super::jsonrpc::ENGINE,
        }
    }

    /// The JSON-RPC error object (the id is null: no request was read).
    pub(super) fn body(&self) -> String {
        json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": self.rpc_code(),
                "message": self.message,
                "data": { "code": self.kind.as_str() },
            },
        })
        .to_string()
    }
}

/// One answer, ready to be written.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) status: u16,
    /// The JSON text (empty for a 204).
    pub(super) body: String,
    pub(super) headers: Vec<(&'static str, String)>,
}

impl Reply {
    pub(super) fn json(status: u16, body: String) -> Self {
        Self {
            status,
            body,
            headers: Vec::new(),
        }
    }

    pub(super) fn refused(r: &Refusal) -> Self {
        let mut reply = Self::json(r.status, r.body());
        if let Some((name, value)) = r.header {
            reply.headers.push((name, value.to_owned()));
        }
        reply
    }

    /// The bytes on the wire. Always a Content-Length (the whole answer is in memory anyway,
    /// and the simplest clients need not read chunked bodies), except on a 204, which has none.
    pub(super) fn to_bytes(&self, keep_alive: bool) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        if self.status != 204 {
            head.push_str("Content-Type: application/json\r\n");
            head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        }
        // Nothing here is for a cache or for a browser to guess the type of.
        head.push_str("Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n");
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(if keep_alive {
            "Connection: keep-alive\r\n\r\n"
        } else {
            "Connection: close\r\n\r\n"
        });
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(self.body.as_bytes());
        bytes
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        417 => "Expectation Failed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}
