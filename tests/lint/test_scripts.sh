#!/usr/bin/env bash
# The project's scripts on a machine that looks new without being new (issue 18: on a new machine
# .ci/win-env printed 223 lines of apt-get output before the cross file's path, which ./dev reads
# from its stdout, and the README's test command failed).
#
# PATH shims make every package "not installed" and every tool chatty on stdout: dpkg-query says
# not-installed, apt-get prints what it prints on a new machine and succeeds, sudo runs its command,
# the mingw compiler and wine (through TEMPO_WINE_DIR) print too. Each script whose stdout another
# reads must still print exactly its result there. Nothing real is installed, built or started, and
# nothing depends on what this machine has.
#   usage: tests/lint/test_scripts.sh [REPO_DIR]      (default: the checkout this file is in)
set -uo pipefail
repo=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tempo-scripts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The scripts' own files go here too: their apt lock, ${TMPDIR:-/tmp}/tempo-apt.lock, above all. On
# a new machine ./dev test installs the Windows and web packages in the background while this runs,
# holding the machine's lock for minutes: with it, this check waited past its timeout (CI, stop 44).
export TMPDIR=$tmp
pass=0 fail=0

check() {  # check NAME CONDITION-RESULT(0/1) DETAIL
    if [ "$2" = 0 ]; then
        echo "ok   $1"; pass=$((pass + 1))
    else
        echo "not ok $1"; printf '    %s\n' "$3"; fail=$((fail + 1))
    fi
}

