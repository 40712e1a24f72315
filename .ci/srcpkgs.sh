# shellcheck shell=bash
# Debian source packages built for another target (sourced by .ci/win-deps and .ci/web-deps, after
# pkgs.sh). The caller sets TAG (its name, for messages), PREFIX (the install prefix), RECIPE (its
# build options' revision) and SRC_PKGS, and works in a scratch directory.
#
# srcpkgs_versions: prints the .dsc names apt would fetch for SRC_PKGS (their exact versions),
#   after making sure apt has a deb-src entry for every binary entry it has (both formats).
# srcpkgs_fetch: downloads SRC_PKGS into the current directory, with retries (apt checks every
#   file it gets against the archive's Sources index). Fails loudly, naming the package, when a
#   package's upstream tarball cannot be had: that is the source. Debian's own files may be
#   missing (the mirror here answers 404 for libsdl2-net's .debian.tar.xz on Debian 12 and for its
#   .dsc too on Debian 13): the builds skip Debian's patches anyway, so each missing one is a line
#   on stderr and the upstream tarball is unpacked directly.
# srcpkgs_build PKG NAME CMD...: unpacks PKG into ./src-PKG and runs CMD (the caller's configure,
#   build and install, with "$src" and "$bld" set), its output in ./NAME.log (the last 40 lines
#   on stderr when it fails, then exit 1). Each library has its own stamp in PREFIX: one already
#   built from the same source (and the same SDL2, the same recipe) is kept, so a failure in the
#   last library does not cost the minutes of SDL2 on the next run.

srcpkgs_versions() {
    local apt_dir=${TEMPO_APT_DIR:-/etc/apt} want_822 want_one changed=0
    want_822=$(deb_src_822 "$apt_dir")
    want_one=$(deb_src_one "$apt_dir")
    [ -n "$want_822$want_one" ] || {
        echo "$TAG: no Debian binary entry in $apt_dir/sources.list or sources.list.d/ to derive deb-src from" >&2
        return 1
    }
    _srcpkgs_sync "$apt_dir/sources.list.d/tempo-src.sources" "$want_822" || changed=1
    _srcpkgs_sync "$apt_dir/sources.list.d/tempo-src.list" "$want_one" || changed=1
    [ $changed = 0 ] || apt_update || return 1
    _srcpkgs_dscs 2>/dev/null || { apt_update && _srcpkgs_dscs; }
}

# _srcpkgs_sync FILE CONTENT: writes (or removes, when empty) one generated list; status 1 when
# it changed something.
_srcpkgs_sync() {
    if [ -z "$2" ]; then
        [ -e "$1" ] || return 0
        as_root rm -f "$1"
        return 1
    fi
    [ "$2" != "$(cat "$1" 2>/dev/null)" ] || return 0
    printf '%s\n' "$2" | as_root tee "$1" >/dev/null
    return 1
}

_srcpkgs_dscs() {
    _srcpkgs_uris "${SRC_PKGS[@]}" | awk '$2 ~ /\.dsc$/ { print $2 }'
}

srcpkgs_fetch() {
    local sandbox=() pkg f missing
    # As root, apt's download sandbox user (_apt) cannot write into our 0700 temp dir: stay root.
    [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    echo "$TAG: fetching the source packages ${SRC_PKGS[*]}" >&2
    apt-get source -qq --download-only -o Acquire::Retries=3 "${sandbox[@]}" "${SRC_PKGS[@]}" >&2 || true
    for pkg in "${SRC_PKGS[@]}"; do
        missing=()
        while read -r f; do
            [ -s "$f" ] || missing+=("$f")
        done < <(_srcpkgs_uris "$pkg" | awk '{ print $2 }')
        for f in "${missing[@]}"; do
            case $f in
                *.dsc|*.debian.tar.*) echo "$TAG: $pkg: Debian's $f could not be downloaded; not needed (the upstream tarball is built, Debian's patches are skipped)" >&2 ;;
                *)
                    echo "$TAG: cannot get the sources of $pkg: $f could not be downloaded (apt-get source $pkg, 3 tries)" >&2
                    return 1 ;;
            esac
        done
    done
}

# _srcpkgs_uris PKG...: apt's list of PKG's source files. From /: apt-get source --print-uris
# leaves out the files already in the current directory.
_srcpkgs_uris() {
    (cd / && apt-get source --print-uris -qq "$@")
}

# srcpkgs_dsc PKG: the .dsc name apt has for PKG (its exact version), whether or not it arrived.
srcpkgs_dsc() {
    _srcpkgs_uris "$1" | awk '$2 ~ /\.dsc$/ { print $2 }'
}

srcpkgs_build() {
    local pkg=$1 name=$2 t=$SECONDS dsc stamp sdl
    shift 2
    dsc=$(srcpkgs_dsc "$pkg")
    sdl=$(srcpkgs_dsc libsdl2)
    stamp="recipe $RECIPE"$'\n'"$sdl"$'\n'"$dsc"
    if [ "$stamp" = "$(cat "$PREFIX/.stamp-$pkg" 2>/dev/null)" ]; then
        echo "$TAG: $name already built from ${dsc%.dsc}" >&2
        summary+=("$name ${dsc%.dsc} (kept)")
        return 0
    fi
    rm -f "$PREFIX/.stamp-$pkg"
    echo "$TAG: building $name from ${dsc%.dsc} (first run only; SDL2 takes minutes)" >&2
    if [ ! -f "$dsc" ] || ! dpkg-source -x --skip-patches "$dsc" "src-$pkg" >"$pkg.unpack.log" 2>&1; then
        local orig
        orig=$(ls "$pkg"_*.orig.tar.*) || { cat "$pkg.unpack.log" >&2; exit 1; }
        rm -rf "src-$pkg"; mkdir "src-$pkg"
        tar -xf "$orig" -C "src-$pkg" --strip-components=1
    fi
    src=src-$pkg bld=build-$pkg
    "$@" >"$name.log" 2>&1 || { tail -n 40 "$name.log" >&2; echo "$TAG: building $name failed (log above)" >&2; exit 1; }
    printf '%s\n' "$stamp" >"$PREFIX/.stamp-$pkg"
    dsc=${dsc#*_}
    summary+=("$name ${dsc%.dsc} ($((SECONDS - t))s)")
}

# mixer_build CMAKE-OPTION...: the caller's cmake_build for SDL2_mixer, with the MP3 options of
# the tarball unpacked in $src.
mixer_build() {
    # shellcheck disable=SC2046 # the options are words
    cmake_build "$@" $(mixer_mp3_opts "$src")
}

# mixer_mp3_opts SRC: SDL2_mixer's CMake options for MP3 from what the unpacked tarball SRC bundles:
# dr_mp3 (2.6), minimp3 (2.8's upstream tarball), or neither (Debian's dfsg tarball of 2.8.1
# drops minimp3): then MP3 is off and says so, rather than a build that fails on a missing header.
mixer_mp3_opts() {
    if [ -e "$1/src/codecs/dr_libs/dr_mp3.h" ]; then
        echo -DSDL2MIXER_MP3=ON -DSDL2MIXER_MP3_DRMP3=ON
    elif [ -e "$1/src/codecs/minimp3/minimp3_ex.h" ]; then
        echo -DSDL2MIXER_MP3=ON -DSDL2MIXER_MP3_MINIMP3=ON
    else
        echo "$TAG: $1 bundles no MP3 decoder (Debian's tarball drops it): SDL2_mixer without MP3" >&2
        echo -DSDL2MIXER_MP3=OFF
    fi
}
