#!/usr/bin/env bash
# The libFuzzer targets (clang, libFuzzer + ASan + UBSan; their own build dir, SOURCE_ROOT/build-fuzz,
# from tests/fuzz/meson.build's targets). Two ways to run them:
#   - the fuzz stage (./dev test, a meson test of suite integration): the same verdict for the same
#     commit. Each target starts from the committed corpus (tests/fuzz/corpus/TARGET/: every past finding,
#     kept as a regression input) plus the generated seeds, with a fixed seed and a bounded number
#     of runs (not a time: a busy machine runs slower, not differently). A finding is a failed
#     check naming its reproducer; the other targets still run.
#       tests/integration/fuzz.sh SOURCE_ROOT BUILD_ROOT
#   - ./dev fuzz [SECONDS]: open-ended exploration, a random seed for SECONDS per target, in a
#     corpus that grows across runs (build-fuzz/corpus-TARGET). What it finds is printed with the
#     steps to keep it: copy the reproducer into tests/fuzz/corpus/TARGET/ and write the regression test.
#       tests/integration/fuzz.sh SOURCE_ROOT BUILD_ROOT --explore SECONDS
. "$(dirname "$0")/common.sh"
targets=(net_frame asset_check replay asset_load)
# Runs per target in the stage (a few seconds each here).
declare -A ci_runs=([net_frame]=200000 [asset_check]=40000 [replay]=4000 [asset_load]=400)
fz=$top/build-fuzz
# LeakSanitizer: tests/support/lsan.supp holds the leaks of libraries we do not own (the path
# quoted: the sanitizers split their options at spaces).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=\"$top/tests/support/lsan.supp\":print_suppressions=0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}

# Without clang: skipped (meson's 77), or failed where it must be there (./dev test installs it
# and sets TEMPO_REQUIRE_FUZZ=1).
if ! command -v clang >/dev/null; then
  if [ "${TEMPO_REQUIRE_FUZZ:-0}" = 1 ]; then ok "clang installed" 1 "TEMPO_REQUIRE_FUZZ=1 and no clang"; finish fuzz; fi
  echo "fuzz: 0 passed, 0 failed, 1 skipped [no clang]"
  exit 77
fi

fuzz_build() {
  if [ ! -f "$fz/build.ninja" ]; then
    CC=clang meson setup "$fz" -Dsamples=disabled >"$fz.setup.log" 2>&1 || { tail -30 "$fz.setup.log"; return 1; }
  fi
  ninja -C "$fz" tests/fuzz/fuzz_net_frame tests/fuzz/fuzz_asset_check tests/fuzz/fuzz_asset_load \
    tests/fuzz/fuzz_replay tests/fuzz/make_asset_seeds >"$fz.build.log" 2>&1 || { tail -30 "$fz.build.log"; return 1; }
}

