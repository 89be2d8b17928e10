// End to end against the release build in dist/: the compare view, the catalog,
// same-origin-only network traffic, and the README screenshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, useApp, watchErrors } from './harness.mjs';

const app = useApp();

const url = (q = '') => app.url(q);

test('compare view reads 768 and 1008 GB/s for the RTX A5000 and RTX 4090', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(url('?view=compare&gpus=rtx-a5000,rtx-4090'));
  const row = page.locator('.compare-view__row[data-field=bandwidth]');
  await row.waitFor();
  const a5000 = (await row.locator('[data-gpu=rtx-a5000]').innerText()).replace(/,/g, '');
  const r4090 = (await row.locator('[data-gpu=rtx-4090]').innerText()).replace(/,/g, '');
  // RTX A5000 datasheet: 768 GB/s; Ada whitepaper, RTX 4090: 1,008 GB/s.
  assert.match(a5000, /\b768\b/);
  assert.match(r4090, /\b1008\b/);
  // The better bandwidth is highlighted, and the ratio is written out: 1008 / 768 = 1.3125.
  assert.ok(await row.locator('[data-gpu=rtx-4090].compare-view__value--best').count() === 1);
  assert.match(await page.locator('.compare-view__ratios').innerText(), /1\.31× the bandwidth of (NVIDIA )?RTX A5000/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('catalog lists every card, filters, and keeps its state in the URL', async () => {
  const page = await app.ctx.newPage();
  // The source links load with the first detail panel, not with the page.
  const sources = [];
  page.on('request', (r) => { if (r.url().endsWith('/sources.bin')) sources.push(r.url()); });
  await page.goto(url('?view=catalog'));
  await page.locator('.catalog-table__row').first().waitFor();
  assert.ok((await page.locator('.catalog-table__row').count()) >= 60);
  assert.deepEqual(sources, [], 'the page fetched sources.bin before a detail panel opened');
  await page.fill('input[type=search]', 'H100');
  await page.waitForFunction(() => document.querySelectorAll('.catalog-table__row').length <= 5);
  // The URL follows the input once the inputs rest (src/ui/dom.rs, replace_query_once_idle).
  await page.waitForFunction(() => /q=H100/.test(location.search));
  assert.match(page.url(), /q=H100/);
  await page.locator('.catalog-table__row[data-gpu=h100-sxm] .catalog-table__name').click();
  const detail = page.locator('.gpu-detail');
  await detail.waitFor();
  await detail.locator('.gpu-detail__sources a').first().waitFor();
  assert.match(await detail.innerText(), /nvidia\.com/i, 'the detail panel lists its sources');
  assert.ok((await detail.locator('.gpu-detail__cloud a').count()) > 0, 'each cloud price links its source');
  assert.equal(sources.length, 1, `sources.bin requests: ${sources}`);
  await page.close();
});

test('every request stays on the page origin', async () => {
  const page = await app.ctx.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url('?view=compare&gpus=h100-sxm,rtx-4090,l40s'));
  await page.locator('.compare-view__row').first().waitFor();
  await page.goto(url('?view=advisor'));
  await page.locator('.sizing-table__row').first().waitFor();
  const origin = new URL(app.server.url).origin;
  const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.ok(requests.length > 3, `saw ${requests.length} requests`);
  assert.deepEqual(foreign, []);
  await page.close();
});

test('screenshot of the real app for the README', async () => {
  const page = await app.ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(url('?model=llama-3-70b&precision=q4_k_m&context=16384&batch=2&budget=12000&view=advisor'));
  await page.locator('.recommend-list__option').first().waitFor();
  mkdirSync(join(ROOT, 'e2e/out'), { recursive: true });
  const out = join(ROOT, 'e2e/out/screenshot.png');
  await page.screenshot({ path: out });
  if (process.env.UPDATE_SCREENSHOT === '1') copyFileSync(out, join(ROOT, 'docs/screenshot.png'));
  await page.close();
});

test('compare view shows prices in the chosen currency and the cards on the advisor job', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(url('?view=compare&gpus=rtx-5070,rtx-5090&currency=rub&rate=100&mode=rent'));
  const launch = page.locator('.compare-view__row[data-field=launch]');
  await launch.waitFor();
  // NVIDIA's launch prices: RTX 5070 $549, RTX 5090 $1,999; at 100 RUB per USD: 54,900 and 199,900 RUB.
  const digits = async (id) => (await launch.locator(`[data-gpu=${id}]`).innerText()).replace(/[\s,\u00a0\u202f]/g, '');
  assert.match(await digits('rtx-5070'), /^54900₽/);
  assert.match(await digits('rtx-5090'), /^199900₽/);
  assert.doesNotMatch(await launch.innerText(), /\$/, 'no USD left in the compare view prices');
  assert.match(await launch.locator('.compare-view__unit').innerText(), /RUB/);
  // The advisor's default job, Llama 3.1 8B in bf16 (16 GB of weights): one 32 GB RTX 5090 holds
  // it, one 12 GB RTX 5070 does not.
  const job = page.locator('.compare-job');
  await job.waitFor();
  const cells = (row) => job.locator(`.compare-job__row[data-row=${row}] .compare-job__value`);
  assert.equal(await cells('gpus').nth(1).innerText(), '1');
  assert.notEqual(await cells('gpus').nth(0).innerText(), '1');
  assert.match(await cells('speed').nth(1).innerText(), /^\d+(\.\d+)?$/, 'one user\'s tokens/s on the RTX 5090');
  // Renting: the RTX 5090 has a cloud price, so its cost per million tokens is shown in RUB.
  assert.match(await cells('cost').nth(1).innerText(), /₽/);
  assert.deepEqual(errors, []);
  await page.close();
});
