/* Tempo: the throttled network message queue.
 *
 * Any thread pushes messages (a type and bytes, copied); the loop thread
 * drains them under a per-frame time budget, checking the clock after each
 * message, so a burst of thousands of messages is spread over frames instead
 * of freezing one:
 *
 *   tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){ .cap_bytes = 1 << 20 });
 *   tempo_netq_attach(q, loop, on_message, game);   // the loop drains it
 *   // network thread:  tempo_netq_push(q, MSG_SPAWN, &spawn, sizeof spawn);
 *
 * Attached to a tempo_loop (tempo/loop.h), the queue is one of the loop's
 * sources: the loop drains it on the loop thread when messages arrive, once
 * per frame under the policy's budget, with the time until the next update
 * or render as the frame's deadline, and counts every frame for the policy,
 * empty ones included. A game with its own main loop calls
 * tempo_netq_drain() (or tempo_netq_drain_until()) once per frame instead,
 * every frame, also when nothing is queued.
 *
 * The queue's handle is a manual-reset event: pushing into an empty queue
 * sets it (the loop wakes at once), and it stays set while messages remain.
 * The drain resets it when it leaves the queue empty.
 *
 * Policies (tempo_netq_policy) decide each frame's budget:
 *   DEADLINE      (the default) bounds both frame time and message age: each message should
 *                 be handled within target_age_ns of its push. Each drain's
 *                 budget is the larger of (a) the smallest that handles the
 *                 backlog within the frames left before the oldest message's
 *                 deadline and (b) the work arriving per frame at the measured
 *                 steady rate; from measured cost per message, drain interval
 *                 and arrival rate. At least floor_ns (light traffic is
 *                 handled at once), at most budget_max_ns (also when the
 *                 queue is half full). It never flushes, so there is no
 *                 flush-all hitch, and it spreads a burst over the frames its
 *                 deadline allows, so frames stay short where CLASSIC spends
 *                 20-40 ms. Its price: messages of a burst wait longer (up to
 *                 the target), a new steady stream waits up to ~target/2
 *                 until the rate estimate (1 s time constant) catches up, and
 *                 under overload beyond budget_max_ns per frame the age grows
 *                 and the queue fills rather than the frame time.
 *                 With a deadline (attached to a loop: its next render; or
 *                 tempo_netq_drain_until) a drain uses the time left before
 *                 it, and never more: idle time between frames costs no
 *                 frame time, and time past the deadline would be a late
 *                 frame. Only a queue half full spends budget_max_ns
 *                 regardless. The age target then holds while the frames
 *                 leave time for the work (bench_game: a 21 ms burst of
 *                 10 000 messages in two frames at 60 Hz, the oldest 24-30
 *                 ms old, no frame longer than the machine's noise).
 *                 Without a deadline (tempo_netq_drain) the budget is
 *                 planned from estimates (the first drain re-plans once
 *                 its first 32 messages are timed; budget_start_ns until
 *                 then) and from what is queued, and a drain also goes on
 *                 while what is left, and (within the budget) what was
 *                 pushed meanwhile, would be older than the target if left
 *                 to the next drain (at the next frame, handled at the
 *                 measured cost), up to budget_max_ns in the frame.
 *   CLASSIC       the classic algorithm (the seed), all five numbers in the
 *                 descriptor: budget starts at 20 ms; every frame it moves
 *                 +1 ms if more than 100 messages are queued, else -1 ms
 *                 (empty frames included), clamped to [20, 40] ms; with more
 *                 than 300 queued the frame processes everything (a "flush").
 *                 It ignores deadlines.
 *   DRAIN_ALL     everything queued when the drain starts, no budget.
 *   FIXED_BUDGET  budget_start_ns every frame.
 *
 * Memory is bounded: the queue allocates cap_bytes once, at creation. A push
 * that does not fit fails with TEMPO_EFULL and counts an overflow; nothing is
 * ever dropped silently. tempo_netq_push_wait() instead waits for room (what
 * a network thread wants: it stops reading the socket and TCP flow control
 * pushes back on the sender).
 *
 * Thread rules: push, push_wait, shutdown, handle and get_stats are
 * "Thread: any"; drain, set_policy, create and destroy belong to the loop
 * thread (the one consumer).
 */
