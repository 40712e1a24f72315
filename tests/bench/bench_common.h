/* What the benchmarks share: sorting and nearest-rank percentiles, running
 * this program again as a child for one method (a fresh process per method,
 * so one method's threads, caches and SDL state never colour the next), and
 * the data files ./dev bench turns into plots.
 *
 * Only the C library and Tempo's base header, so every benchmark still
 * builds for Windows (popen is _popen there). Thread: the calling thread;
 * nothing here is shared between threads. */
#ifndef TEMPO_BENCH_COMMON_H
#define TEMPO_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tempo/base.h"

/* Exit status of a child (and a benchmark) that skips: meson's "skipped". */
#define BENCH_EXIT_SKIP 77

/* qsort comparators, ascending. */
int bench_cmp_u64(const void *a, const void *b);
int bench_cmp_i64(const void *a, const void *b);
int bench_cmp_dbl(const void *a, const void *b);

/* Nearest-rank percentile p (0..100] of v[0..n), which must be sorted
 * ascending: the smallest value with at least p% of the samples at or
 * below it. 0 when n is 0. */
uint64_t bench_pct_u64(const uint64_t *v, size_t n, double p);
int64_t bench_pct_i64(const int64_t *v, size_t n, double p);

/* Runs `self` with `args` appended (self is quoted for the shell; args are
 * passed as written) and calls on_line(line, user) for every line it
 * prints on stdout, in order (newline kept). stdout and stderr are flushed
 * first so the outputs do not interleave out of order. Returns the child's
 * exit status (BENCH_EXIT_SKIP when it skipped), 128 + signal when it was
 * killed, or -1 when it could not be started. */
int bench_run_child(const char *self, const char *args, void (*on_line)(const char *line, void *user),
                    void *user);

/* Opens `name` for writing in the directory named by the environment
 * variable TEMPO_BENCH_DATA (./dev bench sets it to build/bench-data), for
 * the plots; NULL when the variable is unset (the benchmark then writes no
 * data) or the file cannot be created (a warning is printed). Close with
 * fclose. */
FILE *bench_data_open(const char *name);

/* The default directory for a benchmark's generated fixtures (--cache):
 * `name` in the temporary directory (TMPDIR, TEMP or TMP, else /tmp), so
 * a benchmark run from the source tree does not write into it. */
void bench_default_cache(char *buf, size_t size, const char *name);

/* Writes the ratio a / b into buf for a table's "against the baseline"
 * column: "12x", "2.4x", "1.0x", "0.16x", "0.00059x" (two significant
 * digits below 1); "-" when b is not positive or a is negative (no
 * baseline measured). */
void bench_fmt_ratio(char *buf, size_t size, double a, double b);

/* The 1-minute load average (/proc/loadavg), or a negative number where
 * unknown: timing on a shared machine means little without it. */
double bench_load_average(void);

#endif /* TEMPO_BENCH_COMMON_H */
