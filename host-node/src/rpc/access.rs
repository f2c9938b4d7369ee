//! The rights a native engine needs for one call: what the CLI opens for the same verb
//! (`cli/*.rs`), so a Node program and the CLI hold the same locks for the same work.

use super::{RpcError, known};
use crate::native::Access;
use serde_json::Value;

/// The field `key` of the options argument at `index`, as a string.
fn option<'a>(params: &'a Value, index: usize, key: &str) -> Option<&'a str> {
    params.get(index)?.get(key)?.as_str()
}

/// Which [`Access`] a call of `method` with `params` needs:
///
/// * reads (`listSessions`, `activeBranch`, `previewFileRewind`, `diffFileRewind`, `resume`,
///   `checkpoints`, `operations`, `stats`) open read-only and write nothing anywhere;
/// * file-writing verbs (`applyFileRewind`, `undo`, `recover`, a `rewind` whose scope is not
///   `conversation`, an `editLastPrompt` with `workspace: "rewind"`, a `fork` with
///   `workspaceMode: "restore"`) take the apply lock and need a trusted store;
/// * `gc` takes the apply lock without writing files;
/// * everything else records.
pub fn access(method: &str, params: &Value) -> Result<Access, RpcError> {
    let (method, _) = known(method)?;
    Ok(match method {
        "listSessions" | "activeBranch" | "previewFileRewind" | "diffFileRewind" | "resume"
        | "checkpoints" | "operations" | "stats" => Access::Read,
        "applyFileRewind" | "undo" | "recover" => Access::Rewrite,
        "rewind" => match option(params, 1, "scope") {
            Some("conversation") => Access::Record,
            // `workspace`, `both`, and anything the verb itself will refuse.
            _ => Access::Rewrite,
        },
        "editLastPrompt" => match option(params, 1, "workspace") {
            Some("rewind") => Access::Rewrite,
            _ => Access::Record,
        },
        "fork" => match option(params, 1, "workspaceMode") {
            Some("restore") => Access::Rewrite,
            _ => Access::Record,
        },
        "gc" => Access::Maintain,
        _ => Access::Record,
    })
}
