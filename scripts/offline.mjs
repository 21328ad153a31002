// Writes DIR/sw.js, the site's service worker (assets/sw.js), for the built site in DIR (dist/:
// the app, the book, the reference): FILES lists every file of DIR by its path from DIR, VERSION
// is a hash of their paths and contents, so any change to the site makes a new sw.js — which the
// browser installs on the next visit. scripts/dev runs it after building the site.
//
//   node scripts/offline.mjs DIR

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEMPLATE = fileURLToPath(new URL('../assets/sw.js', import.meta.url));

/** Every file under `dir`, by its path from `root` with `/` separators, sorted. */
function files(root, dir = root) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(root, join(dir, e.name)) : [relative(root, join(dir, e.name)).split(sep).join('/')]))
    .sort();
}

/** The service worker for the site in `dir`: the template with its VERSION and FILES filled in. */
export function serviceWorker(dir) {
  const list = files(dir).filter((f) => f !== 'sw.js');
  const hash = createHash('sha256');
  for (const f of list) hash.update(f).update('\0').update(readFileSync(join(dir, f))).update('\0');
  const version = hash.digest('hex').slice(0, 16);
  const template = readFileSync(TEMPLATE, 'utf8');
  const filled = template
    .replace(/^const VERSION = .*;$/m, `const VERSION = ${JSON.stringify(version)};`)
    .replace(/^const FILES = .*;$/m, `const FILES = ${JSON.stringify(list)};`);
  if (filled === template || !filled.includes(version)) throw new Error(`${TEMPLATE}: no VERSION or FILES line to fill`);
  return { source: filled, version, files: list };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/offline.mjs DIR');
    process.exit(2);
  }
  const sw = serviceWorker(dir);
  writeFileSync(join(dir, 'sw.js'), sw.source);
  console.log(`wrote ${join(dir, 'sw.js')}: version ${sw.version}, ${sw.files.length} files offline`);
}
