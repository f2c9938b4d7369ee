//! The TypeScript declarations of `undo` and `redo` (`rewind_core::undo`), of the operation log
//! they read, and of where an operation found the conversation cursor

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_UNDO: &'static str = r#"
/** `undo` and `redo`: the file part (its `operationId` is the undo's own) and the cursor. */
export interface UndoOutcome extends ApplyOutcome {
  /** The operation taken back. */
  undoneOperationId: string;
  /** It was itself an undo: this re-applied the rewind it undid. */
  redo: boolean;
  /** For a redo: the rewind it re-applied. */
  redoneOperationId?: string;
  /** The conversation cursor put back, when the operation had moved it. */
  conversation?: {
    generation: number;
    /** The prompt the conversation now ends before; null: no rewind is in effect. */
    rewoundTo: string | null;
    agentResume?: AgentResume;
  };
}
/** One entry of the operation log (`rewind_core::model::Operation`). */
export interface Operation {
  id: string;
  sessionId: string;
  kind: OperationKind;
  createdAt: Millis;
  target?: OpTarget;
  policy?: Policy;
  files?: OpFile[];
  undoes?: string;
  journalId?: string;
  branchTarget?: string;
  generation?: number;
  /** gc: the highest seq of the checkpoints it dropped. */
  droppedThrough?: number;
  note?: string;
  /** An operation that moved the conversation cursor: where it stood (what undo puts back). */
  cursorBefore?: CursorBefore;
}
/** Where an operation found the conversation cursor: an undo selects what `branch` selected up to `lastSeq`. */
export interface CursorBefore {
  branch: { ranges: { start: number; end?: number | null }[] };
  lastSeq: number;
  rewoundTo?: string;
}
"#;
