#!/usr/bin/env python3
"""A port from Tempo 0.1 is told the new name of every name 0.2.0 renamed (tempo/oldnames.h).

For each old name this compiles, with the build's C compiler and Tempo's include flags, a
translation unit that includes <tempo/tempo.h> and uses the name as 0.1's API was used, and
expects:
  - the compile to fail, without -Werror (gcc before 14 only warns about an undeclared
    function, so a port used to fail at link time), and
  - the compiler's messages to contain the new name;
and the same code written with the new name to compile cleanly with -Wall -Wextra -Werror
(so the failure is the old name's, not the test code's). One more translation unit defines
TEMPO_NO_OLDNAMES first: then no old name may be a macro, and a port's own shim under an old
name compiles.

The table below is this test's own, written from CHANGELOG.md's table, not read from
oldnames.h: a name missing from the header fails here.

  check_oldnames.py --std=STD --net=0|1 -- CC... -- FLAGS...
STD is meson's c_std ("none": no -std flag); --net=1 when the build has tempo/net.h; CC is the
compiler command (meson's cc.cmd_array()); FLAGS are the include flags. Prints one line per
check, then 'N passed, N failed'; exit 1 on any failure.
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

# (old name, new name, code written for 0.1, the same code for 0.2, needs tempo/net.h).
# Code is the body of a function; PRELUDE (file scope) is below.
CASES = [
    ("tempo_audio_open", "tempo_audio_create",
     "tempo_audio *au = tempo_audio_open(&(tempo_audio_desc){.frequency = 48000}); (void)au;",
     "tempo_audio *au = tempo_audio_create(&(tempo_audio_desc){.frequency = 48000}); (void)au;", False),
    ("tempo_audio_close", "tempo_audio_destroy",
     "tempo_audio *au = NULL; tempo_audio_close(au);",
     "tempo_audio *au = NULL; tempo_audio_destroy(au);", False),
    ("tempo_replay_open", "tempo_replay_create",
     "tempo_replay *rp = tempo_replay_open(&(tempo_replay_desc){.path = \"run.trec\"}); (void)rp;",
     "tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = \"run.trec\"}); (void)rp;", False),
    ("tempo_replay_close", "tempo_replay_destroy",
     "tempo_replay *rp = NULL; tempo_replay_close(rp);",
     "tempo_replay *rp = NULL; tempo_replay_destroy(rp);", False),
    ("tempo_net_connect", "tempo_net_create",
     "tempo_net *net = tempo_net_connect(&(tempo_net_desc){.host = \"127.0.0.1\", .port = 7777}); (void)net;",
     "tempo_net *net = tempo_net_create(&(tempo_net_desc){.host = \"127.0.0.1\", .port = 7777}); (void)net;",
     True),
    ("tempo_loader_stats_get", "tempo_loader_get_stats",
     "tempo_loader *ld = NULL; tempo_loader_stats st; int rc = tempo_loader_stats_get(ld, &st); (void)rc;",
     "tempo_loader *ld = NULL; tempo_loader_stats st; int rc = tempo_loader_get_stats(ld, &st); (void)rc;", False),
    ("tempo_hotreload_stats_get", "tempo_hotreload_get_stats",
     "tempo_hotreload *hr = NULL; tempo_hotreload_stats st; int rc = tempo_hotreload_stats_get(hr, &st); (void)rc;",
     "tempo_hotreload *hr = NULL; tempo_hotreload_stats st; int rc = tempo_hotreload_get_stats(hr, &st); (void)rc;",
     False),
    ("tempo_loop_record_stats", "tempo_loop_get_record_stats",
     "tempo_loop *loop = NULL; tempo_record_stats st; int rc = tempo_loop_record_stats(loop, &st); (void)rc;",
     "tempo_loop *loop = NULL; tempo_record_stats st; int rc = tempo_loop_get_record_stats(loop, &st); (void)rc;",
     False),
    # A removed type: the queue's clock callback is a tempo_clock's `now` now.
    ("tempo_netq_clock_fn", "tempo_clock",
     "tempo_netq_clock_fn now = fake_now; (void)now;",
     "tempo_clock clock = {.now = fake_now}; (void)clock;", False),
    # Not only calls: an old function kept in a function pointer fails too.
    ("tempo_audio_close", "tempo_audio_destroy",
     "void (*close_fn)(tempo_audio *) = tempo_audio_close; (void)close_fn;",
     "void (*close_fn)(tempo_audio *) = tempo_audio_destroy; (void)close_fn;", False),
]

PRELUDE = """#include <tempo/tempo.h>

