# shellcheck shell=bash disable=SC2034
# Shared by .ci/win-deps and .ci/win-env (sourced, not run).
# Everything lives in one cache dir outside the repo: the mingw install prefix (bin, include, lib),
# the meson cross file, the wine wrapper and the wine prefix.
PREFIX=${TEMPO_WIN_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo/win64}
HOST=x86_64-w64-mingw32

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# ensure_pkgs PKG... : apt-get install whatever is missing; apt-get update only if something is.
ensure_pkgs() {
    local p missing=()
    for p in "$@"; do
        [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "${0##*/}: installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