# seed_corpus TARGET DIR: the committed corpus and the generated seeds into DIR.
seed_corpus() {
  local t=$1 dir=$2
  mkdir -p "$dir"
  if compgen -G "tests/fuzz/corpus/$t/*" >/dev/null; then cp tests/fuzz/corpus/"$t"/* "$dir/"; fi
  case $t in
    asset_*) "$fz/tests/fuzz/make_asset_seeds" "$dir" >/dev/null ;;
    # byte 0 = 0: the committed recording as it is (checksums kept), then the file
    replay) { printf '\0'; cat tests/data/replay_game.trec; } >"$dir/seed-replay-game" ;;
  esac
}

# fuzz_one TARGET CORPUS_DIR LOG [libFuzzer options...]: one run; prints the reproducer's path
# (empty when nothing was found). The asset load path runs SDL_image/SDL_mixer: one allocation
# above 256 MiB or TEMPO_FUZZ_TIMEOUT s (20) on one input is a finding (the loader promises
# neither). libFuzzer's timeout is wall-clock time, so the stage gives 300 s: a loaded machine
# (load average 24 here once) took over 20 s for an input that takes a fraction of one
# unloaded; only a hang reaches 300 s.
fuzz_one() {
  local t=$1 corpus=$2 log=$3
  shift 3
  local extra=() asan=$ASAN_OPTIONS
  if [ "$t" = asset_load ]; then
    extra=(-malloc_limit_mb=256 -rss_limit_mb=2048 -timeout="${TEMPO_FUZZ_TIMEOUT:-20}")
    # SDL_image's known leak (tests/support/lsan.supp) is suppressed by its function's name, which the
    # fast unwinder loses: Debian's libSDL2 has no frame pointers, and on Debian 13 the stack of a
    # damaged JPEG's leaked surface ended in libSDL2 (the trixie row's fuzz failure). The slow
    # unwinder reads the DWARF tables; the target runs hundreds of inputs, not millions.
    asan+=${asan:+:}fast_unwind_on_malloc=0
  fi
  rm -f "$fz"/fuzz_"$t"-{crash,leak,timeout,oom,slow-unit}-*
  ASAN_OPTIONS=$asan "$fz/tests/fuzz/fuzz_$t" -print_final_stats=1 -artifact_prefix="$fz/fuzz_$t-" \
    "${extra[@]}" "$@" "$corpus" >"$log" 2>&1 || true
  find "$fz" -maxdepth 1 -name "fuzz_$t-*" | grep -E -- "-(crash|leak|timeout|oom)-" | head -1
  if ! grep -q 'stat::number_of_executed_units' "$log" && ! find "$fz" -maxdepth 1 -name "fuzz_$t-*" | grep -q .; then
    echo "$log" # the run ended without stats and without a reproducer: the log says why
  fi
}

if [ "${3:-}" = --explore ]; then
  secs=${4:-60} any=0
  echo "fuzz: building $fz (clang, libFuzzer + ASan + UBSan)"
  fuzz_build || { echo "fuzz: build failed ($fz.build.log)"; exit 1; }
  for t in "${targets[@]}"; do
    echo "fuzz: $t for $secs s (random seed; corpus $fz/corpus-$t)"
    seed_corpus "$t" "$fz/corpus-$t"
    found=$(fuzz_one "$t" "$fz/corpus-$t" "$fz/fuzz-$t.log" -max_total_time="$secs")
    grep -h 'stat::number_of_executed_units' "$fz/fuzz-$t.log" | sed 's/^/   /' || true
    if [ -n "$found" ]; then
      any=1
      echo "   FOUND: $found (log: $fz/fuzz-$t.log)"
      echo "   reproduce: $fz/tests/fuzz/fuzz_$t $found"
      echo "   keep it: cp $found tests/fuzz/corpus/$t/NAME, then fix it and add a regression test"
    fi
  done
  exit $any
fi

if ! fuzz_build; then
  ok "build-fuzz builds" 1 "$fz.build.log"
  finish fuzz
fi
for t in "${targets[@]}"; do
  rm -rf "$fz/ci-corpus-$t"
  seed_corpus "$t" "$fz/ci-corpus-$t"
  found=$(TEMPO_FUZZ_TIMEOUT=300 fuzz_one "$t" "$fz/ci-corpus-$t" "$fz/ci-$t.log" -seed=1 -runs="${ci_runs[$t]}")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fz/ci-$t.log" | tail -1)
  if [ -n "$found" ]; then
    grep -E -A12 '^(==[0-9]+==ERROR|SUMMARY)' "$fz/ci-$t.log" | head -30 || true
    ok "fuzz_$t" 1 "$(grep -m1 -oE 'ERROR: [A-Za-z]+: [^ ]+( [^ ]+)?' "$fz/ci-$t.log" || echo finding); reproducer $found; reproduce: $fz/tests/fuzz/fuzz_$t $found"
  else
    ok "fuzz_$t: ${execs:-?} inputs" 0
  fi
done
finish fuzz
