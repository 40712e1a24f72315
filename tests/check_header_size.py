#!/usr/bin/env python3
"""Every public header (framework/include/tempo/*.h) is at most 450 lines (issue 37: one idea
per header; the explanations live in docs/). Usage: check_header_size.py INCLUDE_DIR [MAX]."""
import os
import sys


def main():
    top = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 450
    over = []
    names = sorted(n for n in os.listdir(top) if n.endswith(".h"))
    for name in names:
        with open(os.path.join(top, name), encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            over.append((name, lines))
    for name, lines in over:
        print(f"{top}/{name}: {lines} lines, over {limit}")
    print(f"header-size: {len(names)} headers, {len(over)} over {limit} lines")
    return 1 if over or not names else 0


if __name__ == "__main__":
    sys.exit(main())
