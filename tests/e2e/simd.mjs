// Checks that built WebAssembly modules really contain WASM SIMD (v128) code: counts the
// f32x4 instructions in binaryen's disassembly. Usage: node tests/e2e/simd.mjs FILE.wasm...
// (default: every .wasm in dist/). Prints "N passed, M failed"; exits non-zero on failure.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import binaryen from 'binaryen';

const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : existsSync('dist') ? readdirSync('dist').filter((f) => f.endsWith('.wasm')).map((f) => join('dist', f)) : [];

// The kernels' hot loops need at least these: rounding, arithmetic, compare and select.
const required = ['f32x4.nearest', 'f32x4.mul', 'f32x4.add', 'f32x4.lt', 'v128.bitselect', 'v128.load', 'v128.store'];

let passed = 0;
let failed = 0;
if (files.length === 0) {
  console.error('simd check: no .wasm file given and none in dist/ (build first)');
  failed++;
}
for (const file of files) {
  const mod = binaryen.readBinary(new Uint8Array(readFileSync(file)));
  mod.setFeatures(binaryen.Features.All);
  const text = mod.emitText();
  mod.dispose();
  const counts = {};
  for (const m of text.matchAll(/\b((?:f32x4|i32x4|v128)\.[a-z_0-9]+)/g)) counts[m[1]] = (counts[m[1]] ?? 0) + 1;
  const f32x4 = Object.entries(counts).filter(([k]) => k.startsWith('f32x4.')).reduce((s, [, v]) => s + v, 0);
  const missing = required.filter((op) => !counts[op]);
  const summary = required.map((op) => `${op}×${counts[op] ?? 0}`).join(' ');
  if (missing.length === 0 && f32x4 > 0) {
    passed++;
    console.log(`ok   ${file}: ${f32x4} f32x4 instructions (${summary})`);
  } else {
    failed++;
    console.log(`FAIL ${file}: ${f32x4} f32x4 instructions; missing ${missing.join(', ')}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
