/* Tempo's in-tree test harness.
 *
 * A test program lists its cases and hands them to tt_main():
 *
 *   static void auto_reset(void) { CHECK_EQ_INT(tempo_wait(...), 0); }
 *   static const tt_case cases[] = { TT_CASE(auto_reset), ... };
 *   int main(int argc, char **argv) { return TT_MAIN(argc, argv, cases); }
 *
 * Every check prints both sides on failure. A case fails if any check in it
 * fails (it keeps running, so one run shows every broken assertion); a case
 * may call TT_SKIP("why") to stop and count as skipped. The failed cases are
 * named again at the end, on stderr, "FAILED case (file:line: first check)":
 * meson shows the last 100 lines of a failed test's stdout-then-stderr, so
 * they still say what failed when the code under test logged thousands of
 * lines. The last line on stdout is always "N passed, N failed" (", N
 * skipped" when some were). Arguments select cases by substring.
 */
#ifndef TEMPO_TEST_HARNESS_H
#define TEMPO_TEST_HARNESS_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tempo/base.h" /* TEMPO_PRINTF */

#define TT_PRINTF_(fmt, args) TEMPO_PRINTF(fmt, args)

typedef struct tt_case {
    const char *name;
    void (*fn)(void);
} tt_case;

#define TT_CASE(fn) {#fn, fn}
#define TT_MAIN(argc, argv, cases) tt_main((argc), (argv), (cases), sizeof(cases) / sizeof((cases)[0]))

int tt_main(int argc, char **argv, const tt_case *cases, size_t n);

/* Records a failure with a formatted explanation. */
void tt_fail(const char *file, int line, const char *fmt, ...) TT_PRINTF_(3, 4);
/* Ends the current case as skipped. */
_Noreturn void tt_skip(const char *why);
/* True once the current case has a failure (to stop loops early). */
bool tt_failed(void);
/* Informational line, indented under the case. */
void tt_note(const char *fmt, ...) TT_PRINTF_(1, 2);

#define TT_SKIP(why) tt_skip(why)

#define CHECK(cond)                                                    \
    do {                                                               \
        if (!(cond))                                                   \
            tt_fail(__FILE__, __LINE__, "CHECK(%s) is false", #cond);  \
    } while (0)

#define TT_CHECK_OP_(type, fmt, a, op, b)                                                       \
    do {                                                                                        \
        type tt_a_ = (a), tt_b_ = (b);                                                          \
        if (!(tt_a_ op tt_b_))                                                                  \
            tt_fail(__FILE__, __LINE__, "%s %s %s: %" fmt " vs %" fmt, #a, #op, #b, tt_a_, tt_b_); \
    } while (0)

#define CHECK_EQ_INT(a, b) TT_CHECK_OP_(long long, "lld", a, ==, b)
#define CHECK_NE_INT(a, b) TT_CHECK_OP_(long long, "lld", a, !=, b)
#define CHECK_LT_INT(a, b) TT_CHECK_OP_(long long, "lld", a, <, b)
#define CHECK_LE_INT(a, b) TT_CHECK_OP_(long long, "lld", a, <=, b)
#define CHECK_GE_INT(a, b) TT_CHECK_OP_(long long, "lld", a, >=, b)
#define CHECK_EQ_U64(a, b) TT_CHECK_OP_(uint64_t, PRIu64, a, ==, b)
#define CHECK_LE_U64(a, b) TT_CHECK_OP_(uint64_t, PRIu64, a, <=, b)
#define CHECK_GE_U64(a, b) TT_CHECK_OP_(uint64_t, PRIu64, a, >=, b)
#define CHECK_LT_U64(a, b) TT_CHECK_OP_(uint64_t, PRIu64, a, <, b)
#define CHECK_EQ_DBL(a, b) TT_CHECK_OP_(double, "g", a, ==, b)
#define CHECK_LE_DBL(a, b) TT_CHECK_OP_(double, "g", a, <=, b)
#define CHECK_GE_DBL(a, b) TT_CHECK_OP_(double, "g", a, >=, b)
#define CHECK_LT_DBL(a, b) TT_CHECK_OP_(double, "g", a, <, b)
#define CHECK_STR_EQ(a, b)                                                                 \
    do {                                                                                   \
        const char *tt_a_ = (a), *tt_b_ = (b);                                             \
        if (tt_a_ == NULL || tt_b_ == NULL || strcmp(tt_a_, tt_b_) != 0)                   \
            tt_fail(__FILE__, __LINE__, "%s == %s: \"%s\" vs \"%s\"", #a, #b,              \
                    tt_a_ ? tt_a_ : "(null)", tt_b_ ? tt_b_ : "(null)");                   \
    } while (0)

/* Environment switch shared by suites: set by ./dev where a case must not be
 * skipped (e.g. TEMPO_REQUIRE_X11=1 under Xvfb). */
bool tt_env_flag(const char *name);

/* Voluntary context switches of the calling thread so far (the times it
 * blocked), into *out; false where the OS does not count them per thread
 * (then use tempo_process_usage, which other threads add to). Wake-up
 * counts of one waiting thread do not grow with the machine's load, unlike
 * the process's (e.g. ThreadSanitizer's own thread wakes ~10/s). */
bool tt_thread_switches(uint64_t *out);
/* The calling thread's page faults so far (minor: a page first touched), where
 * the OS counts them per thread (Linux); false elsewhere. */
bool tt_thread_page_faults(uint64_t *out);

/* Makes a new, empty directory under the temporary directory (TMPDIR or
 * /tmp; GetTempPath on Windows) named PREFIX plus a unique suffix, and puts
 * its path in out. False when none could be made. Tests write their files
 * there, never into the source tree. */
bool tt_make_temp_dir(const char *prefix, char *out, size_t size);

#endif /* TEMPO_TEST_HARNESS_H */
