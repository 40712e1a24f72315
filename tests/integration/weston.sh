# Sourced: a private Wayland compositor for the wayland stage (tests/integration/wayland.sh) and
# ./dev bench-wayland (tests/bench/bench_wayland.sh) (issue 23, docs/wayland.md): weston's x11 backend
# inside a private Xvfb (pixman, no GPU; its socket wayland-tempo in a private XDG_RUNTIME_DIR),
# and on request a weston headless backend beside it (socket wayland-noseat: no seat). Everything
# started is killed by wayland_stop, which the caller's EXIT/INT/TERM traps run.
wayland_tmp= wayland_display= wayland_pids=()

# wayland_start TMP: Xvfb and weston's x11 backend; sets wayland_display (the Xvfb's :N). Status 1
# when either did not start (their logs in TMP).
wayland_start() {
  local tmp=$1
  wayland_tmp=$tmp
  mkdir -m 700 "$tmp/xdg"
  Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
  wayland_pids+=("$!")
  for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
  wayland_display=:$(cat "$tmp/display")
  [ "$wayland_display" != : ] || return 1
  DISPLAY=$wayland_display XDG_RUNTIME_DIR=$tmp/xdg weston --backend=x11-backend.so --use-pixman \
    --socket=wayland-tempo --width=1024 --height=640 --idle-time=0 >"$tmp/weston.log" 2>&1 &
  wayland_pids+=("$!")
  for _ in $(seq 100); do [ -S "$tmp/xdg/wayland-tempo" ] && break; sleep 0.1; done
  [ -S "$tmp/xdg/wayland-tempo" ]
}

# wayland_start_noseat: the headless weston beside it (after wayland_start). SDL 2.26.5 segfaults
# in video init there; test_wayland checks that tempo_video_prepare refuses it first.
wayland_start_noseat() {
  XDG_RUNTIME_DIR=$wayland_tmp/xdg weston --backend=headless-backend.so --use-pixman \
    --socket=wayland-noseat --idle-time=0 >"$wayland_tmp/weston-headless.log" 2>&1 &
  wayland_pids+=("$!")
  for _ in $(seq 100); do [ -S "$wayland_tmp/xdg/wayland-noseat" ] && break; sleep 0.1; done
  [ -S "$wayland_tmp/xdg/wayland-noseat" ]
}

wayland_stop() {
  local p
  for p in "${wayland_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${wayland_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  wayland_pids=()
  if [ -n "$wayland_tmp" ]; then rm -rf "$wayland_tmp"; fi
  wayland_tmp=
}
