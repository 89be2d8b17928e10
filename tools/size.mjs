// Prints the raw, gzip and brotli size of every file in a folder, and the totals.
// Usage: node tools/size.mjs dist
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const root = process.argv[2] || 'dist';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p); else files.push(p);
  }
})(root);

const pad = (s, n) => String(s).padStart(n);
let raw = 0, gz = 0, br = 0;
console.log(`${'file'.padEnd(48)} ${pad('raw', 10)} ${pad('gzip', 10)} ${pad('brotli', 10)}`);
for (const f of files) {
  const data = readFileSync(f);
  const g = gzipSync(data, { level: 9 }).length;
  const b = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  raw += data.length; gz += g; br += b;
  console.log(`${relative(root, f).padEnd(48)} ${pad(data.length, 10)} ${pad(g, 10)} ${pad(b, 10)}`);
}
console.log(`${'TOTAL'.padEnd(48)} ${pad(raw, 10)} ${pad(gz, 10)} ${pad(br, 10)}`);
console.log(`total brotli: ${(br / 1000).toFixed(1)} KB`);
