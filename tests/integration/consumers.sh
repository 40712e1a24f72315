#!/usr/bin/env bash
# Tempo used by another project exactly as the README's "Using Tempo in another project" and
# docs/building.md say, each check printed as judged:
#   - meson (tests/consumers/consumer): a fresh project with subprojects/tempo.wrap and subprojects/tempo ->
#     this checkout, built as is (links libtempo.so) and with -Dtempo:default_library=static; its
#     tests pass (the README's "A first game", copied out of README.md as a reader would, among
#     them); neither build configures Tempo's tests or samples; only the shared one needs
#     libtempo.so;
#   - docs/using-as-subproject.md's optimization claims on meson as installed: a debug consumer
#     gets an -O0 Tempo; -Dtempo:buildtype=release and -Dtempo:optimization=2 change nothing before
#     meson 1.8 (it ignores them) and reach Tempo alone from 1.8 on (-O3, -O2);
#     -Dtempo:optimize=2 puts -O2 last on Tempo's compile commands and on none of the game's;
#   - the floating-point flags of deterministic game code (issue 38) on the game's own compile
#     commands, in the compiler's default mode too (gnu17), and not with
#     -Dtempo:deterministic_consumers=false;
#   - CMake (tests/consumers/cmake-consumer): Tempo installed into a prefix, then find_package(tempo): it
#     builds, gets the same flags, and its tests pass.
# Each build's target count and seconds are printed. Work in BUILD_ROOT/consumer-*.
#   tests/integration/consumers.sh SOURCE_ROOT BUILD_ROOT
. "$(dirname "$0")/common.sh"

