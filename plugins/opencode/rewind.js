// rewind's plugin for OpenCode and Kilo Code, written by `rewind init opencode` (or `kilo`);
// `rewind init opencode --remove` takes it out. It hands each event rewind records to
// `rewind hook <agent>` as one JSON object on stdin, the way the other agents' hooks do:
// a tool about to run (awaited, so rewind reads the files before the tool changes them), the
// tool done, the person's prompt, the session starting, going idle (the turn's end) or failing.
// It never blocks the agent: whatever rewind says or does, the tool runs.
//
// One file for both plugin APIs: OpenCode V1 and Kilo take the default export's `server`
// (a function returning hooks, anomalyco/opencode@0d4d22f packages/plugin/src/index.ts), V2
// its `id` and `setup(ctx)` (https://opencode.ai/v2/docs/build/plugins/migrate-v1).

import { spawn } from "node:child_process"

const REWIND = "@REWIND@"
const AGENT = "@AGENT@"

/** Run `rewind hook <agent>` with `payload` on stdin; resolves when it exits, never rejects. */
function send(payload) {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(REWIND, ["hook", AGENT], { stdio: ["pipe", "ignore", "ignore"] })
    } catch {
      return resolve()
    }
    child.on("error", () => resolve())
    child.on("close", () => resolve())
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

/** The text of a message's parts. */
function textOf(parts) {
  return (parts || [])
    .filter((p) => p && p.type === "text" && typeof p.text === "string" && !p.synthetic)
    .map((p) => p.text)
    .join("\n")
}

/** V1 (and Kilo): hooks keyed by event name. */
async function server({ directory }) {
  const cwd = directory || process.cwd()
  const argsOf = new Map() // callID → args: the after hook of older releases has none
  const event = (name, sessionID, more) =>
    send({ hook_event_name: name, session_id: sessionID, cwd, ...more })
  return {
    "tool.execute.before": async (input, output) => {
      argsOf.set(input.callID, output.args)
      await event("tool.execute.before", input.sessionID, {
        tool_name: input.tool,
        tool_use_id: input.callID,
        tool_input: output.args,
      })
    },
    "tool.execute.after": async (input, output) => {
      const args = input.args ?? argsOf.get(input.callID)
      argsOf.delete(input.callID)
      await event("tool.execute.after", input.sessionID, {
        tool_name: input.tool,
        tool_use_id: input.callID,
        tool_input: args,
        tool_response: { title: output?.title, output: output?.output },
      })
    },
    "chat.message": async (input, output) => {
      await event("chat.message", input.sessionID, {
        prompt: textOf(output?.parts),
        message_id: input.messageID ?? output?.message?.id,
      })
    },
    event: async ({ event: e }) => {
      const names = { "session.created": 1, "session.idle": 1, "session.error": 1 }
      if (!e || !names[e.type]) return
      const p = e.properties || {}
      const sessionID = p.sessionID ?? p.info?.id
      if (sessionID) await event(e.type, sessionID, {})
    },
  }
}

/** V2: the same events through the context's domains, where this release has them. */
async function setup(ctx) {
  const cwd = ctx?.location?.directory || process.cwd()
  const tool = ctx?.tool?.hook
  if (!tool) return
  await tool("execute.before", (e) =>
    send({
      hook_event_name: "execute.before",
      session_id: e.sessionID,
      cwd,
      tool_name: e.tool ?? e.name,
      tool_use_id: e.callID,
      tool_input: e.input,
    }),
  )
  await tool("execute.after", (e) =>
    send({
      hook_event_name: "execute.after",
      session_id: e.sessionID,
      cwd,
      tool_name: e.tool ?? e.name,
      tool_use_id: e.callID,
      tool_input: e.input,
    }),
  )
}

export default { id: "rewind", server, setup }
