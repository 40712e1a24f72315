#!/usr/bin/env bash
# The game suite: samples/duel (issue 19), a two-player lockstep pong that
# uses every capability at once, headless (offscreen video, dummy audio,
# --bot) from BUILD_ROOT/game-suite, with its relay (duel_server) on 127.0.0.1 at
# an ephemeral port. Checks: the two clients exit 0 and print the same
# checkpoint hashes; the screenshot is not blank; client A's recording
# replays (--replay, no server) to "matches" with the same checkpoints; a
# client whose relay stops reading its socket for 2 s (--stall-peer 2) keeps
# ticking: no update() takes 500 ms, a quarter of the stall (this one needs tempo_net_send
# never to block) and the match still agrees; nothing is written into the source
# tree. With build-win32/samples/duel.exe built (./dev test's Windows stage builds it), the
# match again with client B on the win32 backend under wine (Xvfb, a real
# window: keyboard and controllers through DirectInput) against the Linux
# relay and a Linux client A.
#   tests/integration/game.sh SOURCE_ROOT BUILD_ROOT
. "$(dirname "$0")/common.sh"
dir=$build/game-suite
rm -rf "$dir" && mkdir -p "$dir"
# game_points FILE: the checkpoint and final lines a client printed.
game_points() { tr -d '\r' <"$1" 2>/dev/null | grep -E '^(checkpoint|final) ' || true; }
# game_match TAG TICKS B [client A options...]: the relay, client A and
# client B ("linux", or "wine": build-win32's duel.exe in a real window
# under Xvfb); with GAME_WATCH=1 also a spectator, client C, headless
# (duel_server --spectators 1). Outputs in $dir/TAG.{server,a,b,c}.out.
# Status 0 when every client exits 0.
game_match() {
  local tag=$1 ticks=$2 b=$3 port= spid apid cpid= rca=0 rcb=0 rcc=0
  shift 3
  "$bin/duel_server" ${GAME_WATCH:+--spectators 1} >"$dir/$tag.server.out" 2>&1 &
  spid=$!
  port=$(server_port "$dir/$tag.server.out")
  # Against wine, A waits for wine to start and join: under load longer than A's own give-up (the
  # match's length + 30 s), so A gets one as long as its timeout.
  local wait_b=()
  [ "$b" != wine ] || wait_b=(--seconds 110)
  (cd "$dir" && SDL_AUDIODRIVER=dummy timeout 120 "$bin/duel" --headless --bot --port "${port:-1}" \
    --ticks "$ticks" "${wait_b[@]}" "$@") >"$dir/$tag.a.out" 2>&1 &
  apid=$!
  if [ -n "${GAME_WATCH:-}" ]; then
    # The relay numbers its clients in the order they connect: C connects once both players have.
    (for _ in $(seq 200); do grep -q '^duel_server: player 1 joined' "$dir/$tag.server.out" && break; sleep 0.1; done
     cd "$dir" && SDL_AUDIODRIVER=dummy timeout 120 sh -c 'echo $$ >"$0"; exec "$@"' "$dir/$tag.c.pid" \
       "$bin/duel" --headless --port "${port:-1}" --ticks "$ticks") >"$dir/$tag.c.out" 2>&1 &
    cpid=$!
    # GAME_WATCH_STOP=S: the spectator is stopped (SIGSTOP) for S seconds from a second after the
    # relay took it in (the match runs), as a preempted or suspended process is, while the players
    # go on without it. (Its stdout, a file, is written at its exit: the relay's says when.)
    if [ -n "${GAME_WATCH_STOP:-}" ]; then
      (for _ in $(seq 300); do grep -q '^duel_server: spectator 2 joined' "$dir/$tag.server.out" && break; sleep 0.1; done
       sleep 1
       kill -STOP "$(cat "$dir/$tag.c.pid")" && echo "spectator stopped" >"$dir/$tag.c.stopped" && sleep "$GAME_WATCH_STOP"
       kill -CONT "$(cat "$dir/$tag.c.pid")") 2>/dev/null &
    fi
  fi
  if [ "$b" = wine ]; then
    (cd "$dir" && SDL_AUDIODRIVER=dummy timeout 180 xvfb-run -a -s '-screen 0 1280x720x24 -nolisten tcp' \
      sh -c '"$1" warm >/dev/null && exec "$2" "$3" --bot --port "$4" --ticks "$5" --seconds 60' _ \
      "$top/.ci/win-env" "$HOME/.cache/tempo/win64/wine-run" "$top/build-win32/samples/duel.exe" \
      "${port:-1}" "$ticks") >"$dir/$tag.b.out" 2>&1 || rcb=$?
  else
    (cd "$dir" && SDL_AUDIODRIVER=dummy timeout 120 "$bin/duel" --headless --bot --port "${port:-1}" \
      --ticks "$ticks") >"$dir/$tag.b.out" 2>&1 || rcb=$?
  fi
  wait "$apid" || rca=$?
  [ -z "$cpid" ] || wait "$cpid" || rcc=$?
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  if [ "$rca" != 0 ] || [ "$rcb" != 0 ] || [ "$rcc" != 0 ]; then
    echo "exit A $rca, B $rcb${cpid:+, C $rcc} (see $dir/$tag.*.out)"
    return 1
  fi
}
# game_hidden: client A in a real window on its own Xvfb, unmapped (hidden)
# before client B (headless) connects, so A plays the whole match hidden;
# outputs in $dir/h.{server,a,b}.out. Status 0 when the window was hidden
# while A ran and both clients exit 0.
# The window is looked for once the relay has seen A join: A joins after its
# window and renderer are made, and SDL3 (sdl2-compat) may replace the first
# window while it makes the renderer (a window framebuffer through a GL
# texture needs a GL window), so a window found earlier may be gone (BadWindow)
# or a shown one may come after it. After the unmap no window may be shown.
game_hidden() {
  local port='' spid rc=0
  "$bin/duel_server" >"$dir/h.server.out" 2>&1 &
  spid=$!
  port=$(server_port "$dir/h.server.out")
  (cd "$dir" && SDL_AUDIODRIVER=dummy SDL_RENDER_DRIVER=software timeout 120 \
    xvfb-run -a -s '-screen 0 1280x720x24 -nolisten tcp' bash -c '
      "$1" --bot --port "$2" --ticks 300 --seconds 30 >h.a.out 2>&1 &
      a=$! w= ra=0 rb=0
      for _ in $(seq 300); do
        grep -q "^duel_server: player 0 joined" h.server.out && break
        sleep 0.1
      done
      w=$(xdotool search --onlyvisible --name "^Tempo duel$" 2>/dev/null | head -1)
      if [ -z "$w" ] || ! xdotool windowunmap --sync "$w" || ! kill -0 "$a" 2>/dev/null; then
        echo "client A window [$w] not hidden while it ran (A joined: $(grep -c "player 0 joined" h.server.out))"
        kill "$a" 2>/dev/null; exit 1
      fi
      shown=$(xdotool search --onlyvisible --name "^Tempo duel$" 2>/dev/null | tr "\n" " ")
      if [ -n "$shown" ]; then
        echo "client A window [$w] unmapped, but [$shown] still shown"; kill "$a" 2>/dev/null; exit 1
      fi
      "$1" --headless --bot --port "$2" --ticks 300 --seconds 30 >h.b.out 2>&1 || rb=$?
      wait "$a" || ra=$?
      [ "$ra" = 0 ] && [ "$rb" = 0 ] || { echo "exit A $ra, B $rb"; exit 1; }' _ "$bin/duel" "${port:-1}") || rc=1
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  grep -q '^final ' "$dir/h.a.out" 2>/dev/null || { echo "client A did not finish its match hidden (see $dir/h.*.out)"; rc=1; }
  return $rc
}
# game_same TAG X Y: client X's and Y's checkpoints agree and are not empty.
game_same() {
  local x y
  x=$(game_points "$dir/$1.$2.out")
  y=$(game_points "$dir/$1.$3.out")
  if [ -z "$x" ] || [ "$x" != "$y" ]; then
    echo "checkpoints differ: $2 [$(echo "$x" | tr '\n' ' ')] vs $3 [$(echo "$y" | tr '\n' ' ')]"
    return 1
  fi
}

rc=0; out=$(game_match m 300 linux --record "$dir/m.trec" --screenshot "$dir/duel.png") || rc=$?
ok "match" $rc "$out"
rc=0; out=$(game_same m a b) || rc=$?
ok "match checkpoints" $rc "$out"
rc=0; out=$(python3 samples/common/pngtool.py check "$dir/duel.png" 2>&1) || rc=$?
ok "screenshot" $rc "$out"
rc=0
(cd "$dir" && SDL_AUDIODRIVER=dummy timeout 120 "$bin/duel" --replay "$dir/m.trec") >"$dir/m.r.out" 2>&1 || rc=$?
grep -q '^replay: .*, matches$' "$dir/m.r.out" || rc=1
ok "replay" $rc "exit $rc: $(grep '^replay' "$dir/m.r.out" | tr '\n' ' ')"
rc=0; out=$(game_same m a r) || rc=$?
ok "replay checkpoints" $rc "$out"
# The bot pauses the match at ticks 200-260: each client's music pauses
# with tempo_audio_pause, so the mixer raises no beat mark between the
# pause and the resume (with Mix_PauseMusic 2 came in that second).
rc=0; out=
for x in a b; do
  line=$(grep '^music: ' "$dir/m.$x.out" || true)
  if ! [[ $line =~ ^music:\ ([0-9]+)\ beat\ marks,\ 0\ raised\ while\ paused\;\ paused\ ([0-9]+)\ ms ]] ||
     [ "${BASH_REMATCH[1]}" -eq 0 ] || [ "${BASH_REMATCH[2]}" -eq 0 ]; then
    rc=1; out+="client $x: [${line:-no music line}] "
  fi
done
ok "music pause" $rc "${out}(want marks, 0 raised while paused, a pause)"
# A spectator (a third client the relay numbers 2) simulates the same match from both players'
# inputs: its checkpoints are theirs.
rc=0; out=$(GAME_WATCH=1 game_match v 180 linux) || rc=$?
grep -q '^duel: spectator 2, seed ' "$dir/v.c.out" || { rc=1; out+="; client C was not the spectator"; }
ok "spectator match" $rc "$out"
rc=0; out=$(game_same v a c && game_same v b c) || rc=$?
ok "spectator checkpoints" $rc "$out"
# A spectator stopped for 6 s (360 ticks, more than its first input ring of 256) is then handed
# the inputs it missed at once: it must still simulate the players' match (it overwrote inputs it
# had not simulated yet and desynced, as a wine spectator under load did: 0:2 against 0:0).
rc=0; out=$(GAME_WATCH=1 GAME_WATCH_STOP=6 game_match vs 600 linux) || rc=$?
[ -f "$dir/vs.c.stopped" ] || { rc=1; out+="; the spectator was never stopped"; }
ok "stopped spectator match" $rc "$out"
rc=0; out=$(game_same vs a c && game_same vs b c) || rc=$?
ok "stopped spectator checkpoints" $rc "$out"
# Same build on both sides: no fingerprint warning in the handshake.
rc=0; out=$(grep -h 'computes floats differently' "$dir/m.a.out" "$dir/m.b.out") && rc=1
ok "same fingerprint" $rc "a warning between two identical builds: $out"
# Client A announces another fingerprint: both clients refuse the match before its first tick,
# each with one line naming both builds (issue 38: a match between builds that compute floats
# differently would desync), and neither plays.
rc=0; out=$(game_match f 60 linux --fingerprint 01000003) && { rc=1; out="the match was not refused"; }
for x in a b; do
  [ "$(grep -c "^duel: refused: the other player's build computes floats differently: built differently (theirs: fingerprint 0100000[03].*; ours: fingerprint 0100000[03].*): the floating-point fingerprints differ" "$dir/f.$x.out")" = 1 ] ||
    { rc=1; out+=" client $x did not print the refusal once"; }
  grep -q '^final ' "$dir/f.$x.out" && { rc=1; out+=" client $x played"; }
done
ok "fingerprint refused" $rc "$out"

# desc.run_while_hidden: a hidden client keeps ticking and sending its
# inputs (with the loop's default idle pause, A's loop paused before tick
# 1 and B waited until it gave up: this check failed).
rc=0; out=$(game_hidden) || rc=$?
ok "hidden window" $rc "$out"
rc=0; out=$(game_same h a b) || rc=$?
ok "hidden checkpoints" $rc "$out"

rc=0; out=$(game_match s 300 linux --stall-peer 2) || rc=$?
ok "stall match" $rc "$out"
rc=0; out=$(game_same s a b) || rc=$?
ok "stall checkpoints" $rc "$out"
# The verdict is the game's own longest update() while the relay did not
# read: a send that blocks waits for the relay, i.e. most of the 2 s stall
# (seen: ~1 s), whatever the load; an update that is merely preempted on a
# busy machine took 21.9 ms once (load 8-12), more than a tick, so the bound
# is a quarter of the stall, 500 ms, not one tick. The loop's tick lateness
# over the same seconds is printed beside it, not judged: on this loaded VM
# it reached 61 ms with no send at all.
upd=$(sed -n 's/.*stall longest update \([0-9]*\) us, tick lateness max \([0-9]*\) us (one tick \([0-9]*\) us).*/\1 \2 \3/p' "$dir/s.a.out")
read -r upd late tick <<<"${upd:-x x x}"
echo "     duel --stall-peer 2: longest update ${upd} us, tick lateness max ${late} us, one tick ${tick} us ($(grep -o 'longest send [0-9.]* ms' "$dir/s.a.out" || true))"
rc=1
if [ "$upd" != x ] && [ "$upd" -lt 500000 ]; then rc=0; fi
ok "stall update" $rc "longest update ${upd} us while the relay did not read for 2 s, over 500 ms (needs a tempo_net_send that never blocks)"

if [ -x "$top/build-win32/samples/duel.exe" ]; then
  rc=0; out=$(game_match w 240 wine) || rc=$?
  grep -q 'input DirectInput' "$dir/w.b.out" || { rc=1; out="$out; client B did not read input through DirectInput"; }
  ok "wine match" $rc "$out"
  rc=0; out=$(game_same w a b) || rc=$?
  ok "wine checkpoints" $rc "$out"
fi

finish game
