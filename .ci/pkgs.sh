# shellcheck shell=bash
# The one package installer of ./dev and the .ci/ scripts (sourced, not run).
#
# Everything apt-get and dpkg print goes to stderr: on a new machine they print hundreds of lines
# (progress, "Selecting previously unselected package ...", maintainer scripts), and some scripts'
# stdout is read by another (.ci/win-env prints the meson cross file's path, which ./dev captures).
# tests/lint/test_scripts.sh holds every such script to that under shims that make the machine look new.

# as_root CMD...: CMD as root (sudo -n when not root: never a password prompt in a script).
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

# missing_pkgs PKG...: the names of those not installed, one a line. PKG may list alternatives,
# "a|b": satisfied when any is installed, and "a" (the first) is what gets installed. So
# "libsdl2-dev|libsdl2-compat-dev" keeps a machine's sdl2-compat (SDL2 over SDL3: Debian 13's
# libsdl2-compat-dev, what sid, Fedora and Arch ship as SDL2) instead of installing classic SDL2
# over the user's choice.
missing_pkgs() {
    local p alt
    for p in "$@"; do
        for alt in ${p//|/ }; do
            [ "$(dpkg-query -W -f='${db:Status-Status}' "$alt" 2>/dev/null)" = installed ] && continue 2
        done
        echo "${p%%|*}"
    done
}

# apt_get ARGS...: apt-get as root, non-interactive, output on stderr. It waits up to 10 minutes
# for the dpkg lock (unattended-upgrades on a new install, apt in a second terminal: without
# this apt fails at once with "Could not get lock"), and retries a failed download 3 times.
# Tempo's own installers take turns (flock: ./dev test prepares the Windows and web stages in the
# background, beside the Linux ones), so `apt-get update`, which waits for no lock, never meets
# another of ours; one that meets someone else's apt is tried again (apt_update).
apt_get() {
    as_root flock -w 1800 "${TMPDIR:-/tmp}/tempo-apt.lock" \
        env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
        -o Acquire::Retries=3 "$@" >&2
}

# apt_update: apt-get update. apt's lists lock has no timeout: when another apt holds it
# (unattended-upgrades on a new install) the update is tried again every 10 s, up to 10 minutes;
# any other failure is returned at once.
apt_update() {
    local i out
    for i in $(seq 60); do
        out=$(apt_get update -qq 2>&1) && { [ -z "$out" ] || printf '%s\n' "$out" >&2; return 0; }
        printf '%s\n' "$out" >&2
        case $out in *"Could not get lock"* | *"Unable to lock"*) ;; *) return 1 ;; esac
        echo "${0##*/}: another apt holds its lists; apt-get update again in 10 s ($i of 60)" >&2
        sleep "${TEMPO_APT_RETRY_S:-10}"
    done
    return 1
}

# ensure_pkgs PKG...: installs whatever is missing (apt-get update first, once per process).
# Prints nothing on stdout. Not root and no password-less sudo: fails with the exact command.
_tempo_apt_updated=0
ensure_pkgs() {
    local missing
    missing=$(missing_pkgs "$@" | tr '\n' ' ')
    missing=${missing% }
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
        echo "${0##*/}: missing packages; run: sudo apt-get update && sudo apt-get install -y $missing" >&2
        return 1
    fi
    echo "${0##*/}: installing Debian packages (first run only): $missing" >&2
    if [ "$_tempo_apt_updated" = 0 ]; then
        apt_update || return 1
        _tempo_apt_updated=1
    fi
    # shellcheck disable=SC2086
    apt_get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 $missing
}

# deb_src_822 APT_DIR, deb_src_one APT_DIR: a deb-src entry for every binary entry apt has, in
# both formats apt reads. deb822 stanzas in sources.list.d/*.sources (Debian's images: "Types: deb"
# with URIs, Suites, Components, Signed-By) give stanzas; one-line "deb [opts] URI SUITE COMP..."
# entries in sources.list and sources.list.d/*.list (mmdebstrap's roots, many images) give lines.
# Tempo's own generated files (tempo-src.*) are not read. Both succeed with nothing to print (a
# machine with one format only): callers run under set -e -o pipefail.
deb_src_822() {
    local f
    for f in "$1"/sources.list.d/*.sources; do
        if [ -f "$f" ] && [ "${f##*/}" != tempo-src.sources ]; then cat "$f"; echo; fi
    done | awk 'BEGIN { RS = ""; FS = "\n" }
        {   deb = 0
            for (i = 1; i <= NF; i++) if ($i ~ /^Types:/) {
                n = split(substr($i, 7), t, /[ \t]+/)
                for (j = 1; j <= n; j++) if (t[j] == "deb") deb = 1
            }
            if (!deb) next
            print "Types: deb-src"; keep = 0
            for (i = 1; i <= NF; i++) {
                if ($i ~ /^[ \t]/) { if (keep) print $i; continue }   # continuation (inline key)
                keep = ($i ~ /^(URIs|Suites|Components|Signed-By):/)
                if (keep) print $i
            }
            print ""
        }'
}
deb_src_one() {
    local f
    for f in "$1"/sources.list "$1"/sources.list.d/*.list; do
        if [ -f "$f" ] && [ "${f##*/}" != tempo-src.list ]; then sed -n 's/^[ \t]*deb[ \t]\{1,\}/deb-src /p' "$f"; fi
    done
}

# write_if_changed FILE: standard input into FILE, only when it differs from what FILE holds. The
# meson cross files are written on every run; a rewritten one, even unchanged, is newer than the
# builds that read it, and made every ./dev web and Windows build run meson again.
write_if_changed() {
    local new
    new=$(cat; echo x)
    new=${new%x}
    [ -f "$1" ] && [ "$(cat "$1"; echo x)" = "${new}x" ] && return 0
    printf '%s' "$new" >"$1.tmp" && mv -f "$1.tmp" "$1"
}

# linux_pkgs: the Debian packages the Linux build, the tests and the benchmarks need (./dev, and
# the .ci/ scripts that build build/).
# libclang-rt-dev: the runtimes (libFuzzer) of Debian's default clang, whatever its version
# (libclang-rt-14-dev on Debian 12, -19- on 13). SDL2 is classic SDL2 or sdl2-compat, whichever
# the machine has (missing_pkgs: "a|b"). make: the CMake consumer's generator. dpkg-dev: meson
# asks its dpkg-architecture for Debian's multiarch libdir (lib/x86_64-linux-gnu); without it
# meson installs into lib64, where Debian's CMake does not look, and the CMake consumer failed
# wherever no earlier stage (the Windows one) had installed it (the sdl2-compat row, --linux).
linux_pkgs=(gcc pkg-config python3 meson ninja-build
  'libsdl2-dev|libsdl2-compat-dev' libsdl2-image-dev libsdl2-mixer-dev libsdl2-net-dev libx11-dev
  xvfb xauth xdotool x11-utils valgrind clang libclang-rt-dev cmake make dpkg-dev git
  libwayland-dev weston)
