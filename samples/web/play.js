#!/usr/bin/env node
// Everything the web gallery needs on one machine, on the gallery's ports (docs/web.md,
// "Multiplayer"): the site (serve.js, 8024), duel's relay (the native duel_server, TCP 7777) behind
// its websockify bridge (7778), and crowd's scripted server (the native crowd_server, TCP 7779)
// behind its bridge (7780). A relay serves one match and crowd's server one client, so each is
// started again when it ends. Ctrl-C stops everything. `./dev web --serve` builds both and runs it.
//   node samples/web/play.js [SITE_DIR] [NATIVE_SAMPLES_DIR] [HOST]
// HOST (default 127.0.0.1; 0.0.0.0: the LAN) is where the site and the bridges listen; the native
// servers listen on 127.0.0.1 only, as they always do.
'use strict';
const path = require('path');
const fs = require('fs');
const { spawn } = require('child_process');
const { start } = require('./serve.js');
const { startBridge } = require('./bridge.js');

const top = path.join(__dirname, '..', '..');
const site = process.argv[2] || path.join(top, 'build-web', 'site');
const samples = process.argv[3] || path.join(top, 'build', 'samples');
const host = process.argv[4] || '127.0.0.1';
const SERVERS = [
  { name: 'duel_server', args: ['--port', '7777'], bridge: 7778, page: 'duel', what: 'duel (two tabs, or a tab and `build/samples/duel --port 7777`: one match)' },
  { name: 'crowd_server', args: ['--port', '7779'], bridge: 7780, page: 'crowd', what: 'crowd (one page at a time)' },
];
const running = new Set();
let stopping = false;

// Starts a server and starts it again when it ends (a match or a client is over), until Ctrl-C.
function keep(exe, args) {
  if (stopping) return;
  const p = spawn(exe, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  running.add(p);
  p.on('exit', (code) => {
    running.delete(p);
    if (!stopping) setTimeout(() => keep(exe, args), code === 0 ? 100 : 2000);
  });
}

async function main() {
  for (const s of SERVERS) {
    const exe = path.join(samples, s.name);
    if (!fs.existsSync(exe)) throw new Error(`${exe} not built (meson setup build && ninja -C build samples/${s.name})`);
  }
  const server = await start(site, 8024, host);
  const bridges = [];
  for (const s of SERVERS) {
    keep(path.join(samples, s.name), s.args);
    bridges.push(await startBridge(`${host}:${s.bridge}`, `127.0.0.1:${s.args[1]}`));
  }
  const stop = () => {
    stopping = true;
    for (const p of running) p.kill();
    for (const b of bridges) b.kill();
    server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const at = host === '0.0.0.0' ? 'this machine\'s LAN address' : host;
  console.log(`the gallery: http://${at}:8024/ (Ctrl-C stops everything)`);
  for (const s of SERVERS)
    console.log(`  ${s.what}: http://${at}:8024/${s.page}.html?arg=--port&arg=${s.bridge}` +
      `${host === '127.0.0.1' ? '' : '&arg=--host&arg=<that address>'}  (${s.name} on 127.0.0.1:${s.args[1]}, websockify on ${s.bridge})`);
}

main().catch((e) => {
  console.error(`play.js: ${e.message}`);
  stopping = true;
  for (const p of running) p.kill();
  process.exit(1);
});
