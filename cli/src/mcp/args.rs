//! A tool's arguments, checked against its input schema's properties: each wrong one is named
//! (`arguments.turn`), so the model can correct the call.

use serde_json::{Map, Value};

/// What is wrong with one argument.
#[derive(Debug)]
pub(super) struct ArgError {
    pub(super) field: String,
    pub(super) why: String,
}

impl ArgError {
    pub(super) fn new(key: &str, why: impl Into<String>) -> Self {
        Self {
            field: format!("arguments.{key}"),
            why: why.into(),
        }
    }
}

/// The arguments of one call.
pub(super) struct ToolArgs<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> ToolArgs<'a> {
    /// `arguments` of the tool `name`: an unknown member is an error (a misspelt `confirm` must
    /// not pass unnoticed).
    pub(super) fn new(name: &str, arguments: &'a Value) -> Result<Self, ArgError> {
        let map = arguments.as_object().unwrap_or_else(|| Self::none());
        let tools = super::catalogue::tools();
        let allowed = tools
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == name))
            .and_then(|t| t["inputSchema"]["properties"].as_object().cloned())
            .unwrap_or_default();
        if let Some(k) = map.keys().find(|k| !allowed.contains_key(*k)) {
            let names: Vec<&String> = allowed.keys().collect();
            return Err(ArgError::new(
                k,
                format!("is not an argument of {name} (its arguments: {names:?})"),
            ));
        }
        Ok(Self { map })
    }

    fn none() -> &'static Map<String, Value> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        EMPTY.get_or_init(Map::new)
    }

    fn present(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A non-blank string, if given.
    pub(super) fn string(&self, key: &str) -> Result<Option<String>, ArgError> {
        match self.present(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
            Some(Value::String(_)) => Err(ArgError::new(key, "must not be empty")),
            Some(_) => Err(ArgError::new(key, "must be a string")),
        }
    }

    /// One of `options`, if given.
    pub(super) fn choice(&self, key: &str, options: &[&str]) -> Result<Option<String>, ArgError> {
        let s = self.string(key)?;
        match s {
            Some(s) if !options.contains(&s.as_str()) => Err(ArgError::new(
                key,
                format!("must be one of {options:?}, not {s:?}"),
            )),
            s => Ok(s),
        }
    }

    pub(super) fn boolean(&self, key: &str) -> Result<Option<bool>, ArgError> {
        match self.present(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ArgError::new(key, "must be true or false")),
        }
    }

    /// An integer in `min..=max`, if given.
    pub(super) fn integer(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>, ArgError> {
        match self.present(key) {
            None => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(ArgError::new(
                    key,
                    format!("must be an integer from {min} to {max}"),
                )),
            },
        }
    }

    /// A list of non-blank strings (absent: empty).
    pub(super) fn strings(&self, key: &str) -> Result<Vec<String>, ArgError> {
        match self.present(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v.as_str().map(str::trim) {
                    Some(s) if !s.is_empty() => Ok(s.to_owned()),
                    _ => Err(ArgError::new(key, "must be an array of non-empty strings")),
                })
                .collect(),
            Some(_) => Err(ArgError::new(key, "must be an array of strings")),
        }
    }
}

/// `--flag=value` for each given value: a value can never be read as another option.
pub(super) fn flag(argv: &mut Vec<String>, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        argv.push(format!("--{name}={v}"));
    }
}

/// The session, last, after `--`: positional, and never an option whatever it holds.
pub(super) fn session_last(argv: &mut Vec<String>, session: Option<&str>) {
    if let Some(s) = session {
        argv.push("--".to_owned());
        argv.push(s.to_owned());
    }
}
