//! Doctor's text: each installed agent with its problems and fixes, the not installed ones on
//! one line, then what arrived and was not understood, and what could not be captured.

use super::Outcome;

pub(super) fn text(o: &Outcome, user: bool, now: u64) -> String {
    let mut lines = Vec::new();
    let scope = if user {
        "the user's settings".to_owned()
    } else {
        format!("workspace {}", o.workspace.display())
    };
    lines.push(format!("rewind doctor: {scope}"));
    let mut absent = Vec::new();
    for a in &o.agents {
        if !a.installed {
            absent.push(a.name);
            continue;
        }
        let path = a
            .path
            .as_ref()
            .map(|p| format!(" in {}", p.display()))
            .unwrap_or_default();
        let state = if a.up_to_date {
            "up to date"
        } else {
            "needs attention"
        };
        lines.push(format!("{}: installed{path}, {state}", a.name));
        match a.events.first() {
            Some(e) => lines.push(format!(
                "  last event: {} from {} {} ({} events of {} kinds seen)",
                e.event,
                host(&e.host),
                ago(now, e.last_ms),
                a.events.iter().map(|e| e.count).sum::<u64>(),
                a.events.len()
            )),
            None => lines.push("  no event has arrived yet".to_owned()),
        }
        for p in &a.problems {
            lines.push(format!("  problem: {}", p.what));
            lines.push(format!("    fix: {}", p.fix));
        }
        for n in &a.notes {
            lines.push(format!("  note: {n}"));
        }
    }
    if !absent.is_empty() {
        lines.push(format!("not installed: {}", absent.join(", ")));
    }
    if !o.ignored.is_empty() {
        lines.push("events rewind received and did not understand:".to_owned());
        for i in &o.ignored {
            let tool = if i.tool.is_empty() {
                String::new()
            } else {
                format!(" {}", i.tool)
            };
            lines.push(format!(
                "  {} from {}: {}{tool} ×{} (last {})",
                i.agent,
                host(&i.host),
                i.event,
                i.count,
                ago(now, i.last_ms)
            ));
        }
    }
    if !o.not_captured.is_empty() {
        lines.push("not captured in the last week (hook.log):".to_owned());
        lines.extend(o.not_captured.iter().map(|l| format!("  {l}")));
    }
    lines.push(match o.problems {
        0 => "no problems found".to_owned(),
        1 => "1 problem needs you".to_owned(),
        n => format!("{n} problems need you"),
    });
    lines.join("\n")
}

/// The host as said: `installed` is the agent the hook was installed for.
fn host(h: &str) -> &str {
    if h == "installed" {
        "the agent itself"
    } else {
        h
    }
}

pub(in crate::commands) fn ago(now: u64, ms: u64) -> String {
    let s = now.saturating_sub(ms) / 1000;
    match s {
        0..60 => format!("{s}s ago"),
        60..3600 => format!("{}m ago", s / 60),
        3600..86400 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86400),
    }
}
