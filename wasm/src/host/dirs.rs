//! Directories over a JS workspace, for a host that has them (a Node host on a real file
//! system, the tests' in-memory workspace): the optional `makeDir(path, mode)`,
//! `removeDir(path)` and `dirEntries(path)`, and `stat(path)` answering `kind: "dir"` for a
//! directory. A host without them (a browser's flat file map) has directories only as implied
//! by its paths, as before: nothing is made or removed.

use super::{JsWorkspace, Thrown};
use rewind_core::error::HostError;
use rewind_core::node::Node;
use rewind_core::path::WorkPath;
use wasm_bindgen::prelude::*;

impl JsWorkspace {
    /// What the path holds: a directory when the host's `stat` says so, else the file `read`
    /// finds (links are read as files: a JS host has no link port).
    pub(super) fn node_at(&mut self, path: &WorkPath) -> Result<Option<Node>, HostError> {
        if let Some(f) = self.optional("stat") {
            let v = f
                .call1(&self.host, &JsValue::from_str(path.as_str()))
                .map_err(|e| self.thrown.host_error(e))?;
            let kind = match v.is_object() {
                true => js_sys::Reflect::get(&v, &JsValue::from_str("kind")).ok(),
                false => None,
            };
            if kind.and_then(|k| k.as_string()).as_deref() == Some("dir") {
                return Ok(Some(Node::Dir));
            }
        }
        use rewind_core::ports::Workspace as _;
        Ok(self.read(path)?.map(Node::File))
    }

    pub(super) fn make_dir_at(&self, path: &WorkPath, mode: Option<u32>) -> Result<(), HostError> {
        let Some(f) = self.optional("makeDir") else {
            return Ok(());
        };
        let mode = mode.map_or(JsValue::NULL, JsValue::from);
        f.call2(&self.host, &JsValue::from_str(path.as_str()), &mode)
            .map_err(|e| self.thrown.host_error(e))?;
        Ok(())
    }

    pub(super) fn remove_dir_at(&self, path: &WorkPath) -> Result<(), HostError> {
        let Some(f) = self.optional("removeDir") else {
            return Ok(());
        };
        f.call1(&self.host, &JsValue::from_str(path.as_str()))
            .map_err(|e| self.thrown.host_error(e))?;
        Ok(())
    }

    pub(super) fn entries_at(&self, path: &WorkPath) -> Result<Vec<String>, HostError> {
        let Some(f) = self.optional("dirEntries") else {
            return Ok(Vec::new());
        };
        let v = f
            .call1(&self.host, &JsValue::from_str(path.as_str()))
            .map_err(|e| self.thrown.host_error(e))?;
        let bad = || Thrown::bad_shape("workspace.dirEntries", "an array of names", &v);
        if !js_sys::Array::is_array(&v) {
            return Err(bad());
        }
        let array: &js_sys::Array = v.unchecked_ref();
        array
            .iter()
            .map(|name| name.as_string().ok_or_else(bad))
            .collect()
    }
}
