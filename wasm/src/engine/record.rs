//! The recording verbs: prompts, replies, notices, compactions, file edits, failed captures
//! and turn completion. Each call is one committed batch.

use super::{Engine, Inner, Result, get};
use crate::convert;
use crate::error::JsErr;
use rewind_core::record::FileEdit;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Engine {
    /// Record a prompt; it starts a turn.
    #[wasm_bindgen(js_name = recordPrompt, unchecked_return_type = "PromptOutcome")]
    pub fn record_prompt(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PromptOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "recordPrompt")?;
        let o = self.target_options(&s, "recordPrompt", &opts, "recordPrompt options")?;
        self.run(|i| with!(i, e => e.record_prompt(&s, o)))
    }

    /// Record the assistant's reply in a turn.
    #[wasm_bindgen(js_name = recordReply, unchecked_return_type = "MessageOutcome")]
    pub fn record_reply(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ReplyOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "recordReply")?;
        let o = self.target_options(&s, "recordReply", &opts, "recordReply options")?;
        self.run(|i| with!(i, e => e.record_reply(&s, o)))
    }

    /// Record a notice.
    #[wasm_bindgen(js_name = recordNotice, unchecked_return_type = "MessageOutcome")]
    pub fn record_notice(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "NoticeOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "recordNotice")?;
        let o = self.target_options(&s, "recordNotice", &opts, "recordNotice options")?;
        self.run(|i| with!(i, e => e.record_notice(&s, o)))
    }

    /// Record a compaction summary.
    #[wasm_bindgen(js_name = recordCompaction, unchecked_return_type = "MessageOutcome")]
    pub fn record_compaction(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CompactionOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "recordCompaction")?;
        let o = self.target_options(&s, "recordCompaction", &opts, "recordCompaction options")?;
        self.run(|i| with!(i, e => e.record_compaction(&s, o)))
    }

    /// Record what a tool changed in one file: its exact bytes before and after.
    #[wasm_bindgen(js_name = recordEdit, unchecked_return_type = "EditOutcome")]
    pub fn record_edit(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RecordEditOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "recordEdit")?;
        if !opts.is_object() {
            return Err(JsErr::input("recordEdit takes an options object").into());
        }
        let side = |key: &str| -> Result<Option<Vec<u8>>, JsErr> {
            let v = get(&opts, key);
            // Only `null` means "absent": a forgotten field must not record a creation (whose
            // rewind would delete a file that existed) or a deletion.
            if v.is_undefined() {
                return Err(JsErr::input(format!(
                    "recordEdit {key} is missing: pass the bytes, or null when the file {}",
                    if key == "before" {
                        "did not exist before the tool ran"
                    } else {
                        "was deleted by the tool"
                    }
                )));
            }
            convert::opt_bytes(&v).ok_or_else(|| {
                JsErr::input(format!(
                    "recordEdit {key} must be a Uint8Array or null, not {}",
                    convert::type_name(&v)
                ))
            })
        };
        let before = side("before")?;
        let after = side("after")?;
        // The rest is plain data: read it without the byte fields.
        let rest = js_sys::Object::assign(&js_sys::Object::new(), opts.unchecked_ref());
        for key in ["before", "after"] {
            let _ = js_sys::Reflect::delete_property(&rest, &JsValue::from_str(key));
        }
        let edit: FileEdit =
            self.target_options(&s, "recordEdit", &rest.into(), "recordEdit options")?;
        let o = edit.with_bytes(before, after);
        self.run(|i| with!(i, e => e.record_edit(&s, o)))
    }

    /// Record that a file's before-state could not be captured.
    #[wasm_bindgen(js_name = recordFailedCapture, unchecked_return_type = "EditOutcome")]
    pub fn record_failed_capture(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FailedCaptureOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "recordFailedCapture")?;
        let o = self.target_options(
            &s,
            "recordFailedCapture",
            &opts,
            "recordFailedCapture options",
        )?;
        self.run(|i| with!(i, e => e.record_failed_capture(&s, o)))
    }

    /// Complete a turn (writes its stable boundary).
    #[wasm_bindgen(js_name = completeTurn, unchecked_return_type = "CompleteTurnOutcome")]
    pub fn complete_turn(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CompleteTurnOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "completeTurn")?;
        let o = self.target_options(&s, "completeTurn", &opts, "completeTurn options")?;
        self.run(|i| with!(i, e => e.complete_turn(&s, o)))
    }
}
