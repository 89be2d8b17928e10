// End to end: the accuracy page (`?view=accuracy`) shows docs/ACCURACY.md's summary table and each
// set's worst rows with linked sources, in English, Chinese and Russian; its data (accuracy.bin)
// loads only when the page opens, never with the advisor; a missing or broken file gives a
// message, not a crash; and each LLM option's "how this was computed" names its held-out error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browser, useApp, watchErrors } from './harness.mjs';

const app = useApp();

for (const [lang, title, header, tab] of [
  ['en', 'Accuracy', 'Leave one family out', 'Accuracy'],
  ['zh', '准确度', '留一家族', '准确度'],
  ['ru', 'Точность', 'Без семейства', 'Точность'],
]) {
  test(`?view=accuracy&lang=${lang}: the summary and each set's worst rows, translated`, async () => {
    const page = await app.ctx.newPage();
    const errors = watchErrors(page);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(app.url(`?view=accuracy&lang=${lang}`));
    const summary = page.locator('.accuracy-view__summary');
    await summary.waitFor();
    await page.waitForFunction((t) => document.querySelector('.accuracy-view__title')?.textContent === t, title);
    assert.equal(await page.locator('.header__tab--current').innerText(), tab);
    const headers = await summary.locator('thead th').allInnerTexts();
    assert.equal(headers.length, 10, headers.join(' | '));
    assert.ok(headers.includes(header), headers.join(' | '));
    // One line per set, decode among them, each with its rows, sources and figures.
    const sets = await summary.locator('tbody tr').count();
    assert.ok(sets >= 5, `${sets} sets`);
    const decode = await summary.locator('tbody tr[data-set=decode] td').allInnerTexts();
    assert.equal(decode.length, 9, decode.join(' | '));
    assert.match(decode[0], /^\d+$/, 'rows');
    assert.match(decode[3], /^\d+[.,]\d% [✓✗]$/, 'leave one family out');
    if (lang !== 'en') assert.match(await summary.locator('tbody tr[data-set=decode] th').innerText(), /[\u4e00-\u9fffа-яА-Я]/);
    // Each set's worst rows, every source that is a URL or a GitHub repository linked.
    assert.equal(await page.locator('.accuracy-view__set').count(), sets);
    assert.ok((await page.locator('.accuracy-view__set tbody tr').count()) >= sets);
    const links = await page.locator('.accuracy-view__set a').evaluateAll((as) => as.map((a) => [a.href, a.textContent]));
    assert.ok(links.length > 0, 'no source links');
    for (const [href, text] of links) {
      if (text.startsWith('github ')) assert.match(href, /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+/, text);
      else assert.equal(href, new URL(text.split(/\s/)[0]).href, text);
    }
    // Everything the page loaded came from its own origin.
    const origin = new URL(app.server.url).origin;
    assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !/^(data|blob):/.test(u)), []);
    // And back to the advisor.
    await page.locator('.accuracy-view__back').click();
    await page.locator('.recommend-list__option').first().waitFor();
    await page.waitForFunction(() => !/view=accuracy/.test(location.search));
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the advisor does not load the accuracy tables; its estimates name their held-out error; the header opens the page', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  const fetched = [];
  page.on('request', (r) => { if (r.url().endsWith('/accuracy.bin')) fetched.push(r.url()); });
  for (const [lang, line, marker] of [
    ['zh', /^LLM 解码，单个请求 — \S+，.+：/, /中位误差/],
    ['ru', /^LLM: декодирование, один запрос — \S+ на .+: /, /медианная ошибка/],
    ['en', /^LLM decode, one request — \S+ on .+: (\d+% median error on \d+ held-out rows|no held-out rows for this pair; the set's \d+% median error on \d+ rows), leave-family-out$/, /median error/],
  ]) {
    await page.goto(app.url(`?view=advisor&lang=${lang}`));
    await page.locator('.recommend-list__option').first().waitFor();
    await page.locator('.recommend-list__explain summary').first().click();
    const items = page.locator('.recommend-list__assumptions').first().locator('li');
    await items.first().waitFor();
    // The held-out error of the headline figure comes first (one user: decode).
    const all = await items.allInnerTexts();
    assert.equal(all.filter((l) => marker.test(l)).length, 1, all.join('\n'));
    assert.match(all[0], line);
  }
  await page.waitForLoadState('networkidle');
  assert.deepEqual(fetched, [], 'the advisor fetched accuracy.bin');
  await page.locator('.header__tab', { hasText: 'Accuracy' }).click();
  await page.locator('.accuracy-view__summary').waitFor();
  await page.waitForFunction(() => /view=accuracy/.test(location.search));
  assert.equal(fetched.length, 1, `accuracy.bin requests: ${fetched}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a missing or broken accuracy file shows a message, not a crash', async () => {
  // No service worker: it would answer from its cache past the routes below.
  const ctx = await browser({ serviceWorkers: 'block' });
  for (const body of [null, 'not a postcard table']) {
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.route('**/accuracy.bin', (route) => (body === null ? route.fulfill({ status: 404, body: 'gone' }) : route.fulfill({ status: 200, body })));
    await page.goto(app.url('?view=accuracy&lang=en'));
    const alert = page.locator('.accuracy-view__status[role=alert]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /could not be loaded/);
    assert.equal(await page.locator('.accuracy-view__summary').count(), 0);
    // The rest of the app still works.
    await page.locator('.accuracy-view__back').click();
    await page.locator('.recommend-list__option').first().waitFor();
    // A 404 is logged by the browser as a failed resource; nothing else may be.
    assert.deepEqual(errors.filter((e) => !/404|Failed to load resource/.test(e)), []);
    await page.close();
  }
  await ctx.close();
});
