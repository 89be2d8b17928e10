// Serving end to end: the default page's first option shows the speed `gpu-advisor estimate
// --users 1` gives for that card and count; a target of 50 users at 20 tokens/s each keeps only
// options that meet it; bad serving inputs get a message beside their field while the last result
// stays; the frontier chart draws the target; the best option is on the first screen of a phone
// and of a blog embed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { useApp, watchErrors, ROOT } from './harness.mjs';

const app = useApp();

/** `gpu-advisor estimate … --json` (the CLI shares the engine with the page). */
function estimate(args) {
  const out = execFileSync('cargo', ['run', '--quiet', '--locked', '--bin', 'gpu-advisor', '--', 'estimate', ...args, '--json'], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out);
}

test('the default page shows the one-user speed of `estimate --users 1`', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(app.url('?view=advisor'));
  const top = page.locator('.recommend-list__option').first();
  await top.waitFor();
  const gpu = await top.getAttribute('data-gpu');
  const count = await top.getAttribute('data-count');
  const perUser = Number(await top.locator('.recommend-list__per-user').getAttribute('data-mid'));
  const total = Number(await top.locator('.recommend-list__total').getAttribute('data-mid'));
  // The form's defaults (src/state/advisor.rs): Llama 3.1 8B, bf16, 8k context, 1,024 prompt and
  // 256 output tokens, one user.
  const e = estimate(['--model', 'llama-3.1-8b', '--precision', 'bf16', '--context', '8192', '--prompt-tokens', '1024',
    '--output-tokens', '256', '--gpu', gpu, '--gpus', count, '--users', '1']);
  const want = e.throughput.per_user_tokens_per_s.mid;
  assert.ok(Math.abs(perUser - want) <= 1e-3 * want, `${gpu}×${count}: page ${perUser}, CLI ${want}`);
  // One user: the total is that user's speed.
  assert.ok(Math.abs(total - perUser) <= 1e-3 * perUser, `total ${total} vs per user ${perUser}`);
  assert.match(await top.locator('.recommend-list__ttft').innerText(), /^[\d.]+ s$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a target of 50 users at 20 tokens/s each: every option meets it, and the chart draws it', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(app.url('?view=advisor&users=50&tps_user=20&mode=rent'));
  await page.locator('.recommend-list__option').first().waitFor();
  const rows = await page.locator('.recommend-list__option').evaluateAll((els) => els.map((el) => ({
    id: `${el.dataset.gpu}×${el.dataset.count}`,
    perUser: Number(el.querySelector('.recommend-list__per-user')?.dataset.mid),
    maxUsers: Number(el.querySelector('.recommend-list__max-users')?.textContent),
  })));
  assert.ok(rows.length > 0);
  for (const r of rows) {
    assert.ok(r.perUser >= 20, `${r.id}: ${r.perUser} tokens/s per user`);
    assert.ok(r.maxUsers >= 50, `${r.id}: serves ${r.maxUsers} users`);
  }
  const chart = page.locator('.frontier-chart');
  await chart.waitFor();
  assert.ok(await chart.locator('.frontier-chart__line').count() >= 1);
  assert.equal(await chart.locator('.frontier-chart__target').count(), 1);
  // The same target typed into the form gives the same top option.
  const first = rows[0].id;
  const typed = await app.ctx.newPage();
  await typed.goto(app.url('?view=advisor&mode=rent'));
  await typed.fill('#in-users', '50');
  await typed.fill('#in-tps-user', '20');
  await typed.waitForFunction(() => /tps_user=20/.test(location.search));
  await typed.waitForFunction((id) => {
    const el = document.querySelector('.recommend-list__option');
    return el && `${el.dataset.gpu}×${el.dataset.count}` === id;
  }, first);
  assert.deepEqual(errors, []);
  await page.close();
  await typed.close();
});

test('bad serving inputs get a message beside their field; the last result stays', async () => {
  const page = await app.ctx.newPage();
  await page.goto(app.url('?view=advisor'));
  const top = page.locator('.recommend-list__option').first();
  await top.waitFor();
  const before = `${await top.getAttribute('data-gpu')}×${await top.getAttribute('data-count')}`;
  const cases = [
    ['#in-tps-user', '-5', /above 0/],
    ['#in-tps-user', '0', /above 0/],
    ['#in-ttft', 'soon', /not a number/],
  ];
  for (const [sel, value, message] of cases) {
    await page.fill(sel, value);
    const err = page.locator(`${sel}-error`);
    await err.waitFor();
    assert.match(await err.innerText(), message, `${sel}=${value}`);
    const now = page.locator('.recommend-list__option').first();
    assert.equal(`${await now.getAttribute('data-gpu')}×${await now.getAttribute('data-count')}`, before);
    await page.fill(sel, '');
  }
  // The serving details live in a disclosure, which opens by itself when one of them is bad.
  await page.goto(app.url('?view=advisor&prefix_hit=0.5&spec=eagle'));
  await page.locator('.advisor-form__more--shape summary').click();
  for (const [sel, value] of [['#in-prefix-hit', '1.5'], ['#in-spec-accept', '2']]) {
    await page.fill(sel, value);
    const err = page.locator(`${sel}-error`);
    await err.waitFor();
    assert.match(await err.innerText(), /between 0 and 1/, `${sel}=${value}`);
    await page.fill(sel, '0.5');
  }
  await page.close();
});

test('the prefill/decode split: the link sets it, a bad value in a link is named', async () => {
  const page = await app.ctx.newPage();
  const errors = watchErrors(page);
  await page.goto(app.url('?view=advisor&disagg=on'));
  await page.locator('.recommend-list__option').first().waitFor();
  await page.locator('.advisor-form__more--shape summary').click();
  assert.equal(await page.locator('#in-disagg').inputValue(), 'on');
  await page.goto(app.url('?view=advisor&disagg=sometimes'));
  await page.locator('.recommend-list__option').first().waitFor();
  assert.match(await page.locator('.url-notes').innerText(), /disagg=sometimes.*choose auto, on or off/s);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the three picks are on the first screen of a phone, of a blog embed and of a laptop', async () => {
  for (const [width, height, query] of [[390, 844, '?view=advisor'], [700, 800, '?view=advisor&embed=1'], [1366, 900, '?view=advisor']]) {
    const page = await app.ctx.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(app.url(query));
    const strip = page.locator('.pick-strip:visible');
    await strip.waitFor();
    assert.equal(await strip.count(), 1, `${width}×${height}: one visible set of picks`);
    const box = await strip.boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= height, `${width}×${height}: picks at ${JSON.stringify(box)}`);
    const text = await strip.innerText();
    assert.match(text, /×\s*\d/, 'card × count');
    assert.match(text, /tokens\/s/, 'speed');
    assert.match(text, /\$[\d,]+/, 'cost');
    for (const role of ['Cheapest that fits', 'Throughput per dollar', 'Fastest within budget']) assert.ok(text.includes(role), `${width}×${height}: ${role} in ${text}`);
    await page.close();
  }
});

test('screenshots of the frontier chart in English and Chinese', async () => {
  mkdirSync(join(ROOT, 'e2e/out'), { recursive: true });
  for (const lang of ['en', 'zh']) {
    const page = await app.ctx.newPage();
    await page.setViewportSize({ width: 900, height: 900 });
    await page.goto(app.url(`?view=advisor&users=32&tps_user=20&mode=rent&lang=${lang}`));
    const chart = page.locator('.frontier-chart');
    await chart.waitFor();
    await chart.screenshot({ path: join(ROOT, `e2e/out/frontier-${lang}.png`) });
    await page.close();
  }
});