#ifndef TEMPO_NETQ_H
#define TEMPO_NETQ_H

#include "base.h"
#include "clock.h"
#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_netq tempo_netq;
typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

typedef enum tempo_netq_policy {
    TEMPO_NETQ_DEADLINE = 0,
    TEMPO_NETQ_CLASSIC,
    TEMPO_NETQ_DRAIN_ALL,
    TEMPO_NETQ_FIXED_BUDGET,
    TEMPO_NETQ_POLICY_COUNT
} tempo_netq_policy;

/* Bytes one message of `size` payload bytes takes in the queue: a 16-byte
 * header plus the payload rounded up to 16 (so every payload is 16-byte
 * aligned). Use it to size cap_bytes. */
#define TEMPO_NETQ_MSG_BYTES(size) (16u + (((size_t)(size) + 15u) & ~(size_t)15u))

/* Creation parameters; zero fields take the default written beside them. */
typedef struct tempo_netq_desc {
    size_t cap_bytes;          /* 0 => 4 MiB; rounded down to a multiple of 16,
                                  at least 64. Allocated once, at creation */
    tempo_netq_policy policy;  /* 0 => TEMPO_NETQ_DEADLINE */
    /* The budgets' defaults follow the fields that are set, so any one of
     * them can be given alone: only two fields that were both set can
     * contradict each other, and the error then names both. */
    uint64_t budget_start_ns;  /* 0 => 20 ms (within [min, max]): CLASSIC's first
                                  budget, FIXED's budget, DEADLINE's until it
                                  has measured */
    uint64_t budget_step_ns;   /* 0 => 1 ms: CLASSIC's change per frame */
    uint64_t budget_min_ns;    /* 0 => 20 ms (at most max): CLASSIC's lower clamp */
    uint64_t budget_max_ns;    /* 0 => 40 ms (at least min and floor): CLASSIC's
                                  upper clamp and DEADLINE's cap; also the line
                                  past which a drain counts as an overrun */
    uint32_t grow_backlog;     /* 0 => 100: CLASSIC grows the budget above it */
    uint32_t flush_backlog;    /* 0 => 300: CLASSIC flushes above it;
                                  UINT32_MAX never flushes */
    uint64_t target_age_ns;    /* 0 => 33 ms: DEADLINE's age target. Two frames
                                  at 60 Hz: a message pushed during one frame
                                  is handled by the end of the next, which is
                                  what a game wants from input and state
                                  updates. A fixed time, not "2 frames at the
                                  loop's rate": the queue works without a loop
                                  and the age is what the player notices. A
                                  burst too big for two frames at budget_max_ns
                                  waits longer (the cap wins over the age, see
                                  above). Before issue 21 the default was 200
                                  ms, which let messages wait 33-51 ms with
                                  frame time to spare; set 200 ms for that */
    uint64_t floor_ns;         /* 0 => 4 ms (at most max): DEADLINE always allows
                                  this much, so light traffic is handled at once */
    tempo_clock clock;         /* zero => tempo_now_ns. The same tempo_clock as the
                                  loop's and the loader's (tempo/clock.h): one fake
                                  clock drives all three. Read by every pushing
                                  thread (to stamp messages) and by the drain: it
                                  must be thread-safe (tempo_fake_clock is) */
} tempo_netq_desc;

/* One message, as the drain hands it to the handler. */
typedef struct tempo_netq_msg {
    uint32_t type;      /* as pushed */
    uint32_t size;      /* payload bytes */
    const void *data;   /* the payload, 16-byte aligned, owned by the queue and
                           valid only during the handler call; never NULL */
    uint64_t pushed_ns; /* the queue clock when it was pushed */
} tempo_netq_msg;

/* Called by tempo_netq_drain() once per message, on the loop thread, with
 * no queue lock held: it may push (also into this queue; such messages wait
 * for the next drain), and it may take as long as the game needs (the drain
 * checks the clock after it returns). It must not call tempo_netq_drain()
 * or tempo_netq_destroy() on the same queue (both are refused). */
typedef void (*tempo_netq_handler)(const tempo_netq_msg *msg, void *user);

