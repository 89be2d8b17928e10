// End to end: the static shell of index.html (issue 13) paints the header and the advisor's frame
// before the wasm runs, in the language the link asks for, and the app replaces it when it mounts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, watchErrors } from './harness.mjs';

const app = useApp();

for (const [q, tabs, htmlLang] of [
  ['', ['Advisor', 'Catalog', 'Compare (0)'], 'en'],
  ['?lang=zh', ['选型助手', '目录', '比较（0）'], 'zh-CN'],
  ['?lang=ru&view=compare&gpus=rtx-a5000,rtx-4090', ['Подбор', 'Каталог', 'Сравнение (2)'], 'ru'],
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
    assert.equal(current, q.includes('view=compare') ? tabs[2] : tabs[0]);
    // The advisor's frame on the advisor view; nothing below the header on the others.
    assert.equal(await shell.locator('.shell__form').isVisible(), !q.includes('view='));
    await page.close();
  });
}

test('the app takes the shell\'s place when it mounts', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(app.url('?lang=ru'));
  await page.locator('.recommend-list__option').first().waitFor();
  assert.equal(await page.locator('#shell').count(), 0);
  assert.equal(await page.locator('header.header').count(), 1);
  assert.match(await page.locator('.header__nav').innerText(), /Каталог/);
  assert.deepEqual(errors, []);
  await page.close();
});
