#!/usr/bin/env bash
# Every sample, headless (SDL's offscreen driver, dummy audio) for a few seconds from
# BUILD_ROOT/samples-suite: it must exit 0, print its summary and write a screenshot that is not
# blank (samples/common/pngtool.py check), and nothing may appear in the source tree. crowd gets
# its server started here on 127.0.0.1 (an ephemeral port); loading generates its assets into the
# suite's directory. (duel has a stage of its own: game.sh.)
#   tests/integration/samples.sh SOURCE_ROOT BUILD_ROOT
. "$(dirname "$0")/common.sh"
dir=$build/samples-suite
rm -rf "$dir" && mkdir -p "$dir"
for name in bounce waitdemo rhythm inputview loading crowd; do
  args=(--headless --seconds 3 --screenshot "$dir/$name.png")
  spid=
  case $name in
    loading) args+=(--assets "$dir/loading-assets") ;;
    crowd)
      "$bin/crowd_server" --scenario burst --duration 4 >"$dir/crowd_server.out" 2>&1 &
      spid=$!
      port=$(server_port "$dir/crowd_server.out")
      args=(--headless --seconds 4 --screenshot "$dir/$name.png" --port "${port:-1}") ;;
  esac
  rc=0
  (cd "$dir" && timeout 180 "$bin/$name" "${args[@]}") >"$dir/$name.out" 2>&1 || rc=$?
  if [ -n "$spid" ]; then kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; fi
  out=$dir/$name.out
  if [ $rc -ne 0 ]; then
    ok "$name" 1 "exit $rc"
  elif ! grep -q "^$name summary" "$out"; then
    ok "$name" 1 "no summary"
  elif ! python3 samples/common/pngtool.py check "$dir/$name.png" >>"$out" 2>&1; then
    ok "$name" 1 "screenshot missing or blank ($(tail -1 "$out"))"
  else
    ok "$name" 0
  fi
done
finish samples
