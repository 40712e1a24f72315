#!/usr/bin/env python3
"""The layers' rules (docs/layout.md), checked on the library's object files.

    check_layers.py NM [--basement FILE.c]... ARCHIVE...

Reads `nm` of each static library given (Tempo's, with every framework/ and platform/ file of
this build's backend as one member each) and draws the calls between files: a file calls
another when it uses a symbol the other defines. Fails, naming the files, when
  - two or more files call each other, directly or in a ring (a strongly connected part of the
    graph with more than one file);
  - a platform/ file uses a symbol a framework/ file defines (the platform never calls up), but
    for the basement's (--basement: the error detail and the log, framework/error.c, which every
    floor may call as every part of SDL calls SDL_SetError);
  - a basement file calls another file of the library;
  - a platform/ file defines a tempo_ symbol (the public API and the framework's internals are
    the framework's).
Calls through function pointers that an upper layer installed are not calls in this graph, which
is the design (a lower layer tells an upper one through a hook). Prints one line per file with its
callees' count, then "layers: N files, N calls, N problems".
"""
import subprocess
import sys


def members(nm, archive):
    """{member: (defined symbols, used symbols)} of a static library."""
    out = subprocess.run([nm, '-A', archive], check=True, capture_output=True, text=True).stdout
    files = {}
    for line in out.splitlines():
        # "lib.a:member.o:0000000000000000 T name" or "lib.a:member.o:                 U name"
        head, _, rest = line.rpartition(':')
        member = head.split(':', 1)[1] if ':' in head else head
        parts = rest.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        defined, used = files.setdefault(member, (set(), set()))
        if kind == 'U':
            used.add(name)
        elif kind.isupper():  # global: T D B R C W V ...
            defined.add(name)
    return files


def is_platform(member):
    # meson names an object outside the target's folder by its path: ../platform/x/y.c -> .._platform_x_y.c.o
    return member.startswith('.._platform_') or '/platform/' in member


def rings(graph):
    """The strongly connected parts with more than one file (Tarjan, iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n[0]; n[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    part = []
                    while True:
                        w = stack.pop(); on.discard(w); part.append(w)
                        if w == v:
                            break
                    if len(part) > 1:
                        out.append(sorted(part))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    nm, files, basement, args = argv[1], {}, [], argv[2:]
    while len(args) >= 2 and args[0] == '--basement':
        basement.append(args[1]); args = args[2:]
    for archive in args:
        files.update(members(nm, archive))
    # An object is named after its source, FILE.c.o (FILE.c.obj with mingw); a file outside the
    # target's folder gets its path too (.._platform_common_FILE.c.o).
    def source(m, b):
        stem = m.rsplit('.', 1)[0]
        return stem == b or stem.endswith('_' + b)
    in_basement = lambda m: any(source(m, b) for b in basement)
    missing = [b for b in basement if not any(source(m, b) for m in files)]
    owner = {}
    for member, (defined, _) in files.items():
        for name in defined:
            owner.setdefault(name, member)
    graph = {m: sorted({owner[s] for s in used if s in owner and owner[s] != m}) for m, (_, used) in files.items()}
    problems = [f'no file {b} in the library (--basement)' for b in missing]
    for member in sorted(files):
        if in_basement(member) and graph[member]:
            problems.append(f'{member} (the basement) calls up: ' + ', '.join(graph[member]))
    for part in rings(graph):
        problems.append('files that call each other (a ring): ' + ', '.join(part))
    for member in sorted(files):
        if not is_platform(member):
            continue
        up = sorted(s for s in files[member][1] if s in owner and not is_platform(owner[s]) and not in_basement(owner[s]))
        if up:
            problems.append(f'{member} calls up into the framework: ' +
                            ', '.join(f'{s} ({owner[s]})' for s in up[:5]))
        public = sorted(s for s in files[member][0] if s.startswith('tempo_'))
        if public:
            problems.append(f'{member} defines tempo_ symbols: ' + ', '.join(public[:5]))
    for member in sorted(graph):
        print(f'{member}: calls {len(graph[member])} files' + (f' ({", ".join(graph[member])})' if graph[member] else ''))
    for p in problems:
        print('FAIL ' + p)
    print(f'layers: {len(files)} files, {sum(len(v) for v in graph.values())} calls, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
