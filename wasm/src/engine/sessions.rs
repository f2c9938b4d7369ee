//! Managing sessions themselves: renaming one and removing one (with its forks on request).

use super::{Engine, Inner, Result};
use crate::convert::options;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `RemoveSessionOptions`, as an optional argument (every field of it is optional).
    #[wasm_bindgen(typescript_type = "RemoveSessionOptions")]
    pub type RemoveSessionOptionsArg;
}

#[wasm_bindgen]
impl Engine {
    /// Set a session's title (trimmed; 1 to 500 characters, one line). Nothing else changes; the
    /// same title again writes nothing (`changed: false`).
    #[wasm_bindgen(js_name = renameSession, unchecked_return_type = "RenameOutcome")]
    pub fn rename_session(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RenameSessionOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "renameSession")?;
        let o = options(&opts, "renameSession options")?;
        self.run(|i| with!(i, e => e.rename_session(&s, o)))
    }

    /// Delete a session and every row it owns, in one commit. A session with forks or side
    /// chats is refused (`conflict`, naming them) unless `withForks`; so is one with a running
    /// turn or a pending journal. Blobs stay until `gc`; `dryRun` only plans.
    #[wasm_bindgen(js_name = removeSession, unchecked_return_type = "RemoveOutcome")]
    pub fn remove_session(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        opts: Option<RemoveSessionOptionsArg>,
    ) -> Result<JsValue> {
        let s = self.session(&session, "removeSession")?;
        let opts: JsValue = opts.map_or(JsValue::UNDEFINED, Into::into);
        let o = options(&opts, "removeSession options")?;
        self.run(|i| with!(i, e => e.remove_session(&s, o)))
    }
}
