// End to end: a visitor's own last answer. On leaving the page the answer on screen is kept
// (assets/answer.js) with its question (the address's query) and its build; the next visit to the
// very same question paints it from the static shell before the wasm arrives, as the default
// question's pre-rendered answer is painted, and the app takes its place. Any other question, a
// kept answer from another build, or unreadable stored text gets the bare frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browser, useApp } from './harness.mjs';

const app = useApp();

const LINK = '?model=qwen3-32b&precision=q4_k_m&users=4';

/** The first option row in `scope`: its card, count and text. */
async function firstOption(scope) {
  const row = scope.locator('.recommend-list__option').first();
  return { gpu: await row.getAttribute('data-gpu'), count: await row.getAttribute('data-count'), text: await row.innerText() };
}

/** Opens `q` with the wasm, waits for the app's answer, and returns its first option. */
async function live(page, q) {
  await page.goto(app.url(q));
  await page.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'));
  await page.locator('#app-root .advisor-view__results:not([aria-busy])').waitFor();
  return firstOption(page.locator('#app-root'));
}

test('the same link opened again paints its own last answer before the wasm, and no other question gets it', async () => {
  // A browser of its own, without service workers: one would hand out the wasm past the route.
  const ctx = await browser({ serviceWorkers: 'block' });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const answer = await live(page, LINK);
  // Leaving the page (here: for the catalog) keeps the answer with the link's query.
  await page.goto(app.url('?view=catalog'));
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('gpu-advisor/answer')));
  assert.equal(kept.q, LINK.slice(1));
  assert.equal(kept.b, await page.getAttribute('html', 'data-build'));
  // The wasm never arrives: what is on screen is the static page.
  await page.route('**/*.wasm', (route) => route.abort());
  await page.goto(app.url(LINK));
  const shell = page.locator('#shell');
  assert.deepEqual(await firstOption(shell), answer);
  assert.equal(await shell.getAttribute('data-answer-ok'), '');
  assert.equal(await shell.locator('#in-users').inputValue(), '4');
  // Another question (one more user, or the same inputs in another language): the bare frame.
  for (const q of [LINK.replace('users=4', 'users=5'), `${LINK}&lang=ru`]) {
    await page.goto(app.url(q));
    assert.equal(await shell.locator('.recommend-list__option').count(), 0, q);
    assert.equal(await shell.locator('.shell__form').isVisible(), true, q);
  }
  // A kept answer of another build, or stored text that does not read: the bare frame, no error.
  for (const text of [JSON.stringify({ ...kept, b: 'another-build' }), '{not json', JSON.stringify({ ...kept, h: '<p>x</p>' })]) {
    await page.evaluate((t) => localStorage.setItem('gpu-advisor/answer', t), text);
    await page.goto(app.url(LINK));
    assert.equal(await shell.locator('.recommend-list__option').count(), 0, text.slice(0, 40));
  }
  assert.deepEqual(errors.filter((e) => !/fetch|wasm|WebAssembly/i.test(e)), []);
  await ctx.close();
});

test('saved inputs come back with their answer before the wasm, even when the page is left at once', async () => {
  const ctx = await browser({ serviceWorkers: 'block' });
  const page = await ctx.newPage();
  await live(page, '');
  // A changed input, and the page left 50 ms later: before the address (300 ms) and the saved
  // inputs (src/ui/app.rs) would have followed on their own, so the app writes both on leaving.
  await page.fill('#in-users', '3');
  await page.locator('#app-root .advisor-view__results:not([aria-busy])').waitFor();
  await page.waitForTimeout(50);
  const answer = await firstOption(page.locator('#app-root'));
  await page.goto(app.url('?view=catalog'));
  assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('gpu-advisor/state'))).q, 'users=3');
  await page.route('**/*.wasm', (route) => route.abort());
  await page.goto(app.url(''));
  const shell = page.locator('#shell');
  assert.deepEqual(await firstOption(shell), answer);
  assert.equal(await shell.locator('#in-users').inputValue(), '3');
  // The app, with the wasm: the same question, the same answer, and it takes the shell's place.
  await page.unroute('**/*.wasm');
  assert.deepEqual(await live(page, ''), answer);
  await ctx.close();
});

test('with an answer kept for a link, another link opened 10 times never shows it, even for a frame', async () => {
  const ctx = await browser({ serviceWorkers: 'block' });
  const page = await ctx.newPage();
  await live(page, LINK);
  await page.goto(app.url('?view=catalog'));
  await page.addInitScript(() => {
    window.__framesShowing = 0;
    const frame = () => {
      const o = document.querySelector('#shell .recommend-list__option');
      if (o && o.getClientRects().length && getComputedStyle(o).visibility === 'visible') window.__framesShowing++;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  const seen = [];
  for (let i = 0; i < 10; i++) {
    // Each visit keeps its own answer on leaving, and the next asks the other question.
    await live(page, LINK.replace('users=4', `users=${5 + (i % 2)}`));
    seen.push(await page.evaluate(() => window.__framesShowing));
    await page.goto(app.url('?view=catalog'));
  }
  assert.deepEqual(seen, Array(10).fill(0), `frames with another question's answer on screen, per load: ${seen}`);
  await ctx.close();
});
