/* The clock and process usage on Windows, for both backends.
 *
 * The sdl and win32 backends built for Windows count time the same way: the
 * clock is QueryPerformanceCounter (SDL's performance counter is that too),
 * and CPU time is GetProcessTimes. One copy here; each backend keeps its own
 * plat_sleep_until_ns (win32: high-resolution waitable timers; sdl:
 * SDL_Delay). Compiled only when the host is Windows (platform/meson.build).
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdatomic.h>

#include "plat_clock.h"
#include "tempo_internal.h"

uint64_t plat_now_ns(void)
{
    /* The frequency is fixed at boot; a racy first write stores the same value. */
    static atomic_llong freq;
    long long f = atomic_load_explicit(&freq, memory_order_relaxed);
    if (f == 0) {
        LARGE_INTEGER li;
        QueryPerformanceFrequency(&li); /* cannot fail since Windows XP */
        f = li.QuadPart;
        atomic_store_explicit(&freq, f, memory_order_relaxed);
    }
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    uint64_t ticks = (uint64_t)c.QuadPart, hz = (uint64_t)f;
    /* Split so ticks * 1e9 cannot overflow (it would after ~30 min at 10 MHz). */
    return (ticks / hz) * 1000000000u + (ticks % hz) * 1000000000u / hz;
}

int plat_process_usage(tempo_usage *out)
{
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return tempo__set_error(TEMPO_EPLATFORM, "GetProcessTimes: error %lu",
                                (unsigned long)GetLastError());
    uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
    out->cpu_ns = (k + u) * 100u; /* FILETIME counts 100 ns units */
    out->voluntary_switches = 0;  /* Windows keeps no per-process count */
    out->has_switches = false;
    return 0;
}
