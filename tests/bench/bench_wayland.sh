#!/usr/bin/env bash
# ./dev bench-wayland [--rounds N] [--seconds S] (this script, after building BUILD_ROOT): issue 23's table, x11 on Xvfb next to wayland on
# weston (x11 backend inside the same private Xvfb, tests/integration/weston.sh, as the wayland stage starts it), interleaved per
# round: the wait route, bounce --no-vsync (update lateness p50/p99), rhythm (lateness p50,
# audio-thread wake p50), bounce with vsync (renders/s, the refresh learnt), bench_present (the first
# presents after the window maps; a minimized window with the hidden-pause and with
# run_while_hidden) and bench_wait's tempo method (lateness p50, cross-thread wake p50, wake-ups).
# Raw outputs and the table (table.md, also printed) go to BUILD_ROOT/bench-wayland; `uptime` before and
# after, as the numbers move with the machine's load. Samples run S seconds (10).
#   tests/bench/bench_wayland.sh BUILD_ROOT [--rounds N] [--seconds S] [--table-only]
set -uo pipefail
build=$(cd "${1:?usage: bench_wayland.sh BUILD_ROOT [--rounds N] [--seconds S] [--table-only]}" && pwd)
shift
. "$(dirname "$0")/../integration/weston.sh"
rounds=3 secs=10 measure=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --seconds) secs=$2; shift ;;
    --table-only) measure=0 ;; # the tables again from the last run's raw outputs
    *) echo "bench_wayland: unknown option '$1' (--rounds N, --seconds S, --table-only)" >&2; exit 2 ;;
  esac
  shift
