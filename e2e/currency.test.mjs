// End to end: prices in the reader's currency, unless the link chooses one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';

const app = useApp();

// The first option's purchase line ("buy: 1 × ¥1,788 …") in the language of the link.
async function firstPrice(page, query) {
  await page.goto(app.url(query));
  const top = page.locator('.recommend-list__option').first();
  await top.waitFor();
  return top.innerText();
}

test('zh shows yuan, ru roubles, and a link with currency=usd dollars', async () => {
  const page = await app.ctx.newPage();
  const base = '?model=llama-3.1-8b&precision=q4_k_m';
  const zh = await firstPrice(page, `${base}&lang=zh`);
  assert.match(zh, /¥/, zh);
  assert.doesNotMatch(zh, /\$/, zh);
  const ru = await firstPrice(page, `${base}&lang=ru`);
  assert.match(ru, /₽/, ru);
  const usd = await firstPrice(page, `${base}&lang=zh&currency=usd`);
  assert.match(usd, /\$/, usd);
  assert.doesNotMatch(usd, /¥/, usd);
  await page.close();
});
