//! The `Engine` class: one method per verb, named and shaped like the JSON dispatcher
//! (`tests/src/call.rs`) and the CLI's `--json`.

use crate::convert::{options, to_js};
use crate::error::JsErr;
use crate::host::{
    CryptoIds, EmittingStore, JsClock, JsStore, JsWorkspace, STORE_METHODS, StoreHost, Thrown,
    WORKSPACE_METHODS, WorkspaceHost, require_methods,
};
use js_sys::Function;
use rewind_core::Coded;
use rewind_core::files::{ApplyOptions, TargetOptions};
use rewind_core::mem::MemStore;
use rewind_core::{ErrorKind, conversation};
use wasm_bindgen::prelude::*;

type Result<T, E = JsValue> = std::result::Result<T, E>;

#[wasm_bindgen]
extern "C" {
    /// `SessionOptions`, as an optional argument (`opts?: SessionOptions | null` in the .d.ts).
    #[wasm_bindgen(typescript_type = "SessionOptions")]
    pub type SessionOptionsArg;
    /// A session id, as an optional argument.
    #[wasm_bindgen(typescript_type = "string")]
    pub type SessionIdArg;
    /// `GcOptions`, as an optional argument (`engine.gc()` uses the defaults).
    #[wasm_bindgen(typescript_type = "GcOptions")]
    pub type GcOptionsArg;
    /// `SideChatOptions`, as an optional argument (every field of it is optional).
    #[wasm_bindgen(typescript_type = "SideChatOptions")]
    pub type SideChatOptionsArg;
}

enum Inner {
    Memory(rewind_core::Engine<EmittingStore, JsWorkspace>),
    Store(rewind_core::Engine<JsStore, JsWorkspace>),
}

/// Run `$body` with `$e` bound to whichever core engine this is.
macro_rules! with {
    ($inner:expr, $e:ident => $body:expr) => {
        match $inner {
            Inner::Memory($e) => $body,
            Inner::Store($e) => $body,
        }
    };
}

mod diff;
mod maintenance;
mod memory;
mod record;
mod sessions;
mod shell;
mod targets;

/// The rewind engine over a JS workspace and an in-memory or JS store.
///
/// @example
/// ```js
/// const engine = Engine.inMemory({ workspace, onCommit: (batch) => log.push(batch) });
/// const { id } = engine.createSession({ title: 'demo' });
/// const { turnId, messageId } = engine.recordPrompt(id, { text: 'rename foo' });
/// ```
#[wasm_bindgen]
pub struct Engine {
    inner: Inner,
    /// What a workspace or store callback threw during the current call.
    thrown: Thrown,
    /// What `onCommit` threw during the current call.
    hook_failed: Thrown,
    /// What `fromLog` left out of a damaged log.
    diagnostics: Vec<rewind_core::load::Diagnostic>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.inner {
            Inner::Memory(_) => "memory",
            Inner::Store(_) => "store",
        };
        f.debug_struct("Engine")
            .field("store", &kind)
            .finish_non_exhaustive()
    }
}

/// `{ workspace, onCommit, keepLog }` of the in-memory constructors.
struct MemoryOptions {
    workspace: WorkspaceHost,
    on_commit: Option<Function>,
    keep_log: bool,
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn workspace_of(opts: &JsValue, what: &str) -> Result<WorkspaceHost, JsErr> {
    if !opts.is_object() {
        return Err(JsErr::input(format!(
            "{what} takes an options object with a workspace"
        )));
    }
    let ws = get(opts, "workspace");
    require_methods(&ws, "workspace", WORKSPACE_METHODS).map_err(JsErr::input)?;
    Ok(ws.unchecked_into())
}

fn memory_options(opts: &JsValue, what: &str) -> Result<MemoryOptions, JsErr> {
    let workspace = workspace_of(opts, what)?;
    let hook = get(opts, "onCommit");
    let on_commit = if hook.is_undefined() || hook.is_null() {
        None
    } else if hook.is_function() {
        Some(hook.unchecked_into())
    } else {
        return Err(JsErr::input("onCommit must be a function"));
    };
    Ok(MemoryOptions {
        workspace,
        on_commit,
        keep_log: flag(opts, "keepLog")?,
    })
}

/// An optional boolean option (absent = false).
fn flag(opts: &JsValue, key: &str) -> Result<bool, JsErr> {
    let v = get(opts, key);
    match v.as_bool() {
        Some(b) => Ok(b),
        None if v.is_undefined() || v.is_null() => Ok(false),
        None => Err(JsErr::input(format!("{key} must be a boolean"))),
    }
}

impl Engine {
    fn new_memory(mut store: MemStore, opts: MemoryOptions) -> Self {
        if opts.keep_log {
            store.keep_log();
        }
        let thrown = Thrown::default();
        let hook_failed = Thrown::default();
        let store = EmittingStore::new(store, opts.on_commit, hook_failed.clone());
        let ws = JsWorkspace::new(opts.workspace, thrown.clone());
        Self {
            inner: Inner::Memory(rewind_core::Engine::new(store, ws, JsClock, CryptoIds)),
            thrown,
            hook_failed,
            diagnostics: Vec::new(),
        }
    }

