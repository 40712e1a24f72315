# shellcheck shell=bash
# What ./dev and the stage scripts (.ci/release, .ci/web-site, .ci/win-build,
# tests/integration/wine.sh) share to build, run a stage and count it (sourced, not run). Every stage
# adds results lines, "LABEL: N passed, N failed, N skipped [what failed]", to the array results;
# tally sums them. A stage script that ./dev runs prints its lines, and ./dev takes each by its
# label from the script's log (results_from).

# Every stage says when it starts (seconds since the script started): a first run installs packages
# and builds the Windows libraries for minutes, and must never look hung.
log() { printf '\033[1m== [%4ss] %s\033[0m\n' "$SECONDS" "$*" >&2; }
die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }

results=()
test_timeout_scale=${test_timeout_scale:-1}

# configure DIR [meson options...]: sets DIR up, or gives an existing one the options this command
# needs (e.g. werror) when it does not have them yet: meson configure, even with the values a build
# has, makes its next ninja run meson again. cross_file=FILE: the meson cross file, given at setup
# only (meson configure refuses one).
configure() {
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" ${cross_file:+--cross-file "$cross_file"} "$@" >"$dir.setup.log" 2>&1 ||
      { cat "$dir.setup.log"; die "meson setup $dir failed"; }
  elif [ $# -gt 0 ] && ! has_options "$dir" "$@"; then
    meson configure "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; die "meson configure $dir failed"; }
  fi
}

# has_options DIR -Dname=value...: whether DIR's build options have these values already (anything
# but -Dname=value, or a name it does not know, is "no").
has_options() {
  local dir=$1; shift
  meson introspect "$dir" --buildoptions 2>/dev/null | python3 -c 'import json, sys
have = {o["name"]: o["value"] for o in json.load(sys.stdin)}
text = lambda v: str(v).lower() if isinstance(v, bool) else ",".join(v) if isinstance(v, list) else str(v)
for arg in sys.argv[1:]:
    name, eq, value = arg[2:].partition("=")
    if not arg.startswith("-D") or not eq or name not in have or text(have[name]) != value:
        sys.exit(1)' "$@"
}

# build DIR [meson options...]: configure, then ninja (build_targets=X: only target(s) X), its
# output in DIR.build.log, the end of it shown when it fails.
build() {
  local dir=$1; shift
  configure "$dir" "$@"
  # shellcheck disable=SC2086
  ninja -C "$dir" $build_targets >"$dir.build.log" 2>&1 || { tail -50 "$dir.build.log"; die "build of $dir failed"; }
}
build_targets=''

# Runs a command on a private Xvfb server (a real X11 display, no GPU); with XVFB_LOG set, the
# server's own output goes to that file (xvfb-run sends it to /dev/null otherwise).
with_xvfb() {
  xvfb-run -a ${XVFB_LOG:+-e "$XVFB_LOG"} -s '-screen 0 1280x720x24 -nolisten tcp' "$@"
}

# is_skipped NAME: NAME is in skip_stages (./dev test --skip). skipped_stage NAME: the same, and
# said. A skipped stage adds no results line: its tests are not counted, as with ./dev test --linux.
skip_stages=()
is_skipped() {
  case " ${skip_stages[*]} " in *" $1 "*) return 0 ;; esac
  return 1
}
skipped_stage() {
  is_skipped "$1" || return 1
  log "test: $1 not run (--skip $1)"
}

# run_suites LABEL BUILD_DIR [VAR=value ...] -- [meson test args...]
# Runs meson test (inside Xvfb when XVFB=1) into BUILD_DIR/test-LABEL.log and
# adds meson's own count of this run to the totals (see meson_tally).
run_suites() {
  local label=$1 dir=$2; shift 2
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  ! skipped_stage "$label" || return 0
  local wrap=()
  [ "${XVFB:-0}" = 1 ] && wrap=(with_xvfb)
  log "test: $label${wrap:+ (Xvfb)}"
  local rc=0
  # meson's timeouts only catch hangs: scaled under load (test_timeout_scale),
  # a later --timeout-multiplier in "$@" (wine) overrides this one.
  # Each stage its own full log (meson-logs/testlog-LABEL.txt): the same build's next stage would
  # overwrite testlog.txt, and a failed fresh root keeps these.
  # The X server's own log beside the stage's (a failed fresh root keeps both): a test once found
  # no display while the tests beside it had one, and nothing said why (tests/support/video_x11.h).
  XVFB_LOG="$dir/xvfb-$label.log" "${wrap[@]}" env "${envs[@]}" meson test -C "$dir" --no-rebuild --print-errorlogs \
    --logbase "testlog-$label" --timeout-multiplier "$test_timeout_scale" "$@" \
    >"$dir/test-$label.log" 2>&1 || rc=$?
  local line
  line=$(meson_tally "$label" <"$dir/test-$label.log")
  echo "   $line" >&2
  results+=("$line")
  if [ $rc -ne 0 ]; then
    grep -E '^(FAIL|    )|ERROR|Sanitizer|Summary' "$dir/test-$label.log" | head -40 >&2 || true
  fi
}

