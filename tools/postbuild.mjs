// Post-build step for the release bundle (run by `make dist` after `trunk build`). Usage:
//   node tools/postbuild.mjs dist
// 1. CSP: Trunk 0.21 writes its wasm loader as an inline `<script type="module">`, which
//    `script-src 'self'` forbids. The loader moves to `loader-<hash>.js` (with SRI) and the policy
//    below goes into a `<meta http-equiv="Content-Security-Policy">` as the first child of <head>.
//    The static shell's language script (index.html) stays inline: the policy allows it by its
//    sha256, computed here from the built page.
//    `trunk serve` skips this step: the dev server has no CSP (its live-reload script is inline too).
//    The policy is written after step 5's pre-render, which rewrites the shell.
// 2. Stylesheets: the per-component CSS files become one `app-<hash>.css` (smaller compressed).
// 3. Comments: index.html's HTML comments are dropped.
// 4. The loader, the wasm-bindgen glue and the shell's two inline scripts are minified (terser),
//    and the wasm's imports get short names in the glue and in the wasm (tools/wasm_imports.mjs).
// 5. Pre-render: the app's first render of the default question goes into the static shell
//    (tools/prerender.mjs), so the default answer paints before the wasm arrives.
// 6. Build mark: `<html data-build>` gets a hash of the build's files, the build a visitor's kept
//    answer came from (assets/answer.js, which the loader imports once the app has started).
// 7. Service worker: the BUILD line of dist/sw.js gets the list of every file of the build and a
//    content hash of them all, so each deploy has its own cache (see assets/sw.js); its comments
//    are dropped.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { prerender } from './prerender.mjs';
import { shortenImports } from './wasm_imports.mjs';

/** The policy of the served build. `style-src 'self'`: no component sets inline styles (the embed
 * accent colour goes through CSSOM, which CSP does not restrict), so styles need no 'unsafe-inline'. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Files of the build the service worker does not precache: itself, and the one-file download
 * (a 0.5 MB copy of everything else, fetched only when the user asks for it). */
export const NOT_PRECACHED = new Set(['sw.js', 'gpu-advisor.html']);

/** The CSP source that allows an inline script whose text is `code`. */
export const scriptHash = (code) => `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`;

const ROOT = new URL('..', import.meta.url).pathname;
const fail = (msg) => { console.error(`postbuild: ${msg}`); process.exit(1); };
const sha = (alg, data) => createHash(alg).update(data).digest();

export function listFiles(root) {
  const out = [];
  (function walk(dir) {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p); else out.push(relative(root, p).split(sep).join('/'));
    }
  })(root);
  return out;
}

/** `code` minified by terser with `options`; the build fails when it gives nothing for `what`. */
async function terse(code, options, what) {
  const { minify } = await import('terser');
  const out = await minify(code, { ...options, format: { comments: false, ...options.format } });
  if (!out.code) fail(`terser gave nothing for ${what}`);
  return out.code;
}

