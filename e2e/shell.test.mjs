// End to end: the static shell of index.html paints the header and the advisor's frame
// before the wasm runs, in the language the link asks for, and the app replaces it when it mounts.
// In the release build the shell of the default question holds its answer, pre-rendered by the
// app itself (tools/prerender.mjs), in English and, fetched beside the page, in Chinese and
// Russian: it shows with no wasm at all, it is the live app's answer in the reader's language, and
// no one who asked something else (a link, saved inputs) is shown it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browser, useApp, watchErrors } from './harness.mjs';

const app = useApp();

for (const [q, tabs, htmlLang] of [
  ['', ['Advisor', 'Catalog', 'Compare (0)', 'Accuracy'], 'en'],
  ['?lang=zh', ['选型助手', '目录', '比较（0）', '准确度'], 'zh-CN'],
  ['?lang=ru&view=compare&gpus=rtx-a5000,rtx-4090', ['Подбор', 'Каталог', 'Сравнение (2)', 'Точность'], 'ru'],
  ['?view=accuracy', ['Advisor', 'Catalog', 'Compare (0)', 'Accuracy'], 'en'],
]) {
  test(`the shell shows before the wasm starts (${q || 'no query'})`, async () => {
    const page = await app.ctx.newPage();
    // The wasm never arrives: whatever is on screen is the static page.
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto(app.url(q));
    const shell = page.locator('#shell');
    assert.equal(await shell.locator('.header__brand').isVisible(), true);
    assert.deepEqual(await shell.locator('.header__tab').allInnerTexts(), tabs);
    assert.equal(await page.getAttribute('html', 'lang'), htmlLang);
    const current = await shell.locator('.header__tab--current').innerText();
    assert.equal(current, q.includes('view=compare') ? tabs[2] : q.includes('view=accuracy') ? tabs[3] : tabs[0]);
    // The default question (in any language): its answer, the Chinese one fetched beside the
    // page. Otherwise the advisor's frame on the advisor view and nothing below the header on the
    // others.
    const answer = q === '' || q === '?lang=zh';
    if (answer) await shell.locator('.recommend-list__option').first().waitFor();
    assert.equal(await shell.locator('.recommend-list__option').first().isVisible(), answer);
    assert.equal(await shell.locator('.shell__form').isVisible(), !answer && !q.includes('view='));
    await page.close();
  });
}

test('the app takes the shell\'s place when it mounts', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(app.url('?lang=ru'));
  // The shell shows the Russian answer first (pre-rendered): wait for the app's own.
  await page.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'));
  assert.equal(await page.locator('#shell').count(), 0);
  assert.equal(await page.locator('header.header').count(), 1);
  assert.match(await page.locator('.header__nav').innerText(), /Каталог/);
  assert.deepEqual(errors, []);
  await page.close();
});

/** The first option as a reader sees it: card and count, then its figures. */
async function firstOption(scope) {
  const row = scope.locator('.recommend-list__option').first();
  return { gpu: await row.getAttribute('data-gpu'), count: await row.getAttribute('data-count'), text: await row.innerText() };
}

test('the pre-rendered answer is the live app\'s, and only the default question gets it', async () => {
  // A browser of its own, without service workers: one registered by an earlier test would hand
  // out the wasm past the route below.
  const ctx = await browser({ serviceWorkers: 'block' });
  const page = await ctx.newPage();
  await page.route('**/*.wasm', (route) => route.abort());
  await page.goto(app.url(''));
  const shell = page.locator('#shell');
  const painted = await firstOption(shell);
  assert.match(painted.text, /tokens\/s/, 'speed');
  assert.match(painted.text, /\$[\d,]+/, 'cost');
  // Its form shows the default inputs (written out as attributes by the pre-render).
  assert.equal(await shell.locator('#in-workload').inputValue(), 'inference');
  assert.equal(await shell.locator('#in-users').inputValue(), '1');
  // Saved inputs (here: 70B) are another question: the bare frame, no answer.
  await page.evaluate(() => localStorage.setItem('gpu-advisor/state', 'model=llama-3-70b'));
  await page.goto(app.url(''));
  assert.equal(await shell.locator('.recommend-list__option').count(), 0);
  assert.equal(await shell.locator('.shell__form').isVisible(), true);
  await page.evaluate(() => localStorage.removeItem('gpu-advisor/state'));
  // So is a link with parameters.
  await page.goto(app.url('?model=llama-3-70b'));
  assert.equal(await shell.locator('.recommend-list__option').count(), 0);
  // The live app, same question: the same first option, word for word.
  const live = await app.ctx.newPage();
  await live.goto(app.url(''));
  await live.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'));
  assert.deepEqual(await firstOption(live), painted);
  await live.close();
  await ctx.close();
});

