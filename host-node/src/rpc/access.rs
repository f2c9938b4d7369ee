//! The verb a call of an rpc method is (see [`Verb`], the one table of rights every front end
//! opens by): a Node program, a server and the CLI hold the same locks for the same work.

use super::{RpcError, known};
use crate::native::{Access, Verb};
use serde_json::Value;

/// The field `key` of the options argument at `index`, as a string.
fn option<'a>(params: &'a Value, index: usize, key: &str) -> Option<&'a str> {
    params.get(index)?.get(key)?.as_str()
}

/// Which [`Verb`] a call of `method` with `params` is. Where the options decide (a `rewind`
/// whose scope is not `conversation`, an `editLastPrompt` with `workspace: "rewind"`, a `fork`
/// with `workspaceMode: "restore"`), the verb says so; anything a verb itself will refuse
/// counts as the stronger one.
pub fn verb(method: &str, params: &Value) -> Result<Verb, RpcError> {
    let (method, _) = known(method)?;
    Ok(match method {
        "createSession" => Verb::CreateSession,
        "listSessions" => Verb::ListSessions,
        "recordPrompt" => Verb::RecordPrompt,
        "recordReply" => Verb::RecordReply,
        "recordNotice" => Verb::RecordNotice,
        "recordCompaction" => Verb::RecordCompaction,
        "recordEdit" => Verb::RecordEdit,
        "recordFailedCapture" => Verb::RecordFailedCapture,
        "snapshotWorkspace" => Verb::SnapshotWorkspace,
        "completeTurn" => Verb::CompleteTurn,
        "activeBranch" => Verb::ActiveBranch,
        "previewFileRewind" => Verb::PreviewFileRewind,
        "diffFileRewind" => Verb::DiffFileRewind,
        "applyFileRewind" => Verb::ApplyFileRewind,
        "rewindConversation" => Verb::RewindConversation,
        "rewind" => Verb::Rewind {
            // `workspace`, `both`, and anything the verb itself will refuse.
            files: option(params, 1, "scope") != Some("conversation"),
        },
        "undo" | "redo" => Verb::Undo,
        "editLastPrompt" => Verb::EditLastPrompt {
            rewind_files: option(params, 1, "workspace") == Some("rewind"),
        },
        "retryLastReply" => Verb::RetryLastReply,
        "fork" => Verb::Fork {
            restore: option(params, 1, "workspaceMode") == Some("restore"),
        },
        "sideChat" => Verb::SideChat,
        "resume" => Verb::Resume,
        "recover" => Verb::Recover,
        "checkpoints" => Verb::Checkpoints,
        "operations" => Verb::Operations,
        "gc" => Verb::Gc,
        "stats" => Verb::Stats,
        "renameSession" => Verb::RenameSession,
        "removeSession" => Verb::RemoveSession,
        other => return Err(RpcError::input(format!("{other}: no verb for this method"))),
    })
}

/// Which [`Access`] a call of `method` with `params` needs: its [`verb`]'s.
pub fn access(method: &str, params: &Value) -> Result<Access, RpcError> {
    verb(method, params).map(Verb::access)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::METHODS;
    use serde_json::json;

    #[test]
    fn every_method_is_a_verb_and_its_rights_are_the_tables() {
        for (method, _) in METHODS {
            let v = verb(method, &json!([])).unwrap_or_else(|e| panic!("{method}: {e:?}"));
            assert_eq!(
                access(method, &json!([])).ok(),
                Some(v.access()),
                "{method}"
            );
        }
        assert!(verb("noSuchMethod", &json!([])).is_err());
    }

    #[test]
    fn the_options_that_write_files_make_the_stronger_verb() {
        let with = |method: &str, key: &str, value: &str| {
            access(method, &json!(["ses_1", { key: value }])).ok()
        };
        assert_eq!(
            with("rewind", "scope", "conversation"),
            Some(Access::Record)
        );
        assert_eq!(with("rewind", "scope", "both"), Some(Access::Rewrite));
        assert_eq!(with("rewind", "scope", "nonsense"), Some(Access::Rewrite));
        assert_eq!(
            with("editLastPrompt", "workspace", "rewind"),
            Some(Access::Rewrite)
        );
        assert_eq!(
            with("editLastPrompt", "workspace", "keep"),
            Some(Access::Record)
        );
        assert_eq!(
            with("fork", "workspaceMode", "restore"),
            Some(Access::Rewrite)
        );
        assert_eq!(with("fork", "workspaceMode", "keep"), Some(Access::Record));
        assert_eq!(access("gc", &json!([])).ok(), Some(Access::Maintain));
        assert_eq!(access("stats", &json!([])).ok(), Some(Access::Read));
        assert_eq!(
            access("renameSession", &json!([])).ok(),
            Some(Access::Record)
        );
        assert_eq!(
            access("removeSession", &json!([])).ok(),
            Some(Access::Maintain)
        );
    }
}
