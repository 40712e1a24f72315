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
 * (sdl backend): SCHED_IDLE (and nice 19, which the disk's priority
 * follows). On EEVDF kernels (Linux 6.6 on) nice 19 alone let a loader
 * thread woken by the loop thread preempt it on its own core (1.85 ms,
 * bench_game's submit frame); SCHED_BATCH stopped that. SCHED_IDLE keeps
 * it, weighs a fifth of nice 19, and a thread that wakes on its core takes
 * it at once, without the rest of its slice (Linux 6.12 on). With a 20 ms
 * slice for the loop thread (since dropped) it cut the time bench_game's
 * first burst drains spent off the core from 1.0-1.3 ms to 0.2-0.5 ms
 * (docs/bench-game.md). What no policy avoids (bench_sched): pinned to
 * one core with a busy thread, a freshly woken thread soon gets a tick of
 * it, unless it gives that turn up (plat_thread_background_yield).
 * Elsewhere on the sdl backend: SDL_THREAD_PRIORITY_LOW. win32:
 * THREAD_PRIORITY_LOWEST. web: TEMPO_ENOTSUP (the browser schedules its
 * workers). Returns 0, TEMPO_ENOTSUP, or TEMPO_EPLATFORM (the OS refused,
 * as a sandbox may; the detail set and logged at debug level only: the
 * caller decides whether that matters, and a background thread is
 * optional). Thread: the one to lower; it cannot be undone (the thread
 * keeps it until it ends). */
int plat_thread_set_background(void);

/* Spends the turn a wake-up gave a background thread, so that the threads
 * it shares its core with keep the core. Call it right after the thread
 * wakes from a wait (`woke` true) and between units of its work (false:
 * then it yields only if 0.5 ms or more of wall time have passed since
 * its last yield: ~2000 yields a second at most). Linux (EEVDF): a thread
 * that wakes is placed owing no time, so it counts as eligible against a
 * thread that has run since it was placed, SCHED_IDLE or not; at the
 * next pick on that core (a kernel worker's 10 us preemption, or the end
 * of the running thread's protected slice) it gets the core for the rest
 * of a tick (up to 4 ms at HZ=250). sched_yield() gives that turn up. On
 * the 2-core 6.18 VM, pinned to one core with such a thread (bench_sched,
 * B and C), a frame thread lost ~4 ms in 59-61 of 240 frames without it
 * and in none with it; beside a kworker-like waker, ~2 ms in 180-187 of
 * 240 without it and in none with it. sched_yield() returns when the
 * thread is picked again, and a pick while the core is still wanted
 * would give it a turn all the same: so while a yield kept it off the
 * core 50 us or more (another thread ran), it yields again, for 20 ms at
 * most per call (then it works: a core that stays busy still lets it
 * progress). bench_game's fake vsync, 3 x 40 short rounds each way,
 * interleaved: the burst's first two drains lost 1 ms or more off the
 * core in 18 of 120 rounds with one yield per call (perf: the loader's
 * thread, picked again, working 1.5 ms on a request), in 2 of 120 with
 * this. A thread that works long between two calls keeps the turn until
 * the next call. A read that waits on the disk wakes the thread too: the
 * loader calls this (true) between a file's read and its decode. Without
 * that, bench_game's 8 s rounds still lost 0.8 ms or more in a drain in 3
 * of 20 (perf: the loader woken from a read onto the loop thread's core,
 * decoding 1.4 ms there); with it (false at first), in 0 of 20
 * (interleaved); pinned to one core (bench_sched E), 21 of 240 frames
 * lost over 1 ms to a loader's decodes without it, 0-1 with it. With
 * false, a read that waited briefly, less than 0.5 ms after the yield
 * before its request, still decoded on the loop thread's core: 1.4-1.8 ms
 * in 3 of 20 rows under perf, none with true. Where nothing else wants
 * the core it returns at once.
 * Other OSes and backends: nothing (Windows' priorities are strict; the
 * browser schedules its workers). Thread: a background thread
 * (plat_thread_set_background). */
void plat_thread_background_yield(bool woke);

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
