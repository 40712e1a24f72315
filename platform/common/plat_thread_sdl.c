/* Threads and mutexes on SDL (a common module: the sdl and fake backends):
 * thin wrappers over SDL's. */
#if defined(__linux__)
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE /* RUSAGE_THREAD, SCHED_IDLE, gettid */
#endif
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#elif defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <errno.h>
#include <string.h>
#include <time.h>
#endif
#include <stdlib.h>

#include <SDL.h>

#include "plat_thread.h"
#include "tempo_internal.h"

/* plat_thread_background_yield: a background thread yields at most this
 * often while it works; a yield that kept it off the core this long or
 * longer means another thread wanted the core, so it yields again, for
 * this long at most in one call. */
#define YIELD_EVERY_NS (500 * TEMPO_NS_PER_US)
#define YIELD_CONTENDED_NS (50 * TEMPO_NS_PER_US)
#define YIELD_AT_MOST_NS (20 * TEMPO_NS_PER_MS)

plat_thread *plat_thread_create(int (*fn)(void *arg), const char *name, void *arg)
{
    SDL_Thread *t = SDL_CreateThread(fn, name, arg);
    if (t == NULL)
        tempo__set_error(TEMPO_EPLATFORM, "SDL_CreateThread(%s): %s", name, SDL_GetError());
    return (plat_thread *)t;
}

int plat_thread_join(plat_thread *t)
{
    int status = 0;
    SDL_WaitThread((SDL_Thread *)t, &status);
    return status;
}

int plat_thread_set_background(void)
{
#if defined(__linux__)
    /* Policy and nice value are per thread on Linux: its id for
     * setpriority, 0 (the caller) for sched_setscheduler. SCHED_IDLE
     * ignores the nice value, but the disk's default priority follows it.
     * Each is tried even if the other is refused (a sandbox may forbid
     * changing the policy). */
    int rc = 0;
    if (setpriority(PRIO_PROCESS, (id_t)gettid(), 19) != 0)
        rc = tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EPLATFORM, "background thread: setpriority(19): %s",
                                 strerror(errno));
    struct sched_param param = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &param) != 0)
        rc = tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EPLATFORM,
                                 "background thread: sched_setscheduler(SCHED_IDLE): %s", strerror(errno));
    return rc;
#else
    if (SDL_SetThreadPriority(SDL_THREAD_PRIORITY_LOW) != 0)
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EPLATFORM,
                                   "background thread: SDL_SetThreadPriority(LOW): %s", SDL_GetError());
    return 0;
#endif
}

#if defined(__linux__)
/* The OS's own clock: the fake backend's plat_now_ns is virtual. */
static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * TEMPO_NS_PER_S + (uint64_t)ts.tv_nsec;
}
#endif

void plat_thread_background_yield(bool woke)
{
#if defined(__linux__)
    static _Thread_local uint64_t last_ns;
    uint64_t start = monotonic_ns(), now = start, before;
    if (!woke && now - last_ns < YIELD_EVERY_NS)
        return;
    /* sched_yield() returns when the scheduler picks this thread again,
     * and then the thread would work through the turn that pick gave it:
     * a whole work item (1.5 ms in bench_game's burst) in the middle of
     * the loop thread's frame. So while yields come back late, it yields
     * again. */
    do {
        before = now;
        (void)sched_yield(); /* it cannot fail on Linux */
        now = monotonic_ns();
    } while (now - before >= YIELD_CONTENDED_NS && now - start < YIELD_AT_MOST_NS);
    last_ns = now;
#else
    (void)woke;
#endif
}

plat_mutex *plat_mutex_create(void)
{
    SDL_mutex *m = SDL_CreateMutex();
    if (m == NULL)
        tempo__set_error(TEMPO_EPLATFORM, "SDL_CreateMutex: %s", SDL_GetError());
    return (plat_mutex *)m;
}

void plat_mutex_destroy(plat_mutex *m)
{
    SDL_DestroyMutex((SDL_mutex *)m);
}

void plat_mutex_lock(plat_mutex *m)
{
    SDL_LockMutex((SDL_mutex *)m);
}

void plat_mutex_unlock(plat_mutex *m)
{
    SDL_UnlockMutex((SDL_mutex *)m);
}

/* The SDL backend runs on several OSes, each with its own per-thread count. */
int plat_thread_cpu_ns(uint64_t *out_ns)
{
#if defined(__linux__)
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return tempo__set_error(TEMPO_EPLATFORM, "getrusage(RUSAGE_THREAD): %s", strerror(errno));
    *out_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
              ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
    return 0;
#elif defined(_WIN32)
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return tempo__set_error(TEMPO_EPLATFORM, "GetThreadTimes: error %lu", GetLastError());
    uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
    *out_ns = (k + u) * 100u; /* FILETIME counts 100 ns units */
    return 0;
#elif defined(CLOCK_THREAD_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return tempo__set_error(TEMPO_EPLATFORM, "clock_gettime(CLOCK_THREAD_CPUTIME_ID): %s", strerror(errno));
    *out_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
#else
    (void)out_ns;
    return TEMPO_ENOTSUP;
#endif
}