    /// Run a verb: clear the exception slots, map the error to a JS Error with its code and
    /// the host's exception as `cause`, convert the result.
    fn run<T: serde::Serialize, E: Coded>(
        &mut self,
        f: impl FnOnce(&mut Inner) -> Result<T, E>,
    ) -> Result<JsValue> {
        self.thrown.clear();
        self.hook_failed.clear();
        let result = f(&mut self.inner);
        let thrown = self.thrown.take();
        let value = result.map_err(|e| JsErr::new(e.code(), e.to_string()).with_cause(thrown))?;
        if let Some(hook) = self.hook_failed.take() {
            return Err(JsErr::new(
                ErrorKind::HostError,
                "onCommit threw: the call completed and its changes are in the engine, but the host \
                 did not take the committed batch, so its log now lacks it (persist \
                 engine.snapshot() in place of the log)",
            )
            .with_cause(Some(hook))
            .into());
        }
        Ok(to_js(&value)?)
    }
}

#[wasm_bindgen]
impl Engine {
    /// An engine over a JS store host (`StoreHost`) and a JS workspace host.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "EngineOptions")] opts: JsValue,
    ) -> Result<Self> {
        let workspace = workspace_of(&opts, "new Engine")?;
        let store = get(&opts, "store");
        require_methods(&store, "store", STORE_METHODS).map_err(JsErr::input)?;
        let thrown = Thrown::default();
        let store = JsStore::new(store.unchecked_into::<StoreHost>(), thrown.clone());
        let ws = JsWorkspace::new(workspace, thrown.clone());
        Ok(Self {
            inner: Inner::Store(rewind_core::Engine::new(store, ws, JsClock, CryptoIds)),
            thrown,
            hook_failed: Thrown::default(),
            diagnostics: Vec::new(),
        })
    }

    /// Start a session.
    #[wasm_bindgen(js_name = createSession, unchecked_return_type = "Session")]
    pub fn create_session(&mut self, opts: Option<SessionOptionsArg>) -> Result<JsValue> {
        let opts: JsValue = opts.map_or(JsValue::UNDEFINED, Into::into);
        let o = options(&opts, "createSession options")?;
        self.run(|i| with!(i, e => e.create_session(o)))
    }

    /// Every session, in creation order.
    #[wasm_bindgen(js_name = listSessions, unchecked_return_type = "Session[]")]
    pub fn list_sessions(&mut self) -> Result<JsValue> {
        self.run(|i| with!(i, e => e.sessions().map(|d| d.items)))
    }

