use super::Error;
use crate::batch::{Batch, Precondition, Write};
use crate::ctx::Ports;
use crate::load::encode;
use crate::model::{Branch, Session, SessionKind};
use serde::Deserialize;

/// Options of [`create_session`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionOptions {
    /// Human title; defaults to `Untitled session`.
    #[serde(default)]
    pub title: Option<String>,
    /// Free label of the workspace.
    #[serde(default)]
    pub workspace_label: Option<String>,
    /// The agent session it records (set by `rewind hook`).
    #[serde(default)]
    pub agent: Option<crate::model::AgentSession>,
}

/// Start a new interactive session.
pub fn create_session(p: &mut Ports<'_>, opts: SessionOptions) -> Result<Session, Error> {
    let title = opts.title.unwrap_or_else(|| "Untitled session".to_owned());
    if title.chars().count() > 500 {
        return Err(Error::InvalidInput(
            "title is longer than 500 characters".into(),
        ));
    }
    let session = Session {
        id: p.mint(),
        parent_id: None,
        kind: SessionKind::Interactive,
        title,
        trace_id: p.mint(),
        workspace_label: opts.workspace_label,
        created_at: p.now(),
        branch: Branch::default(),
        generation: 0,
        rewound_to: None,
        agent: opts.agent,
        seq_high_water: 0,
    };
    let mut batch = Batch::new();
    batch.require(Precondition::SessionAbsent(session.id.clone()));
    batch.push(Write::CreateSession {
        session: session.id.clone(),
        body: encode(&session),
    });
    p.store.commit(batch).map_err(Error::Commit)?;
    Ok(session)
}
