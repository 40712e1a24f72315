/* Clock and precise sleep on SDL (a common module: the sdl and web backends).
 *
 * On POSIX systems the clock is CLOCK_MONOTONIC, the same clock ppoll() and
 * clock_nanosleep() count timeouts on, so deadlines computed here and
 * timeouts handed to the kernel agree to the nanosecond. On Windows the
 * clock and process usage are platform/common/plat_clock_windows.c's, shared
 * with the win32 backend (QueryPerformanceCounter, as SDL's performance
 * counter is there). Elsewhere SDL's performance counter is used. */
#if defined(TEMPO_HAVE_CLOCK_GETTIME)
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <time.h>
#endif

#include <SDL.h>

#include "plat_clock.h"

#if defined(TEMPO_HAVE_CLOCK_GETTIME)

uint64_t plat_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void plat_sleep_until_ns(uint64_t deadline_ns)
{
    struct timespec ts = {
        .tv_sec = (time_t)(deadline_ns / 1000000000u),
        .tv_nsec = (long)(deadline_ns % 1000000000u),
    };
    /* Absolute sleep: an interrupted sleep resumes toward the same instant. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

#else

#include "plat_sdl_clock.h"

#if !defined(_WIN32)
uint64_t plat_now_ns(void)
{
    return plat_sdl_counter_ns();
}
#endif

void plat_sleep_until_ns(uint64_t deadline_ns)
{
    plat_sdl_delay_until_ns(deadline_ns, plat_now_ns);
}

#endif

/* ---- Process usage ------------------------------------------------------ */

#if defined(TEMPO_HAVE_CLOCK_GETTIME)
#include <string.h>
#include <sys/resource.h>

#include "tempo_internal.h"

int plat_process_usage(tempo_usage *out)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return tempo__set_error(TEMPO_EPLATFORM, "getrusage: %s", strerror(errno));
    out->cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
                  ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
    out->voluntary_switches = (uint64_t)ru.ru_nvcsw;
    out->has_switches = true;
    return 0;
}

#elif defined(_WIN32)

/* platform/common/plat_clock_windows.c */

#else

int plat_process_usage(tempo_usage *out)
{
    (void)out;
    return TEMPO_ENOTSUP;
}

#endif
