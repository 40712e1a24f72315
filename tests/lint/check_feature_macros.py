#!/usr/bin/env python3
"""Every C file of this build compiles without the feature-test macros other packages' flags add.

Debian's fluidsynth.pc (pulled in by SDL2_mixer's) puts -D_DEFAULT_SOURCE on every compile line,
and sdl2-compat's sdl2.pc puts -D_GNU_SOURCE=1 there: a file that calls setenv, clock_nanosleep or
gettid under -std=c11 without defining the macro itself builds on one distribution and not on the
next (issue 36: test_wayland.c on Debian 13). This reruns each compile command of the build
(compile_commands.json) as a syntax check with those macros taken off the command line
(-U after them), implicit declarations made errors, and both ways a file may go wrong checked:
a file that needs a macro defines it, and a file that defines one tolerates it being predefined
(-D_GNU_SOURCE=1 first: an unguarded '#define _GNU_SOURCE' is then a redefinition error).

  check_feature_macros.py COMPILE_COMMANDS_JSON
Prints one line per file that fails, then 'N passed, N failed'; exit 1 on any failure.
"""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys

MACROS = ("_DEFAULT_SOURCE", "_GNU_SOURCE", "_XOPEN_SOURCE", "_POSIX_C_SOURCE", "_BSD_SOURCE", "_SVID_SOURCE")


def defines_a_macro(path):
    """True when the file defines one of MACROS itself (only then can predefining one clash)."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return True
    return any("#define " + m in text for m in MACROS)


def variants(argv, own_defines):
    """The two syntax-only commands for one compile command."""
    out = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MQ", "-MT"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    base = [a for a in out if a != "-Werror"]
    strict = ["-fsyntax-only", "-fdiagnostics-color=never", "-Werror=implicit-function-declaration", "-Werror=implicit-int"]
    # 1: none of the macros from outside: a file that needs one must define it.
    bare = base + ["-U" + m for m in MACROS] + strict
    # 2: _GNU_SOURCE predefined as sdl2-compat's flags do: a file that defines it must guard it.
    pre = base[:1] + ["-D_GNU_SOURCE=1"] + base[1:] + strict + ["-Werror"]
    out = [("without outside feature macros", bare)]
    if own_defines:
        out.append(("with -D_GNU_SOURCE=1 predefined", pre))
    return out


def check(entry):
    argv = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    src = entry["file"]
    fails = []
    own = defines_a_macro(os.path.join(entry["directory"], src))
    for what, cmd in variants(argv, own):
        r = subprocess.run(cmd, cwd=entry["directory"], capture_output=True, text=True)
        if r.returncode != 0:
            first = next((l for l in r.stderr.splitlines() if "error" in l), r.stderr.strip()[:200])
            fails.append(f"{src}: fails to compile {what}: {first}")
    return fails


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        entries = [e for e in json.load(f) if e["file"].endswith(".c")]
    seen, todo = set(), []
    for e in entries:
        key = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if key not in seen:
            seen.add(key)
            todo.append(e)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for fails in pool.map(check, todo):
            if fails:
                failed += 1
                for line in fails:
                    print(line)
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
