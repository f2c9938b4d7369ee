//! Shell capture: `snapshotWorkspace` walks the workspace through the host's `list()`, and what
//! changed since the session's previous snapshot becomes one checkpoint: the command's
//! (`shell`) or the person's (`external`), as its `attribution` says.

use super::{Engine, Inner, Result};
use crate::error::JsErr;
use rewind_core::{ErrorKind, shell};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Engine {
    /// Take a workspace snapshot in a live turn and record what changed since the session's
    /// previous one (the first one only sets the baseline). Needs a workspace host with
    /// `list()` and, for `new Engine({ store })`, a store host with `workspaceSnapshot`; without
    /// them it is `unavailable` and nothing is written.
    #[wasm_bindgen(js_name = snapshotWorkspace, unchecked_return_type = "SnapshotOutcome")]
    pub fn snapshot_workspace(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SnapshotWorkspaceOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "snapshotWorkspace")?;
        let o: shell::Options =
            self.target_options(&s, "snapshotWorkspace", &opts, "snapshotWorkspace options")?;
        // Checked here, before the core reads or commits anything, so the message can name the
        // JS method that is missing.
        if let Inner::Store(e) = &self.inner
            && !e.store().keeps_workspace_snapshots()
        {
            return Err(JsErr::new(
                ErrorKind::Unavailable,
                "snapshotWorkspace: the store host has no workspaceSnapshot(sessionId) method, so it \
                 cannot keep the session's latest snapshot (add it, and store the \
                 putWorkspaceSnapshot writes its commit receives)",
            )
            .into());
        }
        if !with!(&self.inner, e => e.workspace().can_scan()) {
            return Err(JsErr::new(
                ErrorKind::Unavailable,
                "snapshotWorkspace: the workspace host has no list() method, so the workspace \
                 cannot be walked (add list(), and stat(path) if it can)",
            )
            .into());
        }
        self.run(|i| {
            with!(i, e => {
                let out = e.snapshot_workspace(&s, o);
                // The listing kept for `stat` is this snapshot's; do not hold it until the next.
                e.workspace_mut().forget_listing();
                out
            })
        })
    }
}
