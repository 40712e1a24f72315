#!/usr/bin/env node
// The web backend in real Chromium (docs/web.md): each sample page of the site ./dev web builds
// is loaded in headless /usr/bin/chromium, driven by puppeteer-core (.ci/web-deps installs it;
// NODE_PATH must reach it), and must
//   - start its loop (Module.tempoLoop becomes "running", platform/web/web_loop.c),
//   - keep running for RUN_S seconds,
//   - paint a canvas that is not blank (a screenshot with more than one colour in quantity),
//   - log no error (console.error, an uncaught exception, a failed request),
//   - get a key sent by the test (V: the sample's own "vsync ..." line, where it has that key;
//     Esc: every loop sample quits, Module.tempoLoop becomes "quit"),
//   - keep its main thread free while the loop runs, judged in the page itself: a dedicated Worker
//     posts a message every INPAGE_EVERY_MS (20 ms) and the main thread records how long each one
//     waited (arrival - send, on performance.timeOrigin + now()). Every message sent after the
//     loop's first WARMUP_MS (the GL set-up) and before the Esc must wait at most PROBE_MAX_MS
//     (50 ms); a longer wait is excused, up to INPAGE_GIVEUP_MS (250 ms), only when no frame of
//     Tempo's over 50 ms overlaps it (Module.tempoSlowFrames, platform/web/web_loop.c): then the
//     browser's own work or a machine without a free CPU held the thread, not Tempo. And the
//     browser records no main-thread task (Long Tasks API) over TASK_GIVEUP_MS past that first
//     second. The DevTools probe (page.evaluate of performance.now() every PROBE_EVERY_MS) is the
//     freeze detector: a page whose loop blocks (the bug this backend exists for) answers nothing,
//     so every probe must be answered within PROBE_GIVEUP_MS (1 s); its round trip goes through
//     the browser process and the DevTools session (under ./dev load: median 57 ms, max 424 ms,
//     while no message in the page waited 28 ms), so it only reports the 50 ms target.
//     TEMPO_WEB_PROBE_STRICT=1: no excuse, and no long task at all.
// Then the test programs of the web backend (tests/web, the site's check/ pages): each runs in its
// page to its harness line "N passed, 0 failed" with no error logged, and
//   - fp_check (tests/fp_check.c, the fp matrix's program) prints the scripted game's constants as
//     the native build does: hash10k and fixture are GAME_HASH_10K and FIXTURE_HASH as
//     tests/replay_game_core.h defines them, the fingerprint is TEMPO_FINGERPRINT_PORTABLE
//     (tempo/determinism.h), diverged=0 -- read from those headers, not copied here;
//   - web_check (tests/web/web_check.c): tempo_net_create reports TEMPO_ENOTSUP, and the rest of
//     what the backend does not support.
// Prints one "ok"/"FAIL" line per check, the measured figures, and "N passed, N failed" last.
//   node tests/web_test.js SITE_DIR [SAMPLE|CHECK...]     (TEMPO_WEB_RESULTS=FILE: figures as JSON)
'use strict';
const path = require('path');
const fs = require('fs');
const zlib = require('zlib');
const puppeteer = require('puppeteer-core');
const { start } = require('../samples/web/serve.js');

const RUN_S = 2.5;
const PROBE_EVERY_MS = 50;
const INPAGE_EVERY_MS = 20;
const INPAGE_GIVEUP_MS = 250;
// A machine is busy when the processes other than the browser and this test used this many cores
// or more, on average, while a page's loop ran.
const BUSY_OTHER_CORES = 0.5;
const PROBE_MAX_MS = 50;
const PROBE_GIVEUP_MS = 1000;
const TASK_GIVEUP_MS = 250;
const WARMUP_MS = 1000; // the first frames compile the renderer's GL shaders (a 70 ms task seen)
const START_TIMEOUT_MS = 60000; // generous: this machine may be busy compiling
const KEYED = { bounce: 'v', loading: 'v' }; // samples whose key prints a line of their own
// Samples without tempo_loop_run (waitdemo waits in tempo_wait itself, under Asyncify on the
// web): "running" once main() started (emscripten's Module.calledRun) and until it printed the
// summary it prints when it ends, "quit" after.
const LOOPLESS = { waitdemo: /^waitdemo summary/ };
// Samples whose shutdown runs from the loop's quit path (desc.on_stop; docs/web.md, "One source for
// every backend"): after Esc they print the summary they print natively after tempo_loop_run.
const SHUTDOWN = { bounce: /^bounce summary/, inputview: /^inputview summary/, loading: /^loading summary/,
                   rhythm: /^rhythm summary/ };

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A page call that gives up after `ms` (a frozen page never answers): the value, or `fallback`.
const within = (promise, ms, fallback) => Promise.race([promise.catch(() => fallback), sleep(ms).then(() => fallback)]);