for (const [lang, locale, q, money] of [['zh', 'en-US', '?lang=zh', /¥[\d,]+/], ['ru', 'ru-RU', '', /[\d\s]+₽/]]) {
  test(`a ${lang} reader of the default question gets its answer in ${lang}, the live app's (${locale}${q ? `, ${q}` : ''})`, async () => {
    // The link's language, or the browser's: the same question, answered in that language with
    // its currency (yuan, roubles) before the wasm runs, word for word as the app answers it.
    const ctx = await browser({ serviceWorkers: 'block', locale });
    const page = await ctx.newPage();
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto(app.url(q));
    const shell = page.locator('#shell');
    await shell.locator('.recommend-list__option').first().waitFor();
    const painted = await firstOption(shell);
    assert.match(painted.text, money, 'cost in the reader\'s currency');
    assert.equal(await shell.getAttribute('data-lang'), lang);
    // Saved inputs are another question: the bare frame, and no answer fetched in.
    await page.evaluate(() => localStorage.setItem('gpu-advisor/state', 'model=llama-3-70b'));
    await page.goto(app.url(q));
    await page.waitForTimeout(300);
    assert.equal(await shell.locator('.recommend-list__option').count(), 0);
    await page.evaluate(() => localStorage.removeItem('gpu-advisor/state'));
    const live = await ctx.newPage();
    const errors = watchErrors(live);
    await live.goto(app.url(q));
    await live.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'));
    assert.deepEqual(await firstOption(live), painted);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

/** Opens `query` `loads` times, each in a fresh browser (cold cache, no service worker; `locale`
 * if given), and counts per load the animation frames (frames about to be painted), from the
 * document's start until the app has taken the shell's place, in which an element matching
 * `selector` is on screen (laid out and visible). */
async function framesShowing({ query, loads, selector, locale }) {
  const seen = [];
  for (let i = 0; i < loads; i++) {
    const ctx = await browser({ serviceWorkers: 'block', ...(locale ? { locale } : {}) });
    const page = await ctx.newPage();
    await page.addInitScript((sel) => {
      window.__framesShowing = 0;
      const frame = () => {
        const o = document.querySelector(sel);
        if (o && o.getClientRects().length && getComputedStyle(o).visibility === 'visible') window.__framesShowing++;
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    }, selector);
    await page.goto(app.url(query));
    await page.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'));
    seen.push(await page.evaluate(() => window.__framesShowing));
    await ctx.close();
  }
  return seen;
}

test('a Russian reader opening the page 10 times cold never sees the English answer, even for a frame', async () => {
  // The page carries the English answer in its shell; a ru-RU browser must see the bare frame or
  // its own (Russian) answer only.
  const seen = await framesShowing({
    query: '', loads: 10, locale: 'ru-RU', selector: '#shell:not([data-lang="ru"]) .recommend-list__option',
  });
  assert.deepEqual(seen, Array(10).fill(0), `frames with the English answer on screen, per load: ${seen}`);
});

test('a Russian reader whose answer file never comes still gets the app', async () => {
  // The file's request hangs: after the shell's 3 s wait (index.html) the app starts on the bare
  // frame and shows its own answer.
  const ctx = await browser({ serviceWorkers: 'block', locale: 'ru-RU' });
  const page = await ctx.newPage();
  await page.route('**/shell-ru.html', () => {});
  await page.goto(app.url(''));
  await page.waitForFunction(() => !document.getElementById('shell') && document.querySelector('.recommend-list__option'), null, { timeout: 20000 });
  assert.match(await page.locator('.header__nav').innerText(), /Каталог/);
  await ctx.close();
});

test('a shared link opened 20 times cold never shows the default question\'s answer, even for a frame', async () => {
  // The pre-rendered answer on screen (the shell's options, visible) answers another question
  // than the link's.
  const seen = await framesShowing({
    query: '?model=qwen3-32b&precision=q4_k_m&users=4', loads: 20, selector: '#shell .recommend-list__option',
  });
  assert.deepEqual(seen, Array(20).fill(0), `frames with the default answer on screen, per load: ${seen}`);
});
