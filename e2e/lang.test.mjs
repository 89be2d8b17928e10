// End to end: the interface speaks Chinese with ?lang=zh and Russian with ?lang=ru.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, watchErrors } from './harness.mjs';

const app = useApp();

for (const [lang, catalogTab, compareTitle, htmlLang] of [
  ['zh', '目录', /[\u4e00-\u9fff]/, 'zh-CN'],
  ['ru', 'Каталог', /[а-яА-Я]/, 'ru'],
]) {
  test(`?lang=${lang} shows ${lang} labels`, async () => {
    const page = await app.ctx.newPage();
    const errors = watchErrors(page);
    await page.goto(`${app.server.url}${app.base}?lang=${lang}&view=compare&gpus=rtx-a5000,rtx-4090`);
    await page.locator('.compare-view__row').first().waitFor();
    const tabs = await page.locator('.header__tab').allInnerTexts();
    assert.ok(tabs.includes(catalogTab), `tabs: ${tabs}`);
    assert.match(await page.locator('.compare-view__title').innerText(), compareTitle);
    assert.equal(await page.getAttribute('html', 'lang'), htmlLang);
    // Product names stay as they are.
    assert.match(await page.locator('.compare-view__card').first().innerText(), /RTX A5000/);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the language can be switched in the UI and is kept in the URL', async () => {
  const page = await app.ctx.newPage();
  await page.goto(`${app.server.url}${app.base}?lang=en&view=catalog`);
  await page.locator('.catalog-table__row').first().waitFor();
  await page.selectOption('.header__lang-select', 'ru');
  await page.waitForFunction(() => /Каталог/.test(document.querySelector('.header__nav').innerText));
  await page.waitForFunction(() => /lang=ru/.test(location.search));
  assert.match(page.url(), /lang=ru/);
  await page.close();
});

test('the recommendation reasons follow the language', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  // The first reason of every option is the fit: "fits with N% headroom …" (data/i18n.toml).
  for (const [lang, fit] of [['zh', /^可容纳，余量/], ['ru', /^помещается с запасом/], ['en', /^fits with /]]) {
    // An explicit view: a link with only `lang` would restore the settings an earlier test left.
    await page.goto(`${app.server.url}${app.base}?view=advisor&lang=${lang}`);
    const reason = page.locator('.recommend-list__reasons li').first();
    await reason.waitFor();
    assert.match(await reason.innerText(), fit);
    // The engine's assumptions under "How this was computed" too.
    await page.locator('.recommend-list__explain summary').first().click();
    await page.locator('.recommend-list__assumptions li').first().waitFor();
    const assumptions = await page.locator('.recommend-list__assumptions').first().locator('li').allInnerTexts();
    const weights = { zh: /^权重：/, ru: /^веса: /, en: /^weights: / }[lang];
    assert.ok(assumptions.some((a) => weights.test(a)), assumptions.join('\n'));
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('English readers do not load the Chinese and Russian table; switching to Russian does', async () => {
  const page = await app.ctx.newPage();
  const tables = [];
  page.on('request', (r) => { if (r.url().endsWith('/i18n.bin')) tables.push(r.url()); });
  await page.goto(`${app.server.url}${app.base}?lang=en&view=catalog`);
  await page.locator('.catalog-table__row').first().waitFor();
  assert.deepEqual(tables, [], 'the page fetched i18n.bin for an English reader');
  await page.selectOption('.header__lang-select', 'ru');
  await page.waitForFunction(() => /Каталог/.test(document.querySelector('.header__nav').innerText));
  assert.equal(tables.length, 1, `requests: ${tables}`);
  await page.close();
});
