// The ES module entry point: the same Engine as index.js (one addon instance per process).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cjs = require('./index.js');

export const { Engine, methods } = cjs;
export default cjs;