# --- the shims --------------------------------------------------------------------------------
shim=$tmp/shim
mkdir -p "$shim" "$tmp/wine"
cat >"$shim/dpkg-query" <<'EOF'
#!/bin/sh
# every package: known to dpkg, not installed (what a new machine says)
printf 'not-installed'
EOF
cat >"$shim/apt-get" <<'EOF'
#!/bin/sh
# apt-get on a new machine: progress and maintainer-script lines on stdout, exit 0
echo "Reading package lists..."
echo "Selecting previously unselected package fake-$$."
echo "Setting up fake ($*) ..."
echo "$*" >>"$TEMPO_SHIM_LOG"
exit 0
EOF
cat >"$shim/sudo" <<'EOF'
#!/bin/sh
[ "$1" = -n ] && shift
exec "$@"
EOF
cat >"$shim/x86_64-w64-mingw32-gcc" <<'EOF'
#!/bin/sh
echo "x86_64-w64-mingw32-gcc: chatty compiler line"
out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
[ -n "$out" ] && : >"$out"
exit 0
EOF
cat >"$tmp/wine/wine64" <<'EOF'
#!/bin/sh
echo "wine: chatty line ($*)"
[ "$1" = wineboot ] && mkdir -p "$WINEPREFIX" && : >"$WINEPREFIX/system.reg" && : >"$WINEPREFIX/user.reg"
exit 0
EOF
cat >"$tmp/wine/wineserver" <<'EOF'
#!/bin/sh
echo "wineserver: chatty line"
exit 0
EOF
chmod +x "$shim"/* "$tmp/wine"/*
export TEMPO_SHIM_LOG=$tmp/apt.log
: >"$TEMPO_SHIM_LOG"
new_machine=(env PATH="$shim:$PATH" TEMPO_WINE_DIR="$tmp/wine" TEMPO_WIN_PREFIX="$tmp/win64" HOME="$tmp/home")

# --- .ci/win-env: ./dev reads its stdout as the cross file's path --------------------------------
out=$("${new_machine[@]}" bash "$repo/.ci/win-env" 2>"$tmp/win-env.err")
rc=$?
want=$tmp/win64/cross-mingw64.ini
check "win-env exits 0 on a new machine" $((rc != 0)) "exit $rc; stderr: $(tail -3 "$tmp/win-env.err")"
check "win-env prints only the cross file's path on stdout" "$([ "$out" = "$want" ]; echo $?)" \
    "want exactly '$want'; got $(printf '%s\n' "$out" | wc -l) line(s), first: '$(printf '%s\n' "$out" | head -1)'"
check "win-env's packages were installed (apt-get install ran)" \
    "$(grep -q ' install .*wine64' "$TEMPO_SHIM_LOG"; echo $?)" "apt-get calls: $(tr '\n' ';' <"$TEMPO_SHIM_LOG")"
check "the cross file exists" "$([ -f "$want" ]; echo $?)" "no $want"

# --- the shared installer: nothing on stdout, apt-get update once then install ------------------
: >"$TEMPO_SHIM_LOG"
out=$("${new_machine[@]}" bash -c '. "$1/.ci/pkgs.sh"; ensure_pkgs alpha beta && ensure_pkgs gamma' x "$repo" 2>/dev/null)
rc=$?
check "ensure_pkgs succeeds" $((rc != 0)) "exit $rc"
check "ensure_pkgs prints nothing on stdout" "$([ -z "$out" ]; echo $?)" "stdout: $(printf '%s' "$out" | head -3 | tr '\n' '|')"
calls=$(tr '\n' ';' <"$TEMPO_SHIM_LOG")
check "apt-get update runs once, before the first install" \
    "$([ "$(grep -c update "$TEMPO_SHIM_LOG")" = 1 ] && head -1 "$TEMPO_SHIM_LOG" | grep -q update; echo $?)" "calls: $calls"
check "the missing packages are installed by name" \
    "$(grep -q 'install.* alpha beta' "$TEMPO_SHIM_LOG" && grep -q 'install.* gamma' "$TEMPO_SHIM_LOG"; echo $?)" "calls: $calls"

# Every apt-get call waits for the dpkg lock (unattended-upgrades on a new install, a second
# terminal) and retries downloads: without it, a busy lock failed the stage at once (issue 36).
check "every apt-get call waits for the dpkg lock and retries downloads" \
    "$([ -s "$TEMPO_SHIM_LOG" ] && ! grep -v 'DPkg::Lock::Timeout=[1-9].*Acquire::Retries=[1-9]' "$TEMPO_SHIM_LOG" | grep -q .; echo $?)" \
    "calls: $calls"

# Tempo's installers take turns: ./dev test prepares the Windows and web stages in the background,
# and `apt-get update` waits for no lock (issue 36). Two at once, each apt-get call 0.2 s long: the
# calls never overlap.
mkdir -p "$tmp/slow"
cat >"$tmp/slow/apt-get" <<'EOF2'
#!/bin/sh
echo "start $$" >>"$TEMPO_SHIM_LOG"; sleep 0.2; echo "end $$" >>"$TEMPO_SHIM_LOG"
EOF2
chmod +x "$tmp/slow/apt-get"
: >"$TEMPO_SHIM_LOG"
both=(env PATH="$tmp/slow:$shim:$PATH" bash -c '. "$1/.ci/pkgs.sh"; ensure_pkgs "$2"' x "$repo")
"${both[@]}" one 2>/dev/null & p1=$!
"${both[@]}" two 2>/dev/null & p2=$!
wait $p1; wait $p2
check "two installers at once take turns (no apt-get call overlaps another)" \
    "$(awk '/^start/ { if (open) bad = 1; open = 1 } /^end/ { open = 0 } END { exit bad || NR != 8 }' "$TEMPO_SHIM_LOG"; echo $?)" \
    "calls: $(tr '\n' ';' <"$TEMPO_SHIM_LOG")"

# apt-get update that meets another apt's lists lock is tried again; any other failure is not.
cat >"$tmp/slow/apt-get" <<'EOF2'
#!/bin/sh
echo "$*" >>"$TEMPO_SHIM_LOG"
case "$*" in *update*) n=$(grep -c update "$TEMPO_SHIM_LOG")
    [ "$n" -gt "$TEMPO_FAILS" ] && exit 0
    echo "E: $TEMPO_WHY"; exit 100 ;; esac
EOF2
upd() { : >"$TEMPO_SHIM_LOG"; env PATH="$tmp/slow:$shim:$PATH" TEMPO_APT_RETRY_S=0 TEMPO_FAILS=$1 \
    TEMPO_WHY="$2" bash -c '. "$1/.ci/pkgs.sh"; apt_update' x "$repo" 2>/dev/null; echo "$? $(grep -c update "$TEMPO_SHIM_LOG")"; }
got=$(upd 2 "Could not get lock /var/lib/apt/lists/lock. It is held by process 7 (apt-get)")
check "apt-get update held off by another apt's lock is tried again" "$([ "$got" = "0 3" ]; echo $?)" \
    "status and update calls: want '0 3', got '$got'"
got=$(upd 1 "Some index files failed to download.")
check "apt-get update that fails otherwise fails at once" "$([ "$got" = "1 1" ]; echo $?)" \
    "status and update calls: want '1 1', got '$got'"

# --- write_if_changed: the cross files keep their time when their text is the same --------------
# (.ci/web-deps and .ci/win-env rewrote them on every run, newer than the builds that read them:
# every ./dev web and Windows build ran meson again.)
wic() { bash -c '. "$1/.ci/pkgs.sh"; printf "$3" | write_if_changed "$2"' x "$repo" "$tmp/cross.ini" "$1"; }
printf 'a\nb\n' >"$tmp/cross.ini"; touch -d '2000-01-01 00:00' "$tmp/cross.ini"
wic 'a\nb\n'
check "write_if_changed leaves a file with the same text alone" \
    "$([ "$(stat -c %Y "$tmp/cross.ini")" = "$(date -d '2000-01-01 00:00' +%s)" ]; echo $?)" "its time changed"
wic 'a\nc\n'
check "write_if_changed writes a changed text" "$([ "$(cat "$tmp/cross.ini")" = "$(printf 'a\nc')" ]; echo $?)" \
    "got: $(cat "$tmp/cross.ini")"

# --- alternatives: sdl2-compat satisfies "libsdl2-dev|libsdl2-compat-dev" -------------------------
# A dpkg-query that knows one installed package (sdl2-compat's), as Debian 13 with it has.
mkdir -p "$tmp/compat"
cat >"$tmp/compat/dpkg-query" <<'EOF2'
#!/bin/sh
for a; do last=$a; done
[ "$last" = libsdl2-compat-dev ] && printf installed || printf not-installed
EOF2
chmod +x "$tmp/compat/dpkg-query"
miss=$(PATH="$tmp/compat:$PATH" bash -c '. "$1/.ci/pkgs.sh"; missing_pkgs "libsdl2-dev|libsdl2-compat-dev" libsdl2-mixer-dev' x "$repo")
check "sdl2-compat satisfies the installer's SDL2 (it is not replaced by classic SDL2)" \
    "$([ "$miss" = libsdl2-mixer-dev ]; echo $?)" "missing_pkgs said: $(printf '%s' "$miss" | tr '\n' ' ')"
miss=$("${new_machine[@]}" bash -c '. "$1/.ci/pkgs.sh"; missing_pkgs "libsdl2-dev|libsdl2-compat-dev"' x "$repo")
check "with neither installed, the first alternative is installed" "$([ "$miss" = libsdl2-dev ]; echo $?)" "got: $miss"

# --- source packages: a package whose sources cannot be had fails loudly, by name ------------------
# apt-get source as a mirror answering 404 for some files: the .dsc and the Debian tarball of
# "good" arrive, nothing of "bad", and "net" only its upstream tarball (Debian 13's mirror here).
mkdir -p "$tmp/src-shim" "$tmp/src-work"
cat >"$tmp/src-shim/apt-get" <<'EOF2'
#!/bin/sh
case " $* " in
*" --print-uris "*)
    # as apt does: a file already in the current directory is not listed
    for p; do case $p in good|bad|net)
        for f in ${p}_1.dsc ${p}_1.orig.tar.xz ${p}_1-1.debian.tar.xz; do
            [ -e "$f" ] || echo "'http://m/$f' $f 1 SHA256:0"
        done ;; esac; done ;;
*" --download-only "*)
    for p; do case $p in
        good) echo x >good_1.dsc; echo x >good_1.orig.tar.xz; echo x >good_1-1.debian.tar.xz ;;
        net) echo x >net_1.orig.tar.xz ;;
    esac; done
    exit 100 ;;
esac
EOF2
chmod +x "$tmp/src-shim/apt-get"
fetch() { (cd "$tmp/src-work" && rm -f ./* && PATH="$tmp/src-shim:$PATH" bash -c '. "$1/.ci/pkgs.sh"; . "$1/.ci/srcpkgs.sh"; TAG=t; SRC_PKGS=("${@:2}"); srcpkgs_fetch' x "$repo" "$@" 2>&1); }
out=$(fetch good net); rc=$?
check "upstream sources that arrived (Debian's missing files only noted) fetch with status 0" "$rc" "exit $rc: $out"
check "Debian's missing files are named" \
    "$(grep -q 'net: .*net_1-1.debian.tar.xz' <<<"$out" && grep -q 'net: .*net_1.dsc' <<<"$out"; echo $?)" "output: $out"
dsc=$(cd "$tmp/src-work" && PATH="$tmp/src-shim:$PATH" bash -c '. "$1/.ci/srcpkgs.sh"; srcpkgs_dsc good' x "$repo")
check "a package's .dsc name is known with its files already downloaded" "$([ "$dsc" = good_1.dsc ]; echo $?)" \
    "srcpkgs_dsc good beside good_1.dsc said '$dsc' (apt lists only what is not downloaded)"
out=$(fetch good bad); rc=$?
check "a package whose sources cannot be had fails the fetch" "$((rc == 0))" "exit 0: $out"
check "the failure names the package" "$(grep -q 'cannot get the sources of bad' <<<"$out"; echo $?)" "output: $out"

# --- SDL2_mixer's MP3 options follow what the tarball bundles -----------------------------------
# Debian's dfsg tarball of SDL2_mixer 2.8.1 has no minimp3: asking for it failed the build on a
# missing header (Debian 13's web stage); 2.6.2's dr_mp3 stays on.
mp3() { bash -c '. "$1/.ci/srcpkgs.sh"; TAG=t; mixer_mp3_opts "$2"' x "$repo" "$1" 2>/dev/null; }
mkdir -p "$tmp/m26/src/codecs/dr_libs" "$tmp/m28/src/codecs/minimp3" "$tmp/m28dfsg/src/codecs/dr_libs"
: >"$tmp/m26/src/codecs/dr_libs/dr_mp3.h"; : >"$tmp/m28/src/codecs/minimp3/minimp3_ex.h"
check "SDL2_mixer 2.6 builds MP3 with dr_mp3" "$([ "$(mp3 "$tmp/m26")" = "-DSDL2MIXER_MP3=ON -DSDL2MIXER_MP3_DRMP3=ON" ]; echo $?)" "got: $(mp3 "$tmp/m26")"
check "SDL2_mixer 2.8 builds MP3 with minimp3 when bundled" "$([ "$(mp3 "$tmp/m28")" = "-DSDL2MIXER_MP3=ON -DSDL2MIXER_MP3_MINIMP3=ON" ]; echo $?)" "got: $(mp3 "$tmp/m28")"
check "a tarball without an MP3 decoder builds without MP3" "$([ "$(mp3 "$tmp/m28dfsg")" = "-DSDL2MIXER_MP3=OFF" ]; echo $?)" "got: $(mp3 "$tmp/m28dfsg")"

# --- deb-src entries from both formats apt reads ------------------------------------------------
apt=$tmp/apt
mkdir -p "$apt/sources.list.d"
cat >"$apt/sources.list" <<'EOF'
# a root made by mmdebstrap
deb http://deb.debian.org/debian bookworm main
deb [signed-by=/usr/share/keyrings/k.gpg] http://deb.debian.org/debian-security bookworm-security main
deb-src http://deb.debian.org/debian bookworm main
EOF
printf 'deb-src http://x bookworm main\n' >"$apt/sources.list.d/tempo-src.list"  # ours: never read
# As win-deps calls them: under set -euo pipefail, on a machine with one format only.
derive() { bash -c 'set -euo pipefail; . "$1/.ci/pkgs.sh"; out=$('"$1"' "$2"); printf "%s" "$out"' x "$repo" "$apt" 2>&1; }
derive_rc() { bash -c 'set -euo pipefail; . "$1/.ci/pkgs.sh"; out=$('"$1"' "$2")' x "$repo" "$apt" >/dev/null 2>&1; echo $?; }
check "deb822 derivation succeeds on a one-line-only machine (set -e)" "$(derive_rc deb_src_822)" "exit non-zero"
one=$(derive deb_src_one)
check "one-line sources give one-line deb-src entries" \
    "$([ "$one" = "deb-src http://deb.debian.org/debian bookworm main
deb-src [signed-by=/usr/share/keyrings/k.gpg] http://deb.debian.org/debian-security bookworm-security main" ]; echo $?)" \
    "got: $(printf '%s' "$one" | tr '\n' '|')"
rm "$apt/sources.list"
cat >"$apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
EOF
check "one-line derivation succeeds on a deb822-only machine (set -e)" "$(derive_rc deb_src_one)" "exit non-zero"
st=$(derive deb_src_822)
check "deb822 sources give deb-src stanzas" \
    "$([ "$st" = "Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" ]; echo $?)" "got: $(printf '%s' "$st" | tr '\n' '|')"
check "a deb822-only machine has no one-line entries" \
    "$([ -z "$(derive deb_src_one)" ]; echo $?)" "unexpected one-line output"

# --- ./dev's meson_tally: each run's counts are meson test's own summary ------------------------
# Saved outputs of real meson test runs (tests/data/meson-test-*.log): "kinds" is a throw-away
# project with one test of every kind meson counts (ok, skip, fail, crash, timeout, expected fail,
# unexpected pass); "tempo" is Tempo's wayland test failing without a compositor (its error log,
# printed by --print-errorlogs, has the harness's own "1 passed, 5 failed" line, which must not
# count); "ok" is a clean run. The function is taken from ./dev as it is.
eval "$(sed -n '/^meson_tally() {/,/^}/p' "$repo/.ci/stages.sh")"
tally_is() {  # tally_is NAME EXPECTED LABEL < OUTPUT
    local got
    got=$(meson_tally "$3")
    check "$1" "$([ "$got" = "$2" ]; echo $?)" "expected: $2 | got: $got"
}
tally_is "meson's summary: every kind of result" \
    "kinds: 2 passed, 4 failed, 1 skipped [FAIL: fail; UNEXPECTEDPASS: upass; FAIL: crash; TIMEOUT: slow]" \
    kinds <"$repo/tests/data/meson-test-kinds.log"
want="wayland: 2 passed, 1 failed, 0 skipped [FAIL: tempo:wayland / wayland; first failed case: compositor_without_seat_is_refused_before_video_init (../tests/test_wayland.c:47: TEMPO_REQUIRE_WAYLAND is set but TEMPO_TEST_WAYLAND_NOSEAT does not name), 4 more]"
tally_is "meson's summary, not the test's own lines; the first failed case and its check" "$want" \
    wayland <"$repo/tests/data/meson-test-tempo.log"
# A Windows program under wine writes CRLF: the same line (before, a CI run's wine-sdl stage said
# only "FAIL: tempo:conformance / conformance", and its root was gone).
tally_is "the first failed case from CRLF output" "$want" wayland < <(sed 's/$/\r/' "$repo/tests/data/meson-test-tempo.log")
# A long output whose failed case came early: meson shows only the last 100 lines of a test's
# stdout then stderr, and the code under test's WARN lines on stderr (conformance: thousands) push
# all of stdout out of them. The harness's recap, on stderr, at the very end, names the case (a CI
# run's sdl-route stage said only "FAIL: tempo:conformance / conformance" so).
tally_is "the first failed case from the harness's recap when meson cut the log" \
    "conformance: 0 passed, 1 failed, 0 skipped [FAIL: long; first failed case: waits_before_the_cut (../tests/conformance/test_conformance.c:301: r == 0: 258 vs 0)]" \
    conformance <"$repo/tests/data/meson-test-long.log"
# A program killed inside a case (or stopped there by meson's timeout) prints no FAIL line: the
# case it was in is the one that began and never ended.
tally_is "the case a crashed program was in" \
    "conformance: 0 passed, 1 failed, 0 skipped [FAIL: crash; first failed case: message_wait_crashes (did not finish: the program ended inside it)]" \
    conformance <"$repo/tests/data/meson-test-crash.log"
tally_is "meson's summary: a clean run" "linux-x11: 4 passed, 0 failed, 0 skipped" \
    linux-x11 <"$repo/tests/data/meson-test-ok.log"
tally_is "no summary (meson test did not run) is one failure" \
    "consumer: 0 passed, 1 failed, 0 skipped [meson test printed no summary]" \
    consumer < <(printf 'ninja: error: loading build.ninja\n')
check "./dev has no embedded Python test tally" "$(! grep -q 'json.loads' "$repo/dev"; echo $?)" \
    "./dev still parses meson's JSON"

# --- ./dev's web and Windows stages in the final tally ---------------------------------------------
# web_suite and win_suites as they are in ./dev, and .ci/stages.sh's counting, in a copy of the
# tree whose builds (.ci/web-site, .ci/win-build) are stubs and whose Chromium test is a node shim
# that prints the test's summary; tests/integration/web.sh itself is the real one.
eval "$(sed -n '/^web_supported() {/,/^}/p; /^web_suite() {/,/^}/p; /^win_suites() {/,/^}/p; /^results_from() {/,/^}/p; /^job_start() {/,/^}/p; /^job_finish() {/,/^}/p; /^jobs_stop() {/,/^}/p' "$repo/dev")"
eval "$(sed -n '/^result() {/,/^}/p; /^tally() {/,/^}/p' "$repo/.ci/stages.sh")"
declare -A bg_jobs=()
mkdir -p "$tmp/web/bin" "$tmp/web/top/build-web" "$tmp/web/top/.ci" "$tmp/web/top/tests/integration"
cp "$repo/tests/integration/web.sh" "$repo/tests/integration/common.sh" "$tmp/web/top/tests/integration/"
printf '#!/bin/sh\necho "ok   bounce: loop starts"\necho "3 passed, 0 failed"\n' >"$tmp/web/bin/node"
chmod +x "$tmp/web/bin/node"
log() { :; }
web_total() {  # web_total BUILD_STATUS: the final tally line with the web stage after one other
    local results=("game: 5 passed, 0 failed, 1 skipped")
    printf '#!/bin/sh\nexit %s\n' "$1" >"$tmp/web/top/.ci/web-site"
    chmod +x "$tmp/web/top/.ci/web-site"
    top=$tmp/web/top PATH=$tmp/web/bin:$PATH web_suite 2>/dev/null
    tally | tail -1
}
got=$(web_total 0)
check "web stage counted in ./dev's final tally" "$([ "$got" = "9 passed, 0 failed, 1 skipped" ]; echo $?)" \
    "expected: 9 passed, 0 failed, 1 skipped (game 5+1 skip, web 3 + clean tree) | got: $got"
got=$(web_total 1)
check "a failed ./dev web is one failure in the final tally" \
    "$([ "$got" = "5 passed, 1 failed, 1 skipped" ]; echo $?)" "expected: 5 passed, 1 failed, 1 skipped | got: $got"
# A Windows stage whose libraries or builds fail is one failed stage; ./dev test goes on (before,
# a failed mingw-w64 build ended the whole run through die).
printf '#!/bin/sh\necho "mingw: error"\nexit 1\n' >"$tmp/web/top/.ci/win-build"
chmod +x "$tmp/web/top/.ci/win-build"
got=$(results=(); win_unsupported() { :; }; top=$tmp/web/top; win_suites 2>/dev/null; echo "status $?"; tally | tail -1)
check "a failed Windows preparation is one failure, and ./dev test goes on" \
    "$([ "$got" = "$(printf 'status 0\n0 passed, 1 failed, 0 skipped')" ]; echo $?)" "got: $(tr '\n' '|' <<<"$got")"
# cmd_test's body, which the checks below read.
body=$(sed -n '/^cmd_test() {/,/^}/p' "$repo/dev")
order=$(grep -oE '^ *(script_suite game|web_suite)' <<<"$body" | sed 's/^ *//' | paste -sd',')
check "cmd_test runs web_suite after the game stage" "$([ "$order" = "script_suite game,web_suite" ]; echo $?)" \
    "cmd_test's calls in order: '$order' (want script_suite game, then web_suite)"

