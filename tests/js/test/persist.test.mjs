// The browser store's contract (wasm/js/persist.js, `rewind-wasm/persist`) in real headless
// Chromium: what a resolved flush() covers survives a reload; what was not flushed may be lost,
// but only as a tail (the reloaded state is the state after some earlier call); two flushes;
// compaction into a snapshot; refusal of damaged and unknown databases; one writer at a time;
// and the reload time of a 10k-message session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage } from '../lib/browser.mjs';

let chrome;
before(async () => { chrome = await launch(); });
after(async () => { await chrome?.close(); });

/** A fresh page (own context, so own IndexedDB) on the contract page, helpers loaded. */
async function openPage() {
  const p = await newPage(chrome.browser, `${chrome.url}/test/persist.html`);
  await p.page.waitForFunction(() => window.ready === true);
  return p;
}
async function reload(page) {
  await page.reload();
  await page.waitForFunction(() => window.ready === true);
}

test('record, flush, reload: sessions, messages, checkpoints, operations and files are back', async () => {
  const { page, errors } = await openPage();
  const saved = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'story' });
    if (!store.created) throw new Error('a new database');
    const { engine, workspace } = store;
    workspace.writeText('a.txt', 'a.txt original\n');
    const { id } = engine.createSession({ title: 'story' });
    const m1 = t.turn(store, id, 1);
    t.turn(store, id, 2);
    // Operations: a file rewind and its undo; a fork.
    const done = engine.applyFileRewind(id, { since: m1, policy: 'block' });
    engine.undo(id, { operationId: done.operationId });
    engine.fork(id, { at: m1 });
    await store.flush();
    const fp = t.fingerprint(store);
    store.close();
    return fp;
  });
  await reload(page);
  const loaded = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'story' });
    if (store.created) throw new Error('the stored database');
    const fp = t.fingerprint(store);
    store.close();
    return fp;
  });
  assert.equal(loaded, saved);
  const state = JSON.parse(loaded);
  assert.equal(state.sessions.length, 2, 'the session and its fork');
  assert.ok(state.state[0].operations.length >= 2, 'the rewind and the undo');
  assert.equal(state.state[0].checkpoints.length, 4);
  assert.equal(state.files['a.txt'], 'a.txt after turn 2\n');
  assert.deepEqual(errors, []);
});

test('closed without a flush: a tail may be lost, never part of a call', async () => {
  const { page } = await openPage();
  // Every call records the state after it; some calls are followed by a pause in which the
  // write-behind (writeBehindMs 0) may run, then the store is closed without a flush.
  const { states, flushedAt } = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'tail', writeBehindMs: 0 });
    const { engine, workspace } = store;
    const states = [t.fingerprint(store)];
    const step = (f) => { f(); states.push(t.fingerprint(store)); };
    step(() => workspace.writeText('a.txt', 'a.txt original\n'));
    let id;
    step(() => { id = engine.createSession({ title: 'tail' }).id; });
    let m1;
    step(() => { m1 = t.turn(store, id, 1); });
    await store.flush();
    const flushedAt = states.length - 1;
    for (let n = 2; n <= 7; n++) {
      step(() => t.turn(store, id, n));
      if (n % 2 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    // A rewind writes files and commits batches in one call: they land together or not at all.
    step(() => engine.applyFileRewind(id, { since: m1, policy: 'force' }));
    step(() => workspace.writeText('person.txt', 'typed, not flushed\n'));
    store.close();
    return { states, flushedAt };
  });
  await reload(page);
  const got = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'tail' });
    const fp = t.fingerprint(store);
    store.close();
    return fp;
  });
  const at = states.indexOf(got);
  assert.ok(at >= 0, 'the reloaded state is the state after one of the calls');
  assert.ok(at >= flushedAt, `everything flushed is there (state ${at}, flushed at ${flushedAt})`);
  // The calls after the last pause were never handed to IndexedDB: close() dropped them.
  assert.ok(at < states.length - 3, `the unwritten tail is gone (state ${at} of ${states.length - 1})`);
});

