//! Shell capture over a JS workspace: the host's optional `list()` and `stat(path)` as the
//! core's `Scan` port. Entries cross as `{ path, size, mtimeMs, mode?, ctimeMs?, ino?, kind? }`
//! (the names of Node's `fs.Stats`, so a Node host can pass its numbers straight through).
//!
//! A path the core would refuse is not an error: the entry goes to `unlisted` as
//! `invalid_path`, as a native walker does with a name that is not UTF-8. An entry of the wrong
//! shape is a host error naming the entry, raised before anything is read or written.

use super::{JsWorkspace, Thrown};
use crate::convert;
use rewind_core::error::HostError;
use rewind_core::path::WorkPath;
use rewind_core::ports::{EntryKind, Listing, Scan, ScanEntry, Stat, Unlisted};
use std::collections::HashMap;
use wasm_bindgen::prelude::*;

/// Nanoseconds from a JS millisecond time. Node's `mtimeMs` carries a fraction below the
/// millisecond; rounding keeps the same input mapping to the same nanoseconds on every walk,
/// which is all a stat comparison needs. `as` saturates, so no input can panic.
#[allow(clippy::cast_possible_truncation)]
fn ms_to_ns(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

/// The host clock now, in nanoseconds: file times come from the same wall clock (`Date.now()`),
/// which is what the racy-read check compares them with.
fn now_ns() -> i64 {
    ms_to_ns(js_sys::Date::now())
}

/// Where an entry came from, for messages.
struct At<'a> {
    what: &'a str,
    index: Option<usize>,
}

impl At<'_> {
    fn bad(&self, why: impl std::fmt::Display) -> HostError {
        match self.index {
            Some(i) => HostError::io(format!(
                "{} returned a bad entry at index {i}: {why}",
                self.what
            )),
            None => HostError::io(format!("{} returned a bad entry: {why}", self.what)),
        }
    }

    fn object(&self, obj: &JsValue) -> Result<(), HostError> {
        match obj.is_object() && !js_sys::Array::is_array(obj) {
            true => Ok(()),
            false => Err(self.bad(format!(
                "expected an object, got {}",
                convert::type_name(obj)
            ))),
        }
    }

    fn field(&self, obj: &JsValue, key: &str) -> JsValue {
        js_sys::Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// A finite number, or `None` when absent (`undefined` or `null`) and allowed to be.
    fn number(&self, obj: &JsValue, key: &str, required: bool) -> Result<Option<f64>, HostError> {
        let v = self.field(obj, key);
        if v.is_undefined() || v.is_null() {
            return match required {
                true => Err(self.bad(format!("{key} is missing"))),
                false => Ok(None),
            };
        }
        match v.as_f64() {
            Some(n) if n.is_finite() => Ok(Some(n)),
            _ => Err(self.bad(format!(
                "{key} must be a finite number, not {}",
                convert::type_name(&v)
            ))),
        }
    }

    /// A whole number in `0..=max`.
    fn whole(
        &self,
        obj: &JsValue,
        key: &str,
        required: bool,
        max: f64,
    ) -> Result<Option<u64>, HostError> {
        let Some(n) = self.number(obj, key, required)? else {
            return Ok(None);
        };
        if n.fract() != 0.0 || !(0.0..=max).contains(&n) {
            return Err(self.bad(format!(
                "{key} must be a whole number from 0 to {max}, not {n}"
            )));
        }
        // In range and whole: the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(Some(n as u64))
    }

    /// `ino`: a whole number, or a bigint (Node's `{ bigint: true }` stats), or absent.
    fn inode(&self, obj: &JsValue) -> Result<Option<u64>, HostError> {
        let v = self.field(obj, "ino");
        if v.is_bigint() {
            return u64::try_from(v)
                .map(Some)
                .map_err(|_| self.bad("ino must fit in 64 bits"));
        }
        // 2^53: past it a JS number no longer names one inode.
        self.whole(obj, "ino", false, 9_007_199_254_740_992.0)
    }

    fn kind(&self, obj: &JsValue) -> Result<EntryKind, HostError> {
        let v = self.field(obj, "kind");
        if v.is_undefined() || v.is_null() {
            return Ok(EntryKind::File);
        }
        match v.as_string().as_deref() {
            Some("file") => Ok(EntryKind::File),
            Some("symlink") => Ok(EntryKind::Symlink),
            Some("dir") => Ok(EntryKind::Dir),
            Some("other") => Ok(EntryKind::Other),
            Some(s) => Err(self.bad(format!(
                "kind must be 'file', 'dir', 'symlink' or 'other', not {s:?}"
            ))),
            None => Err(self.bad(format!(
                "kind must be a string, not {}",
                convert::type_name(&v)
            ))),
        }
    }

    /// The stat data of an entry object.
    fn stat(&self, obj: &JsValue) -> Result<(EntryKind, Stat), HostError> {
        self.object(obj)?;
        let size = self
            .whole(obj, "size", true, 9_007_199_254_740_992.0)?
            .unwrap_or_default();
        let mtime_ns = self.number(obj, "mtimeMs", true)?.map_or(0, ms_to_ns);
        let ctime_ns = self.number(obj, "ctimeMs", false)?.map(ms_to_ns);
        // The permission bits only: `fs.Stats.mode` also carries the file type.
        #[allow(clippy::cast_possible_truncation)]
        let mode = self
            .whole(obj, "mode", false, f64::from(u32::MAX))?
            .map(|m| m as u32 & 0o7777);
        let stat = Stat {
            size,
            mtime_ns,
            ctime_ns,
            inode: self.inode(obj)?,
            mode,
        };
        Ok((self.kind(obj)?, stat))
    }
}

