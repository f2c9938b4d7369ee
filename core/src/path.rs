//! `WorkPath`: a validated path inside the workspace. The core never names an OS path; a host
//! turns a `WorkPath` into a real one at the last moment, inside its root.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Why a string is not a workspace path. Every variant maps to the `invalid_path` code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// Nothing left after normalisation.
    #[error("path is empty")]
    Empty,
    /// Starts at a root or a drive.
    #[error("path {0:?} is absolute; workspace paths are relative to the workspace root")]
    Absolute(String),
    /// Contains a `..` segment.
    #[error("path {0:?} leaves the workspace with '..'")]
    ParentSegment(String),
    /// Contains a NUL or another control character.
    #[error("path {0:?} contains a control character")]
    ControlCharacter(String),
    /// Contains a backslash, which means a separator on Windows and a letter elsewhere.
    #[error("path {0:?} contains a backslash; use '/' as the separator")]
    Backslash(String),
    /// Ends with a separator, i.e. names a directory.
    #[error("path {0:?} names a directory, not a file")]
    Directory(String),
    /// Longer than [`WorkPath::MAX_LEN`] bytes.
    #[error("path is longer than {max} bytes", max = WorkPath::MAX_LEN)]
    TooLong,
}

/// A relative, `/`-separated, normalised file path that cannot leave the workspace.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkPath(String);

impl WorkPath {
    /// Longest accepted path, in bytes.
    pub const MAX_LEN: usize = 4096;

    /// Validate and normalise: `./a//b` becomes `a/b`; `..`, absolute paths, drive letters,
    /// backslashes, control characters and directory paths are refused.
    pub fn parse(raw: &str) -> Result<Self, PathError> {
        let shown = || raw.chars().take(200).collect::<String>();
        if raw.len() > Self::MAX_LEN {
            return Err(PathError::TooLong);
        }
        if raw.chars().any(char::is_control) {
            return Err(PathError::ControlCharacter(shown()));
        }
        if raw.contains('\\') {
            return Err(PathError::Backslash(shown()));
        }
        if raw.starts_with('/') || has_drive_prefix(raw) {
            return Err(PathError::Absolute(shown()));
        }
        if raw.ends_with('/') {
            return Err(PathError::Directory(shown()));
        }
        let mut segments = Vec::new();
        for segment in raw.split('/') {
            match segment {
                "" | "." => {}
                ".." => return Err(PathError::ParentSegment(shown())),
                s => segments.push(s),
            }
        }
        if segments.is_empty() {
            return Err(PathError::Empty);
        }
        Ok(Self(segments.join("/")))
    }

    /// The normalised path.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path's segments, outermost first.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// True when `self` is `prefix` or lies below it (`src` covers `src/a.rs`, not `srcx`).
    pub fn starts_with(&self, prefix: &Self) -> bool {
        self.0 == prefix.0
            || (self.0.starts_with(&prefix.0)
                && self.0.as_bytes().get(prefix.0.len()) == Some(&b'/'))
    }
}

fn has_drive_prefix(raw: &str) -> bool {
    let b = raw.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

impl fmt::Display for WorkPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for WorkPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for WorkPath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for WorkPath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn normalises_harmless_forms() {
        for (raw, want) in [
            ("a", "a"),
            ("./a/b", "a/b"),
            ("a//b/./c", "a/b/c"),
            ("é/ü.txt", "é/ü.txt"),
        ] {
            assert_eq!(
                WorkPath::parse(raw).map(|p| p.0),
                Ok(want.to_owned()),
                "{raw}"
            );
        }
    }

    #[test]
    #[allow(clippy::type_complexity)]
    fn refuses_everything_else() {
        let cases: [(&str, fn(&PathError) -> bool); 12] = [
            ("", |e| matches!(e, PathError::Empty)),
            (".", |e| matches!(e, PathError::Empty)),
            ("./", |e| matches!(e, PathError::Directory(_))),
            ("/etc/passwd", |e| matches!(e, PathError::Absolute(_))),
            ("C:/x", |e| matches!(e, PathError::Absolute(_))),
            ("../x", |e| matches!(e, PathError::ParentSegment(_))),
            ("a/../../x", |e| matches!(e, PathError::ParentSegment(_))),
            ("a/..", |e| matches!(e, PathError::ParentSegment(_))),
            ("a\\..\\x", |e| matches!(e, PathError::Backslash(_))),
            ("a\0b", |e| matches!(e, PathError::ControlCharacter(_))),
            ("a\nb", |e| matches!(e, PathError::ControlCharacter(_))),
            ("dir/", |e| matches!(e, PathError::Directory(_))),
        ];
        for (raw, check) in cases {
            let err = WorkPath::parse(raw).expect_err(raw);
            assert!(check(&err), "{raw:?} gave {err:?}");
        }
        assert_eq!(WorkPath::parse(&"a".repeat(5000)), Err(PathError::TooLong));
    }

    #[test]
    fn prefix_is_segment_aware() {
        let p = |s| WorkPath::parse(s).expect("valid");
        assert!(p("src/a.rs").starts_with(&p("src")));
        assert!(p("src").starts_with(&p("src")));
        assert!(!p("srcx/a.rs").starts_with(&p("src")));
    }
}