test('two flushes in a row, concurrent and sequential, and a flush with nothing to write', async () => {
  const { page } = await openPage();
  const fp = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'twice', writeBehindMs: 10_000 });
    const { engine, workspace } = store;
    await store.flush(); // nothing queued
    const { id } = engine.createSession();
    workspace.writeText('a.txt', 'one\n');
    const first = store.flush();
    t.turn(store, id, 1); // committed while the first write is in flight
    const second = store.flush();
    await Promise.all([first, second]);
    await store.flush();
    await store.flush();
    if (store.stats.pending !== 0) throw new Error(`pending after flush: ${store.stats.pending}`);
    const out = t.fingerprint(store);
    store.close();
    return out;
  });
  await reload(page);
  const got = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'twice' });
    const out = t.fingerprint(store);
    store.close();
    return out;
  });
  assert.equal(got, fp);
});

test('compaction: a snapshot replaces the batches in one transaction, and the state is kept', async () => {
  const { page } = await openPage();
  const saved = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'compact', compactEvery: 20 });
    const { engine, workspace } = store;
    workspace.writeText('a.txt', 'start\n');
    const { id } = engine.createSession();
    for (let n = 1; n <= 12; n++) {
      t.turn(store, id, n); // 5 batches a turn
      await store.flush();
    }
    const auto = store.stats.logLength;
    t.turn(store, id, 13);
    await store.compact();
    const raw = await t.rawTx('compact', ['batches'], 'readonly', async (s) => t.req(s.count()));
    const snap = await t.rawTx('compact', ['snapshot'], 'readonly', async (s) => t.req(s.get('engine')));
    const out = { fp: t.fingerprint(store), auto, after: store.stats.logLength, raw, through: snap.through, nextSeq: store.stats.nextSeq };
    store.close();
    return out;
  });
  assert.ok(saved.auto < 20, `compacted automatically (${saved.auto} batches left)`);
  assert.equal(saved.after, 0);
  assert.equal(saved.raw, 0, 'the batches the snapshot covers are gone');
  assert.equal(saved.through, saved.nextSeq - 1);
  await reload(page);
  const loaded = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'compact', compactEvery: 20 });
    const { engine } = store;
    const id = engine.listSessions()[0].id;
    t.turn(store, id, 14); // batches after the snapshot: numbered on from it
    await store.flush();
    const out = { fp: t.fingerprint(store), nextSeq: store.stats.nextSeq };
    store.close();
    const again = await t.openBrowserEngine({ name: 'compact' });
    const turns = again.engine.resume(id).messages.filter((m) => m.kind === 'prompt').length;
    again.close();
    return { ...out, turns };
  });
  assert.equal(loaded.turns, 14);
  assert.equal(loaded.nextSeq, saved.nextSeq + 5);
});