typedef struct tempo_netq_stats {
    /* Now. */
    uint32_t backlog;         /* messages queued */
    size_t backlog_bytes;     /* queue bytes in use (headers and padding) */
    size_t cap_bytes;         /* the queue's capacity */
    uint64_t oldest_age_ns;   /* age of the oldest queued message; 0 if none */
    uint64_t budget_ns;       /* the policy's current budget (CLASSIC: the
                                 adaptive value; DRAIN_ALL: UINT64_MAX) */
    tempo_netq_policy policy;
    /* The last drain. */
    uint32_t last_processed;  /* messages it handled */
    uint64_t last_drain_ns;   /* time it took */
    uint64_t last_budget_ns;  /* budget it ran under (for the first drain of a
                                 frame: the frame's budget); UINT64_MAX =
                                 unlimited (a CLASSIC flush or DRAIN_ALL) */
    /* Since creation. */
    uint64_t pushed;          /* messages accepted */
    uint64_t processed;       /* messages handled */
    uint64_t drains;          /* drains that ran (calls, or the loop's dispatches) */
    uint64_t frames;          /* frames the policy has seen, empty ones included */
    uint64_t flushes;         /* CLASSIC drains that processed everything */
    uint64_t overruns;        /* drains that started a message after
                                 budget_max_ns had passed: only unlimited ones
                                 can (a budgeted drain stops at the first clock
                                 check past its budget) */
    uint64_t overflows;       /* tempo_netq_push() calls refused: TEMPO_EFULL */
    uint64_t full_waits;      /* tempo_netq_push_wait() calls that had to wait */
    uint32_t peak_backlog;    /* most messages queued at once */
    uint64_t max_age_ns;      /* oldest any message was when handled */
} tempo_netq_stats;

/* Creates a queue (desc NULL = all defaults). Returns it, owned by the
 * caller (free with tempo_netq_destroy), or NULL with the detail in
 * tempo_get_error(), which names the field(s) at fault: TEMPO_EINVAL for an
 * unknown policy, budget_min_ns above budget_max_ns, floor_ns above
 * budget_max_ns, budget_start_ns outside [budget_min_ns, budget_max_ns]
 * (each pair only when both were set), cap_bytes outside [64, 1 GiB];
 * TEMPO_ENOMEM. */
TEMPO_API tempo_netq *tempo_netq_create(const tempo_netq_desc *desc);

/* Frees the queue, its handle and every message still queued (they are not
 * handled). If attached, it leaves its loop first (destroying the loop
 * first is fine too). NULL is a no-op. No other thread may use the queue
 * any more: shut it down and join the producers first. From its own
 * handler (whichever drain called it: tempo_netq_drain, _drain_until or
 * the loop's) it does nothing but set TEMPO_EBUSY in tempo_get_error()
 * (with a WARN line: misuse): the drain goes on, an attached queue stays
 * attached; destroy it after the drain returns. */
TEMPO_API void tempo_netq_destroy(tempo_netq *q);

/* Copies a message (`size` bytes from `data`; data may be NULL when size is
 * 0) into the queue and stamps it with the queue clock. If the queue was
 * empty, signals its handle. Never blocks on the consumer (one short lock).
 * Returns 0, or:
 *   TEMPO_EFULL      no room now: the message is not queued and `overflows`
 *                    counts it (retry later, or use tempo_netq_push_wait);
 *   TEMPO_ERANGE     the message is bigger than the whole queue could ever
 *                    hold (TEMPO_NETQ_MSG_BYTES(size) > cap_bytes);
 *   TEMPO_ESHUTDOWN  tempo_netq_shutdown() was called;
 *   TEMPO_EINVAL     q NULL, or data NULL with size > 0.
 * Thread: any. */
TEMPO_API int tempo_netq_push(tempo_netq *q, uint32_t type, const void *data, size_t size);

/* Like tempo_netq_push(), but when the queue is full it waits passively until
 * a drain frees room, `cancel` (optional, any Tempo handle; an auto-reset
 * one is consumed) is signalled, or `timeout_ns` passes (TEMPO_INFINITE: no
 * limit). A full queue here is back-pressure, not an overflow: it counts in
 * `full_waits`. Returns 0, TEMPO_ECANCELED, TEMPO_ETIMEDOUT, TEMPO_ESHUTDOWN
 * (also when shut down while waiting), TEMPO_ERANGE or TEMPO_EINVAL.
 * Thread: any but the loop thread that drains (it would wait for itself). */
