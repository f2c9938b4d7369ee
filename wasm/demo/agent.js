// @ts-check
// The demo's scripted "agent": three turns over the demo project, recorded the way a real agent
// host records them. Turn 1 edits two files (recordEdit with the exact bytes before and after),
// turn 2 creates one file and deletes another, turn 3 is a shell-like bulk change (a `git mv`
// and a `sed` over several files) captured by two workspace snapshots around it (snapshotWorkspace), not by
// per-file edits. Pure logic over an engine and a workspace: no DOM.

/** @typedef {import('../pkg/web/rewind_wasm.js').Engine} Engine */
/** @typedef {import('../pkg/web/persist.js').BrowserWorkspace} Workspace */
/** @typedef {(before: string | null) => string | null} Change */
/** @typedef {{ prompt: string, reply: string, edits?: Record<string, Change>, shell?: { command: string, run: (w: Workspace) => void } }} ScriptedTurn */

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The project the demo starts with. */
export const SEED = {
  'src/greet.js': `// Greetings for the demo app.

export function greet(name) {
  return \`Hello, \${name}!\`;
}
`,
  'src/app.js': `// The demo app: a line for each user.
import { greet } from './greet.js';

const users = ['Ada', 'Linus', 'Grace'];

for (const user of users) {
  console.log(greet(user));
}

// Summary
const count = users.length;
console.log(\`\${count} users\`);
`,
  'src/math.js': `export const add = (a, b) => a + b;
export const mul = (a, b) => a * b;
`,
  'notes.txt': `TODO: write the usage docs
TODO: delete this file once they exist
`,
};

/** Each turn: the prompt, the reply, and its changes (path → old text → new text or null). */
/** @type {ScriptedTurn[]} */
export const TURNS = [
  {
    prompt: 'Add a farewell message and print it after each greeting',
    reply: 'Added farewell() to greet.js and called it in the loop in app.js.',
    edits: {
      'src/greet.js': (s) => s && !s.includes('farewell') ? `${s}
export function farewell(name) {
  return \`Goodbye, \${name}.\`;
}
` : s,
      'src/app.js': (s) => s && s
        .replace("import { greet } from './greet.js';", "import { greet, farewell } from './greet.js';")
        .replace('  console.log(greet(user));\n', '  console.log(greet(user));\n  console.log(farewell(user));\n'),
    },
  },
  {
    prompt: 'Write usage docs and drop the stale notes file',
    reply: 'Created docs/usage.md and deleted notes.txt.',
    edits: {
      'docs/usage.md': () => `# Usage

\`greet(name)\` says hello; \`farewell(name)\` says goodbye.

    node src/app.js
`,
      'notes.txt': () => null,
    },
  },
  {
    prompt: 'Rename greet to welcome everywhere',
    reply: 'Moved greet.js to welcome.js and renamed greet to welcome in src/ and docs/ with sed.',
    // A shell command: it rewrites files directly; snapshots before and after record it (a
    // rename is a deletion and a creation).
    shell: {
      command: "git mv src/greet.js src/welcome.js && sed -i 's/greet/welcome/g' src/*.js docs/*.md",
      run: (workspace) => {
        const moved = workspace.read('src/greet.js');
        if (moved !== null) {
          workspace.write('src/welcome.js', moved);
          workspace.remove('src/greet.js');
        }
        for (const path of workspace.paths()) {
          if (!/^(src\/.*\.js|docs\/.*\.md)$/.test(path)) continue;
          const old = /** @type {string} */ (workspace.readText(path)); // listed, so present
          const changed = old.replaceAll('greet', 'welcome').replaceAll('Greet', 'Welcome');
          if (changed !== old) workspace.writeText(path, changed);
        }
      },
    },
  },
];

/** Put the seed files in an empty workspace. */
export function seed(/** @type {Workspace} */ workspace) {
  for (const [path, text] of Object.entries(SEED)) workspace.write(path, enc.encode(text));
}

/**
 * Run every scripted turn in session `id`; `step()` is awaited after each engine call so the page
 * can redraw (and the store write behind) while the agent "works".
 * @param {Engine} engine
 * @param {Workspace} workspace
 * @param {string} id
 * @param {() => Promise<void>} step
 */
export async function runAgent(engine, workspace, id, step = async () => {}) {
  for (const t of TURNS) {
    const { turnId } = engine.recordPrompt(id, { text: t.prompt });
    await step();
    if (t.shell) {
      // The session's first snapshot only sets the baseline; before the command, what the
      // person changed since is recorded as an `external` checkpoint, kept apart from the
      // agent's; after it, what changed is the command's.
      engine.snapshotWorkspace(id, { turnId, attribution: 'external' });
      t.shell.run(workspace);
      engine.snapshotWorkspace(id, { turnId, command: t.shell.command, attribution: 'command' });
    }
    for (const [path, change] of Object.entries(t.edits ?? {})) {
      const before = workspace.read(path);
      const text = change(before === null ? null : dec.decode(before));
      const after = text === null ? null : enc.encode(text);
      if (before === null && after === null) continue;
      if (before !== null && after !== null && text === dec.decode(before)) continue;
      // The tool writes, then the host records the exact bytes it saw before and left after.
      if (after === null) workspace.remove(path); else workspace.write(path, after);
      engine.recordEdit(id, { turnId, path, before, after, toolName: before === null ? 'Write' : after === null ? 'Delete' : 'Edit' });
      await step();
    }
    engine.recordReply(id, { turnId, text: t.reply });
    engine.completeTurn(id, { turnId });
    await step();
  }
}