# ./dev help: the header's commands, through the "Others:" line (a fixed line range lost it when
# the header grew a line).
out=$("$repo/dev" help 2>&1)
check "./dev help ends with the other commands" "$([[ $(tail -1 <<<"$out") == "Others: ./dev build"* ]]; echo $?)" \
    "last line: $(tail -1 <<<"$out")"

# --- ./dev test --skip STAGE (CI's Debian 13 rows leave stages to the others, .ci/run) -----------
out=$("$repo/dev" test --skip consumer 2>&1) && rc=0 || rc=$?
check "a --skip name that is no stage fails before anything runs" \
    "$([ $rc != 0 ] && grep -q "no stage 'consumer'" <<<"$out"; echo $?)" "exit $rc: $out"
# The list --skip checks against is cmd_test's stages, no more and no fewer.
stages=$(grep -oE '(run_suites|script_suite) [a-z0-9-]+' <<<"$body" |
    awk '{ print $2 }' | grep -v '^fuzz$' | sort | paste -sd' ')
listed=$(sed -n 's/^skippable_stages="\(.*\)"$/\1/p' "$repo/dev" | tr ' ' '\n' | sort | paste -sd' ')
check "--skip knows every stage of cmd_test but fuzz (which --linux leaves out)" "$([ "$stages" = "$listed" ]; echo $?)" \
    "cmd_test: '$stages' | skippable_stages: '$listed'"
