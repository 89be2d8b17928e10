// End to end: bad input is explained in the reader's language, the engine's own errors included.
// The expected fragments are the zh/ru entries of data/i18n.toml for each message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, watchErrors } from './harness.mjs';

const app = useApp();

// Link → the fragment its note must hold, per language.
const LINKS = [
  // A parameter count the engine cannot read.
  ['model=custom&params=abc', { zh: '不是参数量', ru: 'не число параметров' }],
  // Mixed cards on an engine that splits every layer.
  ['model=llama-3.1-8b&engine=vllm&mix=rtx-4090:1,rtx-3090:1', { zh: '张量并行', ru: 'тензорный параллелизм' }],
  // Images on a model without a vision tower.
  ['model=llama-3.1-8b&images=2', { zh: '视觉语言模型', ru: 'мультимодальную' }],
  // A price override whose price is not a number.
  ['prices=rtx-4090:buy=abc', { zh: '价格不是数字', ru: 'цена — не число' }],
  // A number out of its range.
  ['users=0', { zh: '之间', ru: 'от' }],
];
const ENGLISH = /\b(is not|must be|needs|only|unknown)\b/;

for (const lang of ['zh', 'ru']) {
  test(`?lang=${lang}: a link's rejected values are explained in ${lang}`, async () => {
    const page = await app.ctx.newPage();
    const errors = watchErrors(page);
    for (const [query, expected] of LINKS) {
      await page.goto(app.url(`?view=advisor&lang=${lang}&${query}`));
      const notes = page.locator('.url-notes');
      await notes.waitFor();
      const text = await notes.innerText();
      assert.ok(text.includes(expected[lang]), `${query}: ${text}`);
      assert.doesNotMatch(text, ENGLISH, `${query} keeps English: ${text}`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`?lang=${lang}: a bad value typed into a field is explained beside it in ${lang}`, async () => {
    const page = await app.ctx.newPage();
    await page.goto(app.url(`?view=advisor&lang=${lang}&model=custom&params=13b`));
    await page.locator('#in-params').waitFor();
    await page.fill('#in-params', 'abc');
    await page.locator('#in-params').press('Tab');
    const err = page.locator('.field-row--error .field-row__error');
    await err.waitFor();
    const text = await err.innerText();
    assert.ok(text.includes({ zh: '不是参数量', ru: 'не число параметров' }[lang]), text);
    assert.doesNotMatch(text, ENGLISH, text);
    await page.close();
  });
}
