#!/usr/bin/env bash
# The web stage: ./dev web's site (build-web/site, every sample page and tests/web's programs) in
# headless Chromium, driven by tests/web_test.js through puppeteer-core (.ci/web-deps installs it
# into its cache): each page starts its loop, runs, paints, logs no error, gets the keys, and its
# main thread keeps no message waiting over 50 ms; then tests/web's programs in their pages (the
# replay constant, tempo/net.h over websockify; crowd and duel against their native servers, and
# duel's page against the native client and, when build-win32 is there, a wine spectator).
# Its checks are web_test.js's lines ("ok"/"FAIL"); it ends with "web: N passed, N failed, 0
# skipped". Run by ./dev test after ./dev web built the site (not a meson test: it needs
# build-web, the emscripten build).
#   tests/integration/web.sh SOURCE_ROOT NATIVE_BUILD_ROOT
. "$(dirname "$0")/common.sh"
site=$top/build-web/site out=$top/build-web/web-test.log
prefix=${TEMPO_WEB_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo/web}
# crowd's and duel's pages play against the native servers (through websockify), and a duel page
# against the native duel client: built here, in the native build.
ninja -C "$build" samples/crowd_server samples/duel_server samples/duel >"$top/build-web/native-servers.log" 2>&1 ||
  echo "web: the native servers did not build (build-web/native-servers.log): crowd and duel will fail" >&2
# The screenshots go into the site: the gallery then shows the browser's own pictures. The win32
# duel (the Windows stage's build, when there is one) watches the page's match under wine.
win_duel=
[ ! -x "$top/build-win32/samples/duel.exe" ] || win_duel=$top/build-win32/samples/duel.exe
rc=0
TEMPO_WIN_DUEL=$win_duel NODE_PATH=$prefix/node_modules TEMPO_WEB_SHOTS=$site TEMPO_WEB_RESULTS=$top/build-web/web-test.json \
  timeout 600 node "$top/tests/web_test.js" "$site" >"$out" 2>&1 || rc=$?
grep -E '^(ok|FAIL) ' "$out" || true
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -1)
if [ -z "$line" ]; then
  ok "web_test.js" 1 "no summary (exit $rc): $out"
else
  read -r np _ nf _ <<<"$line"
  p=$((p + np)) f=$((f + nf))
  [ "$nf" = 0 ] || why+=("$out")
  [ "$rc" = 0 ] || [ "$nf" != 0 ] || ok "web_test.js exit status" "$rc" "exit $rc: $out"
fi
finish web
