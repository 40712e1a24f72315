/* Cross-thread SDL_PushEvent announcements, shared by every backend.
 *
 * A message wait must end when another thread pushes an SDL event. Both
 * backends hear of such pushes through an SDL event watch, but SDL2 calls
 * watches *before* it appends the event to its queue, so a waiter woken by
 * the watch can look at the queue a moment too early and find it empty.
 * The watch therefore announces each push (plat_announce_push); a wait that
 * finds SDL's queue empty while an announcement is unaccounted for re-checks
 * a few times with growing delays (plat_announce_recheck) before it takes
 * the push as landed elsewhere or filtered out. The cost is a handful of
 * extra wake-ups per cross-thread SDL_PushEvent; Tempo events, the
 * recommended cross-thread signal, never take this path.
 *
 * Pure logic on caller-supplied times (unit-tested on a fake clock). */
#ifndef TEMPO_PLAT_ANNOUNCE_H
#define TEMPO_PLAT_ANNOUNCE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct plat_announce {
    atomic_uint announced; /* [any thread] pushes announced by the watch */
    unsigned seen;         /* [loop thread] announcements known to have landed */
    size_t rechecks;       /* [loop thread] re-checks spent on `announced` */
} plat_announce;

/* Delays of the successive re-checks: a preempted pusher usually appends
 * within microseconds; 10 ms covers a descheduled one on a loaded machine. */
static const uint64_t PLAT_ANNOUNCE_RECHECK_NS[] = {50000, 1000000, 10000000};
#define PLAT_ANNOUNCE_RECHECKS (sizeof PLAT_ANNOUNCE_RECHECK_NS / sizeof PLAT_ANNOUNCE_RECHECK_NS[0])

/* [any thread, in the SDL event watch] */
static inline void plat_announce_push(plat_announce *a)
{
    atomic_fetch_add(&a->announced, 1);
}

/* [loop thread] Read before looking at SDL's queue. */
static inline unsigned plat_announce_snapshot(plat_announce *a)
{
    return atomic_load(&a->announced);
}

/* [loop thread] SDL's queue held events after `snapshot` was taken: the
 * pushes announced by then have landed. */
static inline void plat_announce_landed(plat_announce *a, unsigned snapshot)
{
    a->seen = snapshot;
    a->rechecks = 0;
}

/* [loop thread] SDL's queue was empty: returns `wake_at`, brought forward to
 * the next re-check while a push announced by `snapshot` is unaccounted for. */
static inline uint64_t plat_announce_recheck(plat_announce *a, unsigned snapshot, uint64_t now,
                                             uint64_t wake_at)
{
    if (snapshot == a->seen)
        return wake_at;
    if (a->rechecks < PLAT_ANNOUNCE_RECHECKS) {
        uint64_t at = now + PLAT_ANNOUNCE_RECHECK_NS[a->rechecks++];
        return at < wake_at ? at : wake_at;
    }
    plat_announce_landed(a, snapshot); /* landed elsewhere or filtered out */
    return wake_at;
}

#endif /* TEMPO_PLAT_ANNOUNCE_H */
