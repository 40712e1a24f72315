/* See harness.h. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* RUSAGE_THREAD */
#endif
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/resource.h>
#endif
#if defined(_WIN32)
#include <direct.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

static int failures_in_case;
/* The first check that failed in the running case, "file:line: what", for the recap. */
static char first_check[160];
/* The recap the run ends with, on stderr: meson prints only the last 100 lines of a failed test's
 * output, so a case that failed early is named again at the end (and ./dev's tally reads it there). */
enum { RECAP_MAX = 16 };
static struct {
    const char *name;
    char check[sizeof first_check];
} recap[RECAP_MAX];
static int recap_n;
static jmp_buf skip_jump;
static bool skip_jump_armed;

bool tt_failed(void)
{
    return failures_in_case > 0;
}

void tt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "    %s:%d: ", file, line);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    if (failures_in_case++ == 0) {
        int n = snprintf(first_check, sizeof first_check, "%s:%d: ", file, line);
        if (n > 0 && (size_t)n < sizeof first_check) {
            va_start(ap, fmt);
            vsnprintf(first_check + n, sizeof first_check - (size_t)n, fmt, ap);
            va_end(ap);
        }
        for (char *c = first_check; *c != '\0'; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
    }
}

void tt_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("    # ", stdout);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
}

_Noreturn void tt_skip(const char *why)
{
    fprintf(stdout, "    skipped: %s\n", why);
    if (!skip_jump_armed)
        abort();
    longjmp(skip_jump, 1);
}

bool tt_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* The calling thread's voluntary context switches and page faults, where
 * the OS counts them per thread (Linux). */
static bool thread_usage(uint64_t *switches, uint64_t *faults)
{
#if defined(__linux__) && defined(RUSAGE_THREAD)
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        *switches = (uint64_t)ru.ru_nvcsw;
        *faults = (uint64_t)ru.ru_minflt;
        return true;
    }
#endif
    (void)switches;
    (void)faults;
    return false;
}

bool tt_thread_switches(uint64_t *out)
{
    uint64_t faults;
    return thread_usage(out, &faults);
}

bool tt_thread_page_faults(uint64_t *out)
{
    uint64_t switches;
    return thread_usage(&switches, out);
}

static bool selected(int argc, char **argv, const char *name)
{
    if (argc <= 1)
        return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i]) != NULL)
            return true;
    return false;
}

int tt_main(int argc, char **argv, const tt_case *cases, size_t n)
{
    /* Output order matters when a case crashes: no buffering surprises. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* volatile: they live across setjmp/longjmp. */
    volatile int passed = 0, failed = 0, skipped = 0;
    for (volatile size_t i = 0; i < n; i++) {
        if (!selected(argc, argv, cases[i].name))
            continue;
        failures_in_case = 0;
        first_check[0] = '\0';
        fprintf(stdout, "--- %s\n", cases[i].name);
        skip_jump_armed = true;
        if (setjmp(skip_jump) == 0) {
            cases[i].fn();
            skip_jump_armed = false;
            if (failures_in_case == 0) {
                fprintf(stdout, "ok   %s\n", cases[i].name);
                passed++;
            } else {
                fprintf(stdout, "FAIL %s\n", cases[i].name);
                if (recap_n < RECAP_MAX) {
                    recap[recap_n].name = cases[i].name;
                    memcpy(recap[recap_n].check, first_check, sizeof first_check);
                    recap_n++;
                }
                failed++;
            }
        } else {
            skip_jump_armed = false;
            fprintf(stdout, "skip %s\n", cases[i].name);
            skipped++;
        }
    }
    /* On stderr: meson's log of a test is its stdout, then its stderr, and
     * shows the last 100 lines; a program whose code under test logs on
     * stderr (conformance: tens of thousands of WARN lines from its misuse
     * cases) pushes everything on stdout out of them. */
    fflush(stdout);
    for (int k = 0; k < recap_n; k++)
        fprintf(stderr, "FAILED %s (%s)\n", recap[k].name, recap[k].check);
    if (failed > recap_n)
        fprintf(stderr, "FAILED and %d more\n", (int)failed - recap_n);
    fflush(stderr);
    if (skipped > 0)
        fprintf(stdout, "%d passed, %d failed, %d skipped\n", (int)passed, (int)failed, (int)skipped);
    else
        fprintf(stdout, "%d passed, %d failed\n", (int)passed, (int)failed);
    return failed > 0 ? 1 : 0;
}

bool tt_make_temp_dir(const char *prefix, char *out, size_t size)
{
#if defined(_WIN32)
    char tmp[MAX_PATH];
    DWORD n = GetTempPathA(sizeof tmp, tmp);
    if (n == 0 || n >= sizeof tmp)
        return false;
    for (int i = 0; i < 1000; i++) {
        snprintf(out, size, "%s%s-%lu-%d", tmp, prefix, (unsigned long)GetCurrentProcessId(), i);
        if (_mkdir(out) == 0)
            return true;
    }
    return false;
#else
    const char *tmp = getenv("TMPDIR");
    snprintf(out, size, "%s/%s-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp", prefix);
    return mkdtemp(out) != NULL;
#endif
}