impl JsWorkspace {
    /// Whether the host can list files: without `list()` there is no shell capture.
    pub(crate) fn can_scan(&self) -> bool {
        self.optional("list").is_some()
    }

    /// Drop the listing kept to answer `stat` for a host without one (after a snapshot).
    pub(crate) fn forget_listing(&mut self) {
        self.stat_index = None;
    }

    /// Call the host's `list()` and check every entry.
    fn fresh_listing(&self) -> Result<Listing, HostError> {
        let Some(f) = self.optional("list") else {
            return Err(HostError::io("workspace.list is not a function"));
        };
        let started_ns = now_ns();
        let v = f.call0(&self.host).map_err(|e| self.thrown.host_error(e))?;
        if !js_sys::Array::is_array(&v) {
            return Err(Thrown::bad_shape(
                "workspace.list",
                "an array of { path, size, mtimeMs, … }",
                &v,
            ));
        }
        let array: js_sys::Array = v.unchecked_into();
        let mut listing = Listing {
            entries: Vec::with_capacity(array.length() as usize),
            started_ns,
            unlisted: Vec::new(),
        };
        for (i, item) in array.iter().enumerate() {
            let at = At {
                what: "workspace.list",
                index: Some(i),
            };
            at.object(&item)?;
            let raw = at.field(&item, "path");
            let Some(raw) = raw.as_string() else {
                return Err(at.bad(format!(
                    "path must be a string, not {}",
                    convert::type_name(&raw)
                )));
            };
            let (kind, stat) = at.stat(&item)?;
            match WorkPath::parse(&raw) {
                Ok(path) => listing.entries.push(ScanEntry { path, kind, stat }),
                Err(_) => listing.unlisted.push(Unlisted {
                    path: raw,
                    reason: "invalid_path".into(),
                }),
            }
        }
        Ok(listing)
    }
}

impl Scan for JsWorkspace {
    fn list(&mut self) -> Result<Listing, HostError> {
        // A new walk: whatever an earlier one left for `stat` is out of date.
        self.stat_index = None;
        self.fresh_listing()
    }

    fn stat(&mut self, path: &WorkPath) -> Result<Option<ScanEntry>, HostError> {
        if let Some(f) = self.optional("stat") {
            let v = f
                .call1(&self.host, &JsValue::from_str(path.as_str()))
                .map_err(|e| self.thrown.host_error(e))?;
            if v.is_null() || v.is_undefined() {
                return Ok(None);
            }
            let what = format!("workspace.stat({:?})", path.as_str());
            let at = At {
                what: &what,
                index: None,
            };
            let (kind, stat) = at.stat(&v)?;
            let path = path.clone();
            return Ok(Some(ScanEntry { path, kind, stat }));
        }
        // No `stat`: look the path up in a fresh listing. A snapshot asks once per tracked path
        // the walk no longer lists, so one listing answers them all instead of one walk each.
        if self.stat_index.is_none() {
            let listing = self.fresh_listing()?;
            let index = listing
                .entries
                .into_iter()
                .map(|e| (e.path.clone(), e))
                .collect::<HashMap<_, _>>();
            self.stat_index = Some(index);
        }
        Ok(self.stat_index.as_ref().and_then(|i| i.get(path).cloned()))
    }
}
