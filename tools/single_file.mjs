// Writes the one-file download: the release bundle (after tools/postbuild.mjs) with its CSS, JS and
// wasm inlined into a single HTML file that works from file:// with no server. Usage:
//   node tools/single_file.mjs dist dist-single/gpu-advisor.html
//
// - CSS: every stylesheet link becomes one <style>.
// - JS: wasm-bindgen's glue (its one `export` line dropped) and a small start-up script become one
//   inline <script type="module">; the wasm travels gzipped and base64-encoded in a non-executable
//   <script type="application/octet-stream"> data block, is unpacked with DecompressionStream and
//   passed to init() as bytes (no fetch, which file:// would refuse). Gzip halves the file, which
//   matters for an e-mail attachment. The Chinese and Russian table (i18n.bin, which the served
//   app fetches when it needs it) travels the same way, base64 in its own block, and so do the
//   cards' source links (sources.bin, fetched by the served app for a detail panel) and the
//   accuracy page's tables (accuracy.bin, fetched by the served app when that page opens).
// - Images: the favicon link and the small SVGs the app refers to by name (the header logo) become
//   data: URLs; file:// has no sibling files to load them from.
// - CSP: file:// has no origin worth trusting, so 'self' would mean nothing. The policy allows
//   exactly the inline script and style by their sha256 hashes, plus 'wasm-unsafe-eval' to compile
//   the wasm, and data: images; everything else is 'none'. The static shell's two small scripts
//   (index.html: the language, the tab) stay inline, allowed by their hashes too.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { constants, gzipSync } from 'node:zlib';

