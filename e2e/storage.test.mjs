// Remembered settings: the last inputs come back; a shared link wins without
// overwriting them until the user changes something; an old stored version is dropped with a note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, watchErrors } from './harness.mjs';

const app = useApp();
const url = (q = '') => app.url(q);

test('settings are remembered, and a link wins without overwriting them', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(url('?view=advisor'));
  await page.locator('#in-users').waitFor();
  await page.fill('#in-users', '4');
  await page.waitForFunction(() => /users=4/.test(location.search));
  // Back with no parameters: the remembered batch returns.
  await page.goto(url());
  await page.locator('#in-users').waitFor();
  assert.equal(await page.locator('#in-users').inputValue(), '4');
  // A shared link shows its own state…
  await page.goto(url('?model=qwen2.5-7b&users=2'));
  await page.locator('#in-users').waitFor();
  assert.equal(await page.locator('#in-users').inputValue(), '2');
  // …and has not overwritten the remembered one.
  await page.goto(url());
  await page.locator('#in-users').waitFor();
  assert.equal(await page.locator('#in-users').inputValue(), '4');
  assert.equal(await page.locator('#in-model').inputValue(), 'llama-3.1-8b');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a stored state from an older version is dropped with a note, never a crash', async () => {
  const page = await app.ctx.newPage();
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
