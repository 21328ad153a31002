// Trunk's post-build hook (Trunk.toml): fills in the page's Content Security Policy. index.html
// declares the policy in a <meta http-equiv="Content-Security-Policy"> whose script-src ends in
// the placeholder 'inline-loader'; Trunk then writes its own inline module script (the loader
// that imports the hashed .js and instantiates the .wasm), whose text changes with every build.
// This replaces the placeholder with the SHA-256 of every inline <script> in the built page, so
// the policy allows exactly that loader and no other inline script.
//
//   node scripts/csp.mjs [DIR]    (DIR: $TRUNK_STAGING_DIR, else dist)
//
// `cspOf(html)` (the policy a built page declares) and `inlineScripts(html)` are shared with the
// end-to-end tests, which check that the built page carries the policy.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PLACEHOLDER = "'inline-loader'";
const META = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/;

/** The text of every inline <script> (one without src) in `html`, in order. */
export function inlineScripts(html) {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attrs]) => !/\bsrc\s*=/i.test(attrs))
    .map(([, , body]) => body);
}

/** The CSP source expression allowing `script`'s exact text. */
export const hashSource = (script) => `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;

/** The policy the page's <meta> declares, or null. */
export function cspOf(html) {
  return html.match(META)?.[1] ?? null;
}

/** `html` with the placeholder replaced by the inline scripts' hashes. */
export function withHashes(html) {
  const policy = cspOf(html);
  if (policy === null) throw new Error('index.html declares no Content-Security-Policy <meta>');
  if (!policy.includes(PLACEHOLDER)) throw new Error(`the policy lacks the placeholder ${PLACEHOLDER}`);
  const hashes = inlineScripts(html).map(hashSource);
  const filled = policy.replace(` ${PLACEHOLDER}`, hashes.map((h) => ` ${h}`).join(''));
  return html.replace(META, () => `<meta http-equiv="Content-Security-Policy" content="${filled}">`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';
  const file = join(dir, 'index.html');
  const html = withHashes(readFileSync(file, 'utf8'));
  writeFileSync(file, html);
  console.log(`csp: ${cspOf(html)}`);
}
