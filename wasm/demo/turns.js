// @ts-check
// The timeline's turns: every turn the session has had, each with its state. The engine lists the
// active branch's messages only, so the page keeps (in localStorage, per session) the prompts it
// has shown; a turn a conversation rewind took off the branch stays listed from that record, its
// files' state from the engine's checkpoints (undone or not) and operations (a rewind undone).

/** @typedef {import('../pkg/web/rewind_wasm.js').Engine} Engine */
/** @typedef {{ turnId: string, id: string, text: string, reply?: string }} KnownTurn */
/**
 * @typedef {object} Turn
 * @property {number} n           its place among every turn of the session, from 1
 * @property {string} turnId
 * @property {string} id          the prompt's message id
 * @property {string} text
 * @property {string} [reply]
 * @property {boolean} onBranch   still in the conversation (a rewind can go to before it)
 * @property {'current' | 'rewound' | 'undone'} state
 * @property {string} says        the state in words
 */

/**
 * @param {Engine} engine
 * @param {string} session
 * @param {string} key  the localStorage key of this session's record
 * @returns {Turn[]}
 */
export function allTurns(engine, session, key) {
  const { messages } = engine.activeBranch(session);
  const replies = new Map(messages.filter((m) => m.kind === 'reply').map((m) => [m.turnId, m.text]));
  const onBranch = messages.filter((m) => m.kind === 'prompt' && m.turnId !== null)
    .map((m) => ({ turnId: /** @type {string} */ (m.turnId), id: m.id, text: m.text, reply: replies.get(m.turnId) }));
  /** @type {KnownTurn[]} */
  const known = JSON.parse(localStorage.getItem(key) ?? '[]');
  const byTurn = new Map(known.map((t) => [t.turnId, t]));
  for (const t of onBranch) byTurn.set(t.turnId, t);
  // Known order first (the order they were first seen), then any turn new on the branch.
  const order = [...known.map((t) => t.turnId), ...onBranch.map((t) => t.turnId).filter((id) => !known.some((k) => k.turnId === id))];
  const list = order.map((id) => /** @type {KnownTurn} */ (byTurn.get(id)));
  localStorage.setItem(key, JSON.stringify(list));

  const branch = new Set(onBranch.map((t) => t.turnId));
  const checkpoints = engine.checkpoints(session);
  const reverted = revertedTurns(engine, session, checkpoints);
  return list.map((t, i) => {
    const files = checkpoints.filter((c) => c.turnId === t.turnId).flatMap((c) => c.files);
    const undone = files.filter((f) => f.undone).length;
    const on = branch.has(t.turnId);
    const filesSay = undone === 0 ? null : undone === files.length ? 'its file changes undone' : `${undone} of its ${files.length} file changes undone`;
    /** @type {Turn['state']} */
    let state = 'current';
    let says = 'current';
    if (filesSay) {
      state = 'rewound';
      says = on ? `code rewound: ${filesSay}` : `rewound: left the conversation, ${filesSay}`;
    } else if (!on) {
      state = reverted.has(t.turnId) ? 'undone' : 'rewound';
      says = reverted.has(t.turnId) ? 'rewind undone: its files are back; it stays out of the conversation' : 'conversation rewound: it left the conversation, its files kept';
    } else if (reverted.has(t.turnId)) {
      says = 'current: a rewind of it was undone';
    }
    return { ...t, n: i + 1, onBranch: on, state, says };
  });
}

/**
 * The turns whose file changes a rewind undid and an undo then brought back.
 * @param {Engine} engine
 * @param {string} session
 * @param {ReturnType<Engine['checkpoints']>} checkpoints
 */
function revertedTurns(engine, session, checkpoints) {
  const ops = engine.operations(session);
  const turnOf = new Map(checkpoints.map((c) => [c.checkpointId, c.turnId]));
  const undoneOps = new Set(ops.filter((o) => o.kind === 'undo' && o.undoes).map((o) => o.undoes));
  const turns = new Set();
  for (const o of ops) {
    if (!undoneOps.has(o.id)) continue;
    for (const f of o.files ?? []) for (const c of f.undid ?? []) if (turnOf.has(c)) turns.add(turnOf.get(c));
  }
  return turns;
}