done
out=$build/bench-wayland
if [ $measure = 1 ]; then
  rm -rf "$out" && mkdir -p "$out"
  trap 'wayland_stop' EXIT
  trap 'wayland_stop; exit 130' INT
  trap 'wayland_stop; exit 143' TERM
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-wayland.XXXXXX")
  wayland_start "$tmp" || { tail -20 "$tmp"/*.log >&2; echo "bench_wayland: Xvfb or weston did not start" >&2; exit 1; }
  sleep 1 # weston's panel maps a moment after the socket appears
  { echo "start: $(uptime)"; echo "weston: $(weston --version 2>&1)"; echo "sdl: $(pkg-config --modversion sdl2)"; } >"$out/machine.txt"
  # bench_one NAME CMD...: one run on the driver in $drv, from $tmp (the samples' working directory).
  bench_one() {
    local name=$1; shift
    (cd "$tmp" && DISPLAY=$wayland_display XDG_RUNTIME_DIR=$tmp/xdg WAYLAND_DISPLAY=wayland-tempo \
      SDL_VIDEODRIVER=$drv SDL_AUDIODRIVER=dummy timeout 120 "$@") >"$out/r$r-$drv-$name.txt" 2>&1 ||
      echo "exit $?" >>"$out/r$r-$drv-$name.txt"
  }
  for ((r = 1; r <= rounds; r++)); do
    for drv in x11 wayland; do
      echo "bench_wayland: round $r/$rounds, $drv"
      bench_one bounce-novsync "$build"/samples/bounce --no-vsync --seconds "$secs"
      bench_one rhythm "$build"/samples/rhythm --seconds "$secs"
      bench_one bounce-vsync "$build"/samples/bounce --seconds "$secs"
      bench_one first "$build"/tests/bench/bench_present --case first
      bench_one min-pause "$build"/tests/bench/bench_present --case minimize
      bench_one min-run "$build"/tests/bench/bench_present --case minimize --run-while-hidden
      bench_one wait "$build"/tests/bench/bench_wait --only tempo --seconds 4
    done
  done
  echo "end: $(uptime)" >>"$out/machine.txt"
  wayland_stop
  trap - EXIT INT TERM
fi
# Two tables, one row per round and driver, read from the raw outputs (a missing figure is "?").
{
  sed 's/^/    /' "$out/machine.txt"
  for kind in samples present; do
    echo
    if [ $kind = samples ]; then
      echo "| round | driver | wait route | bounce --no-vsync: lateness p50 / p99 | rhythm: lateness p50; audio-thread wake p50 | bounce with vsync, ${secs} s: renders/s, refresh (pacing at the end) | bench_wait: lateness p50, x-thread wake p50, wake-ups in 4 s idle |"
      echo "|---|---|---|---|---|---|---|"
    else
      echo "| round | driver | first 3 presents after the window maps | first 2 s: pacing, refresh learnt, presents > 4 periods, dropped, stalls, updates | minimized 3 s, hidden-pause: updates/s, dropped, paused | minimized 3 s, run_while_hidden: updates/s, dropped, presents blocked before the state |"
      echo "|---|---|---|---|---|---|"
    fi
    for ((r = 1; r <= rounds; r++)); do
      for drv in x11 wayland; do
        awk -v kind="$kind" -v r="$r" -v drv="$drv" -v dir="$out/r$r-$drv" '
          function kv(line, key,   m) { return match(line, "(^| )" key "=[^ ]*") ? substr(line, RSTART + (RSTART > 1) + length(key) + 1, RLENGTH - (RSTART > 1) - length(key) - 1) : "?" }
          function us(ns) { return ns == "?" ? "?" : sprintf("%.1f µs", ns / 1000) }
          function grab(file, pat,   l) { while ((getline l < file) > 0) if (l ~ pat) { close(file); return l } close(file); return "" }
          function after(l, pre,   i, rest, a) { i = index(l, pre); if (!i) return "?"; rest = substr(l, i + length(pre)); sub(/^ +\+?/, "", rest); split(rest, a, /[ ,)]/); return a[1] }
          BEGIN {
            if (kind == "samples") {
              l = grab(dir "-bounce-novsync.txt", "^bounce summary"); route = after(l, "wait route ")
              l = grab(dir "-bounce-novsync.txt", "tick lateness p50"); n50 = after(l, "p50 "); n99 = after(l, "p99 ")
              l = grab(dir "-rhythm.txt", "tick lateness p50"); rl = after(l, "p50 ")
              l = grab(dir "-rhythm.txt", "audio thread -> loop thread"); rw = after(l, "p50")
              l = grab(dir "-bounce-vsync.txt", "renders \\("); split(l, f, /[()]/); rps = f[4]; sub(/\/s/, "", rps)
              l = grab(dir "-bounce-vsync.txt", "renders paced by"); hz = after(l, " at "); pl = after(l, "(pacing ")
              l = grab(dir "-wait.txt", "^RESULT")
              w = us(kv(l, "late_p50")) ", " us(kv(l, "xw_p50")) ", " kv(l, "csw")
              printf "| %s | %s | %s | %s / %s µs | %s µs; %s µs | %s, %s Hz (%s) | %s |\n", r, drv, route, n50, n99, rl, rw, rps, hz, pl, w
            } else {
              l = grab(dir "-first.txt", "^RESULT"); split(kv(l, "presents_ms"), ps, ",")
              first = ps[1] ", " ps[2] ", " ps[3] " ms"
              st = kv(l, "pacing") ", " kv(l, "refresh_hz") " Hz, " kv(l, "withheld_presents") ", " kv(l, "dropped") ", " kv(l, "stalls") ", " kv(l, "updates") " in " kv(l, "elapsed_s") " s"
              l = grab(dir "-min-pause.txt", "^RESULT")
              mp = kv(l, "updates_per_s") ", " kv(l, "dropped") ", " kv(l, "paused_ms") " ms of " kv(l, "span_ms")
              l = grab(dir "-min-run.txt", "^RESULT")
              mr = kv(l, "updates_per_s") ", " kv(l, "dropped") ", " (kv(l, "long_before_state") == "-1" ? "never withheld" : kv(l, "long_before_state"))
              printf "| %s | %s | %s | %s | %s | %s |\n", r, drv, first, st, mp, mr
            }
          }'
      done
    done
  done
} >"$out/table.md"
cat "$out/table.md"
echo "bench_wayland: raw outputs and table.md in $out"