TEMPO_API int tempo_netq_push_wait(tempo_netq *q, uint32_t type, const void *data, size_t size,
                                   tempo_handle *cancel, uint64_t timeout_ns);

/* The queue's manual-reset event: signalled while messages are queued (see
 * the top of this header). Owned by the queue; do not set, reset or destroy
 * it. With a loop, attach the queue instead (tempo_netq_attach): the loop
 * then waits on this handle and drains it, paced. Do not tempo_loop_watch()
 * it: it stays signalled while messages remain, so a watch whose callback
 * leaves any makes the loop spin. Without a loop, tempo_wait() on it.
 * Thread: any. NULL if q is NULL. */
TEMPO_API tempo_handle *tempo_netq_handle(tempo_netq *q);

/* Makes the queue a source of `loop` (tempo_loop_add_source, named "netq"):
 * from the next frame on the loop calls fn(msg, user) for the messages, on
 * the loop thread, as described at the top of this header, and shows the
 * queue in its statistics and overlay. Leave with tempo_netq_detach(); the
 * queue also leaves when the loop is destroyed or the queue is.
 * Do not call tempo_netq_drain/_drain_until on an attached queue.
 * Returns 0, TEMPO_EINVAL (NULL argument), TEMPO_EBUSY (already attached)
 * or TEMPO_ETOOMANY (the loop has no source slot left). Thread: loop thread. */
TEMPO_API int tempo_netq_attach(tempo_netq *q, tempo_loop *loop, tempo_netq_handler fn, void *user);

/* Removes the queue from its loop's sources. Returns 0, TEMPO_EINVAL (NULL,
 * not attached) or TEMPO_EBUSY (from its own handler). Thread: loop thread. */
TEMPO_API int tempo_netq_detach(tempo_netq *q);

/* Handles queued messages in FIFO order (one FIFO for all producers, so the
 * order of each producer's messages is kept), under the current policy's
 * budget; only messages queued when the drain starts are handled. For a game
 * that runs its own main loop: call it exactly once per frame, every frame,
 * also when the handle is not signalled, because each call is one "frame"
 * for the policy (CLASSIC steps its budget down in empty frames too).
 * The handler is not called if the drain fails.
 * Returns the number of messages handled (0 if none were queued), or
 * TEMPO_EINVAL (q or fn NULL), TEMPO_EBUSY (called from its own handler, or
 * the queue is attached to a loop). Thread: the loop thread (one consumer). */
TEMPO_API int tempo_netq_drain(tempo_netq *q, tempo_netq_handler fn, void *user);

/* tempo_netq_drain() for a loop that knows when its next frame is due
 * (`deadline_ns`, on the queue's clock): DEADLINE uses the time left
 * before it, no less and no more (at least one message; a queue half full
 * spends budget_max_ns); the other policies are unchanged. One call per frame, like tempo_netq_drain().
 * Returns as tempo_netq_drain(). Thread: the loop thread. */
TEMPO_API int tempo_netq_drain_until(tempo_netq *q, tempo_netq_handler fn, void *user, uint64_t deadline_ns);

/* Switches policy from the next frame on; CLASSIC restarts from
 * budget_start_ns and DEADLINE keeps what it has measured.
 * Returns 0 or TEMPO_EINVAL. Thread: the loop thread. */
TEMPO_API int tempo_netq_set_policy(tempo_netq *q, tempo_netq_policy policy);

/* Short lower-case name: "classic", "drain-all", "fixed", "deadline", or
 * "?" for an unknown value. Thread: any. */
TEMPO_API const char *tempo_netq_policy_name(tempo_netq_policy policy);

/* Stops accepting messages: every later push fails with TEMPO_ESHUTDOWN and
 * pushes waiting for room return it. Messages already queued stay and can
 * still be drained. Idempotent. Thread: any. */
TEMPO_API void tempo_netq_shutdown(tempo_netq *q);

/* Fills *out with a consistent snapshot. Returns 0 or TEMPO_EINVAL.
 * Thread: any. */
TEMPO_API int tempo_netq_get_stats(tempo_netq *q, tempo_netq_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_NETQ_H */
