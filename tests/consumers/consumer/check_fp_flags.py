#!/usr/bin/env python3
"""Which flags for deterministic float code a consumer's own files get.

Usage: check_fp_flags.py COMPILE_COMMANDS.json WANT [TARGET]

Reads a compile_commands.json (meson writes one; CMake with
-DCMAKE_EXPORT_COMPILE_COMMANDS=ON) and looks at every compile command of
the game's own files outside subprojects/tempo for executable TARGET
(default mygame: tests/consumers/consumer's, linked with dependency('tempo') or
tempo::tempo and no flags of its own; mygame-det is the alias's). WANT is "on" (each must carry -ffp-contract=off, and on
32-bit x86 also -msse2 -mfpmath=sse, as Tempo's meson.build hands them
out) or "off" (none may carry -ffp-contract=off: the
-Dtempo:deterministic_consumers=false opt-out). Prints one line per file
and exits 1 if any is wrong (or none was found)."""
import json
import shlex
import sys


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in ("on", "off"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    target = sys.argv[3] if len(sys.argv) == 4 else "mygame"
    # meson puts a target's objects in TARGET.p/, CMake in CMakeFiles/TARGET.dir/
    marks = ("/%s.p/" % target, "%s.p/" % target, "/%s.dir/" % target)
    want = sys.argv[2] == "on"
    with open(sys.argv[1], encoding="utf-8") as f:
        cmds = json.load(f)
    bad = 0
    seen = 0
    for c in cmds:
        out = c.get("output", "") + " " + c.get("command", "") + " " + " ".join(c.get("arguments", []))
        if "subprojects/tempo/" in c["file"] or not any(m in out for m in marks):
            continue
        seen += 1
        args = c["arguments"] if "arguments" in c else shlex.split(c["command"])
        # -ffp-contract= may appear more than once: the last one wins.
        contract = [a for a in args if a.startswith("-ffp-contract=")]
        on = bool(contract) and contract[-1] == "-ffp-contract=off"
        x86 = "-m32" in args or any(a.startswith("-march=i") for a in args)
        if on and x86 and not ("-msse2" in args and "-mfpmath=sse" in args):
            on = False
        ok = on == want
        bad += not ok
        print("%s: %s (last %s; want %s)" % (c["file"], "ok" if ok else "WRONG",
                                              contract[-1] if contract else "no -ffp-contract",
                                              "-ffp-contract=off" if want else "none"))
    if seen == 0:
        print("no compile command of target %s in %s" % (target, sys.argv[1]))
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
