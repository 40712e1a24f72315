/* Tempo: one clock shape for the loop, the loader and the network queue.
 *
 * Everything in Tempo that reads time or sleeps takes a tempo_clock in its
 * descriptor. A zero tempo_clock is the real monotonic clock (tempo_now_ns)
 * with real waits; a test, a replay or a tool replaces it, and one
 * replacement then drives every object it is given to, so a loop, its
 * loader and its network queue agree on "now" to the nanosecond:
 *
 *   tempo_fake_clock *fc = tempo_fake_clock_create(1000 * TEMPO_NS_PER_MS);
 *   tempo_clock clk = tempo_fake_clock_get(fc);
 *   tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.clock = clk});
 *   tempo_loader *ld = tempo_loader_create(&(tempo_loader_desc){.clock = clk});
 *   tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.clock = clk, ...});
 *   tempo_loop_frame(loop);              // "sleeps" by advancing fc
 *   tempo_fake_clock_advance(fc, 5 * TEMPO_NS_PER_MS);
 *   ...
 *   tempo_loop_destroy(loop); ...; tempo_fake_clock_destroy(fc);
 *
 * Only a loop sleeps; the loader and the queue only read the time.
 */
#ifndef TEMPO_CLOCK_H
#define TEMPO_CLOCK_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A clock. Zero-initialised: the real clock. The fields are laid out so a
 * positional initialiser {now, wait_until, user} also fits the older
 * tempo_loop_clock, which is now this type. */
typedef struct tempo_clock {
    /* Current time in ns; must never go backwards. NULL => tempo_now_ns()
     * and real waits (wait_until and user are then ignored). A clock given
     * to a tempo_netq is read by every pushing thread: it must be
     * thread-safe there. */
    uint64_t (*now)(void *user);
    /* Called by a loop instead of sleeping until `deadline_ns`
     * (TEMPO_INFINITE: nothing is due, e.g. while paused). A fake clock
     * typically advances its time to the deadline; it may also stop
     * earlier (as if input woke the loop) or later (a late wake-up): the
     * loop copes with both. NULL => return at once. Called on the loop
     * thread only. */
    void (*wait_until)(void *user, uint64_t deadline_ns);
    void *user; /* passed to both */
} tempo_clock;

/* The time on `clock`: clock->now(clock->user), or tempo_now_ns() when
 * `clock` or its `now` is NULL. Thread: whatever clock->now allows (the
 * real clock: any). */
TEMPO_API uint64_t tempo_clock_now(const tempo_clock *clock);

/* True when `clock` replaces the real one (clock->now is set). */
TEMPO_API bool tempo_clock_is_fake(const tempo_clock *clock);

/* ---- A ready-made fake clock ---------------------------------------------
 * Time stands still until advanced, by the test (tempo_fake_clock_advance /
 * _set) or by a loop's wait (the clock's wait_until jumps to the deadline,
 * or asks the wait hook where to stop). Reading and advancing are atomic:
 * any thread may read it or move it forward (a producer thread stamping
 * queue messages, a test thread), and time never goes backwards. */

typedef struct tempo_fake_clock tempo_fake_clock;

/* Decides where a loop's wait on the fake clock ends: returns the time to
 * jump to, from `now_ns` (the clock's time when the wait began) and the
 * loop's `deadline_ns` (TEMPO_INFINITE when nothing is due). Returning
 * less than the deadline models an early wake-up (input arrived: push the
 * SDL event from the hook), more models a late one. A value below now_ns
 * leaves the time unchanged. Called on the loop thread, inside
 * wait_until. */
typedef uint64_t (*tempo_fake_clock_wait_fn)(void *user, uint64_t now_ns, uint64_t deadline_ns);

/* What the loop's waits on a fake clock did (tempo_fake_clock_get_stats). */
typedef struct tempo_fake_clock_stats {
    uint64_t waits;          /* wait_until calls */
    uint64_t infinite_waits; /* of those, with TEMPO_INFINITE (a paused or idle loop) */
    uint64_t slept_ns;       /* time the waits advanced the clock in total */
} tempo_fake_clock_stats;

/* Creates a fake clock showing `start_ns`. Returns it (owned by the
 * caller) or NULL (TEMPO_ENOMEM, see tempo_get_error()). Thread: any. */
TEMPO_API tempo_fake_clock *tempo_fake_clock_create(uint64_t start_ns);

/* Frees it. Nothing that was given tempo_fake_clock_get(fc) may still use
 * it. NULL is a no-op. Thread: any. */
TEMPO_API void tempo_fake_clock_destroy(tempo_fake_clock *fc);

/* The tempo_clock to put in descriptors: reads `fc`, and its wait_until
 * advances `fc` (see tempo_fake_clock_wait_fn; without a hook it jumps to
 * the deadline, and a TEMPO_INFINITE deadline leaves the time alone). The
 * value may be copied freely; it stays valid while `fc` lives.
 * A zero (real) clock for NULL. Thread: any. */
TEMPO_API tempo_clock tempo_fake_clock_get(tempo_fake_clock *fc);

/* The fake time. 0 for NULL. Thread: any. */
TEMPO_API uint64_t tempo_fake_clock_now(const tempo_fake_clock *fc);

/* Moves the time forward by `ns` (saturating). Returns the new time (0 for
 * NULL). Thread: any. */
TEMPO_API uint64_t tempo_fake_clock_advance(tempo_fake_clock *fc, uint64_t ns);

/* Sets the time to `t_ns`. Returns 0, TEMPO_EINVAL (NULL) or TEMPO_ERANGE
 * (t_ns is before the current time: the clock is unchanged). Thread: any. */
TEMPO_API int tempo_fake_clock_set(tempo_fake_clock *fc, uint64_t t_ns);

/* Replaces how a loop's wait advances the clock (NULL fn: jump to the
 * deadline). Thread: the loop thread, between frames. */
TEMPO_API void tempo_fake_clock_on_wait(tempo_fake_clock *fc, tempo_fake_clock_wait_fn fn,
                                        void *user);

/* Fills *out with the wait counters since creation. Returns 0 or
 * TEMPO_EINVAL. Thread: the loop thread. */
TEMPO_API int tempo_fake_clock_get_stats(const tempo_fake_clock *fc, tempo_fake_clock_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_CLOCK_H */
