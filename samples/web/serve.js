#!/usr/bin/env node
// Serves a directory (default: the web site ./dev web builds, build-web/site) on 127.0.0.1 with the
// headers a -pthread page needs: threads are Web Workers sharing a SharedArrayBuffer, which the
// browser only grants a cross-origin-isolated page (COOP same-origin + COEP require-corp).
//   node samples/web/serve.js [DIR] [PORT] [HOST]   (PORT 0: any free port; default 8024;
//                                                    HOST default 127.0.0.1, 0.0.0.0: the LAN)
// Also used by tests/web_test.js (require: start(dir, port) -> Promise<http.Server>).
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.png': 'image/png',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.data': 'application/octet-stream',
};

function start(dir, port, host = '127.0.0.1') {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch (e) {
      res.writeHead(400).end();
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(root, path.normalize(rel));
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
        return;
      }
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cache-Control': 'no-cache',
      });
      res.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (require.main === module) {
  const dir = process.argv[2] || path.join(__dirname, '..', '..', 'build-web', 'site');
  const port = process.argv[3] !== undefined ? Number(process.argv[3]) : 8024;
  const host = process.argv[4] || '127.0.0.1';
  start(dir, port, host).then((s) => {
    console.log(`serving ${path.resolve(dir)} at http://${host}:${s.address().port}/ (Ctrl-C stops)`);
  }, (e) => {
    console.error(`serve.js: ${e.message}`);
    process.exit(1);
  });
}

module.exports = { start };
