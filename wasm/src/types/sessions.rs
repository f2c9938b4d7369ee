//! The TypeScript declarations of `renameSession` and `removeSession` (`rewind_core::rename`,
//! `rewind_core::remove`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_SESSIONS: &'static str = r#"
/** `renameSession` options. */
export interface RenameSessionOptions {
  /** The new title: trimmed, then 1 to 500 characters with no control character. */
  title: string;
}
/** What `renameSession` did. */
export interface RenameOutcome {
  sessionId: string;
  /** The title now. */
  title: string;
  previousTitle: string;
  /** False when the title was already this one: nothing was written. */
  changed: boolean;
}
/** `removeSession` options. */
export interface RemoveSessionOptions {
  /** Remove the session's forks and side chats (and theirs) with it; without it a session
   * that has any is refused with `conflict`. */
  withForks?: boolean;
  /** Only plan: say what would be removed, write nothing. */
  dryRun?: boolean;
}
/** One session a removal deletes. */
export interface RemovedSession {
  sessionId: string;
  parentId: string | null;
  kind: SessionKind;
  title: string;
  /** Messages stored, on every branch. */
  messages: number;
  turns: number;
  checkpoints: number;
  operations: number;
}
/** What `removeSession` did (or would do, for a dry run). Blobs are not deleted: `gc` frees
 * the content only removed sessions referenced. */
export interface RemoveOutcome {
  sessionId: string;
  /** The session asked for first, then its forks, parents before children. */
  removed: RemovedSession[];
  /** False for a dry run. */
  applied: boolean;
}
"#;
