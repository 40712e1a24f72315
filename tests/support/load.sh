#!/usr/bin/env bash
# The load a shared machine sees (no test's verdict may depend on how busy the machine is: a CI
# machine runs other jobs): two busy-looping processes, plus a build storm (a second copy of this
# repository, configured in a temp dir and rebuilt from clean with ninja -j4 in a loop: many short
# compiler processes, memory and disk I/O). TEMPO_LOAD_HOGS (2) and TEMPO_LOAD_JOBS (4) make it
# heavier, to reproduce a failure.
#   tests/support/load.sh [-- CMD...]   runs CMD beside the load (its status is the script's), or
#                                       holds the load until Ctrl-C or TERM (./dev test --load starts
#                                       it so, in the background, once the Linux builds are done, and
#                                       TERMs it at the end)
# Every load process is in a process group of its own, recorded, and killed by that id on exit,
# also on failure, Ctrl-C or TERM; the copy is deleted.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
pgids=() sleeper= dir=

spawn() {
  # With job control on, bash puts the job in a process group of its own whose id is its pid (set
  # by parent and child alike, so no race), and Ctrl-C at a terminal only reaches the foreground
  # group: stop ends it.
  set -m
  "$@" </dev/null >/dev/null 2>&1 &
  pgids+=("$!")
  set +m
}

stop() {
  local g
  for g in "${pgids[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  for g in "${pgids[@]}"; do
    # ninja's children get the TERM too; give them a moment, then insist.
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$g" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$g" 2>/dev/null || true
  done
  pgids=()
  if [ -n "$sleeper" ]; then kill "$sleeper" 2>/dev/null || true; sleeper=; fi
  if [ -n "$dir" ]; then rm -rf "$dir"; fi
  dir=
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

[ "${1:-}" = "--" ] && shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/tempo-load.XXXXXX")
hogs=${TEMPO_LOAD_HOGS:-2} jobs=${TEMPO_LOAD_JOBS:-4}
echo "load: $hogs busy loops + a ninja -j$jobs rebuild loop of a second copy ($dir)" >&2
# The committed tree (the storm does not need uncommitted edits); outside git, the sources
# without build directories.
mkdir "$dir/src"
if ! git -C "$top" archive HEAD 2>/dev/null | tar -x -C "$dir/src" -f - 2>/dev/null; then
  tar -C "$top" --exclude='./build*' --exclude=./.git -cf - . | tar -x -C "$dir/src" -f - ||
    { echo "load: cannot copy the sources to $dir" >&2; exit 1; }
fi
if ! meson setup "$dir/b" "$dir/src" >"$dir/setup.log" 2>&1; then
  cat "$dir/setup.log" >&2
  echo "load: meson setup of the storm copy failed" >&2
  exit 1
fi
for ((i = 0; i < hogs; i++)); do spawn bash -c 'while :; do :; done'; done
spawn bash -c 'while :; do ninja -C "$1" -j"$2" >/dev/null 2>&1; ninja -C "$1" -t clean >/dev/null 2>&1; done' \
  storm "$dir/b" "$jobs"
echo "load: running" >&2
if [ $# -gt 0 ]; then
  rc=0
  "$@" || rc=$?
  exit $rc
fi
# `wait` returns on a signal (a foreground sleep would delay the trap); stop ends the sleep too.
while :; do
  sleep 3600 &
  sleeper=$!
  wait "$sleeper"
done
