//! The TypeScript declarations of how an agent resumes at a rewound point
//! (`rewind_core::agent_resume`), which the rewinds, forks and edits of an agent's session return.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_AGENT_RESUME: &'static str = r#"
/** How to resume the agent's own conversation at the rewound point (a session an agent's hooks recorded). */
export interface AgentResumeCopy {
  /** The agent's file, only read. */
  from: string;
  /** The new file the host writes first (it must not exist). */
  to: string;
  /** Keep its records through the one with this id (null: all of them). */
  through: string | null;
  /** The session id the copy's records carry. */
  sessionId: string;
}
export interface AgentResume {
  /** "claude-code", "qwen-code", "gemini-cli". */
  agent: string;
  /** The command, program first; empty when the agent offers no exact way (see note). */
  argv: string[];
  /** The next prompt goes after argv as one more argument. */
  promptLast: boolean;
  /** The command resumes exactly at the point. */
  exact: boolean;
  /** What the command does, or why there is none. */
  note: string;
  /** A new file to write before running it, when the agent resumes from a copy. */
  copy?: AgentResumeCopy;
}
"#;