// CPU time so far, in clock ticks (Linux /proc): the machine's idle (idle + iowait) and total,
// and what the browser's processes (the tree under `browserPid`) and this test used.
function cpuTimes(browserPid) {
  try {
    const v = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const procs = new Map(); // pid -> [ppid, utime + stime]
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
        procs.set(Number(d), [Number(f[1]), Number(f[11]) + Number(f[12])]);
      } catch (e) { /* gone */ }
    }
    const mine = new Set([process.pid, browserPid]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, [ppid]] of procs) if (!mine.has(pid) && mine.has(ppid)) { mine.add(pid); grew = true; }
    }
    let ours = 0;
    for (const pid of mine) if (procs.has(pid)) ours += procs.get(pid)[1];
    return { idle: v[3] + v[4], total: v.reduce((a, b) => a + b, 0), ours };
  } catch (e) {
    return null;
  }
}

// The pixels of an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium's screenshots are).
function decodePng(buf) {
  let pos = 8, width = 0, height = 0, channels = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0 || (data[9] !== 2 && data[9] !== 6))
        throw new Error(`unsupported PNG (depth ${data[8]}, colour type ${data[9]}, interlace ${data[12]})`);
      channels = data[9] === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat)), stride = width * channels;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], src = y * (stride + 1) + 1, dst = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[dst + x - channels] : 0, b = y > 0 ? out[dst - stride + x] : 0;
      const c = x >= channels && y > 0 ? out[dst - stride + x - channels] : 0;
      let v = raw[src + x];
      if (f === 1) v += a; else if (f === 2) v += b; else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      out[dst + x] = v & 255;
    }
  }
  return { width, height, channels, pixels: out };
}