# ./dev release (before ./dev test in CI's bookworm row) builds build/ with the options ./dev test
# gives it: other options would have ./dev test configure it again and compile it all twice.
rel=$(grep -E '^ *build build( |$)' "$repo/.ci/release" | sed 's/^ *//')
tst=$(grep -E '^ *build build( |$)' <<<"$body" | sed 's/^ *//')
check "./dev release builds build/ as ./dev test does" "$([ -n "$rel" ] && [ "$rel" = "$tst" ]; echo $?)" \
    ".ci/release: '$rel' | cmd_test: '$tst'"
# A stage with a build of its own (run_suites NAME build-X): that build is made only when the stage is
# not skipped (is_skipped NAME on the line that builds it).
bad=$(grep -oE 'run_suites [a-z0-9-]+ build-[a-z0-9]+' <<<"$body" | while read -r _ stage dir; do
    # the guard and the build on one line, or the guard ending a line and the build on the next
    grep -A1 "is_skipped $stage ||" <<<"$body" | tr '\n' ' ' | grep -q "is_skipped $stage ||.* build $dir " ||
        echo "$stage ($dir)"
done | paste -sd' ')
check "a skipped stage's own build is not made" "$([ -z "$bad" ]; echo $?)" "unguarded: $bad"
eval "$(sed -n '/^is_skipped() {/,/^}/p; /^skipped_stage() {/,/^}/p' "$repo/.ci/stages.sh"; sed -n '/^script_suite() {/,/^}/p' "$repo/dev")"
mkdir -p "$tmp/web/top/build"
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$tmp/meson-calls" >"$tmp/web/bin/meson"
chmod +x "$tmp/web/bin/meson"
got=$(results=(); skip_stages=(consumers); top=$tmp/web/top test_timeout_scale=1; PATH=$tmp/web/bin:$PATH
    script_suite consumers "x" 2>/dev/null; script_suite samples "y" 2>/dev/null
    echo "${#results[@]} $(cat "$tmp/meson-calls")")
check "a skipped stage runs nothing and adds no results line; the next one runs" \
    "$([[ $got == "1 test "*"samples.sh" ]]; echo $?)" "got: $got"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