# meson_tally LABEL < MESON_TEST_OUTPUT: "LABEL: N passed, N failed, N skipped [...]" from the
# summary meson test prints last (Ok:, Expected Fail:, Fail:, Unexpected Pass:, Skipped:,
# Timeout:): passed = Ok + Expected Fail, failed = Fail + Unexpected Pass + Timeout, skipped =
# Skipped; one count per test program, as meson counts. The tests that did not pass are named in
# brackets (from meson's per-test lines, "RESULT: suite / name"), with the first case the test
# harness failed (its recap "FAILED case (check)" at the end of the error logs meson printed, or
# else its "FAIL case" line) and that case's first check, cut to 100 characters: a CI run that
# names only "FAIL: conformance" of a stage inside a root that is gone leaves nothing to go on.
# Output without that summary (meson test did not run, or was killed) is one failure.
# tests/lint/test_scripts.sh feeds it saved outputs (tests/data/meson-test-*.log).
meson_tally() {
  awk -v label="$1" '
    { sub(/\r$/, "") } # a Windows program under wine writes CRLF
    # The test harness (tests/support/harness.c): "--- case", its checks "    file:line: what",
    # then "ok   case", "skip case" or "FAIL case". A case that never ended is where the program
    # crashed or hung (meson: "killed by signal", TIMEOUT): named when no case failed by a check.
    function with_check(name, check) { return check == "" ? name : name " (" substr(check, 1, 100) ")" }
    function unfinished() {
      if (open_case != "" && nopen++ == 0) ofirst = open_case " (did not finish: the program ended inside it)"
      open_case = ""
    }
    /^>>> / { unfinished(); next } # the log of the next failed test begins
    /^--- [A-Za-z0-9_]+$/ { check = ""; open_case = substr($0, 5); next }
    /^(ok   |skip )[A-Za-z0-9_]+$/ { open_case = ""; next }
    /^    [^ ].*:[0-9]+: / { if (check == "") { check = $0; sub(/^ +/, "", check) } next }
    /^FAIL [A-Za-z0-9_]+$/ {
      open_case = ""
      if (ncase++ == 0) first = with_check(substr($0, 6), check)
      next
    }
    # Its recap at the end, "FAILED case (check)": all of a long output meson shows is its last 100
    # lines, so the case lines above may be cut off. When there is a recap, it is what counts.
    /^FAILED and [0-9]+ more$/ { nrecap += $3; next }
    /^FAILED [A-Za-z0-9_]+ \(/ {
      if (nrecap++ == 0) {
        rest = substr($0, 8); sub(/\)$/, "", rest); at = index(rest, " (")
        rfirst = with_check(substr(rest, 1, at - 1), substr(rest, at + 2))
      }
      next
    }
    # The summary: meson prints it once, after every test (and their error logs); the last wins.
    /^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): *[0-9]+ *$/ {
      key = $0; sub(/:.*/, "", key); n[key] = $NF; seen++; next
    }
    # A test line: " 3/12 project:suite / name    RESULT    1.23s ...". Failures are listed
    # again under "Summary of Failures": each name once.
    /^ *[0-9]+\/[0-9]+ / && match($0, / (FAIL|TIMEOUT|UNEXPECTEDPASS|ERROR|INTERRUPT) /) {
      res = substr($0, RSTART + 1, RLENGTH - 2); name = substr($0, 1, RSTART - 1)
      sub(/^ *[0-9]+\/[0-9]+ +/, "", name); sub(/ +$/, "", name)
      if (!((res ": " name) in named)) { named[res ": " name] = 1; bad = bad (bad == "" ? "" : "; ") res ": " name }
    }
    END {
      if (!seen) { printf "%s: 0 passed, 1 failed, 0 skipped [meson test printed no summary]\n", label; exit }
      p = n["Ok"] + n["Expected Fail"]; f = n["Fail"] + n["Unexpected Pass"] + n["Timeout"]
      unfinished()
      if (nrecap) { first = rfirst; ncase = nrecap }
      if (!ncase && nopen) { first = ofirst; ncase = nopen }
      if (ncase) bad = bad "; first failed case: " first (ncase > 1 ? ", " ncase - 1 " more" : "")
      printf "%s: %d passed, %d failed, %d skipped%s\n", label, p, f, n["Skipped"], bad == "" ? "" : " [" bad "]"
    }'
}

# result LINE: adds a results line and shows it.
result() {
  results+=("$1")
  echo "   $1" >&2
}

# tally [LABEL]: each results line, indented, then their sum "[LABEL: ]N passed, N failed, N
# skipped" (the README's test total when LABEL is empty); status 1 when any failed.
tally() {
  local tp=0 tf=0 ts=0 line
  for line in "${results[@]}"; do
    echo "  $line"
    [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]] || continue
    tp=$((tp + BASH_REMATCH[1])); tf=$((tf + BASH_REMATCH[2])); ts=$((ts + BASH_REMATCH[3]))
  done
  echo "${1:+$1: }$tp passed, $tf failed, $ts skipped"
  [ "$tf" -eq 0 ]
}

# ci_script_line NAME LOG: the results line of a .ci script's run (its last "N passed, N failed"
# in LOG), its failures to the screen; a run without that line is one failure.
ci_script_line() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$2" 2>/dev/null | tail -1 || true)
  if [ -z "$line" ]; then
    line="0 passed, 1 failed [no summary: $2]"
  elif ! [[ $line =~ \ 0\ failed$ ]]; then
    grep '^FAIL' "$2" | head -10 >&2 || true
    line+=" [$2]"
  fi
  results+=("$1: ${line/ failed/ failed, 0 skipped}")
}
