#!/usr/bin/env bash
# Tempo under a real Wayland compositor (issue 23, docs/wayland.md), SDL_VIDEODRIVER=wayland on a
# private weston (tests/integration/weston.sh: the x11 backend inside a private Xvfb, and a
# headless one with no seat beside it):
#   - the tests wayland (route, xdotool input into weston's X window, re-created windows,
#     minimize; TEMPO_REQUIRE_WAYLAND: skipping is failing), conformance and loop-vsync, each
#     through meson from BUILD_ROOT;
#   - the samples that need no server, each in a real window for 3 s: exit 0, the wayland-fd wait
#     route in its summary (loading's names the video driver instead), a screenshot not blank.
#   tests/integration/wayland.sh SOURCE_ROOT BUILD_ROOT
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/weston.sh"
# Without weston or Xvfb: skipped (meson's 77), or failed where they must be there (./dev test
# installs both and sets TEMPO_REQUIRE_WAYLAND=1).
if ! command -v weston >/dev/null || ! command -v Xvfb >/dev/null; then
  if [ "${TEMPO_REQUIRE_WAYLAND:-0}" = 1 ]; then
    ok "weston and Xvfb installed" 1 "TEMPO_REQUIRE_WAYLAND=1 and one is missing"
    finish wayland
  fi
  echo "wayland: 0 passed, 0 failed, 1 skipped [no weston or Xvfb]"
  exit 77
fi
trap wayland_stop EXIT
trap 'wayland_stop; exit 130' INT
trap 'wayland_stop; exit 143' TERM
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-wayland.XXXXXX")
if ! wayland_start "$tmp" || ! wayland_start_noseat; then
  tail -20 "$tmp"/*.log || true
  ok "Xvfb and weston start" 1 "see the logs above"
  finish wayland
fi
sleep 1 # weston's desktop shell maps its panel a moment after the socket appears
export DISPLAY=$wayland_display XDG_RUNTIME_DIR=$tmp/xdg WAYLAND_DISPLAY=wayland-tempo SDL_VIDEODRIVER=wayland
for t in wayland conformance loop-vsync; do
  rc=0
  TEMPO_REQUIRE_WAYLAND=1 TEMPO_TEST_WAYLAND_NOSEAT=wayland-noseat TEMPO_WAYLAND_MINIMIZE=enforce \
    meson test -C "$build" --no-rebuild --print-errorlogs --logbase "wayland-$t" "$t" >"$tmp/test-$t.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || grep -E '^(FAIL|    )|ERROR|Summary' "$tmp/test-$t.log" | head -20
  ok "test $t" $rc "meson test exit $rc"
done
for name in bounce waitdemo rhythm inputview loading; do
  out=$tmp/sample-$name.out extra=()
  [ "$name" = loading ] && extra=(--assets "$tmp/loading-assets")
  rc=0
  (cd "$tmp" && timeout 120 "$bin/$name" --seconds 3 --screenshot "$tmp/$name.png" "${extra[@]}") >"$out" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    ok "sample $name" 1 "exit $rc ($(tail -1 "$out"))"
  elif ! grep -q "^$name summary.*\(wait route wayland-fd\|video wayland\)" "$out"; then
    ok "sample $name" 1 "not on wayland ($(grep -m1 summary "$out"))"
  elif ! python3 samples/common/pngtool.py check "$tmp/$name.png" >>"$out" 2>&1; then
    ok "sample $name" 1 "screenshot missing or blank"
  else
    ok "sample $name" 0
  fi
done
finish wayland
