// End to end: at 1366 × 900 each option's figures fit one line each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';

const app = useApp();

// One line: the figure's text is as tall as one line of it (a wrapped figure has two or more
// line boxes). Checked for a serving option (per user, total with users, first token) and a
// purchase option, whose figures are the longest.
async function wrapped(page, query) {
  await page.goto(app.url(query));
  await page.locator('.recommend-list__option').first().waitFor();
  return page.evaluate(() => [...document.querySelectorAll('.recommend-list__figures dd')].flatMap((dd) => {
    const range = document.createRange();
    range.selectNodeContents(dd);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return lines.size > 1 ? [dd.textContent] : [];
  }));
}

test('at 1366 × 900 every figure of every option takes one line', async () => {
  const page = await app.ctx.newPage();
  await page.setViewportSize({ width: 1366, height: 900 });
  for (const q of ['?model=llama-3.1-70b&precision=fp8&users=50&budget=400000', '?model=llama-3.1-8b&precision=q4_k_m&budget=2000']) {
    const w = await wrapped(page, q);
    assert.deepEqual(w, [], `${q}: wrapped figures ${JSON.stringify(w)}`);
  }
  await page.close();
});