// Share of pixels that differ from the most common colour, and the number of colours.
function canvasContent(png) {
  const img = decodePng(png), counts = new Map();
  for (let i = 0; i < img.pixels.length; i += img.channels) {
    const k = (img.pixels[i] << 16) | (img.pixels[i + 1] << 8) | img.pixels[i + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  const total = img.width * img.height;
  const top = Math.max(...counts.values());
  return { colours: counts.size, other: (total - top) / total };
}

async function runSample(browser, base, name, results) {
  const page = await browser.newPage();
  const errors = [], lines = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    else lines.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} (${r.failure() && r.failure().errorText})`));
  let probing = true, paused = false, inflight = Promise.resolve(), frozen = false, loopStartAt = null;
  const probeSamples = [];
  // The browser's own record of main-thread tasks over 50 ms (the Long Tasks API), beside the probe.
  // And the in-page probe: a dedicated Worker posts its send time to the main thread every
  // INPAGE_EVERY_MS; the main thread records how long each message waited (arrival - send, both on
  // performance.timeOrigin + now(): one clock for both threads). No DevTools round trip in it.
  await page.evaluateOnNewDocument((every) => {
    window.__longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) =>
      window.__longTasks.push([e.startTime, e.duration]))).observe({ type: 'longtask', buffered: true });
    window.__probe = []; // [send time (this page's performance.now()), waited ms]
    try {
      const src = `setInterval(() => postMessage(performance.timeOrigin + performance.now()), ${every});`;
      const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
      w.onmessage = (e) => {
        const now = performance.timeOrigin + performance.now();
        window.__probe.push([e.data - performance.timeOrigin, now - e.data]);
      };
      window.__probeWorker = w;
    } catch (e) {
      window.__probeError = String(e);
    }
  }, INPAGE_EVERY_MS);
  const t0 = Date.now();
  const nav = page.goto(`${base}/${name}.html`, { waitUntil: 'load' });
  await nav.catch((e) => errors.push(`navigation: ${e.message}`));
  const loadMs = Date.now() - t0;
  const prober = (async () => {
    while (probing) {
      if (paused) { await sleep(10); continue; }
      const a = process.hrtime.bigint(), at = Date.now() - t0;
      inflight = page.evaluate(() => performance.now()).catch(() => null);
      let answered = await within(inflight.then(() => true), PROBE_GIVEUP_MS, false);
      // Before the loop runs, main()'s own set-up may hold the page for seconds (loading makes its
      // assets): wait for the answer, which is reported, not judged.
      if (!answered && loopStartAt === null)
        answered = await within(inflight.then(() => true), START_TIMEOUT_MS, false);
      const ms = Number(process.hrtime.bigint() - a) / 1e6;
      probeSamples.push({ at, ms }); // when it was sent
      if (!answered) { frozen = true; break; } // the page stopped answering: no use asking again
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const askMs = () => (loopStartAt === null ? START_TIMEOUT_MS : 5000); // see the prober
  const state = LOOPLESS[name]
    ? async () => (lines.some((l) => LOOPLESS[name].test(l)) ? 'quit'
      : (await within(page.evaluate(() => typeof Module === 'object' && !!Module.calledRun), askMs(), 'frozen')) === true
        ? 'running' : '')
    : () => within(page.evaluate(() => (typeof Module === 'object' && Module.tempoLoop) || ''), askMs(), 'frozen');
  const waitState = async (want, ms) => {
    const end = Date.now() + ms;
    let s = '';
    while (Date.now() < end) {
      s = await state();
      if (s === want || s === 'frozen' || s.startsWith('error')) break;
      await sleep(50);
    }
    return s;
  };
  let s = await waitState('running', START_TIMEOUT_MS);
  const startMs = Date.now() - t0;
  if (s === 'running') loopStartAt = startMs;
  // The same moments on the page's clock, for the in-page probe (a few ms late: a round trip).
  const pageNow = () => within(page.evaluate(() => performance.now()), 5000, null);
  const pageMarks = { start: s === 'running' ? await pageNow() : null, end: null };
  const browserPid = browser.process() ? browser.process().pid : 0;
  const cpuAtStart = cpuTimes(browserPid);
  let cpuAtEnd = null;
  check(`${name}: loop starts`, s === 'running', `state "${s}" after ${startMs} ms`);
  const r = { name, loadMs, startMs };
  const marks = {};
  if (s === 'running') {
    await within(page.focus('#canvas'), 5000, null);
    await sleep(RUN_S * 1000);
    s = frozen ? 'frozen' : await state();
    check(`${name}: runs ${RUN_S} s`, s === 'running', `state "${s}"`);
  }
  if (s === 'running') {
    // No probe while Chromium captures the screenshot: the capture holds the DevTools session
    // (probes sent meanwhile wait behind it), which is the test's own delay, not the page's.
    paused = true;
    await inflight.catch(() => {});
    marks.shot = Date.now() - t0;
    pageMarks.shot = await pageNow();
    const canvas = await page.$('#canvas');
    const shot = await canvas.screenshot({ type: 'png' });
    paused = false;
    const c = canvasContent(shot);
    check(`${name}: canvas painted`, c.colours >= 2 && c.other >= 0.002,
      `${c.colours} colours, ${(c.other * 100).toFixed(1)} % of pixels not the background`);
    if (process.env.TEMPO_WEB_SHOTS) fs.writeFileSync(path.join(process.env.TEMPO_WEB_SHOTS, `${name}.png`), shot);
    r.stats = await page.evaluate(() => Module.tempoStats || null);
    marks.key = Date.now() - t0;
    pageMarks.key = await pageNow();
    if (KEYED[name]) {
      const before = lines.length;
      await page.keyboard.press(KEYED[name] === 'v' ? 'KeyV' : KEYED[name]);
      const end = Date.now() + 5000;
      let seen = '';
      while (!seen && Date.now() < end) {
        seen = lines.slice(before).find((l) => /^vsync/.test(l)) || '';
        await sleep(50);
      }
      check(`${name}: key V reaches the game`, !!seen, seen ? `it printed "${seen}"` : 'no "vsync ..." line within 5 s');
    }
    marks.esc = Date.now() - t0;
    pageMarks.end = await pageNow();
    cpuAtEnd = cpuTimes(browserPid);
    await page.keyboard.press('Escape');
    s = await waitState('quit', 5000);
    check(`${name}: key Esc quits`, s === 'quit', `state "${s}"`);
    if (SHUTDOWN[name]) {
      const end = Date.now() + 5000;
      let seen = '';
      while (!seen && Date.now() < end) {
        seen = lines.find((l) => SHUTDOWN[name].test(l)) || '';
        if (!seen) await sleep(50);
      }
      check(`${name}: its shutdown runs at quit (desc.on_stop)`, !!seen,
        seen ? `it printed "${seen}"` : `no line matching ${SHUTDOWN[name]} within 5 s of the quit`);
    }
  }
  probing = false;
  await prober;
  if (frozen) {
    // Nothing more can be asked of a page that does not answer: judge what was seen and go.
    const p = probeSamples[probeSamples.length - 1];
    check(`${name}: main thread answers DevTools probes while the loop runs`, false,
      `a probe sent at ${p.at} ms got no answer within ${PROBE_GIVEUP_MS} ms: the page's main thread is blocked`);
    results.push(r);
    await within(page.close(), 5000, null);
    return;
  }
  // Long tasks after the loop started (page time: the loop's start is when state became running).
  const lt = await page.evaluate(() => ({ tasks: window.__longTasks || [], now: performance.now() }))
    .catch(() => ({ tasks: [], now: 0 }));
  // From the loop's start to the Esc (the shutdown after it is not the loop's: loading's frees 260
  // assets), on the page's clock.
  const loopStartPage = pageMarks.start !== null ? pageMarks.start : lt.now - (Date.now() - t0 - (r.startMs || 0));
  const loopEndPage = pageMarks.end !== null ? pageMarks.end : lt.now;
  const ltDuring = lt.tasks.filter(([at]) => at >= loopStartPage && at <= loopEndPage);
  r.longTasks = { n: ltDuring.length, maxMs: ltDuring.reduce((m, [, d]) => Math.max(m, d), 0),
                  beforeLoopMaxMs: lt.tasks.filter(([at]) => at < loopStartPage).reduce((m, [, d]) => Math.max(m, d), 0) };
  // Judged while the loop runs (from Module.tempoLoop "running" on); main()'s own set-up before
  // tempo_loop_run() blocks the page too, and is reported beside it (loading generates its assets).
  // The in-page probe: messages sent between the loop's start and the Esc (page clock).
  const ip = await page.evaluate(() => ({ probe: window.__probe || [], error: window.__probeError || null,
                                          slowFrames: (typeof Module === 'object' && Module.tempoSlowFrames) || [],
                                          now: performance.now() }))
    .catch(() => ({ probe: [], error: 'no answer', slowFrames: [], now: 0 }));
  const ipFrom = pageMarks.start === null ? Infinity : pageMarks.start, ipTo = pageMarks.end === null ? ip.now : pageMarks.end;
  const ipStat = (list) => {
    const v = list.map(([, w]) => w).sort((a, b) => a - b);
    const worst = list.reduce((m, p) => (m && m[1] >= p[1] ? m : p), null);
    return { n: v.length, p50: v.length ? v[v.length >> 1] : 0,
             p99: v.length ? v[Math.min(v.length - 1, Math.ceil(v.length * 0.99) - 1)] : 0,
             max: v.length ? v[v.length - 1] : 0, maxAt: worst ? worst[0] - ipFrom : 0,
             over: v.filter((w) => w > PROBE_MAX_MS).length };
  };
  const ipDuring = ip.probe.filter(([at]) => at >= ipFrom && at <= ipTo);
  r.inpage = ipStat(ipDuring);
  r.inpageAfterWarmup = ipStat(ipDuring.filter(([at]) => at >= ipFrom + WARMUP_MS));
  r.inpageBeforeLoop = ipStat(ip.probe.filter(([at]) => at < ipFrom));
  if (ip.error) errors.push(`in-page probe: ${ip.error}`);
  const during = probeSamples.filter((p) => r.startMs !== undefined && p.at >= r.startMs);
  const before = probeSamples.filter((p) => !(r.startMs !== undefined && p.at >= r.startMs));
  const stat = (list) => {
    const v = list.map((p) => p.ms).sort((a, b) => a - b);
    const worst = list.reduce((m, p) => (m && m.ms >= p.ms ? m : p), null);
    return { n: v.length, p50: v.length ? v[v.length >> 1] : 0, max: v.length ? v[v.length - 1] : 0,
             maxAt: worst ? worst.at : 0 };
  };
  const pd = stat(during), pb = stat(before);
  r.probe = pd; r.probeBeforeLoop = pb;
  if (process.env.TEMPO_WEB_VERBOSE) {
    console.log(`     ${name} slowest probes: ` + during.slice().sort((a, b) => b.ms - a.ms).slice(0, 5)
      .map((p) => `${p.ms.toFixed(0)} ms at ${p.at}`).join(', ') + `; marks: ${JSON.stringify(marks)}`);
    console.log(`     ${name} long tasks (ms into the loop, duration): ` + lt.tasks.map(([at, d]) =>
      `${(at - loopStartPage).toFixed(0)} ${d.toFixed(0)}`).join(', ') + `; page marks from the loop's start: ` +
      JSON.stringify(Object.fromEntries(Object.entries(pageMarks).map(([k, v]) => [k, v === null ? null : +(v - loopStartPage).toFixed(0)]))));
  }
  const late = during.filter((p) => p.ms > PROBE_MAX_MS).length;
  const strict = process.env.TEMPO_WEB_PROBE_STRICT === '1';
  // The DevTools probe: the freeze detector (a blocked page answers nothing), reported beside the
  // in-page probe; its round trip goes through the browser process and the DevTools session.
  check(`${name}: main thread answers DevTools probes while the loop runs`,
    pd.n > 10 && pd.max <= PROBE_GIVEUP_MS,
    (pd.n > 10 ? '' : 'too few answers while the loop ran: ') +
    `${pd.n} probes, p50 ${pd.p50.toFixed(1)} ms, max ${pd.max.toFixed(1)} ms at ${pd.maxAt} ms, ` +
    `${late} over ${PROBE_MAX_MS} ms (reported; judged: every one within ${PROBE_GIVEUP_MS} ms) (before the loop started at ${r.startMs} ms: ${pb.n} probes, max ${pb.max.toFixed(1)} ms)`);
  // The in-page probe, judged: every message sent from the end of the loop's first WARMUP_MS (the
  // GL set-up, as for long tasks) to the Esc waited at most PROBE_MAX_MS. One that waited longer
  // is excused, up to INPAGE_GIVEUP_MS, only if no frame of Tempo's (Module.tempoSlowFrames, the
  // frames of 20 ms or more, platform/web/web_loop.c) that took over PROBE_MAX_MS overlaps its wait:
  // the main thread was then held by the browser's own work or not given a CPU (a loaded machine:
  // the Long Tasks API's wall times grow with it), not by Tempo. Strict: no excuse.
  const judged = ipDuring.filter(([at]) => at >= ipFrom + WARMUP_MS);
  const slow = ip.slowFrames.filter(([, d]) => d > PROBE_MAX_MS);
  const heldByTempo = (at, w) => slow.some(([fs, d]) => fs < at + w && fs + d > at);
  const lateMsgs = judged.filter(([, w]) => w > PROBE_MAX_MS);
  // How many cores the other processes used, on average, from the loop's start to the Esc. The
  // machine's counters run on every core: a total of T ticks is T / ncpu ticks of wall time.
  const cpuEnd = cpuAtEnd || cpuTimes(browserPid);
  let otherCores = null;
  if (cpuAtStart && cpuEnd && cpuEnd.total > cpuAtStart.total) {
    const ncpu = require('os').cpus().length, wall = (cpuEnd.total - cpuAtStart.total) / ncpu;
    const busyTicks = cpuEnd.total - cpuEnd.idle - (cpuAtStart.total - cpuAtStart.idle);
    r.browserCores = Math.max(0, cpuEnd.ours - cpuAtStart.ours) / wall;
    otherCores = Math.max(0, busyTicks - Math.max(0, cpuEnd.ours - cpuAtStart.ours)) / wall;
  }
  const busy = otherCores !== null && otherCores >= BUSY_OTHER_CORES;
  r.otherCores = otherCores;
  const excused = lateMsgs.filter(([at, w]) => !strict && w <= INPAGE_GIVEUP_MS && (busy || !heldByTempo(at, w)));
  const js = ipStat(judged), f1 = (x) => x.toFixed(1);
  r.inpageJudged = Object.assign(js, { excused: excused.length });
  r.slowFrames = { n: ip.slowFrames.length, maxMs: ip.slowFrames.reduce((m, [, d]) => Math.max(m, d), 0) };
  check(`${name}: main thread keeps no message waiting over ${PROBE_MAX_MS} ms (in-page probe)`,
    js.n > 10 && lateMsgs.length === excused.length,
    (js.n > 10 ? '' : 'too few messages: ') +
    `worker messages every ${INPAGE_EVERY_MS} ms after the loop's first ${WARMUP_MS} ms: ${js.n}, waited p50 ` +
    `${f1(js.p50)} ms, p99 ${f1(js.p99)} ms, max ${f1(js.max)} ms, ${lateMsgs.length} over ${PROBE_MAX_MS} ms` +
    (lateMsgs.length ? ` (${excused.length} excused, up to ${INPAGE_GIVEUP_MS} ms: ` +
      (busy ? 'the machine was busy' : `no frame of Tempo's over ${PROBE_MAX_MS} ms during the wait`) +
      `${strict ? '; strict: none' : ''}; ` +
      lateMsgs.slice(0, 3).map(([at, w]) => `${f1(w)} ms at ${(at - ipFrom).toFixed(0)} ms`).join(', ') + ')' : '') +
    `; from the loop's start: ${r.inpage.n}, max ${f1(r.inpage.max)} ms at ${r.inpage.maxAt.toFixed(0)} ms; ` +
    `Tempo's frames of 20 ms or more: ${r.slowFrames.n}, longest ${f1(r.slowFrames.maxMs)} ms; ` +
    `before the loop: max ${f1(r.inpageBeforeLoop.max)} ms; ` +
    `cores used while the loop ran: by the browser ${r.browserCores === undefined ? '?' : f1(r.browserCores)}, ` +
    `by other processes ${otherCores === null ? 'unknown' : f1(otherCores)}` +
    (busy ? ` (${BUSY_OTHER_CORES} or more: busy)` : ''));
  const tasks = ltDuring.filter(([at]) => at >= loopStartPage + WARMUP_MS);
  const longest = tasks.reduce((m, [, d]) => Math.max(m, d), 0);
  check(`${name}: no long main-thread task while the loop runs`,
    strict ? tasks.length === 0 : longest <= TASK_GIVEUP_MS,
    `${tasks.length} tasks over 50 ms after the first ${WARMUP_MS} ms, longest ${longest.toFixed(0)} ms ` +
    `(${r.longTasks.n} from the loop's start, longest ${r.longTasks.maxMs.toFixed(0)} ms; ` +
    `Tempo's longest frame ${r.stats && r.stats.longestFrameMs !== undefined ? r.stats.longestFrameMs.toFixed(1) + ' ms' : 'n/a'})`);
  check(`${name}: no error logged`, errors.length === 0, errors.slice(0, 3).join(' | '));
  if (r.stats) console.log(`     ${name} figures: ${JSON.stringify(r.stats, (k, v) => typeof v === 'number' ? +v.toFixed(2) : v)}`);
  results.push(r);
  await page.close();
}