const [dist = 'dist', out = 'dist-single/gpu-advisor.html'] = process.argv.slice(2);
const fail = (msg) => { console.error(`single_file: ${msg}`); process.exit(1); };
const read = (f) => readFileSync(join(dist, f.replace(/^\.\//, '')));
const hash = (s) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const MIME = { svg: 'image/svg+xml', png: 'image/png', ico: 'image/x-icon' };
const dataUrl = (f) => `data:${MIME[f.split('.').pop()] || 'application/octet-stream'};base64,${read(f).toString('base64')}`;
const attr = (tag, name) => (tag.match(new RegExp(`\\b${name}="([^"]*)"`)) || [])[1];

/** The first part of accuracy.bin (`gpu-advisor accuracy-pack`): postcard's list of (English,
 * Chinese, Russian) pages, each string a varint length and its bytes; the sets follow it. */
function accuracyPage(buf) {
  let i = 0;
  const varint = () => {
    let v = 0, shift = 0, b;
    do { b = buf[i++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return v;
  };
  const entries = varint();
  for (let k = 0; k < entries * 3; k++) {
    const length = varint();
    i += length;
  }
  if (i > buf.length) fail('accuracy.bin is not a list of pages');
  return buf.subarray(0, i);
}

let html = readFileSync(join(dist, 'index.html'), 'utf8');

// The loader (moved out of the page by postbuild.mjs) names the glue and the wasm.
const loaderTag = (html.match(/<script type="module" src="[^"]*loader-[^"]*"[^>]*><\/script>/) || [])[0];
if (!loaderTag) fail(`no loader script in ${dist}/index.html; run tools/postbuild.mjs first`);
const loader = read(attr(loaderTag, 'src')).toString('utf8');
const glueName = (loader.match(/from\s*'([^']+\.js)'/) || [])[1];
const wasmName = (loader.match(/'([^']+_bg\.wasm)'/) || [])[1];
if (!glueName || !wasmName) fail('the loader names no glue .js or _bg.wasm');
let glue = read(glueName).toString('utf8');
// The glue ends in its export list (minified by postbuild.mjs: `export{R as initSync,S as default};`);
// the local name of the default export is the init function the start-up script calls.
const exportLine = /export\s*\{([^}]*)\};?\s*$/;
const exported = (glue.match(exportLine) || [])[1];
if (!exported) fail(`no export line in ${glueName}`);
const initName = exported.split(',').map((s) => s.trim().split(/\s+as\s+/)).find(([, as]) => as === 'default')?.[0];
if (!initName) fail(`${glueName} exports no default (the init function)`);
glue = glue.replace(exportLine, '');
if (/^\s*(import|export)\b/m.test(glue)) fail(`${glueName} has imports or exports that cannot be inlined`);

// Small SVGs the wasm refers to by file name (e.g. <img src="icon.svg">) are swapped for data:
// URLs as the attribute is set, before the browser could try to load them from disk.
const inlineImages = Object.fromEntries(readdirSync(dist).filter((f) => f.endsWith('.svg')).map((f) => [f, dataUrl(f)]));

const start = `
// ---- gpu-advisor one-file start-up (tools/single_file.mjs) ----
{
  const images = ${JSON.stringify(inlineImages)};
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (name === 'src' && Object.hasOwn(images, value)) value = images[value];
    return setAttribute.call(this, name, value);
  };
}
const text = atob(document.getElementById('gpu-advisor-wasm').textContent.trim());
const gzipped = new Uint8Array(text.length);
for (let i = 0; i < text.length; i++) gzipped[i] = text.charCodeAt(i);
const unzip = new Blob([gzipped]).stream().pipeThrough(new DecompressionStream('gzip'));
const bytes = new Uint8Array(await new Response(unzip).arrayBuffer());
const instance = await ${initName}({ module_or_path: bytes });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm: instance } }));
`;
const script = `\n${glue}\n${start}`;

// Head links: stylesheets inline, preloads and the manifest dropped, icons as data: URLs.
const css = [];
html = html.replace(/<link\b[^>]*>/g, (tag) => {
  const rel = attr(tag, 'rel');
  const href = attr(tag, 'href');
  if (rel === 'stylesheet') { css.push(read(href).toString('utf8')); return ''; }
  if (rel === 'modulepreload' || rel === 'preload' || rel === 'manifest') return '';
  if (href && !/^(data:|https?:|#)/.test(href)) return tag.replace(`href="${href}"`, `href="${dataUrl(href)}"`);
  return tag;
});
// The static shell's logo (index.html) as a data: URL too.
html = html.replace(/(<img\b[^>]*\bsrc=")([^":]+\.svg)"/g, (_, head, f) => `${head}${inlineImages[f] || dataUrl(f)}"`);
html = html.replace(/\n\s*\n/g, '\n'); // before inlining: the hashes cover the inline text as is
// No pre-rendered Chinese or Russian answer to fetch beside the file (file:// has no siblings and
// the policy no connect-src): those readers get the bare frame, then the app.
html = html.replace(/<html\b([^>]*) data-answers\b/, '<html$1');
// The static shell's scripts (index.html: in <head> and after the shell), allowed by their hashes
// like the module below.
// The <head> script's wasm preload (tools/postbuild.mjs names the file in it): the wasm is in
// this page, and the policy allows no fetch.
html = html.replace(/"[^"]*_bg\.wasm"/, '"__WASM__"');
const shellScripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => hash(m[1]));
const style = `\n${css.join('\n')}\n`;

const csp = [
  "default-src 'none'",
  `script-src ${[hash(script), ...shellScripts].join(' ')} 'wasm-unsafe-eval'`,
  `style-src ${hash(style)}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
const cspTag = /<meta http-equiv="Content-Security-Policy" content="[^"]*"\s*\/?>/;
if (!cspTag.test(html)) fail('no CSP meta in index.html; run tools/postbuild.mjs first');
html = html.replace(cspTag, () => `<meta http-equiv="Content-Security-Policy" content="${csp}" />\n    <meta name="gpu-advisor:single-file" content="1" />`);
html = html.replace(loaderTag, () => [
  `<style>${style}</style>`,
  `<script type="application/octet-stream" id="gpu-advisor-wasm">${gzipSync(read(wasmName), { level: constants.Z_BEST_COMPRESSION }).toString('base64')}</script>`,
  // The Chinese and Russian table the served app fetches as i18n.bin (src/ui/i18n_load.rs).
  `<script type="application/octet-stream" id="gpu-advisor-i18n">${read('i18n.bin').toString('base64')}</script>`,
  // The cards' source links the served app fetches as sources.bin (src/ui/sources_load.rs).
  `<script type="application/octet-stream" id="gpu-advisor-sources">${read('sources.bin').toString('base64')}</script>`,
  // The accuracy page the served app fetches as accuracy.bin (src/ui/accuracy_load.rs), without
  // the sets it was rendered from, which the app does not read.
  `<script type="application/octet-stream" id="gpu-advisor-accuracy">${accuracyPage(read('accuracy.bin')).toString('base64')}</script>`,
  `<script type="module">${script}</script>`,
].join('\n'));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`single_file: wrote ${out} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB)`);