    /// The active conversation branch.
    #[wasm_bindgen(js_name = activeBranch, unchecked_return_type = "ActiveBranch")]
    pub fn active_branch(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "activeBranch")?;
        self.run(|i| with!(i, e => e.active_branch(&s)))
    }

    /// What a file rewind would do: safe and unsafe files, nothing written.
    #[wasm_bindgen(js_name = previewFileRewind, unchecked_return_type = "Preview")]
    pub fn preview_file_rewind(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "TargetOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "previewFileRewind")?;
        let o: TargetOptions =
            self.target_options(&s, "previewFileRewind", &opts, "previewFileRewind options")?;
        self.run(|i| with!(i, e => e.preview_file_rewind(&s, o)))
    }

    /// Apply a file rewind under a policy.
    #[wasm_bindgen(js_name = applyFileRewind, unchecked_return_type = "ApplyOutcome")]
    pub fn apply_file_rewind(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ApplyOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "applyFileRewind")?;
        let o: ApplyOptions =
            self.target_options(&s, "applyFileRewind", &opts, "applyFileRewind options")?;
        self.run(|i| with!(i, e => e.apply_file_rewind(&s, o)))
    }

    /// Rewind the conversation to before a prompt.
    #[wasm_bindgen(js_name = rewindConversation, unchecked_return_type = "ConversationRewindOutcome")]
    pub fn rewind_conversation(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RewindConversationOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "rewindConversation")?;
        let o: conversation::Options = self.target_options(
            &s,
            "rewindConversation",
            &opts,
            "rewindConversation options",
        )?;
        self.run(|i| with!(i, e => e.rewind_conversation(&s, o)))
    }

    /// Rewind the conversation, the workspace, or both as one unit.
    #[wasm_bindgen(unchecked_return_type = "RewindOutcome")]
    pub fn rewind(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RewindOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "rewind")?;
        let o: rewind_core::rewind::Options =
            self.target_options(&s, "rewind", &opts, "rewind options")?;
        self.run(|i| with!(i, e => e.rewind(&s, o)))
    }

    /// Undo a rewind (its files and, for a conversation rewind or `both`, the conversation
    /// cursor) or an undo; without `operationId`, the latest rewind still in effect.
    #[wasm_bindgen(unchecked_return_type = "UndoOutcome")]
    pub fn undo(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "UndoOptions")] opts: Option<JsValue>,
    ) -> Result<JsValue> {
        let s = self.session(&session, "undo")?;
        let o = self.target_options(
            &s,
            "undo",
            &opts.unwrap_or(JsValue::UNDEFINED),
            "undo options",
        )?;
        self.run(|i| with!(i, e => e.undo(&s, o)))
    }

    /// Redo: take back the latest undo still in effect.
    #[wasm_bindgen(unchecked_return_type = "UndoOutcome")]
    pub fn redo(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RedoOptions")] opts: Option<JsValue>,
    ) -> Result<JsValue> {
        let s = self.session(&session, "redo")?;
        let o = self.target_options(
            &s,
            "redo",
            &opts.unwrap_or(JsValue::UNDEFINED),
            "redo options",
        )?;
        self.run(|i| with!(i, e => e.redo(&s, o)))
    }

    /// Edit the latest prompt (rewinds to before it, then records the new text).
    #[wasm_bindgen(js_name = editLastPrompt, unchecked_return_type = "EditPromptOutcome")]
    pub fn edit_last_prompt(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "EditLastPromptOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "editLastPrompt")?;
        let o = self.target_options(&s, "editLastPrompt", &opts, "editLastPrompt options")?;
        self.run(|i| with!(i, e => e.edit_last_prompt(&s, o)))
    }

    /// Retry the latest reply.
    #[wasm_bindgen(js_name = retryLastReply, unchecked_return_type = "EditPromptOutcome")]
    pub fn retry_last_reply(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RetryLastReplyOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "retryLastReply")?;
        let o = self.target_options(&s, "retryLastReply", &opts, "retryLastReply options")?;
        self.run(|i| with!(i, e => e.retry_last_reply(&s, o)))
    }

    /// Fork a session at a message, checkpoint or turn.
    #[wasm_bindgen(unchecked_return_type = "ForkOutcome")]
    pub fn fork(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ForkOptions")] opts: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "fork")?;
        let o = self.target_options(&s, "fork", &opts, "fork options")?;
        self.run(|i| with!(i, e => e.fork(&s, o)))
    }

    /// Open a side chat.
    #[wasm_bindgen(js_name = sideChat, unchecked_return_type = "ForkOutcome")]
    pub fn side_chat(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
        opts: Option<SideChatOptionsArg>,
    ) -> Result<JsValue> {
        let s = self.session(&session, "sideChat")?;
        let opts: JsValue = opts.map_or(JsValue::UNDEFINED, Into::into);
        let o = self.target_options(&s, "sideChat", &opts, "sideChat options")?;
        self.run(|i| with!(i, e => e.side_chat(&s, o)))
    }

    /// A session's derived state: transcript, running turn, undoable operations, diagnostics.
    #[wasm_bindgen(unchecked_return_type = "ResumeState")]
    pub fn resume(
        &mut self,
        #[wasm_bindgen(js_name = sessionId, unchecked_param_type = "string")] session: JsValue,
    ) -> Result<JsValue> {
        let s = self.session(&session, "resume")?;
        self.run(|i| with!(i, e => e.resume(&s)))
    }
}