test('refused: a newer database version, an unknown layout or format, a damaged log or snapshot', async () => {
  const { page } = await openPage();
  const got = await page.evaluate(async () => {
    const out = {};
    const create = (name, version, upgrade) => new Promise((ok, no) => {
      const r = indexedDB.open(t.databaseName(name), version);
      r.onupgradeneeded = () => upgrade?.(r.result, r.transaction);
      r.onsuccess = () => { r.result.close(); ok(); };
      r.onerror = () => no(r.error);
    });
    await create('newer', 7, (db) => db.createObjectStore('meta'));
    out.newer = await t.refusal(() => t.openBrowserEngine({ name: 'newer' }));
    await create('alien', 1, (db) => db.createObjectStore('things'));
    out.alien = await t.refusal(() => t.openBrowserEngine({ name: 'alien' }));
    // A good store, then its format record says a later version.
    const good = async (name) => {
      const s = await t.openBrowserEngine({ name });
      const { id } = s.engine.createSession();
      s.workspace.writeText('a.txt', 'x\n');
      t.turn(s, id, 1);
      await s.flush();
      s.close();
    };
    await good('future');
    await t.rawTx('future', 'meta', 'readwrite', async (s) => t.req(s.put({ format: 'rewind-wasm/browser-store', version: 2 }, 'format')));
    out.future = await t.refusal(() => t.openBrowserEngine({ name: 'future' }));
    await good('noformat');
    await t.rawTx('noformat', 'meta', 'readwrite', async (s) => t.req(s.delete('format')));
    out.noformat = await t.refusal(() => t.openBrowserEngine({ name: 'noformat' }));
    await good('badbatch');
    await t.rawTx('badbatch', 'batches', 'readwrite', async (s) => t.req(s.put(t.bytes('{"not":"a batch"'), 2)));
    out.badbatch = await t.refusal(() => t.openBrowserEngine({ name: 'badbatch' }));
    await good('gap');
    await t.rawTx('gap', 'batches', 'readwrite', async (s) => t.req(s.delete(3)));
    const count = () => t.rawTx('gap', 'batches', 'readonly', async (st) => t.req(st.count()));
    out.gapBefore = await count();
    out.gap = await t.refusal(() => t.openBrowserEngine({ name: 'gap' }));
    out.gapAfter = await count();
    await good('badsnap');
    const s = await t.openBrowserEngine({ name: 'badsnap' });
    await s.compact();
    s.close();
    await t.rawTx('badsnap', 'snapshot', 'readwrite', async (st) => {
      const snap = await t.req(st.get('engine'));
      snap.bytes[snap.bytes.length - 5] ^= 0xff;
      return t.req(st.put(snap, 'engine'));
    });
    out.badsnap = await t.refusal(() => t.openBrowserEngine({ name: 'badsnap' }));
    return out;
  });
  const is = (r, code, pattern) => {
    assert.ok(r, 'refused');
    assert.equal(r.name, 'RewindError');
    assert.equal(r.code, code, r.message);
    assert.match(r.message, pattern);
  };
  is(got.newer, 'unavailable', /newer version than 1.*newer rewind-wasm/);
  is(got.alien, 'corrupt', /not a rewind browser store/);
  is(got.future, 'unavailable', /store format 2.*reads format 1/);
  is(got.noformat, 'corrupt', /format record is missing/);
  is(got.badbatch, 'corrupt', /does not load/);
  is(got.gap, 'corrupt', /batch 3 is missing/);
  is(got.badsnap, 'corrupt', /does not load/);
  assert.equal(got.gapAfter, got.gapBefore, 'a refused open writes nothing');
});

test('one writer: a second open of the same store waits for the lock, then is refused', async () => {
  const { page } = await openPage();
  const got = await page.evaluate(async () => {
    const first = await t.openBrowserEngine({ name: 'locked' });
    const second = await t.refusal(() => t.openBrowserEngine({ name: 'locked', lockTimeoutMs: 200 }));
    first.close();
    const third = await t.refusal(() => t.openBrowserEngine({ name: 'locked', lockTimeoutMs: 200 }));
    return { second, third };
  });
  assert.equal(got.second.code, 'unavailable');
  assert.match(got.second.message, /open in another tab/);
  assert.equal(got.third, null, 'opens once the first is closed');
});

test('reload of a 10k-message session: median well under a second', async () => {
  const { page } = await openPage();
  const built = await page.evaluate(async () => {
    const store = await t.openBrowserEngine({ name: 'big' });
    const { engine } = store;
    const { id } = engine.createSession({ title: 'big' });
    const t0 = performance.now();
    for (let n = 0; n < 5000; n++) {
      const { turnId } = engine.recordPrompt(id, { text: `prompt ${n}: please change the function that handles case ${n}` });
      engine.recordReply(id, { turnId, text: `reply ${n}: done, I changed the handler for case ${n} and ran the tests` });
      engine.completeTurn(id, { turnId });
    }
    const build = performance.now() - t0;
    await store.flush();
    const messages = engine.activeBranch(id).messages.length;
    store.close();
    return { build, messages };
  });
  assert.equal(built.messages, 10_000);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    await reload(page);
    runs.push(await page.evaluate(async () => {
      const t0 = performance.now();
      const store = await t.openBrowserEngine({ name: 'big' });
      const open = performance.now() - t0;
      const id = store.engine.listSessions()[0].id;
      const messages = store.engine.activeBranch(id).messages.length;
      const logLength = store.stats.logLength;
      store.close();
      return { open, messages, logLength };
    }));
  }
  for (const r of runs) assert.equal(r.messages, 10_000);
  const median = runs.map((r) => r.open).sort((a, b) => a - b)[1];
  console.log(`reload of a 10k-message session (15k batches, compactEvery 1000): open ${runs.map((r) => r.open.toFixed(0)).join(', ')} ms, median ${median.toFixed(0)} ms (built in ${built.build.toFixed(0)} ms; batches after the snapshot: ${runs[0].logLength})`);
  assert.ok(median < 1000, `median reload ${median} ms`);
});
