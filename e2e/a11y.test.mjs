// Accessibility: axe-core finds no serious or critical violation on every view, in light
// and dark colour schemes; every input has a label; the keyboard reaches the controls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import { ROOT, serve, ARGS } from './harness.mjs';

const DIST = process.env.E2E_DIST || join(ROOT, 'dist');
const BASE_PATH = process.env.E2E_BASE_PATH || '';
const AXE = join(ROOT, 'node_modules/axe-core/axe.min.js');
let server, ctx;
before(async () => {
  server = await serve(process.env.E2E_SERVE_ROOT || DIST);
  // axe is injected as a script, which the page's own CSP rightly refuses: bypass it for this audit only.
  ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'gpu-advisor-axe-')), {
    executablePath: '/usr/bin/chromium', headless: true, args: ARGS, bypassCSP: true, viewport: { width: 1280, height: 900 },
  });
});
after(async () => {
  await ctx?.close();
  server?.close();
});

const VIEWS = [
  ['advisor', '?view=advisor&model=llama-3-70b&budget=20000', '.recommend-list__option'],
  ['catalog', '?view=catalog&gpu=h100-sxm', '.gpu-detail'],
  ['compare', '?view=compare&gpus=rtx-a5000,rtx-4090', '.compare-view__row'],
  ['image generation', '?model=sdxl&resolution=1024x1024', '.sizing-table__row'],
];

for (const scheme of ['light', 'dark']) {
  for (const [name, q, ready] of VIEWS) {
    test(`axe: no serious or critical violations on ${name} (${scheme})`, async () => {
      const page = await ctx.newPage();
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${server.url}${BASE_PATH}${q}`);
      await page.locator(ready).first().waitFor();
      await page.addScriptTag({ path: AXE });
      const result = await page.evaluate(async () => {
        // eslint-disable-next-line no-undef
        const r = await axe.run(document, { resultTypes: ['violations'] });
        return r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      });
      assert.deepEqual(result, []);
      await page.close();
    });
  }
}

test('every form control has a label, and Tab reaches the inputs with a visible focus ring', async () => {
  const page = await ctx.newPage();
  await page.goto(`${server.url}${BASE_PATH}?view=advisor`);
  await page.locator('#in-model').waitFor();
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
      .map((el) => el.outerHTML.slice(0, 80)));
  assert.deepEqual(unlabelled, []);
  let reached = false;
  for (let i = 0; i < 15 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'in-model');
  }
  assert.ok(reached, 'Tab reaches the model input');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  await page.close();
});