// The constants the scripted game must reproduce, from the headers the native tests use.
function replayConstants() {
  const core = fs.readFileSync(path.join(__dirname, 'replay_game_core.h'), 'utf8');
  const det = fs.readFileSync(path.join(__dirname, '..', 'framework', 'include', 'tempo', 'determinism.h'), 'utf8');
  const hex = (name) => {
    const m = core.match(new RegExp(`#define ${name} UINT64_C\\(0x([0-9a-fA-F]{16})\\)`));
    if (!m) throw new Error(`tests/replay_game_core.h: no ${name}`);
    return m[1].toLowerCase();
  };
  const num = (name) => {
    const m = det.match(new RegExp(`${name} = (\\d+)`));
    if (!m) throw new Error(`tempo/determinism.h: no ${name}`);
    return Number(m[1]);
  };
  const portable = (num('TEMPO_FINGERPRINT_PROBE_VERSION') << num('TEMPO_FINGERPRINT_VERSION_SHIFT')) >>> 0;
  return { hash10k: hex('GAME_HASH_10K'), fixture: hex('FIXTURE_HASH'),
           fingerprint: portable.toString(16).padStart(8, '0'), diverged: '0' };
}

// A test program's page (site/check/NAME.html): it runs to its harness line.
async function runCheck(browser, base, name, results) {
  const page = await browser.newPage();
  const errors = [], lines = [];
  page.on('console', (m) => (m.type() === 'error' ? errors : lines).push(m.text()));
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} (${r.failure() && r.failure().errorText})`));
  const t0 = Date.now();
  await page.goto(`${base}/check/${name}.html`, { waitUntil: 'load' }).catch((e) => errors.push(`navigation: ${e.message}`));
  const summaryRe = /^(\d+) passed, (\d+) failed/;
  let summary = '';
  while (!summary && errors.length === 0 && Date.now() - t0 < START_TIMEOUT_MS) {
    summary = lines.find((l) => summaryRe.test(l)) || '';
    if (!summary) await sleep(50);
  }
  const ms = Date.now() - t0;
  const m = summary.match(summaryRe);
  const failedCases = lines.filter((l) => /^FAIL /.test(l)).map((l) => l.slice(5));
  check(`check ${name}: runs in the page`, !!m && Number(m[1]) > 0 && m[2] === '0',
    m ? `"${summary}" in ${ms} ms` + (failedCases.length ? `; failed: ${failedCases.join(', ')}; output: ` +
      lines.filter((l) => /^ {4}/.test(l)).slice(0, 6).map((l) => l.trim()).join(' | ') : '')
      : `no "N passed, N failed" line within ${ms} ms; last lines: ${lines.slice(-3).join(' | ')}`);
  const r = { name, check: true, ms, summary };
  if (name === 'fp_check') {
    const want = replayConstants();
    const line = lines.find((l) => /fp-check: /.test(l)) || '';
    const got = {};
    for (const [, k, v] of line.matchAll(/(\w+)=([0-9a-f]+)/g)) got[k] = v;
    r.fpCheck = got;
    for (const k of ['hash10k', 'fixture', 'fingerprint', 'diverged'])
      check(`check fp_check: ${k} in the browser is the native constant`, got[k] === want[k],
        `page ${got[k] === undefined ? '(no value: ' + (line ? `"${line.trim()}"` : 'no fp-check line') + ')' : got[k]}, ` +
        `native ${want[k]}`);
    check('check fp_check: the recording was made with this fingerprint', got.recorded === want.fingerprint,
      `recorded ${got.recorded}, portable ${want.fingerprint}`);
  }
  if (name === 'web_check') {
    const line = lines.find((l) => /tempo_net_create: /.test(l)) || '';
    check('check web_check: tempo_net_create reports TEMPO_ENOTSUP', /NULL \(TEMPO_ENOTSUP\): .*not supported on the web backend/.test(line),
      line ? `"${line.trim()}"` : 'no tempo_net_create line');
  }
  check(`check ${name}: no error logged`, errors.length === 0, errors.slice(0, 3).join(' | '));
  results.push(r);
  await within(page.close(), 5000, null);
}

// The measured figures as a Markdown table (TEMPO_WEB_TABLE=1; docs/benchmarks.md, "Web").
function table(results) {
  const f = (x, d = 1) => (x === undefined || x === null ? '—' : Number(x).toFixed(d));
  const rows = ['| sample | page load / loop running | animation frames/s | renders/s | updates/s | ' +
    'update lateness p50 / p99 | Tempo\'s main-thread time per animation frame (per s) | ' +
    'main thread: in-page probe p50 / p99 / max | DevTools probe p50 / max | wasm (gzip) |',
  '|---|---|---|---|---|---|---|---|---|---|'];
  for (const r of results) {
    if (r.check) continue;
    const st = r.stats || {}, ip = r.inpageJudged || {}, pr = r.probe || {};
    const kb = (b) => (b ? `${Math.round(b / 1024)} KB` : '—');
    const loop = r.stats !== undefined && r.stats !== null;
    rows.push(`| ${r.name} | ${f(r.loadMs / 1000, 2)} / ${f(r.startMs / 1000, 2)} s | ${loop ? f(st.rafPerS) : '—'} | ` +
      `${loop ? f(st.rendersPerS) : '—'} | ${loop ? f(st.updatesPerS) : '—'} | ` +
      `${loop ? `${f(st.latenessP50Ms, 2)} / ${f(st.latenessP99Ms, 1)} ms` : '—'} | ` +
      `${loop ? `${f(st.frameMsPerRaf, 2)} ms (${f(st.tempoMsPerS, 0)} ms/s)` : '—'} | ` +
      `${f(ip.p50)} / ${f(ip.p99)} / ${f(ip.max)} ms | ${f(pr.p50)} / ${f(pr.max)} ms | ` +
      `${kb(r.wasmBytes)} (${kb(r.wasmGzipBytes)}) |`);
  }
  return rows.join('\n');
}

async function main() {
  const site = process.argv[2];
  if (!site || !fs.existsSync(path.join(site, 'index.html'))) {
    console.error('usage: node tests/web_test.js SITE_DIR [SAMPLE...] (the site ./dev web builds)');
    process.exit(2);
  }
  let names = process.argv.slice(3);
  const checkDir = path.join(site, 'check');
  const checks = fs.existsSync(checkDir)
    ? fs.readdirSync(checkDir).filter((f) => f.endsWith('.html')).map((f) => f.replace(/\.html$/, '')).sort() : [];
  if (names.length === 0)
    names = fs.readdirSync(site).filter((f) => f.endsWith('.wasm')).map((f) => f.replace(/\.wasm$/, '')).sort()
      .concat(checks);
  const server = await start(site, 0);
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await puppeteer.launch({
    executablePath: process.env.TEMPO_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    protocolTimeout: 30000, // a frozen page's calls fail in 30 s, not puppeteer's 180 s
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--use-angle=swiftshader',
           '--enable-unsafe-swiftshader', '--window-size=1000,800'],
  });
  const results = [];
  try {
    check('chromium starts', true, await browser.version());
    for (const name of names) {
      try {
        if (checks.includes(name)) await runCheck(browser, base, name, results);
        else await runSample(browser, base, name, results);
      } catch (e) {
        check(`${name}: test ran`, false, e.stack.split('\n').slice(0, 2).join(' '));
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  for (const r of results) {
    if (r.check) continue;
    const wasm = path.join(site, `${r.name}.wasm`);
    if (fs.existsSync(wasm)) {
      const b = fs.readFileSync(wasm);
      r.wasmBytes = b.length; r.wasmGzipBytes = zlib.gzipSync(b, { level: 9 }).length;
    }
  }
  if (process.env.TEMPO_WEB_RESULTS) fs.writeFileSync(process.env.TEMPO_WEB_RESULTS, JSON.stringify(results, null, 1));
  if (process.env.TEMPO_WEB_TABLE === '1') console.log(table(results));
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.log(`FAIL web_test: ${e.stack}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
