// Every JSON scenario of tests/scenarios/ through the JS API, on every store kind:
// Engine.inMemory (the wasm MemStore) and new Engine({ store }) over a JS StoreHost without the
// optional range callbacks (the engine falls back to whole-session reads) and with them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Engine, ROOT } from '../lib/pkg.mjs';
import { MemWorkspace, MemStoreHost, RangeStoreHost } from '../lib/hosts.mjs';
import { runScenario } from '../lib/scenario.mjs';

const dir = path.join(ROOT, 'tests/scenarios');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

test('the scenario suite is there', () => {
  assert.ok(files.length >= 10, `expected the scenario suite, found ${files.length} files`);
});

for (const file of files) {
  const sc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const commitFaults = sc.steps.some((s) => s.fault?.op === 'commit');

  test(`scenario ${file} (Engine.inMemory)`, { skip: commitFaults && 'commit faults need a store host; run below' }, () => {
    const workspace = new MemWorkspace();
    const engine = Engine.inMemory({ workspace });
    runScenario(sc, { engine, workspace });
  });

  for (const Host of [MemStoreHost, RangeStoreHost]) {
    test(`scenario ${file} (JS StoreHost${Host === RangeStoreHost ? ' with range callbacks' : ''})`, () => {
      const workspace = new MemWorkspace();
      const store = new Host();
      const engine = new Engine({ store, workspace });
      runScenario(sc, { engine, workspace, store });
    });
  }
}
