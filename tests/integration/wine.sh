#!/usr/bin/env bash
# The Windows stage: both mingw-w64 builds (build-win32, -Dplatform=win32, and build-winsdl,
# -Dplatform=sdl; .ci/win-build made them) through wine64, in one private Xvfb session whose wine
# processes `.ci/win-env warm` started (a new X server per run would leave them behind). Wine's
# timers and process start-up are slower, so every timeout is doubled; TEMPO_REQUIRE_XDOTOOL: the
# cases that type into a wine window with xdotool must run, not skip. Ends with one line per build,
# "wine-win32: N passed, N failed, N skipped" and "wine-sdl: ..." (meson's counts), which ./dev test
# adds to its total.
#   tests/integration/wine.sh SOURCE_ROOT     (test_timeout_scale=N: scales the timeouts, --load)
set -uo pipefail
top=$(cd "${1:?usage: wine.sh SOURCE_ROOT}" && pwd)
cd "$top" || exit 1
# shellcheck source=.ci/stages.sh
. "$top/.ci/stages.sh"
dfile=$(mktemp)
Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp 3>"$dfile" >/dev/null 2>&1 &
xpid=$!
for _ in $(seq 100); do [ -s "$dfile" ] && break; sleep 0.1; done
display=:$(cat "$dfile")
rm -f "$dfile"
if [ "$display" = : ] || ! DISPLAY=$display .ci/win-env warm >&2; then
  kill "$xpid" 2>/dev/null
  echo "wine-win32: 0 passed, 1 failed, 0 skipped [Xvfb or .ci/win-env warm failed]"
  echo "wine-sdl: 0 passed, 1 failed, 0 skipped [Xvfb or .ci/win-env warm failed]"
  exit 1
fi
for b in win32:build-win32 sdl:build-winsdl; do
  run_suites "wine-${b%%:*}" "${b#*:}" DISPLAY="$display" SDL_AUDIODRIVER=dummy TEMPO_REQUIRE_XDOTOOL=1 \
    -- --timeout-multiplier $((2 * test_timeout_scale))
done
kill "$xpid" 2>/dev/null
wait "$xpid" 2>/dev/null
printf '%s\n' "${results[@]}"
tally >/dev/null
