'use strict';
// rewind-node: the durable rewind engine for Node. `Engine.open(dir)` records into the same
// `<dir>/.rewind/rewind.db` the `rewind` CLI uses, and rewinds the real files in `dir`. Its
// methods are the wasm package's `Engine` methods, with the same arguments and results, so code
// moves between the two unchanged.
//
// Every method is the one generic wrapper below around the addon's `call(method, paramsJson)`:
// arguments go over as a JSON array (a `Uint8Array` as `{ base64 }`), the result comes back as
// JSON, and a failure is thrown as an Error named `RewindError` with the stable `code`.

const native = require('./rewind_node.node');

/** The method names, from the addon's dispatcher (one list; the tests compare it with the
 * wasm declarations). */
const methods = Object.freeze(native.methods());

const isBytes = (v) => v instanceof Uint8Array;

function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'undefined' ? 'undefined' : t === 'object' ? 'an object' : `a ${t}`;
}

function rewindError(code, message) {
  const err = new Error(message);
  err.name = 'RewindError';
  err.code = code;
  return err;
}

// As in the wasm package, the file contents of an edit are bytes or null, nothing else (the
// JSON dispatcher would also take a string as UTF-8; code written against this package must
// run on the wasm one too).
function checkEdit(opts) {
  if (opts === null || typeof opts !== 'object') return;
  for (const key of ['before', 'after']) {
    const v = opts[key];
    if (v !== undefined && v !== null && !isBytes(v)) {
      throw rewindError('invalid_input', `recordEdit ${key} must be a Uint8Array or null, not ${typeName(v)}`);
    }
  }
}

/** Arguments as the dispatcher's JSON array: bytes as `{ base64 }` (a Buffer too: the replacer
 * reads the original value, before Buffer's own toJSON), `undefined` as null. */
function params(args) {
  return JSON.stringify(Array.from(args, (a) => (a === undefined ? null : a)), function replace(key, value) {
    const raw = this[key];
    return isBytes(raw) ? { base64: base64(raw) } : value;
  });
}

/** Run an addon call; its errors carry the stable `code`: name them as the wasm package does. */
function coded(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof Error && typeof e.code === 'string') e.name = 'RewindError';
    throw e;
  }
}

/** Each Engine's addon handle (a WeakMap rather than a #private field: the generated methods
 * below are defined outside the class body, where a private name cannot be read). */
const handles = new WeakMap();

function handle(engine, name) {
  const h = handles.get(engine);
  if (h === undefined) throw rewindError('invalid_input', `${name} must be called on an Engine`);
  return h;
}

class Engine {
  /** Use `Engine.open(workspaceDir)`. */
  constructor(inner) {
    if (!(inner instanceof native.NativeEngine)) {
      throw rewindError('invalid_input', 'use Engine.open(workspaceDir, { db }) to make an Engine');
    }
    handles.set(this, inner);
  }

  /**
   * Open a workspace directory and its store (default `<workspaceDir>/.rewind/rewind.db`, as
   * the CLI's; `options.db` names another). Nothing is created until the first call that records.
   */
  static open(workspaceDir, options) {
    if (typeof workspaceDir !== 'string') {
      throw rewindError('invalid_input', `Engine.open takes the workspace directory, not ${typeName(workspaceDir)}`);
    }
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw rewindError('invalid_input', `Engine.open options must be an object, not ${typeName(options)}`);
    }
    const db = options?.db;
    if (db !== undefined && db !== null && typeof db !== 'string') {
      throw rewindError('invalid_input', `Engine.open options.db must be a string, not ${typeName(db)}`);
    }
    return new Engine(coded(() => native.NativeEngine.open(workspaceDir, db == null ? undefined : { db })));
  }

  /** The workspace directory (absolute). */
  get workspace() {
    return handle(this, 'workspace').workspace;
  }

  /** The database file (absolute). */
  get db() {
    return handle(this, 'db').db;
  }

  /** Refuse further calls (`unavailable`). The store is not held open between calls anyway. */
  close() {
    handle(this, 'close').close();
  }
}

for (const name of methods) {
  Object.defineProperty(Engine.prototype, name, {
    value: {
      [name](...args) {
        if (name === 'recordEdit') checkEdit(args[1]);
        const h = handle(this, name);
        return JSON.parse(coded(() => h.call(name, params(args))));
      },
    }[name],
    writable: true,
    configurable: true,
  });
}

module.exports = { Engine, methods };
