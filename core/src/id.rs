//! Prefixed string ids. Every id is a newtype over its wire string (`ses_…`, `msg_…`), made by one
//! macro so parsing, display and serde behave the same for all of them. Ids are minted by the
//! engine from an [`IdSource`](crate::ports::IdSource) suffix; the core never invents randomness.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Why a string is not an id of the expected kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{value:?} is not a valid {what} id: expected `{prefix}` followed by letters, digits, '-' or '_'"
)]
pub struct IdError {
    /// The rejected text (truncated to 80 characters).
    pub value: String,
    /// Human name of the id kind, e.g. `session`.
    pub what: &'static str,
    /// The required prefix, e.g. `ses_`.
    pub prefix: &'static str,
}

/// Ids the engine can mint from an `IdSource` suffix.
pub trait Mint: Sized {
    /// Prefix the suffix.
    fn mint(suffix: &str) -> Self;
}

fn valid_suffix(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 120
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

macro_rules! id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// The prefix every id of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            /// Parse and validate a wire id.
            pub fn parse(s: &str) -> Result<Self, IdError> {
                Self::check(s).map(|()| Self(s.to_owned()))
            }

            /// [`Self::parse`] of an owned string, kept without a copy.
            fn parse_owned(s: String) -> Result<Self, IdError> {
                Self::check(&s).map(|()| Self(s))
            }

            fn check(s: &str) -> Result<(), IdError> {
                match s.strip_prefix($prefix) {
                    Some(rest) if valid_suffix(rest) => Ok(()),
                    _ => Err(IdError {
                        value: s.chars().take(80).collect(),
                        what: $what,
                        prefix: $prefix,
                    }),
                }
            }

            /// The wire string.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Mint for $name {
            fn mint(suffix: &str) -> Self {
                Self(format!("{}{}", $prefix, suffix))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, IdError> {
                Self::parse(s)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                // One allocation per id, not two (a `String`, then its copy): every row of a
                // whole-session read holds several ids.
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        // What `String`'s visitor says, so a wrong type reads as before.
                        f.write_str("a string")
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        $name::parse(s).map_err(E::custom)
                    }
                    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<$name, E> {
                        $name::parse_owned(s).map_err(E::custom)
                    }
                    fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<$name, E> {
                        // As `String` does: bytes are accepted when they are UTF-8.
                        match std::str::from_utf8(b) {
                            Ok(s) => $name::parse(s).map_err(E::custom),
                            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(b), &self)),
                        }
                    }
                }
                d.deserialize_string(V)
            }
        }
    };
}

id!(
    /// A session (interactive, fork or side chat).
    SessionId, "ses_", "session"
);
id!(
    /// A message of a session's transcript.
    MessageId, "msg_", "message"
);
id!(
    /// A part of a message.
    PartId, "prt_", "part"
);
id!(
    /// A turn: one prompt and everything it produced.
    TurnId, "trn_", "turn"
);
id!(
    /// A checkpoint: one tool call's recorded file changes.
    CheckpointId, "ckp_", "checkpoint"
);
id!(
    /// An entry of the operation log (rewind, undo, recovery, …).
    OperationId, "op_", "operation"
);
id!(
    /// A caller-chosen command id that makes forks and side chats idempotent.
    CommandId, "cmd_", "command"
);
id!(
    /// A durable apply journal.
    JournalId, "jnl_", "journal"
);
id!(
    /// The trace a session and its forks share.
    TraceId, "trc_", "trace"
);

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn parse_checks_prefix_and_charset() {
        assert_eq!(
            SessionId::parse("ses_abc-1_2").map(|s| s.to_string()),
            Ok("ses_abc-1_2".into())
        );
        for bad in [
            "",
            "ses_",
            "msg_abc",
            "ses_a b",
            "ses_a/b",
            "ses_\u{e9}",
            "SES_abc",
        ] {
            let err = SessionId::parse(bad).expect_err(bad);
            assert_eq!(err.prefix, "ses_");
        }
        assert!(SessionId::parse(&format!("ses_{}", "a".repeat(121))).is_err());
    }

    #[test]
    fn serde_round_trips_and_validates() {
        let id = TurnId::parse("trn_7").expect("valid");
        let json = serde_json::to_string(&id).expect("serialize");
        assert_eq!(json, "\"trn_7\"");
        assert_eq!(
            serde_json::from_str::<TurnId>(&json).expect("deserialize"),
            id
        );
        assert!(serde_json::from_str::<TurnId>("\"msg_7\"").is_err());
    }
}
