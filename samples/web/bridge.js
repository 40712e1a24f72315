#!/usr/bin/env node
// The WebSocket bridge in front of an unchanged TCP server (docs/web.md, "Multiplayer"): websockify
// (Debian package `websockify`, which ./dev web installs) listens for the pages' WebSockets on
// LISTEN and forwards the bytes of each one to a TCP connection to TARGET. A page's tempo_net
// (framework/net_ws.c) with .host/.port = the bridge's address speaks the same frames as a native
// client does to TARGET directly.
//   node samples/web/bridge.js [LISTEN_HOST:]LISTEN_PORT TARGET_HOST:TARGET_PORT
// e.g. node samples/web/bridge.js 0.0.0.0:7778 127.0.0.1:7777 (a LAN party: the relay on 7777).
// Also used by tests/web_test.js (require: startBridge(listen, target) -> Promise<{ proc, port,
// output(), kill() }>).
'use strict';
const net = require('net');
const { spawn } = require('child_process');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Resolves true when something accepts TCP connections on host:port.
function accepts(host, port) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

// A port nobody listens on now (the OS's pick; free again when this returns).
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

// Starts websockify LISTEN -> TARGET in its own process group (it forks a process per connection:
// kill() ends them all) and resolves once it accepts connections.
async function startBridge(listen, target, timeoutMs = 15000) {
  const [lhost, lport] = listen.includes(':') ? listen.split(':') : ['127.0.0.1', listen];
  const exe = process.env.TEMPO_WEBSOCKIFY || 'websockify';
  const proc = spawn(exe, [`${lhost}:${lport}`, target], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  let spawnError = null;
  proc.once('error', (e) => { spawnError = e; });
  const kill = () => { try { process.kill(-proc.pid, 'SIGKILL'); } catch (e) { /* gone already */ } };
  const t0 = Date.now();
  for (;;) {
    if (spawnError) throw new Error(`${exe}: ${spawnError.message} (./dev web installs Debian's websockify)`);
    if (proc.exitCode !== null) throw new Error(`${exe} ${lhost}:${lport} ${target} exited (${proc.exitCode}): ${out.trim()}`);
    if (await accepts(lhost === '0.0.0.0' ? '127.0.0.1' : lhost, Number(lport)))
      return { proc, port: Number(lport), output: () => out, kill };
    if (Date.now() - t0 > timeoutMs) {
      kill();
      throw new Error(`${exe} ${lhost}:${lport} ${target}: not listening after ${timeoutMs} ms: ${out.trim()}`);
    }
    await sleep(50);
  }
}

if (require.main === module) {
  const [listen, target] = process.argv.slice(2);
  if (!listen || !target || !target.includes(':')) {
    console.error('usage: node samples/web/bridge.js [LISTEN_HOST:]LISTEN_PORT TARGET_HOST:TARGET_PORT');
    process.exit(2);
  }
  startBridge(listen, target).then((b) => {
    console.log(`websockify: ws://${listen.includes(':') ? listen : '127.0.0.1:' + listen}/ -> tcp ${target} (Ctrl-C stops)`);
    b.proc.stdout.pipe(process.stdout);
    b.proc.stderr.pipe(process.stderr);
    const stop = () => { b.kill(); process.exit(0); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }, (e) => {
    console.error(`bridge.js: ${e.message}`);
    process.exit(1);
  });
}

module.exports = { startBridge, freePort, accepts };
