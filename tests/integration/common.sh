# Sourced by the integration scripts (tests/integration/*.sh): the meson tests of suite
# 'integration' that run whole programs the way a player or a developer does (the samples, the
# duel match), each from the build directory it is given. Each counts its checks and ends with
# one line, "NAME: N passed, N failed, 0 skipped [the failures' reasons]", which ./dev test adds
# to its total; the exit status is 1 when a check failed.
#   SCRIPT SOURCE_ROOT BUILD_ROOT
set -uo pipefail
top=$(cd "${1:?usage: SCRIPT SOURCE_ROOT BUILD_ROOT}" && pwd)
build=$(cd "${2:?usage: SCRIPT SOURCE_ROOT BUILD_ROOT}" && pwd)
bin=$build/samples
cd "$top" || exit 1
p=0 f=0 why=()
export SDL_AUDIODRIVER=${SDL_AUDIODRIVER:-dummy}

# ok NAME STATUS WHY: counts one check (STATUS 0: passed), printed as it is judged.
ok() {
  if [ "$2" = 0 ]; then p=$((p + 1)); echo "ok   $1"; else f=$((f + 1)); why+=("$1: $3"); echo "FAIL $1: $3"; fi
}

# The source tree as git sees it: no integration test may write into it (checked by finish).
tree_state() { git -C "$top" status --porcelain --untracked-files=all 2>/dev/null || true; }
tree_before=$(tree_state)

# finish NAME: the tree check, then the results line; exits.
finish() {
  local rc=0
  [ "$(tree_state)" = "$tree_before" ] || rc=1
  ok "source tree" $rc "the $1 stage wrote into the source tree (git status changed)"
  local IFS=';'
  echo "$1: $p passed, $f failed, 0 skipped${why:+ [${why[*]}]}"
  [ "$f" = 0 ]
  exit
}

# server_port FILE: the port a server started in the background prints ("PORT n") into FILE,
# waiting up to 10 s; empty if none. The server's shell may not have created FILE yet.
server_port() {
  local port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$1" 2>/dev/null)
    [ -n "$port" ] && break
    sleep 0.1
  done
  echo "$port"
}
