#!/usr/bin/env python3
"""No file is over its size (issue 37: a file over it holds more than one idea; split it along a
seam, as asset_check*.c, netq_source.c and win32_dinput_*.c were, and explain in docs/, as the
headers do): the files whose names end in EXT under each DIR (recursively), at most MAX lines.
  check_file_size.py NAME EXT MAX DIR...
e.g. header-size .h 450 framework/include/tempo; source-size .c 900 framework platform.
Prints each file over MAX, then 'NAME: N files, N over MAX lines'; exit 1 when one is over or
no file was found."""
import os
import sys


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    name, ext, limit, tops = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    files = []
    for top in tops:
        for root, dirs, names in os.walk(top):
            dirs.sort()
            files += [os.path.join(root, n) for n in sorted(names) if n.endswith(ext)]
    over = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        if lines > limit:
            over.append((path, lines))
    for path, lines in over:
        print(f"{path}: {lines} lines, over {limit}")
    print(f"{name}: {len(files)} files, {len(over)} over {limit} lines")
    return 1 if over or not files else 0


if __name__ == "__main__":
    sys.exit(main())
