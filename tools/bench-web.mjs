// `make bench-web`: the first load and the input latency of gpu-advisor beside a static 12-line page
// and, optionally, another calculator. A benchmark, not a test: it prints and records
// figures and asserts none; `make test` does not run it.
//
// Usage (after `make dist`):
//   node tools/bench-web.mjs                       # static page and dist/
//   PEER_DIR=/tmp/peer/dist node tools/bench-web.mjs   # and a peer's static build, served here
//   PEER_URL=http://127.0.0.1:4173/ node tools/bench-web.mjs   # or a peer served elsewhere
//   BENCH_RUNS=5 (default), BENCH_INPUTS=5 (inputs of each kind per run and throttle),
//   BENCH_ANSWER_WAIT=2000 (ms to wait for the answer after an input), BENCH_OUT=target/bench-web.json
//   (default), US_LINK (the shared link's query, default ?model=llama-3.1-70b&precision=fp8&mode=rent).
// The peer's selectors default to exodus2004/llm-inference-calculator's (commit 7ebb81b; its later
// commit 6be18de does not compile); for another peer set PEER_READY (the result), PEER_ANSWER (the
// element holding every figure it recomputes), PEER_NUMBER (a number field), PEER_SELECT (a
// select) and PEER_WORKLOAD (a select that changes what the form shows) to CSS selectors.
//
// Method: everything in one run, on loopback, headless Debian Chromium through playwright-core.
// - Each run of each target is a cold browser profile (a fresh user-data dir), service workers
//   blocked (the worker's precache of the whole build is not part of the first load). Runs are
//   interleaved (static, peer, us; static, peer, us; …) so machine noise hits all alike; every
//   figure is the median of BENCH_RUNS runs.
// - Serving: dir targets come from a Node static server here that answers with brotli (quality 11,
//   precompressed once) when the browser accepts it.
// - Transfer: every response the page receives, brotli-compressed here (quality 11) and summed;
//   with brotli serving this is the bytes of the bodies over the wire, and it is the same measure
//   for a PEER_URL served any way. Two figures: the responses that had fully arrived when the
//   result was on screen (Resource Timing responseEnd ≤ ready: what the first result needed: the
//   first-load transfer), and all of them up to the input tests (what loads after it too).
// - Ready: performance.now() in a task right after the first frame rendered once the result
//   element exists (a MutationObserver from an init script sees it, requests an animation frame,
//   and in the frame a setTimeout(0), as for inputs below): ours is the first option row of the
//   advisor (`.recommend-list__option`, src/ui/components/recommend_list.rs); the static page's is
//   its result paragraph. Ours is measured twice: the plain address (the answer pre-rendered in
//   the page) and a shared link with other inputs ("link", US_LINK), where the page drops the
//   pre-rendered answer and ready is the first option row the app renders (`#app-root …`), and
//   a third time as a Russian reader of the default question ("ru": a browser with the ru-RU
//   locale and no link parameters, which gets the answer pre-rendered in Russian, fetched beside
//   the page: ready is its first option row once the shell's script has put it in place, marked
//   `data-answer-ok`, never the English one the page holds while it is parsed), and a fourth
//   time as the shared link opened again ("link-again": in the same profile, a first visit to
//   the link until the app's answer rests, then about:blank, then the link again, timed; the
//   first visit kept its answer on leaving, assets/answer.js, so ready is the first option row of
//   the kept answer once in place, `data-answer-ok`, or of the app). The peer is opened again the
//   same way ("peer-again": its default page; it has no links). The link, ru and again targets
//   have no input tests.
// - Ready at 4×: a second cold load of each target per run, with the CPU throttled 4× (CDP) from
//   before the navigation, to the same ready point.
// - FCP: the `first-contentful-paint` paint entry. CLS: the sum of `layout-shift` entries without
//   recent input, until ready + 1 s.
// - Long tasks: the sum of `longtask` entry durations (PerformanceObserver, buffered) from
//   navigation to ready + 1 s.
// - Input → next frame: a capturing listener for the input's first event (keydown for typing,
//   input for a select) takes the event's timeStamp; in that event it requests an animation frame,
//   and in the frame a setTimeout(0), which runs after the frame's rendering and paint; the time
//   is performance.now() there minus the timeStamp. So it covers the handlers, the app's render
//   and the browser's style, layout and paint of the next frame. Inputs go through Playwright
//   (keyboard.press of a digit, then Backspace, alternately, in a number field; selectOption
//   between two values of a select; the same for the workload select). Each kind runs
//   BENCH_INPUTS times per run, unthrottled and then at 4× CPU throttle (CDP
//   Emulation.setCPUThrottlingRate); a run's figure is the median of its inputs.
// - Input → answer painted: from the same event's timeStamp to a task after the first frame
//   painted once the answer changed: in that event a MutationObserver (childList, characterData,
//   subtree) starts watching the answer region; its first record inside the region requests an
//   animation frame, and in the frame a setTimeout(0). The next frame may show only the changed
//   field; this is when the new figures are on screen, any wait the app adds included (ours
//   waits for typing to rest for 150 ms only when a field is emptied, src/ui/dom.rs). Answer regions: ours the ranked
//   options with their figures (`.recommend-list`, src/ui/components/recommend_list.rs), the
//   peer's its results panel; the static page has none. An answer not changed within
//   BENCH_ANSWER_WAIT ms counts as missing (not as zero) and the table gives the count. Each
//   input waits for its answer, and then for the page to rest (no DOM change for 250 ms, at most
//   3 s), before the next, so every input starts from an idle page.
import { chromium } from 'playwright-core';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { serveDir as serveStatic } from './serve-static.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_RUNS || 5);
const INPUTS = Number(process.env.BENCH_INPUTS || 5);
const ANSWER_WAIT = Number(process.env.BENCH_ANSWER_WAIT || 2000);
const KINDS = ['type', 'select', 'workload'];
const OUT = resolve(ROOT, process.env.BENCH_OUT || 'target/bench-web.json');
const DIST = resolve(ROOT, process.env.BENCH_DIST || 'dist');
const ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

