# shellcheck shell=bash disable=SC2034
# Shared by .ci/win-deps and .ci/win-env (sourced, not run).
# Everything lives in one cache dir outside the repo: the mingw install prefix (bin, include, lib),
# the meson cross file, the wine wrapper and the wine prefix.
PREFIX=${TEMPO_WIN_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo/win64}
HOST=x86_64-w64-mingw32

# ensure_pkgs, as_root: the installer shared with ./dev (apt's output goes to stderr).
# shellcheck source=pkgs.sh
. "$(dirname "${BASH_SOURCE[0]}")/pkgs.sh"
