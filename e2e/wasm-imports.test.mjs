// The wasm's imports get short names in the release build (tools/wasm_imports.mjs): the renaming
// on a module written by hand here, and on the built dist/ (the app itself starts in every other
// e2e test, which a broken renaming would stop).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';
import { shortName, shortenImports } from '../tools/wasm_imports.mjs';

const DIST = process.env.E2E_DIST || join(ROOT, 'dist');
const bytes = (s) => [s.length, ...new TextEncoder().encode(s)];

test('short names run a … z, A … Z, then two letters', () => {
  // By hand: 52 one-letter names (indices 0–51), then aa (52), ab (53), …
  assert.deepEqual([0, 25, 26, 51, 52, 53, 103, 104].map(shortName), ['a', 'z', 'A', 'Z', 'aa', 'ab', 'aZ', 'ba']);
});

test('a module written by hand: its wasm-bindgen imports and their module are renamed in both files', () => {
  // (module (type (func)) (import "./m_bg.js" "__wbg_log_0123456789abcdef" (func (type 0)))
  //         (import "env" "keep" (func (type 0))))
  const imports = [2, ...bytes('./m_bg.js'), ...bytes('__wbg_log_0123456789abcdef'), 0, 0, ...bytes('env'), ...bytes('keep'), 0, 0];
  const wasm = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 2, imports.length, ...imports]);
  const glue = 'const i={"./m_bg.js":{__wbg_log_0123456789abcdef:function(){},__wbg_log_0123456789abcdefX:1}};';
  const out = shortenImports(wasm, glue);
  assert.equal(out.renamed, 1);
  assert.equal(out.glue, 'const i={"g":{a:function(){},__wbg_log_0123456789abcdefX:1}};');
  const names = WebAssembly.Module.imports(new WebAssembly.Module(out.wasm));
  assert.deepEqual(names, [{ module: 'g', name: 'a', kind: 'function' }, { module: 'env', name: 'keep', kind: 'function' }]);
  // A second run changes nothing.
  const again = shortenImports(out.wasm, out.glue);
  assert.equal(again.renamed, 0);
  assert.deepEqual([...again.wasm], [...out.wasm]);
});

test('the built wasm imports only short names, each a key of the glue', () => {
  const wasmName = readdirSync(DIST).find((f) => f.endsWith('_bg.wasm'));
  const glueName = readdirSync(DIST).find((f) => /^gpu-advisor-web-[0-9a-f]+\.js$/.test(f));
  const names = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(join(DIST, wasmName))));
  const glue = readFileSync(join(DIST, glueName), 'utf8');
  assert.ok(names.length > 100, `${names.length} imports`);
  for (const { module, name } of names) {
    assert.equal(module, 'g');
    assert.match(name, /^[a-zA-Z]{1,2}$/);
    assert.match(glue, new RegExp(`[{,]${name}:`), `${name} is not a key of the glue's import object`);
  }
});
