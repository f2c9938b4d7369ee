// Headless Chromium for the browser tests: the system Chromium (scripts/setup installs the
// Debian package) driven by playwright-core, over a static server on a free loopback port that
// serves wasm/ at / (so /pkg/ is the package and /demo/ the demo page) and tests/js/browser/ at
// /test/.
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../../wasm/demo/serve.mjs';
import { ROOT } from './pkg.mjs';

export const CHROMIUM = process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium';

/** { browser, url, close() }: one browser per test file (a launch takes about a second). */
export async function launch() {
  const server = await serve({ '/': path.join(ROOT, 'wasm'), '/test/': path.join(ROOT, 'tests/js/browser') });
  let browser;
  try {
    // --no-sandbox: the tests run as root, where Chromium's sandbox refuses to start.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  } catch (e) {
    await server.close();
    throw e;
  }
  return {
    browser,
    url: server.url,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** A new page (its own context: its own IndexedDB) with page errors turned into test failures. */
export async function newPage(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  await page.goto(url);
  return { page, context, errors };
}
