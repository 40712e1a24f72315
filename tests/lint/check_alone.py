#!/usr/bin/env python3
"""Every test that moves or clicks the pointer with xdotool runs alone (is_parallel: false).

Pointer input goes to the window on top at the pointer, not to the focused one: a test running
beside it in the same X server that maps a window at the screen's origin (most of ours do) takes
the clicks, and the test waits for input that never comes (CI's tsan-x11, stop 59:
input-x11's right click and wheel lost, its key and motion delivered).

    check_alone.py BUILD_ROOT

Reads meson's introspection (meson-info/intro-tests.json, intro-targets.json) of BUILD_ROOT:
for each test, the C sources of the program it runs; a source that names xdotool and one of
its pointer commands (mousemove, click, mousedown, mouseup) makes the test one that must run
alone. Prints one line per such test; exits 1 if any of them may run beside others.
"""
import json
import os
import re
import sys

POINTER = re.compile(r"\b(mousemove|click|mousedown|mouseup)\b")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0])
        print("usage: check_alone.py BUILD_ROOT")
        return 2
    info = os.path.join(argv[1], "meson-info")
    with open(os.path.join(info, "intro-tests.json"), encoding="utf-8") as f:
        tests = json.load(f)
    with open(os.path.join(info, "intro-targets.json"), encoding="utf-8") as f:
        targets = json.load(f)
    sources = {}
    for t in targets:
        files = [s for ts in t.get("target_sources", []) for s in ts.get("sources", []) if s.endswith(".c")]
        for name in t.get("filename", []):
            sources[name] = files
    bad = checked = 0
    for t in tests:
        cmd = t.get("cmd") or [""]
        for path in sources.get(cmd[0], []):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "xdotool" in text and POINTER.search(text):
                checked += 1
                alone = not t.get("is_parallel", True)
                print("%s %s (%s)" % ("ok  " if alone else "FAIL", t["name"], os.path.basename(path)))
                if not alone:
                    print("     clicks with xdotool but may run beside other tests: add is_parallel: false")
                    bad += 1
                break
    print("%d tests that click with xdotool, %d may run beside others" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
