// A small static file server for web/dist/ (scripts/serve.sh, the browser tests
// and the benchmark). Serves files under --root only; no directory listings.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt']);
const gzipped = new Map(); // path -> {mtimeMs, body}: compressed once, as static hosts do

function gzipOf(file, st) {
  const hit = gzipped.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs) return hit.body;
  const body = zlib.gzipSync(fs.readFileSync(file), { level: 6 });
  gzipped.set(file, { mtimeMs: st.mtimeMs, body });
  return body;
}

function precompress(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) precompress(file);
    else if (e.isFile() && COMPRESSIBLE.has(path.extname(file))) gzipOf(file, fs.statSync(file));
  }
}

// Starts the server; resolves to {server, url}. port 0 picks a free port.
export function startServer({ root, port = 8080, host = '127.0.0.1', log = false } = {}) {
  const base = path.resolve(root);
  precompress(base);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    let file = path.join(base, path.normalize(rel));
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) {
        file = path.join(file, 'index.html');
        st = fs.existsSync(file) ? fs.statSync(file) : null;
      }
      if (err || !st || !st.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        if (log) console.log(`404 ${rel}`);
        return;
      }
      const headers = {
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        Vary: 'Accept-Encoding',
      };
      if (COMPRESSIBLE.has(path.extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        const body = gzipOf(file, st);
        res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': body.length });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Length': st.size });
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const a = server.address();
      resolve({ server, url: `http://${host === '127.0.0.1' ? 'localhost' : host}:${a.port}/` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : def;
  };
  const root = arg('root', 'dist');
  const port = Number(arg('port', '8080'));
  const host = arg('host', '127.0.0.1');
  startServer({ root, port, host }).then(
    ({ url }) => {
      console.log(`tilecast calculator: ${url}`);
      console.log('(Ctrl-C stops the server)');
    },
    (e) => {
      console.error(`serve: cannot listen on ${host}:${port}: ${e.message}`);
      process.exit(1);
    },
  );
}
