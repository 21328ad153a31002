// A tiny static file server for the built app (dist/): loopback only unless asked, correct MIME
// types (application/wasm for streaming compilation), no caching, nothing outside the folder.
//
//   node scripts/static-server.mjs DIR [PORT] [--lan]   (PORT 0 or absent: a free port)
//
// --lan: every network interface, for a classroom: phones on the room's network open the
// addresses it prints (`scripts/dev serve --lan`).
//
// tests/e2e/explorer.mjs imports `serve` from here.

import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Serves `dir` on `host`:`port` (0: a free port; host: loopback unless given); resolves to the
 *  listening server. */
export function serve(dir, port = 0, host = '127.0.0.1') {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    const file = resolve(root, '.' + (path.endsWith('/') ? path + 'index.html' : path));
    if (!file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (!isFile(file)) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok(server));
  });
}

/** This computer's addresses on its networks (IPv4, not loopback). */
function lanAddresses() {
  return Object.values(networkInterfaces())
    .flat()
    .filter((i) => i && i.family === 'IPv4' && !i.internal)
    .map((i) => i.address);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const lan = args.includes('--lan');
  const [dir = 'dist', port = '0'] = args.filter((a) => a !== '--lan');
  if (!isFile(resolve(dir, 'index.html'))) {
    console.error(`static-server: no ${dir}/index.html — build first (trunk build --release)`);
    process.exit(1);
  }
  const host = lan ? '0.0.0.0' : '127.0.0.1';
  const server = await serve(dir, Number(port), host).catch((e) => {
    console.error(`static-server: cannot listen on ${host}:${port}: ${e.message}`);
    process.exit(1);
  });
  const at = server.address().port;
  console.log(`qscope is served at http://127.0.0.1:${at}/  (Ctrl-C stops)`);
  if (lan) {
    const addresses = lanAddresses();
    if (addresses.length === 0) console.log('no network found besides this computer: phones cannot reach it');
    for (const a of addresses) console.log(`  and on the room's network at http://${a}:${at}/`);
    console.log(
      'Phones on the same network open those addresses (presenter mode shows a QR code of them). Over plain\n' +
        'HTTP from another computer a browser keeps nothing offline and the copy buttons may not work:\n' +
        'for that, publish dist/ on an HTTPS host (the Guide: "Teaching", "Publishing the site").',
    );
  }
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
