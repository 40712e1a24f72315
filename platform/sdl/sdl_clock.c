/* Clock and precise sleep of the SDL backend.
 *
 * On POSIX systems the clock is CLOCK_MONOTONIC, the same clock ppoll() and
 * clock_nanosleep() count timeouts on, so deadlines computed here and
 * timeouts handed to the kernel agree to the nanosecond. On Windows the
 * clock and process usage are platform/common/plat_clock_windows.c's, shared
 * with the win32 backend (QueryPerformanceCounter, as SDL's performance
 * counter is there). Elsewhere SDL's performance counter is used. */
#if defined(TEMPO_HAVE_CLOCK_GETTIME)
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#endif

#include <SDL.h>

#include "platform.h"

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

#if !defined(_WIN32)
uint64_t plat_now_ns(void)
{
    static Uint64 freq;
    if (freq == 0)
        freq = SDL_GetPerformanceFrequency(); /* constant; a racy first write stores the same value */
    Uint64 c = SDL_GetPerformanceCounter();
    /* Split to avoid overflowing c * 1e9 (it would after ~30 min at 10 MHz). */
    return (c / freq) * 1000000000u + (c % freq) * 1000000000u / freq;
}
#endif

void plat_sleep_until_ns(uint64_t deadline_ns)
{
    /* SDL_Delay counts milliseconds: round up so we never wake early. */
    for (uint64_t now = plat_now_ns(); now < deadline_ns; now = plat_now_ns()) {
        uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
        SDL_Delay(ms > 0x7fffffffu ? 0x7fffffffu : (Uint32)ms);
    }
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
