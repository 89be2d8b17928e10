// Short import names for the release wasm and its glue (run by tools/postbuild.mjs).
//
// wasm-bindgen names each JS function the wasm imports after its Rust binding and a 16-digit
// hash (`__wbg_set_nodeValue_7e9217115013d873`), under the module `./gpu-advisor-web_bg.js`. Both
// names are written twice, in the wasm's import section and as keys of the glue's import object,
// and the hashes barely compress: 179 imports were 4.8 KB of the app's brotli (2.9 KB of the
// wasm's, 1.9 KB of the glue's). They become `a`, `b`, … `aa`, … and the module `g`, the same in
// both files; nothing else refers to them (the glue reaches the wasm through its exports, which
// keep their names).

/** Reads the unsigned LEB128 at `at` of `bytes`: [value, position after it]. */
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

/** The unsigned LEB128 bytes of `n`. */
function uleb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

/** The `i`-th short name: a … z, A … Z, then two letters (valid JS identifiers). */
export function shortName(i) {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  do {
    name = letters[i % letters.length] + name;
    i = Math.floor(i / letters.length) - 1;
  } while (i >= 0);
  return name;
}

/** An import's description after its names: its kind's bytes, copied as they are. */
function importDesc(bytes, at) {
  const kind = bytes[at++];
  if (kind === 0) return leb(bytes, at)[1]; // function: type index
  if (kind === 1) { // table: reftype, limits
    at += 1;
    const flags = bytes[at++];
    at = leb(bytes, at)[1];
    return flags & 1 ? leb(bytes, at)[1] : at;
  }
  if (kind === 2) { // memory: limits
    const flags = bytes[at++];
    at = leb(bytes, at)[1];
    return flags & 1 ? leb(bytes, at)[1] : at;
  }
  if (kind === 3) return at + 2; // global: valtype, mutability
  throw new Error(`wasm import of unknown kind ${kind}`);
}

/**
 * Renames the imports of `wasm` (a Uint8Array) whose names start with `__wb`, and their module,
 * in it and in `glue` (the JS that builds the import object). Returns { wasm, glue, renamed }.
 * Imports already short (a second run) are left as they are.
 */
export function shortenImports(wasm, glue) {
  const td = new TextDecoder();
  const te = new TextEncoder();
  const out = [wasm.subarray(0, 8)];
  const names = new Map();
  const modules = new Map();
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, start] = leb(wasm, at + 1);
    const end = start + size;
    if (id !== 2) {
      out.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = leb(wasm, start);
    const body = uleb(count);
    while (count-- > 0) {
      const parts = [];
      for (let k = 0; k < 2; k++) {
        const [len, from] = leb(wasm, p);
        parts.push(td.decode(wasm.subarray(from, from + len)));
        p = from + len;
      }
      const [module, field] = parts;
      if (field.startsWith('__wb')) {
        if (!modules.has(module)) modules.set(module, modules.size ? `g${modules.size}` : 'g');
        if (!names.has(field)) names.set(field, shortName(names.size));
      }
      for (const s of [modules.get(module) ?? module, names.get(field) ?? field]) {
        const b = te.encode(s);
        body.push(...uleb(b.length), ...b);
      }
      const descEnd = importDesc(wasm, p);
      body.push(...wasm.subarray(p, descEnd));
      p = descEnd;
    }
    out.push(Uint8Array.from([2, ...uleb(body.length)]), Uint8Array.from(body));
    at = end;
  }
  let js = glue;
  const word = (s) => new RegExp(`(?<![\\w$])${s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w$])`, 'g');
  for (const [long, short] of names) js = js.replace(word(long), short);
  for (const [long, short] of modules) js = js.split(JSON.stringify(long)).join(JSON.stringify(short));
  const bytes = new Uint8Array(out.reduce((n, a) => n + a.length, 0));
  out.reduce((n, a) => (bytes.set(a, n), n + a.length), 0);
  return { wasm: bytes, glue: js, renamed: names.size };
}