async function externalizeLoader(dist) {
  const indexPath = join(dist, 'index.html');
  let html = readFileSync(indexPath, 'utf8');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/\bsrc=/.test(m[1]));
  const inline = scripts.filter((m) => /type="module"/.test(m[1]));
  if (inline.length === 0 && html.includes('loader-')) return; // already done
  if (inline.length !== 1) {
    fail(`expected exactly one inline module script (Trunk's loader) in ${indexPath}, found ${inline.length}`);
  }
  // With the default answer pre-rendered in the shell (step 5), the app is not needed for the first
  // result, so it loads after it: the loader waits for the frame that paints the answer before it
  // fetches the wasm.
  // Without an answer (another question, or a build with no pre-render) it starts at once. A
  // Chinese or Russian reader's answer is fetched by the shell's script (index.html): the loader
  // waits for it first, so the app never starts behind a shell that is about to change.
  // Minified (terser, single quotes: tools/single_file.mjs and minifyGlue read the names in it),
  // without Trunk's hooks for page scripts (`window.wasmBindings`, the `TrunkApplicationStarted`
  // event), which no script of the page uses.
  const trunk = inline[0][2].trim().replace(', * as bindings', '').replace(/window\.wasmBindings = bindings;\s*/, '').replace(/dispatchEvent\(new CustomEvent\("TrunkApplicationStarted"[^;]*;\s*/, '');
  // Once the app has started, it imports assets/answer.js (minified, `answer-<hash>.js`): the
  // answer on screen as the shell's HTML (the pre-render's copy too) and the visitor's own last
  // answer, kept on leaving the page for their next visit. Nothing before the first answer needs it.
  const answer = (await terse(readFileSync(join(ROOT, 'assets', 'answer.js'), 'utf8'), {}, 'assets/answer.js')) + '\n';
  const answerName = `answer-${sha('sha256', answer).toString('hex').slice(0, 16)}.js`;
  writeFileSync(join(dist, answerName), answer);
  const written = "await window.__shellAnswer;\nawait new Promise((go) => document.getElementById('shell')?.hasAttribute('data-answer') ? requestAnimationFrame(() => setTimeout(go)) : go());\n"
    + trunk + `\nimport('./${answerName}');\n`;
  const code = (await terse(written, { module: true, format: { quote_style: 1 } }, 'the loader')) + '\n';
  const name = `loader-${sha('sha256', code).toString('hex').slice(0, 16)}.js`;
  writeFileSync(join(dist, name), code);
  const integrity = `sha384-${sha('sha384', code).toString('base64')}`;
  html = html.replace(inline[0][0], `<script type="module" src="./${name}" integrity="${integrity}"></script>`);
  writeFileSync(indexPath, html);
}

/** With the default answer pre-rendered, Trunk's `<link rel="preload">` of the wasm leaves the
 * head, so the HTML and the stylesheet have the connection to themselves until the answer has
 * painted; the loader (above) fetches the wasm after that frame. Every visitor whose answer is not
 * in the page (a link, saved inputs) gets the preload from the `<head>` script (index.html), before
 * the shell is parsed: its `"__WASM__"` becomes the wasm's address here. */
function dropWasmPreload(dist) {
  const indexPath = join(dist, 'index.html');
  const html = readFileSync(indexPath, 'utf8');
  const preload = html.match(/<link rel="preload" href="([^"]+\.wasm)"[^>]*>/);
  const named = !html.includes('"__WASM__"');
  if (!preload && named) return; // already done
  if (!preload || named) fail(`${indexPath} needs Trunk's preload of the wasm and the "__WASM__" of its <head> script`);
  writeFileSync(indexPath, html.replace(preload[0], '').replace('"__WASM__"', () => JSON.stringify(preload[1])));
}

/** Puts the policy into a `<meta http-equiv>` as the first child of <head>, allowing the shell's
 * inline script by its sha256. Runs after the pre-render, which rewrites the shell. */
function writeCsp(dist) {
  const indexPath = join(dist, 'index.html');
  let html = readFileSync(indexPath, 'utf8');
  if (html.includes('http-equiv="Content-Security-Policy"')) return;
  const shell = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/\bsrc=/.test(m[1]));
  if (shell.length > 2) fail(`expected at most two inline scripts (the shell's, in <head> and after the shell) in ${indexPath}, found ${shell.length}`);
  const policy = CSP.replace("'wasm-unsafe-eval'", ["'wasm-unsafe-eval'", ...shell.map((m) => scriptHash(m[2]))].join(' '));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}" />`;
  html = html.replace(/<meta charset="utf-8"\s*\/?>/i, (m) => `${m}\n    ${meta}`);
  if (!html.includes(meta)) fail('no <meta charset="utf-8"> to put the CSP after');
  writeFileSync(indexPath, html);
}

/**
 * Joins the stylesheets Trunk emits (one per component, `styles/*.css`, in index.html order, so
 * the cascade is unchanged) into one file: apart they compress to about 5.1 KB brotli, together
 * to 3.1 KB without comments, and index.html and the service worker list one file instead of thirteen. Run again
 * on a bundled build, it finds one stylesheet and does nothing.
 */
function bundleStyles(dist) {
  const indexPath = join(dist, 'index.html');
  let html = readFileSync(indexPath, 'utf8');
  const links = [...html.matchAll(/<link rel="stylesheet" href="\.\/([^"/]+\.css)"\s*\/?>\s*/g)];
  if (links.length < 2) return;
  // Comments go (styles/*.css keep them for developers); no stylesheet has "/*" inside a string.
  const css = links
    .map((m) => readFileSync(join(dist, m[1]), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\n\s*\n/g, '\n').trim() + '\n')
    .join('');
  const name = `app-${sha('sha256', css).toString('hex').slice(0, 16)}.css`;
  writeFileSync(join(dist, name), css);
  html = html.replace(links[0][0], `<link rel="stylesheet" href="./${name}"/>\n    `);
  for (const m of links.slice(1)) html = html.replace(m[0], '');
  for (const m of links) unlinkSync(join(dist, m[1]));
  writeFileSync(indexPath, html);
}

/** Marks `<html data-build>` with a hash of every file of the build but the page itself and the
 * service worker (which lists them): the build a visitor's kept answer came from
 * (assets/answer.js), shown again only by the same build. Runs once every other file is final;
 * run again on a built folder whose files changed, it marks it anew. */
