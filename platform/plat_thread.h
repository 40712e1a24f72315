/* Threads, locks and the thread CPU clock: what every port implements
 * (sdl, fake: common/plat_thread_sdl.c on SDL; win32: win32_thread.c;
 * web: web_thread.c on pthreads). Thread: any, except where it says
 * otherwise. */
#ifndef TEMPO_PLAT_THREAD_H
#define TEMPO_PLAT_THREAD_H

#include <stdbool.h>
#include <stdint.h>

typedef struct plat_thread plat_thread;
typedef struct plat_mutex plat_mutex;

/* Starts `fn(arg)` on a new thread called `name`. NULL on failure (detail
 * set with tempo__set_error). */
plat_thread *plat_thread_create(int (*fn)(void *arg), const char *name, void *arg);
/* Waits for the thread to finish, frees it, and returns fn's result. */
int plat_thread_join(plat_thread *t);

/* Makes the calling thread a background thread: a contended core goes to
 * the other threads first, and its wake-ups do not preempt them. Linux
 * (sdl backend): SCHED_BATCH at nice 19. Nice 19 alone is not enough on
 * EEVDF kernels (Linux 6.6 on): a nice-19 thread woken by the loop thread
 * could still preempt it on its own core, and ran there 1.85 ms while the
 * other core idled (bench_game, the frame that submits a level's load);
 * SCHED_BATCH threads never preempt on wake-up. Elsewhere on the sdl
 * backend: SDL_THREAD_PRIORITY_LOW. win32: THREAD_PRIORITY_LOWEST. web:
 * TEMPO_ENOTSUP (the browser schedules its workers). Returns 0,
 * TEMPO_ENOTSUP, or TEMPO_EPLATFORM (the OS refused, as a sandbox may;
 * the detail set and logged at debug level only: the caller decides
 * whether that matters, and a background thread is optional). Thread:
 * the one to lower; it cannot be undone (the thread keeps it until it
 * ends). */
int plat_thread_set_background(void);

/* Mutexes are not recursive (win32: SRW locks): never lock one twice on
 * the same thread. */
plat_mutex *plat_mutex_create(void);
void plat_mutex_destroy(plat_mutex *m);
void plat_mutex_lock(plat_mutex *m);
void plat_mutex_unlock(plat_mutex *m);

/* CPU time (user + system) the calling thread has used so far, in *out_ns.
 * Returns 0, TEMPO_ENOTSUP where the OS keeps no per-thread count, or
 * TEMPO_EPLATFORM. Resolution is the OS's: ~1 us on Linux (RUSAGE_THREAD),
 * the scheduler tick (~10-16 ms) on Windows and under wine (GetThreadTimes).
 * Used by the conformance suite to prove a passive wait burns no CPU. */
int plat_thread_cpu_ns(uint64_t *out_ns);

#endif /* TEMPO_PLAT_THREAD_H */
