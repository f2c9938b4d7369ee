//! The line diff of a file rewind: what a UI shows before the person applies it.

use super::{Engine, Inner, Result};
use rewind_core::files::TargetOptions;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Engine {
    /// What a file rewind would write, line by line (disk now → restore), from the same plan
    /// `previewFileRewind` and `applyFileRewind` use; for a conflict also the person's change,
    /// the agent's change being undone and what `merge` would write. Nothing written.
    #[wasm_bindgen(js_name = diffFileRewind, unchecked_return_type = "RewindDiff")]
    pub fn diff_file_rewind(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "TargetOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "diffFileRewind")?;
        let o: TargetOptions =
            self.target_options(&s, "diffFileRewind", &opts, "diffFileRewind options")?;
        self.run(|i| with!(i, e => e.diff_file_rewind(&s, o)))
    }
}