function markBuild(dist) {
  const indexPath = join(dist, 'index.html');
  const html = readFileSync(indexPath, 'utf8').replace(/(<html\b[^>]*) data-build="[^"]*"/, '$1');
  const build = filesHash(dist, listFiles(dist).filter((f) => !['index.html', ...NOT_PRECACHED].includes(f)));
  writeFileSync(indexPath, html.replace(/<html\b([^>]*)>/, (tag, attrs) => `<html${attrs} data-build="${build}">`));
}

/** A content hash (16 hex digits) of `files` of `dist`: their names and bytes, in order. */
function filesHash(dist, files) {
  const hash = createHash('sha256');
  for (const f of files) hash.update(f).update('\0').update(readFileSync(join(dist, f))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

function writeServiceWorkerManifest(dist) {
  const swPath = join(dist, 'sw.js');
  const assets = listFiles(dist).filter((f) => !NOT_PRECACHED.has(f));
  const version = filesHash(dist, assets);
  const sw = readFileSync(swPath, 'utf8');
  const line = /^const BUILD = .*;$/m;
  if (!line.test(sw)) fail(`no "const BUILD = …;" line in ${swPath}`);
  // The comments of assets/sw.js explain it to developers; visitors need not download them.
  const code = sw.split('\n').filter((l) => !/^\s*\/\//.test(l)).join('\n');
  const header = '// gpu-advisor service worker, built from assets/sw.js by tools/postbuild.mjs.\n';
  writeFileSync(swPath, header + code.replace(line, `const BUILD = ${JSON.stringify({ version, assets })};`));
  console.log(`postbuild: service worker caches ${assets.length} files as gpu-advisor-${version}`);
}

/** Drops the HTML comments of index.html: they explain it to developers (the static shell's
 * comment alone is 0.3 KB brotli); visitors need not download them. Scripts hold no `<!--`. */
function stripComments(dist) {
  const indexPath = join(dist, 'index.html');
  const html = readFileSync(indexPath, 'utf8');
  // The lines the comments and Trunk's own tags leave blank go too.
  writeFileSync(indexPath, html.replace(/[ \t]*<!--[\s\S]*?-->\n?/g, '').replace(/\n[ \t]*(?=\n)/g, ''));
}

/**
 * Minifies wasm-bindgen's JS glue (the file the loader imports) with terser: 43 KB raw, 6.6 KB
 * brotli as wasm-bindgen writes it, 5.1 KB minified. Its file name keeps Trunk's hash;
 * the service worker's version hashes the contents. tools/single_file.mjs reads the minified
 * export line for the init function's name. A second run minifies minified code, to no effect.
 * The wasm's imports then get short names in the glue and the wasm (tools/wasm_imports.mjs).
 */
async function minifyGlue(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const loaderName = (html.match(/<script type="module" src="\.\/(loader-[^"]+\.js)"/) || [])[1];
  if (!loaderName) fail('no loader script to find the glue from');
  const glueName = (readFileSync(join(dist, loaderName), 'utf8').match(/from\s*'\.\/([^']+\.js)'/) || [])[1];
  if (!glueName) fail(`${loaderName} imports no glue .js`);
  const small = await terse(readFileSync(join(dist, glueName), 'utf8'), { module: true }, glueName);
  if (!/export\s*\{[^}]*\bdefault\b[^}]*\};?\s*$/.test(small)) fail(`terser gave no default export for ${glueName}`);
  // The imports' short names go into the minified glue and the wasm together.
  const wasmName = readdirSync(dist).find((f) => f.endsWith('_bg.wasm'));
  if (!wasmName) fail('no _bg.wasm in the build');
  const short = shortenImports(readFileSync(join(dist, wasmName)), small + '\n');
  writeFileSync(join(dist, wasmName), short.wasm);
  writeFileSync(join(dist, glueName), short.glue);
}

/** Minifies the static shell's inline scripts (index.html: the language, which shell a visitor
 * gets, the tab), which every visitor downloads before the first paint: 3 KB raw as written. */
async function minifyShellScript(dist) {
  const indexPath = join(dist, 'index.html');
  let html = readFileSync(indexPath, 'utf8');
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)];
  if (scripts.length !== 2) fail(`expected two plain inline scripts (the shell's) in ${indexPath}, found ${scripts.length}`);
  for (const [whole, code] of scripts) {
    const small = await terse(code, {}, 'a script of the shell');
    html = html.replace(whole, () => `<script>${small}</script>`);
  }
  writeFileSync(indexPath, html);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dist = process.argv[2] || 'dist';
  stripComments(dist);
  await externalizeLoader(dist);
  await minifyGlue(dist);
  await minifyShellScript(dist);
  bundleStyles(dist);
  if (await prerender(dist)) dropWasmPreload(dist);
  writeCsp(dist);
  markBuild(dist);
  writeServiceWorkerManifest(dist);
}
