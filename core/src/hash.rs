//! Content hashes: lowercase hex SHA-256 of the raw bytes. Never of decoded text, so encodings,
//! BOMs and line endings can never produce false conflicts or false matches.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;

/// SHA-256 of a file's exact bytes, as 64 lowercase hex digits.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContentHash(String);

/// The word printed where a file is absent and a hash is expected.
pub const MISSING: &str = "missing";

impl ContentHash {
    /// Hash raw bytes.
    pub fn of(bytes: &[u8]) -> Self {
        let digest = Sha256::digest(bytes);
        let mut hex = String::with_capacity(64);
        for b in digest.iter() {
            use std::fmt::Write as _;
            write!(hex, "{b:02x}").expect("writing to a String cannot fail");
        }
        Self(hex)
    }

    /// Parse 64 lowercase hex digits.
    pub fn parse(s: &str) -> Option<Self> {
        (s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then(|| Self(s.to_owned()))
    }

    /// The hex string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 hex digits, for human output.
    pub fn short(&self) -> &str {
        &self.0[..12]
    }
}

/// Display form of an optional hash: the hex, or `missing` for an absent file.
pub fn display_opt(hash: Option<&ContentHash>) -> &str {
    hash.map_or(MISSING, ContentHash::as_str)
}

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.short())
    }
}

impl Serialize for ContentHash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ContentHash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not a sha-256 hex digest")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn known_vectors() {
        assert_eq!(
            ContentHash::of(b"").as_str(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            ContentHash::of(b"abc").as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn bytes_not_text() {
        assert_ne!(ContentHash::of(b"a\r\n"), ContentHash::of(b"a\n"));
        assert_ne!(
            ContentHash::of(&[0xff, 0xfe]),
            ContentHash::of(&[0xef, 0xbf, 0xbd])
        );
    }

    #[test]
    fn parse_rejects_non_hex() {
        assert!(ContentHash::parse(&"A".repeat(64)).is_none());
        assert!(ContentHash::parse("abc").is_none());
        assert!(ContentHash::parse(ContentHash::of(b"x").as_str()).is_some());
    }
}
