// Remembered settings (issue 7): the last inputs come back; a shared link wins without
// overwriting them until the user changes something; an old stored version is dropped with a note.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, serve, browser, watchErrors } from './harness.mjs';

const DIST = process.env.E2E_DIST || join(ROOT, 'dist');
const BASE_PATH = process.env.E2E_BASE_PATH || '';
let server, ctx;
before(async () => {
  server = await serve(process.env.E2E_SERVE_ROOT || DIST);
  ctx = await browser();
});
after(async () => {
  await ctx?.close();
  server?.close();
});
const url = (q = '') => `${server.url}${BASE_PATH}${q}`;

test('settings are remembered, and a link wins without overwriting them', async () => {
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(url('?view=advisor'));
  await page.locator('#in-batch').waitFor();
  await page.fill('#in-batch', '4');
  await page.waitForFunction(() => /batch=4/.test(location.search));
  // Back with no parameters: the remembered batch returns.
  await page.goto(url());
  await page.locator('#in-batch').waitFor();
  assert.equal(await page.locator('#in-batch').inputValue(), '4');
  // A shared link shows its own state…
  await page.goto(url('?model=qwen2.5-7b&batch=2'));
  await page.locator('#in-batch').waitFor();
  assert.equal(await page.locator('#in-batch').inputValue(), '2');
  // …and has not overwritten the remembered one.
  await page.goto(url());
  await page.locator('#in-batch').waitFor();
  assert.equal(await page.locator('#in-batch').inputValue(), '4');
  assert.equal(await page.locator('#in-model').inputValue(), 'llama-3.1-8b');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a stored state from an older version is dropped with a note, never a crash', async () => {
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(url('?view=catalog'));
  await page.evaluate(() => localStorage.setItem('gpu-advisor/state', JSON.stringify({ v: 0, q: 'batch=%%%' })));
  await page.goto(url());
  await page.locator('.url-notes__item').first().waitFor();
  assert.match(await page.locator('.url-notes').innerText(), /older version/);
  await page.evaluate(() => localStorage.setItem('gpu-advisor/state', '{not json'));
  await page.goto(url());
  await page.locator('.url-notes__item').first().waitFor();
  assert.match(await page.locator('.url-notes').innerText(), /could not be read/);
  assert.deepEqual(errors, []);
  await page.close();
});
