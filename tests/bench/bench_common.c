/* See bench_common.h. */
#ifndef _POSIX_C_SOURCE /* a build's flags may define it already */
#define _POSIX_C_SOURCE 200809L /* popen, pclose under -std=c11 */
#endif
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define popen _popen
#define pclose _pclose
#else
#include <sys/wait.h>
#endif

int bench_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int bench_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int bench_cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rank (1-based) of the nearest-rank percentile; the 0.999999 rounds up
 * without letting 99% of 100 samples become rank 100 through float error. */
static size_t rank_of(size_t n, double p)
{
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
    if (rank == 0)
        rank = 1;
    return rank > n ? n : rank;
}

uint64_t bench_pct_u64(const uint64_t *v, size_t n, double p)
{
    return n == 0 ? 0 : v[rank_of(n, p) - 1];
}

int64_t bench_pct_i64(const int64_t *v, size_t n, double p)
{
    return n == 0 ? 0 : v[rank_of(n, p) - 1];
}

int bench_run_child(const char *self, const char *args, void (*on_line)(const char *line, void *user),
                    void *user)
{
    char cmd[4096];
#if defined(_WIN32)
    /* cmd.exe /c strips the outermost quotes: wrap the whole line once more. */
    snprintf(cmd, sizeof cmd, "\"\"%s\" %s\"", self, args);
#else
    /* Single-quote self for /bin/sh: ' becomes '\''. */
    char quoted[2048];
    size_t j = 0;
    for (const char *c = self; *c != '\0' && j + 5 < sizeof quoted; c++) {
        if (*c == '\'') {
            memcpy(quoted + j, "'\\''", 4);
            j += 4;
        } else {
            quoted[j++] = *c;
        }
    }
    quoted[j] = '\0';
    snprintf(cmd, sizeof cmd, "'%s' %s", quoted, args);
#endif
    fflush(stdout);
    fflush(stderr);
    FILE *p = popen(cmd, "r");
    if (p == NULL) {
        fprintf(stderr, "bench: cannot run %s\n", cmd);
        return -1;
    }
    char line[4096];
    while (fgets(line, sizeof line, p) != NULL)
        on_line(line, user);
    int status = pclose(p);
#if defined(_WIN32)
    return status;
#else
    return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
#endif
}

FILE *bench_data_open(const char *name)
{
    const char *dir = getenv("TEMPO_BENCH_DATA");
    if (dir == NULL || dir[0] == '\0')
        return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "bench: cannot write %s (plot data skipped)\n", path);
    return f;
}

void bench_default_cache(char *buf, size_t size, const char *name)
{
    static const char *const vars[] = {"TMPDIR", "TEMP", "TMP"};
    const char *dir = "/tmp";
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && v[0] != '\0') {
            dir = v;
            break;
        }
    }
    snprintf(buf, size, "%s/%s", dir, name);
}

void bench_fmt_ratio(char *buf, size_t size, double a, double b)
{
    if (!(b > 0) || !(a >= 0))
        snprintf(buf, size, "-");
    else if (a / b >= 9.95)
        snprintf(buf, size, "%.0fx", a / b);
    else if (a / b >= 0.995)
        snprintf(buf, size, "%.1fx", a / b);
    else
        snprintf(buf, size, "%.2gx", a / b);
}

double bench_load_average(void)
{
    double load = -1;
#if defined(__linux__)
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
#endif
    return load;
}
