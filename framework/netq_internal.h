/* The network message queue's insides, shared by its two files
 * (tempo/netq.h is the public side):
 *
 *   netq.c         the queue: the ring, push (any thread), the drain and its
 *                  policies, the statistics
 *   netq_source.c  the queue as a loop source (tempo_netq_attach/_detach):
 *                  the loop's dispatch drains it, each message delivered
 *                  through the loop (tempo_loop_source_deliver: replay)
 *
 * netq_source.c calls down into netq.c (tempo__netq_drain); netq.c calls
 * nothing in netq_source.c (its destroy leaves the loop through the
 * attachment's stored `leave`, sources_internal.h).
 *
 * Locking: netq.c's opening comment. */
#ifndef TEMPO_NETQ_INTERNAL_H
#define TEMPO_NETQ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"
#include "sources_internal.h"
#include "tempo/netq.h"

struct tempo_netq {
    plat_mutex *lock;
    tempo_handle *ready; /* manual-reset: messages are queued */
    tempo_handle *room;  /* auto-reset: a drain freed room for push_wait */
    uint64_t (*now)(void *user); /* desc.clock's, or tempo_now_ns */
    void *clock_user;

    /* [lock] */
    unsigned char *buf;
    size_t cap, head, tail, used;
    uint32_t count;
    bool shut;
    uint32_t room_waiters;
    uint64_t pushed, overflows, full_waits;
    uint32_t peak;
    tempo_netq_stats pub; /* consumer-side fields, published by each drain */

    /* [loop thread] */
    tempo_netq_desc d; /* with defaults filled in */
    tempo_netq_policy policy;
    uint64_t budget; /* CLASSIC's adaptive budget */
    bool draining; /* a drain (the game's or the loop's) is calling handlers:
                      a drain or destroy from one is refused */
    /* The current frame: its planned budget and what it has spent (the loop
     * may dispatch a source more than once per frame). */
    uint64_t frame_budget, frame_spent;
    bool frame_flush;
    uint64_t frames;
    /* Attached to a loop (tempo_netq_attach): netq_source.c's; the queue
     * reads only at.loop (a drain by the game is refused while attached)
     * and leaves through `at` when destroyed. */
    tempo__attachment at;
    tempo_netq_handler att_fn;
    void *att_user;
    uint64_t att_frame; /* the loop's frame number at the last dispatch */
    bool att_seen;
    /* DEADLINE's measurements (estimates, so floating point). */
    bool have_start, have_cost, left_backlog;
    uint64_t last_start, last_pushed;
    double interval_ns, cost_ns, rate_per_ns;
};

/* One drain call's frame context. */
typedef struct tempo__netq_drain_args {
    bool new_frame;        /* the first drain of a frame: plan its budget */
    uint64_t empty_frames; /* frames since the last drain that had none */
    uint64_t to_deadline;  /* time left before the caller's deadline; UINT64_MAX: none */
    bool must_progress;    /* handle at least one message even with no budget left */
} tempo__netq_drain_args;

/* [loop thread] One drain: hands the queued messages to `fn` within the
 * frame's budget (the policy's plan). `out` (optional: the loop's dispatch)
 * gets the items and the oldest age for the loop's statistics. Returns the
 * messages handled, or TEMPO_EBUSY from one of the queue's own handlers. */
int tempo__netq_drain(tempo_netq *q, tempo_netq_handler fn, void *user, const tempo__netq_drain_args *a,
                      tempo_source_call *out);

#endif /* TEMPO_NETQ_INTERNAL_H */