uint64_t fake_now(void *user);
uint64_t fake_now(void *user)
{
    (void)user;
    return 0;
}

void port(void);
"""


def unit(code, head=""):
    """A translation unit: optional lines before the include, the prelude, `code` in port()."""
    return f"{head}{PRELUDE}\nvoid port(void)\n{{\n    {code}\n}}\n"


def compile_tu(cc, flags, source, workdir, name, strict):
    path = os.path.join(workdir, name + ".c")
    with open(path, "w") as f:
        f.write(source)
    extra = ["-Wall", "-Wextra", "-Werror"] if strict else []
    cmd = cc + flags + extra + ["-fsyntax-only", "-fdiagnostics-color=never", path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def first_error(output):
    for line in output.splitlines():
        if "error" in line:
            return line.strip()
    return output.strip().splitlines()[0] if output.strip() else "(no output)"


def no_oldnames_unit():
    """TEMPO_NO_OLDNAMES: no old name is a macro, and shims under the old names compile."""
    olds = sorted({c[0] for c in CASES})
    checks = "".join(f"#ifdef {o}\n#error \"{o} is a macro under TEMPO_NO_OLDNAMES\"\n#endif\n" for o in olds)
    shims = """
static tempo_audio *tempo_audio_open(const tempo_audio_desc *desc)
{
    return tempo_audio_create(desc);
}
static void tempo_audio_close(tempo_audio *au)
{
    tempo_audio_destroy(au);
}
typedef uint64_t (*tempo_netq_clock_fn)(void *user);
"""
    code = ("tempo_audio_close(tempo_audio_open(NULL)); "
            "tempo_netq_clock_fn now = fake_now; (void)now;")
    return f"#define TEMPO_NO_OLDNAMES\n{PRELUDE}{checks}{shims}\nvoid port(void)\n{{\n    {code}\n}}\n"


def main():
    args = sys.argv[1:]
    try:
        opts, rest = args[:args.index("--")], args[args.index("--") + 1:]
        cc, flags = rest[:rest.index("--")], rest[rest.index("--") + 1:]
    except ValueError:
        print("usage: check_oldnames.py --std=STD --net=0|1 -- CC... -- FLAGS...", file=sys.stderr)
        return 2
    std = next((o.split("=", 1)[1] for o in opts if o.startswith("--std=")), "none")
    have_net = "--net=1" in opts
    if std != "none":
        flags = ["-std=" + std] + flags
    if not cc:
        print("no compiler given", file=sys.stderr)
        return 2

    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="tempo-oldnames-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        # Every compile at once (each parses SDL.h: about a second), then the verdicts in order.
        jobs = []
        for i, (old, new, old_code, new_code, needs_net) in enumerate(CASES):
            if needs_net and not have_net:
                jobs.append(None)
                continue
            jobs.append((pool.submit(compile_tu, cc, flags, unit(new_code), tmp, f"new{i}", True),
                         pool.submit(compile_tu, cc, flags, unit(old_code), tmp, f"old{i}", False)))
        opt_out = pool.submit(compile_tu, cc, flags, no_oldnames_unit(), tmp, "no_oldnames", True)
        for (old, new, _, _, _), job in zip(CASES, jobs):
            if job is None:
                print(f"skip: {old}: this build has no tempo/net.h")
                continue
            why = []
            rc, out = job[0].result()
            if rc != 0:
                why.append(f"the same code with {new} does not compile cleanly: {first_error(out)}")
            rc, out = job[1].result()
            if rc == 0:
                why.append(f"code using {old} compiles (exit 0): nothing stops a port at compile time")
            elif new not in out:
                why.append(f"the compiler's messages do not name {new}: {first_error(out)}")
            if why:
                failed += 1
                for w in why:
                    print(f"FAIL: {old}: {w}")
            else:
                passed += 1
                print(f"ok: {old} -> {new}: {first_error(out)}")

        rc, out = opt_out.result()
        if rc == 0:
            passed += 1
            print("ok: TEMPO_NO_OLDNAMES: no old name is a macro, shims under the old names compile")
        else:
            failed += 1
            print(f"FAIL: TEMPO_NO_OLDNAMES: {first_error(out)}")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