# secs_since T0_NS: seconds since a `date +%s%N` reading, one decimal.
secs_since() {
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

# consumer_src DIR: a fresh DIR/src laid out as docs/building.md tells a game to: its meson.build
# and main.c (tests/consumers/consumer), the README's "A first game" as a reader copies it (the first C block
# after that heading: hello.c), subprojects/tempo.wrap, and subprojects/tempo -> this checkout.
consumer_src() {
  rm -rf "$1" && mkdir -p "$1/src/subprojects"
  cp tests/consumers/consumer/meson.build tests/consumers/consumer/main.c "$1/src/"
  awk '/^## A first game/ { s = 1 } s == 1 && /^```c$/ { s = 2; next } s == 2 && /^```$/ { exit } s == 2' \
    README.md >"$1/src/hello.c"
  cp tests/consumers/consumer/tempo.wrap "$1/src/subprojects/"
  ln -s "$top" "$1/src/subprojects/tempo"
}

# tests_pass NAME BUILD_DIR: the consumer's own meson tests, one check.
tests_pass() {
  local rc=0 sum
  meson test -C "$2" --no-rebuild --print-errorlogs >"$2.test.log" 2>&1 || rc=$?
  sum=$(grep -E '^(Ok|Fail|Timeout):' "$2.test.log" | tr -s ' \n' ' ')
  ok "$1: its tests pass ($sum)" $rc "meson test exit $rc: $2.test.log"
}

# ---- meson, as a subproject, shared and static
dir=$build/consumer
consumer_src "$dir"
for kind in default static; do
  b=$dir/b-$kind opts=()
  [ "$kind" = static ] && opts=(-Dtempo:default_library=static)
  t0=$(date +%s%N)
  if ! (cd "$dir/src" && meson setup "$b" "${opts[@]}" >"$b.setup.log" 2>&1 && ninja -C "$b" >"$b.build.log" 2>&1); then
    ok "$kind: builds" 1 "$b.setup.log, $b.build.log"
    continue
  fi
  n=$(grep -o '^\[[0-9]*/[0-9]*\]' "$b.build.log" | tail -1 | tr -d '[]' | cut -d/ -f2)
  ok "$kind: builds ($n targets, $(secs_since "$t0") s setup + build)" 0
  tests_pass "$kind" "$b"
  rc=0; [ -e "$b/subprojects/tempo/tests" ] || [ -e "$b/subprojects/tempo/samples" ] && rc=1
  ok "$kind: no Tempo test or sample configured in the subproject" $rc "they were"
  needs=no
  readelf -d "$b/mygame" | grep -q 'NEEDED.*libtempo' && needs=yes
  rc=1; { [ "$kind" = default ] && [ $needs = yes ]; } || { [ "$kind" = static ] && [ $needs = no ]; } && rc=0
  ok "$kind: needs libtempo.so: $needs" $rc "NEEDED libtempo = $needs"
done

# ---- optimization levels (setup only: compile_commands.json)
dir=$build/consumer-opt
consumer_src "$dir"
# last_opt BUILD_DIR WHICH: the last -O flag of the first compile command of Tempo's framework
# (WHICH=tempo) or of the game's main.c (game).
last_opt() {
  python3 - "$1/compile_commands.json" "$2" <<'PY'
import json, re, sys
cc = json.load(open(sys.argv[1]))
pick = [c for c in cc if ("subprojects/tempo/framework/" in c["file"]) == (sys.argv[2] == "tempo")
        and (sys.argv[2] == "tempo" or c["file"].endswith("main.c"))]
flags = re.findall(r"(?<= )-O\S*", " " + pick[0]["command"]) if pick else []
print(flags[-1] if flags else "none")
PY
}
# Meson 1.8.0 made every built-in option settable per subproject ("Per project subproject options
# rewrite" in its release notes): from then on -Dtempo:buildtype=release and -Dtempo:optimization=2
# reach Tempo alone. Before, meson accepts and ignores them (1.0.1 and 1.7 measured).
per_sub=no
mv=$(meson --version)
python3 -c 'import sys; v = [int(x) for x in sys.argv[1].split(".")[:2]]; sys.exit(v < [1, 8])' "$mv" && per_sub=yes
echo "meson $mv: built-in options per subproject: $per_sub"
for kind in debug buildtype optimization optimize; do
  opts=(--buildtype=debug)
  [ $kind = buildtype ] && opts+=(-Dtempo:buildtype=release)
  [ $kind = optimization ] && opts+=(-Dtempo:optimization=2)
  [ $kind = optimize ] && opts+=(-Dtempo:optimize=2)
  if ! (cd "$dir/src" && meson setup "$dir/b-$kind" "${opts[@]}" >"$dir/b-$kind.log" 2>&1); then
    ok "optimize $kind" 1 "meson setup failed ($dir/b-$kind.log)"; continue
  fi
  want_tempo=-O0 want_game=-O0
  [ $kind = optimize ] && want_tempo=-O2
  [ $per_sub = yes ] && [ $kind = buildtype ] && want_tempo=-O3
  [ $per_sub = yes ] && [ $kind = optimization ] && want_tempo=-O2
  got_t=$(last_opt "$dir/b-$kind" tempo) got_g=$(last_opt "$dir/b-$kind" game)
  rc=1; [ "$got_t" = "$want_tempo" ] && [ "$got_g" = "$want_game" ] && rc=0
  ok "optimize $kind: tempo $got_t, game $got_g" $rc "want tempo $want_tempo, game $want_game"
done

# ---- the deterministic floating-point flags (setup only)
dir=$build/consumer-fp
consumer_src "$dir"
for kind in default gnu17 optout; do
  opts=() want=on
  [ $kind = gnu17 ] && opts=(-Dc_std=gnu17)
  [ $kind = optout ] && { opts=(-Dc_std=gnu17 -Dtempo:deterministic_consumers=false); want=off; }
  if ! (cd "$dir/src" && meson setup "$dir/b-$kind" "${opts[@]}" >"$dir/b-$kind.log" 2>&1); then
    ok "fp flags $kind" 1 "meson setup failed ($dir/b-$kind.log)"; continue
  fi
  rc=0; out=$(python3 tests/consumers/consumer/check_fp_flags.py "$dir/b-$kind/compile_commands.json" $want mygame 2>&1) || rc=1
  ok "fp flags $kind: $want" $rc "$out"
done

# ---- CMake: Tempo installed into a prefix, found with find_package(tempo)
dir=$build/consumer-cmake
rm -rf "$dir" && mkdir -p "$dir"
if ! { meson setup "$dir/tempo" -Dtests=disabled -Dsamples=disabled --prefix="$dir/prefix" &&
       ninja -C "$dir/tempo" && meson install -C "$dir/tempo"; } >"$dir/install.log" 2>&1; then
  ok "cmake: meson install" 1 "$dir/install.log"
  finish consumers
fi
t0=$(date +%s%N)
if ! { cmake -S tests/consumers/cmake-consumer -B "$dir/b" -DCMAKE_PREFIX_PATH="$dir/prefix" &&
       cmake --build "$dir/b"; } >"$dir/build.log" 2>&1; then
  ok "cmake: find_package(tempo), build" 1 "$dir/build.log"
  finish consumers
fi
ok "cmake: find_package(tempo), build ($(grep -c 'Built target' "$dir/build.log") targets, $(secs_since "$t0") s)" 0
rc=0; out=$(python3 tests/consumers/consumer/check_fp_flags.py "$dir/b/compile_commands.json" on mygame 2>&1) || rc=1
ok "cmake: fp flags on" $rc "$out"
out=$("$dir/b/mygame" 2>&1) || true
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
rc=1; [[ $line =~ ^[1-9][0-9]*\ passed,\ 0\ failed ]] && rc=0
ok "cmake: its tests pass (${line:-no summary})" $rc "$out"
finish consumers
