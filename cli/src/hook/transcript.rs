//! The last reply, best effort, from the end of Claude Code's transcript (older versions do not
//! send it with the Stop event; the format is internal, so anything unexpected is no reply).
//! Read bounded like every hook read: only a regular file, and only its last bytes.

use super::event::Payload;
use rewind_host::disk::{Bounded, read_tail};

/// The transcript's last assistant text; `Err`: why the transcript was not read.
pub(super) fn last_reply(p: &Payload, cap: u64) -> Result<Option<String>, String> {
    let Some(path) = p.transcript_path.as_ref() else {
        return Ok(None);
    };
    let shown = path.display();
    // The agent names its own file, wherever it keeps it: a link to it is followed.
    let bytes = match read_tail(path, cap, true) {
        Ok(Bounded::Bytes { bytes, .. }) => bytes,
        Ok(Bounded::NotRegular(what)) => {
            return Err(format!(
                "transcript_path {shown} is {what}, not a regular file: not read, the turn \
                 ends without a reply"
            ));
        }
        Ok(Bounded::TooLarge(size)) => {
            return Err(format!("transcript_path {shown}: {size} bytes, not read"));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read transcript_path {shown}: {e}")),
    };
    // A tail may begin inside a line: that line does not parse and is passed over.
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .rev()
        .find_map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).ok()?;
            (v.get("type")?.as_str()? == "assistant").then_some(())?;
            let parts = v.get("message")?.get("content")?.as_array()?;
            let texts: Vec<&str> = parts
                .iter()
                .filter(|c| c.get("type").and_then(|t| t.as_str()) == Some("text"))
                .filter_map(|c| c.get("text")?.as_str())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }))
}
