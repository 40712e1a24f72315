/* The benchmarks' fake vsync (bench_game, bench_latency): a display whose
 * vblank k is at origin + k * period on tempo_now_ns()'s clock, and a
 * present that blocks until the next one, as a vsync'd SDL_RenderPresent
 * blocks until the next vblank; and a busy wait that stands for a render's
 * cost. Header only; needs tempo/tempo.h. Thread: any (no shared state;
 * each caller owns its timer). */
#ifndef TEMPO_BENCH_VSYNC_H
#define TEMPO_BENCH_VSYNC_H

#include <stdint.h>

#include "tempo/tempo.h"

/* Index k >= 1 of the first vblank strictly after t (origin + k * period):
 * the one a frame whose present is done at t is shown on. 1 for t before
 * the origin. */
static inline uint64_t bench_vblank_after(uint64_t origin_ns, uint64_t period_ns, uint64_t t)
{
    return t >= origin_ns ? (t - origin_ns) / period_ns + 1 : 1;
}

/* The fake vsync's block: sleeps on `timer` (a one-shot tempo_timer the
 * caller owns) until the first vblank after t, where t is when the present's
 * own work was done; returns that vblank's index. */
static inline uint64_t bench_vsync_wait(tempo_handle *timer, uint64_t origin_ns, uint64_t period_ns, uint64_t t)
{
    uint64_t k = bench_vblank_after(origin_ns, period_ns, t);
    tempo_timer_set(timer, origin_ns + k * period_ns, 0);
    tempo_wait(&timer, 1, TEMPO_INFINITE, 0);
    return k;
}

/* Busy for ns on the calling thread: work that costs CPU time (a render, a
 * message's handling), not a sleep the OS could shorten or stretch. */
static inline void bench_spin_ns(uint64_t ns)
{
    uint64_t end = tempo_now_ns() + ns;
    while (tempo_now_ns() < end) {
    }
}

#endif /* TEMPO_BENCH_VSYNC_H */