// The static page: 12 lines, no script, the same kinds of inputs.
const STATIC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>static</title><link rel="icon" href="data:,"></head>
<body>
<h1>Static page</h1>
<label>Number <input id="n" type="number" value="8"></label>
<label>Select <select id="s"><option>a</option><option>b</option></select></label>
<label>Workload <select id="w"><option>inference</option><option>training</option></select></label>
<p id="result">Result: 8 GB</p>
<p>Nothing here runs a script.</p>
</body>
</html>
`;

// ---- static server with brotli (tools/serve-static.mjs) -------------------------------------------------------------

const brCache = new Map();
function brotli(buf) {
  const key = createHash('sha1').update(buf).digest('hex');
  let out = brCache.get(key);
  if (!out) {
    out = brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length } });
    brCache.set(key, out);
  }
  return out;
}

function walk(dir, out = []) {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) walk(p, out); else out.push(p);
  }
  return out;
}

/** Serves `dir` on 127.0.0.1 with brotli; every file is compressed before the first request. */
async function serveDir(dir) {
  for (const f of walk(dir)) brotli(readFileSync(f));
  return serveStatic(dir, { brotli });
}

// ---- in-page probes ------------------------------------------------------------------------

/** Runs before any page script: observers for paint, long tasks and layout shifts, the ready
 * watcher, and the input probe. */
function probe({ readySelector, answerSelector }) {
  const b = (window.__bench = { longtasks: [], shifts: [], ready: null });
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) b.longtasks.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: true });
  } catch { /* no longtask support */ }
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) b.shifts.push([e.startTime, e.value]); })
      .observe({ type: 'layout-shift', buffered: true });
  } catch { /* no layout-shift support */ }
  const found = () => {
    if (b.ready !== null || b.seen || !document.querySelector(readySelector)) return false;
    b.seen = performance.now();
    requestAnimationFrame(() => setTimeout(() => { b.ready = performance.now(); }, 0));
    return true;
  };
  const mo = new MutationObserver(() => { if (found()) mo.disconnect(); });
  mo.observe(document, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', () => { if (found()) mo.disconnect(); });
  const answerText = () => [...document.querySelectorAll(answerSelector)].map((e) => e.textContent).join('\n');
  const inAnswer = (n) => {
    const el = n.nodeType === 1 ? n : n.parentElement;
    return !!el && !!el.closest(answerSelector);
  };
  const touchesAnswer = (r) => inAnswer(r.target)
    || [...r.addedNodes, ...r.removedNodes].some((n) => n.nodeType === 1 && (n.matches(answerSelector) || n.querySelector(answerSelector)));
  /** Resolves with { frame, answer, same } for the next `type` event: the time from its timeStamp
   * to a task after its next frame; to a task after the first frame once the answer region
   * changed (null if it did not within `wait` ms, or if there is no answer region); whether the
   * answer's text came out the same. */
  b.arm = (type, wait) => {
    b.pending = new Promise((resolve) => {
      addEventListener(type, (e) => {
        const t0 = e.timeStamp;
        const out = { frame: null, answer: null, same: null };
        let left = answerSelector ? 2 : 1;
        const done = () => { if (--left === 0) resolve(out); };
        requestAnimationFrame(() => setTimeout(() => { out.frame = performance.now() - t0; done(); }, 0));
        if (!answerSelector) return;
        const before = answerText();
        let timer = null;
        const mo = new MutationObserver((records) => {
          if (!records.some(touchesAnswer)) return;
          mo.disconnect();
          clearTimeout(timer);
          requestAnimationFrame(() => setTimeout(() => {
            out.answer = performance.now() - t0;
            out.same = answerText() === before;
            done();
          }, 0));
        });
        mo.observe(document, { childList: true, characterData: true, subtree: true });
        timer = setTimeout(() => { mo.disconnect(); done(); }, wait);
      }, { capture: true, once: true });
    });
  };
  /** Resolves once the document has had no DOM change for `quiet` ms (at most `cap` ms). */
  b.rest = (quiet, cap) => new Promise((resolve) => {
    const end = performance.now() + cap;
    let timer = null;
    const finish = () => { mo.disconnect(); resolve(); };
    const again = () => { clearTimeout(timer); timer = setTimeout(finish, Math.max(0, Math.min(quiet, end - performance.now()))); };
    const mo = new MutationObserver(again);
    mo.observe(document, { childList: true, characterData: true, subtree: true, attributes: true });
    again();
  });
}

// ---- targets ---------------------------------------------------------------------------------

const targets = [];
const median = (xs) => {
  const s = xs.filter((x) => x !== null && x !== undefined && !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function setup() {
  const staticDir = mkdtempSync(join(tmpdir(), 'bench-static-'));
  writeFileSync(join(staticDir, 'index.html'), STATIC_PAGE);
  const staticServer = await serveDir(staticDir);
  targets.push({
    key: 'static', label: 'static 12-line page', server: staticServer, url: staticServer.url,
    ready: '#result', answer: null, number: '#n', select: '#s', workload: '#w',
  });
  const peerDir = process.env.PEER_DIR;
  const peerUrl = process.env.PEER_URL;
  let peer = null;
  if (peerDir || peerUrl) {
    const server = peerDir ? await serveDir(resolve(peerDir)) : null;
    targets.push(peer = {
      key: 'peer', label: process.env.PEER_NAME || 'peer', server, url: server ? server.url : peerUrl,
      // exodus2004/llm-inference-calculator: the VRAM figure; parameters; model quantization;
      // system type (discrete GPU / unified memory, which changes the form).
      ready: process.env.PEER_READY || '.results-panel .result-highlight',
      // Every figure it recomputes (VRAM, on-disk size, GPU config and count, system RAM or the
      // unified-memory verdict).
      answer: process.env.PEER_ANSWER || '.results-panel',
      number: process.env.PEER_NUMBER || '.input-panel input[type=number]',
      select: process.env.PEER_SELECT || '.input-panel > select:nth-of-type(1)',
      workload: process.env.PEER_WORKLOAD || '.input-panel > select:nth-of-type(3)',
    });
  }
  const usServer = await serveDir(DIST);
  targets.push({
    key: 'us', label: 'gpu-advisor', server: usServer, url: usServer.url,
    // The advisor's first option row (src/ui/components/recommend_list.rs); the users field (a
    // number field on the first screen: the context field is inside a closed disclosure, where
    // focus and keys cannot reach it), the precision select and the workload select.
    // The answer: the ranked options and their figures.
    ready: '.recommend-list__option',
    answer: process.env.US_ANSWER || '.recommend-list',
    number: process.env.US_NUMBER || '#in-users',
    select: process.env.US_SELECT || '#in-precision',
    workload: process.env.US_WORKLOAD || '#in-workload',
  });
  // A shared link with other inputs: the page drops its pre-rendered (default) answer, so ready
  // is the first option row the app itself renders. Load only.
  const link = process.env.US_LINK || '?model=llama-3.1-70b&precision=fp8&mode=rent';
  targets.push({
    key: 'link', label: 'gpu-advisor, shared link', server: null, url: new URL(link, usServer.url).href,
    ready: '#app-root .recommend-list__option', answer: null, inputs: false,
  });
  // A Russian reader of the default question: the browser's language, no link parameters.
  targets.push({
    key: 'ru', label: 'gpu-advisor, Russian reader', server: null, url: usServer.url, locale: 'ru-RU',
    // Its answer once the shell's script has put it in place, or the app's: not the English one
    // the page holds while it is parsed (hidden, and gone once that script runs).
    ready: '#shell[data-answer-ok] .recommend-list__option, #app-root .recommend-list__option', answer: null, inputs: false,
  });
  // The same link opened a second time in the profile (a reload, a link opened again): the first
  // visit kept its answer on leaving (assets/answer.js), so ready is the first option row painted,
  // the shell's or the app's. Beside it the peer's page opened a second time the same way.
  if (peer) targets.push({ ...peer, key: 'peer-again', label: `${peer.label}, opened again`, server: null, inputs: false, revisit: peer.ready });
  targets.push({
    key: 'link-again', label: 'gpu-advisor, shared link opened again', server: null, url: new URL(link, usServer.url).href,
    // The kept answer once the shell's script has put it in place (`data-answer-ok`), or the
    // app's: not the pre-rendered default answer, which the page holds while it is parsed.
    ready: '#shell[data-answer-ok] .recommend-list__option, #app-root .recommend-list__option', answer: null, inputs: false,
    revisit: '#app-root .advisor-view__results:not([aria-busy]) .recommend-list__option',
  });
}

/** For a target opened again (`t.revisit`: the selector of the first visit's own answer), that
 * first visit: the page until its answer is on screen and rests, then left (about:blank). */
async function firstVisit(page, t) {
  if (!t.revisit) return;
  await page.goto(t.url, { waitUntil: 'load' });
  await page.waitForSelector(t.revisit, { timeout: 60000 });
  await page.waitForTimeout(500);
  await page.goto('about:blank');
}

/** A cold browser for target `t` (a fresh profile, its locale if it has one) and its profile dir. */
async function coldContext(t) {
  const profile = mkdtempSync(join(tmpdir(), 'bench-web-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: t.locale ? [...ARGS, `--lang=${t.locale}`] : ARGS,
    viewport: { width: 1280, height: 900 }, serviceWorkers: 'block', ...(t.locale ? { locale: t.locale } : {}),
  });
  return { ctx, profile };
}

/** Ready (as oneRun measures it) of a cold load of `t` with the CPU throttled `rate`× from the start. */
async function readyThrottled(t, rate) {
  const { ctx, profile } = await coldContext(t);
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    await firstVisit(page, t);
    await page.addInitScript(probe, { readySelector: t.ready, answerSelector: t.answer });
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    await page.goto(t.url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__bench.ready !== null, null, { timeout: 120000, polling: 20 });
    return await page.evaluate(() => window.__bench.ready);
  } finally {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Two values of a select to alternate between: the current one and another. */
async function selectValues(page, sel) {
  return page.$eval(sel, (s) => {
    const vals = [...s.options].map((o) => o.value);
    const other = vals.find((v) => v !== s.value);
    return [s.value, other];
  });
}

/** One input: its { frame, answer, same } (see probe), after which the page rests. */
async function timeInput(page, type, act) {
  await page.evaluate(([t, w]) => window.__bench.arm(t, w), [type, ANSWER_WAIT]);
  await act();
  const r = await page.evaluate(() => window.__bench.pending);
  await page.evaluate(() => window.__bench.rest(250, 3000));
  return r;
}

/** The inputs of each kind at CPU throttle `rate`: { frame, answer } (a run's medians per kind),
 * { missing, same } (per kind, how many inputs' answers did not change in time, or changed to the
 * same text). */
async function inputs(page, t, cdp, rate) {
  const out = { frame: {}, answer: {}, missing: {}, same: {} };
  const record = (kind, rs) => {
    out.frame[kind] = median(rs.map((r) => r.frame));
    out.answer[kind] = t.answer ? median(rs.map((r) => r.answer)) : null;
    out.missing[kind] = t.answer ? rs.filter((r) => r.answer === null).length : null;
    out.same[kind] = t.answer ? rs.filter((r) => r.same === true).length : null;
  };
  const none = (kind) => { out.frame[kind] = null; out.answer[kind] = null; out.missing[kind] = null; out.same[kind] = null; };
  if (t.inputs === false) { for (const k of KINDS) none(k); return out; }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  // Typing: a digit at the end of the field, then Backspace, alternately.
  if (await page.$(t.number)) {
    await page.focus(t.number);
    await page.$eval(t.number, (el) => { try { el.setSelectionRange(el.value.length, el.value.length); } catch { /* type=number */ } });
    await page.keyboard.press('End').catch(() => {});
    const rs = [];
    for (let i = 0; i < INPUTS; i++) {
      rs.push(await timeInput(page, 'keydown', () => page.keyboard.press(i % 2 ? 'Backspace' : '5')));
      await page.waitForTimeout(50);
    }
    if (INPUTS % 2) await page.keyboard.press('Backspace');
    record('type', rs);
  } else none('type');
  for (const [kind, sel] of [['select', t.select], ['workload', t.workload]]) {
    if (!(await page.$(sel))) { none(kind); continue; }
    const [a, b] = await selectValues(page, sel);
    if (b === undefined) { none(kind); continue; }
    const rs = [];
    for (let i = 0; i < INPUTS; i++) {
      rs.push(await timeInput(page, 'input', () => page.selectOption(sel, i % 2 ? a : b)));
      await page.waitForTimeout(100);
    }
    if (INPUTS % 2) await page.selectOption(sel, a);
    await page.waitForTimeout(100);
    await page.evaluate(() => window.__bench.rest(250, 3000));
    record(kind, rs);
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  return out;
}

const bodySizes = new Map();
async function oneRun(t) {
  const { ctx, profile } = await coldContext(t);
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    await firstVisit(page, t);
    await page.addInitScript(probe, { readySelector: t.ready, answerSelector: t.answer });
    const responses = [];
    page.on('requestfinished', (req) => responses.push(req.response().then((r) => r && r.body().then((b) => [req.url(), b])).catch(() => null)));
    const encodings = new Set();
    page.on('response', (r) => { const e = r.headers()['content-encoding']; if (e) encodings.add(e); });
    await page.goto(t.url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__bench.ready !== null, null, { timeout: 60000, polling: 20 });
    const ready = await page.evaluate(() => window.__bench.ready);
    // Settle: what the page does right after the result still counts as load.
    await page.waitForTimeout(1000);
    const m = await page.evaluate((until) => {
      const b = window.__bench;
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return {
        fcp: fcp ? fcp.startTime : null,
        longtask: b.longtasks.filter(([s]) => s < until).reduce((a, [, d]) => a + d, 0),
        cls: b.shifts.filter(([s]) => s < until).reduce((a, [, v]) => a + v, 0),
      };
    }, ready + 1000);
    // Which responses had arrived when the result was on screen (Resource Timing's responseEnd;
    // the navigation's for the page itself).
    const before = new Set(await page.evaluate((at) => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
      .filter((e) => e.responseEnd > 0 && e.responseEnd <= at).map((e) => e.name), ready));
    let transfer = 0;
    let transferBefore = 0;
    for (const got of await Promise.all(responses)) {
      if (!got || !got[1]) continue;
      const [url, body] = got;
      const key = createHash('sha1').update(body).digest('hex');
      if (!bodySizes.has(key)) bodySizes.set(key, brotli(body).length);
      transfer += bodySizes.get(key);
      if (before.has(url)) transferBefore += bodySizes.get(key);
    }
    const cdp = await ctx.newCDPSession(page);
    const fast = await inputs(page, t, cdp, 1);
    const slow = await inputs(page, t, cdp, 4);
    return {
      transfer, transferBefore, ready, ...m, input: fast.frame, input4x: slow.frame,
      answer: fast.answer, answer4x: slow.answer,
      answerMissing: { '1x': fast.missing, '4x': slow.missing }, answerSame: { '1x': fast.same, '4x': slow.same },
      encodings: [...encodings],
    };
  } finally {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

// ---- report ----------------------------------------------------------------------------------

const kb = (b) => (b === null ? '—' : `${(b / 1000).toFixed(1)} KB`);
const ms = (x) => (x === null ? '—' : x < 10 ? `${x.toFixed(1)} ms` : `${Math.round(x)} ms`);

async function main() {
  try { statSync(join(DIST, 'index.html')); } catch { console.error(`bench-web: no ${DIST}/index.html; run make dist first`); process.exit(1); }
  await setup();
  const runs = Object.fromEntries(targets.map((t) => [t.key, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const t of targets) {
      const r = await oneRun(t);
      r.ready4x = await readyThrottled(t, 4);
      runs[t.key].push(r);
      process.stderr.write(`[bench-web] run ${i + 1}/${RUNS} ${t.label}: ready ${ms(r.ready)} / ${ms(r.ready4x)} at 4×, fcp ${ms(r.fcp)}, ` +
        `long tasks ${ms(r.longtask)}, ${kb(r.transfer)}, type ${ms(r.input.type ?? null)} / ${ms(r.input4x.type ?? null)} at 4×, ` +
        `type → answer ${ms(r.answer.type ?? null)} / ${ms(r.answer4x.type ?? null)} at 4×\n`);
    }
  }
  for (const t of targets) t.server?.close();
  const med = (key, f) => median(runs[key].map(f));
  const rows = [
    ['transfer until the result is on screen (brotli)', (k) => kb(med(k, (r) => r.transferBefore))],
    ['first-load transfer, all (brotli)', (k) => kb(med(k, (r) => r.transfer))],
    ['result on screen (ready)', (k) => ms(med(k, (r) => r.ready))],
    ['… at 4× CPU throttle', (k) => ms(med(k, (r) => r.ready4x))],
    ['first contentful paint', (k) => ms(med(k, (r) => r.fcp))],
    ['long tasks during load', (k) => ms(med(k, (r) => r.longtask))],
    ['layout shift (CLS) during load', (k) => { const v = med(k, (r) => r.cls); return v === null ? '—' : v.toFixed(3); }],
  ];
  // An answer figure, with how many inputs' answers timed out (all runs) when any did.
  const missing = (k, kind, speed) => runs[k].reduce((a, r) => a + (r.answerMissing[speed][kind] ?? 0), 0);
  const answerCell = (k, kind, speed, f) => {
    const n = missing(k, kind, speed);
    return ms(med(k, f)) + (n ? ` (${n} of ${RUNS * INPUTS} timed out)` : '');
  };
  for (const [kind, label] of [['type', 'typing in a number field'], ['select', 'changing a select'], ['workload', 'switching the workload']]) {
    rows.push([`input → next frame: ${label}`, (k) => ms(med(k, (r) => r.input[kind]))]);
    rows.push([`… at 4× CPU throttle`, (k) => ms(med(k, (r) => r.input4x[kind]))]);
    rows.push([`input → answer painted: ${label}`, (k) => answerCell(k, kind, '1x', (r) => r.answer[kind])]);
    rows.push([`… at 4× CPU throttle`, (k) => answerCell(k, kind, '4x', (r) => r.answer4x[kind])]);
  }
  const header = `| median of ${RUNS} | ${targets.map((t) => t.label).join(' | ')} |`;
  const lines = [header, `|---|${targets.map(() => '---|').join('')}`];
  for (const [label, f] of rows) lines.push(`| ${label} | ${targets.map((t) => f(t.key)).join(' | ')} |`);
  console.log(lines.join('\n'));
  const browserVersion = await (async () => {
    const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
    const v = b.version();
    await b.close();
    return v;
  })();
  const summary = {};
  for (const t of targets) {
    summary[t.key] = {
      label: t.label, url: t.url,
      transfer_bytes: med(t.key, (r) => r.transfer),
      transfer_before_result_bytes: med(t.key, (r) => r.transferBefore),
      ready_ms: med(t.key, (r) => r.ready),
      ready_4x_ms: med(t.key, (r) => r.ready4x),
      fcp_ms: med(t.key, (r) => r.fcp),
      longtask_ms: med(t.key, (r) => r.longtask),
      cls: med(t.key, (r) => r.cls),
      input_ms: Object.fromEntries(['type', 'select', 'workload'].map((k) => [k, med(t.key, (r) => r.input[k])])),
      input_4x_ms: Object.fromEntries(['type', 'select', 'workload'].map((k) => [k, med(t.key, (r) => r.input4x[k])])),
      answer_selector: t.answer,
      answer_ms: Object.fromEntries(KINDS.map((k) => [k, med(t.key, (r) => r.answer[k])])),
      answer_4x_ms: Object.fromEntries(KINDS.map((k) => [k, med(t.key, (r) => r.answer4x[k])])),
      // Inputs (all runs) whose answer did not change within BENCH_ANSWER_WAIT, and whose answer
      // changed to the same text.
      answer_missing: Object.fromEntries(['1x', '4x'].map((s) => [s, Object.fromEntries(KINDS.map((k) => [k, t.answer ? runs[t.key].reduce((a, r) => a + (r.answerMissing[s][k] ?? 0), 0) : null]))])),
      answer_same: Object.fromEntries(['1x', '4x'].map((s) => [s, Object.fromEntries(KINDS.map((k) => [k, t.answer ? runs[t.key].reduce((a, r) => a + (r.answerSame[s][k] ?? 0), 0) : null]))])),
      runs: runs[t.key],
    };
  }
  const json = {
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, memory_gb: Math.round(totalmem() / 1e9) },
    browser: `Chromium ${browserVersion}`, runs: RUNS, inputs_per_kind: INPUTS, answer_wait_ms: ANSWER_WAIT,
    table: lines.join('\n'), targets: summary,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(json, null, 2) + '\n');
  console.log(`\n${json.machine.cpu}, ${json.machine.cores} cores; ${json.browser}; wrote ${OUT}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
