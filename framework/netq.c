/* The throttled network message queue (tempo/netq.h).
 *
 * Storage is one byte ring of cap_bytes, allocated at creation: a push is a
 * lock, a memcpy and an unlock, with no allocation, and the cap is exact.
 * Records are a 16-byte header plus the payload rounded up to 16, so every
 * header and payload is 16-byte aligned and the gap left at the end of the
 * ring when a record wraps is always a whole number of headers: it is marked
 * with a PAD header (size == PAD_SIZE).
 *
 * The consumer hands the handler a pointer into the ring, without the lock:
 * a record is released (and its bytes become writable) only after its
 * handler returns, and producers write only into free bytes, so the record
 * cannot change under the handler. Each step of the drain takes the lock
 * once, to release the previous record and look at the next.
 *
 * Locking: `lock` guards the ring, the counters and `pub` (the consumer's
 * published statistics). Fields under "[loop thread]" are touched only by
 * the drain and set_policy. Event calls (tempo_event_set/reset) are made
 * outside the lock except the drain's "reset when empty", which must be
 * under it: a producer that pushes after the emptiness check must find the
 * event reset before it sets it, or its wake-up would be lost.
 *
 * The struct is in netq_internal.h, for netq_source.c (tempo_netq_attach),
 * whose dispatch drains the queue through tempo__netq_drain.
 */
#include <stdlib.h>
#include <string.h>

#include "netq_internal.h"
#include "platform.h"
#include "sources_internal.h"
#include "tempo/loop.h"
#include "tempo/netq.h"
#include "tempo_internal.h"

#define MS TEMPO_NS_PER_MS
#define HDR 16u
#define PAD_SIZE UINT32_MAX
/* Larger caps gain nothing for a network queue and would let record sizes
 * approach the 32-bit size field. */
#define CAP_LIMIT ((size_t)1 << 30)
#define UNLIMITED UINT64_MAX

typedef struct rec_hdr {
    uint32_t type;
    uint32_t size; /* payload bytes, or PAD_SIZE: skip to the end of the ring */
    uint64_t pushed_ns;
} rec_hdr;

_Static_assert(sizeof(rec_hdr) == HDR, "record header is 16 bytes");

static uint64_t default_clock(void *user)
{
    (void)user;
    return tempo_now_ns();
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static size_t rec_bytes(size_t size)
{
    return TEMPO_NETQ_MSG_BYTES(size);
}

static rec_hdr *hdr_at(tempo_netq *q, size_t off)
{
    return (rec_hdr *)(void *)(q->buf + off);
}

const char *tempo_netq_policy_name(tempo_netq_policy policy)
{
    switch (policy) {
    case TEMPO_NETQ_CLASSIC:
        return "classic";
    case TEMPO_NETQ_DRAIN_ALL:
        return "drain-all";
    case TEMPO_NETQ_FIXED_BUDGET:
        return "fixed";
    case TEMPO_NETQ_DEADLINE:
        return "deadline";
    default:
        return "?";
    }
}

tempo_netq *tempo_netq_create(const tempo_netq_desc *desc)
{
    tempo_netq_desc d = desc ? *desc : (tempo_netq_desc){0};
    /* Errors name exactly the field at fault: a default never contradicts
     * a field that was set (it gives way), so only two set fields can clash. */
    if ((unsigned)d.policy >= TEMPO_NETQ_POLICY_COUNT) {
        tempo__set_error(TEMPO_EINVAL, "tempo_netq_create: policy %d is not a tempo_netq_policy", (int)d.policy);
        return NULL;
    }
    if (d.cap_bytes != 0 && (d.cap_bytes < 64 || d.cap_bytes > CAP_LIMIT)) {
        tempo__set_error(TEMPO_EINVAL, "tempo_netq_create: cap_bytes %zu outside [64, 1 GiB]", d.cap_bytes);
        return NULL;
    }
    if (d.budget_min_ns && d.budget_max_ns && d.budget_min_ns > d.budget_max_ns) {
        tempo__set_error(TEMPO_EINVAL, "tempo_netq_create: budget_min_ns %llu above budget_max_ns %llu",
                         (unsigned long long)d.budget_min_ns, (unsigned long long)d.budget_max_ns);
        return NULL;
    }
    if (d.floor_ns && d.budget_max_ns && d.floor_ns > d.budget_max_ns) {
        tempo__set_error(TEMPO_EINVAL, "tempo_netq_create: floor_ns %llu above budget_max_ns %llu",
                         (unsigned long long)d.floor_ns, (unsigned long long)d.budget_max_ns);
        return NULL;
    }
    if (d.budget_start_ns && d.budget_min_ns && d.budget_start_ns < d.budget_min_ns) {
        tempo__set_error(TEMPO_EINVAL, "tempo_netq_create: budget_start_ns %llu below budget_min_ns %llu",
                         (unsigned long long)d.budget_start_ns, (unsigned long long)d.budget_min_ns);
        return NULL;
    }
    if (d.budget_start_ns && d.budget_max_ns && d.budget_start_ns > d.budget_max_ns) {
        tempo__set_error(TEMPO_EINVAL, "tempo_netq_create: budget_start_ns %llu above budget_max_ns %llu",
                         (unsigned long long)d.budget_start_ns, (unsigned long long)d.budget_max_ns);
        return NULL;
    }
    if (d.cap_bytes == 0)
        d.cap_bytes = (size_t)4 << 20;
    d.cap_bytes &= ~(size_t)15;
    if (!d.budget_max_ns) {
        /* At least 40 ms, and at least every set field it caps. */
        uint64_t m = 40 * MS;
        if (d.budget_min_ns > m)
            m = d.budget_min_ns;
        if (d.budget_start_ns > m)
            m = d.budget_start_ns;
        if (d.floor_ns > m)
            m = d.floor_ns;
        d.budget_max_ns = m;
    }
    if (!d.budget_min_ns) {
        uint64_t m = 20 * MS;
        if (m > d.budget_max_ns)
            m = d.budget_max_ns;
        if (d.budget_start_ns && m > d.budget_start_ns)
            m = d.budget_start_ns;
        d.budget_min_ns = m;
    }
    if (!d.budget_start_ns)
        d.budget_start_ns = clamp_u64(20 * MS, d.budget_min_ns, d.budget_max_ns);
    if (!d.budget_step_ns)
        d.budget_step_ns = 1 * MS;
    if (!d.grow_backlog)
        d.grow_backlog = 100;
    if (!d.flush_backlog)
        d.flush_backlog = 300;
    if (!d.target_age_ns)
        d.target_age_ns = 33 * MS; /* two 60 Hz frames (netq.h) */
    if (!d.floor_ns)
        d.floor_ns = 4 * MS < d.budget_max_ns ? 4 * MS : d.budget_max_ns;

    tempo_netq *q = calloc(1, sizeof *q);
    if (q == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_netq_create: out of memory");
        return NULL;
    }
    q->buf = malloc(d.cap_bytes);
    q->lock = plat_mutex_create();
    q->ready = tempo_event_create(true, false);
    q->room = tempo_event_create(false, false);
    if (q->buf == NULL || q->lock == NULL || q->ready == NULL || q->room == NULL) {
        if (q->buf == NULL)
            tempo__set_error(TEMPO_ENOMEM, "tempo_netq_create: cannot allocate %zu bytes", d.cap_bytes);
        tempo_netq_destroy(q);
        return NULL;
    }
    q->cap = d.cap_bytes;
    q->d = d;
    q->now = d.clock.now != NULL ? d.clock.now : default_clock;
    q->clock_user = d.clock.now != NULL ? d.clock.user : NULL;
    q->policy = d.policy;
    q->budget = d.budget_start_ns;
    q->pub.policy = d.policy;
    q->pub.budget_ns = d.policy == TEMPO_NETQ_DRAIN_ALL ? UNLIMITED : d.budget_start_ns;
    return q;
}

void tempo_netq_destroy(tempo_netq *q)
{
    if (q == NULL)
        return;
    /* From a handler, whichever drain called it (the loop's or the game's):
     * the drain reads the queue after the handler returns. */
    if (q->draining) {
        tempo__set_error(TEMPO_EBUSY, "tempo_netq_destroy called from the queue's own handler: ignored "
                                      "(destroy it after the drain returns)");
        return;
    }
    if (tempo__attachment_leave(&q->at, q, "tempo_netq_destroy") < 0)
        return; /* the loop must not wait on a freed handle */
    /* Queued messages live in the ring: freeing it frees them. */
    free(q->buf);
    if (q->lock)
        plat_mutex_destroy(q->lock);
    tempo_event_destroy(q->ready);
    tempo_event_destroy(q->room);
    free(q);
}

tempo_handle *tempo_netq_handle(tempo_netq *q)
{
    return q ? q->ready : NULL;
}

/* [lock held, any thread] Reserves `need` bytes for a record; returns its
 * offset or SIZE_MAX when there is no room. */
static size_t reserve_locked(tempo_netq *q, size_t need)
{
    if (q->count == 0) {
        /* Empty: restart at the front so any record up to cap fits. The
         * consumer holds no pointer into the ring when count is 0. */
        q->head = q->tail = 0;
        q->used = 0;
        return 0;
    }
    if (q->head > q->tail) {
        if (need <= q->cap - q->head)
            return q->head;
        if (need <= q->tail) {
            /* Wrap: mark the unused end (a multiple of 16, at least one
             * header since head < cap) so the consumer skips it. */
            rec_hdr *pad = hdr_at(q, q->head);
            pad->type = 0;
            pad->size = PAD_SIZE;
            pad->pushed_ns = 0;
            q->used += q->cap - q->head;
            return 0;
        }
        return SIZE_MAX;
    }
    /* head <= tail with records queued: the free bytes are [head, tail)
     * (none when head == tail: the ring is full). */
    if (need <= q->tail - q->head)
        return q->head;
    return SIZE_MAX;
}

/* [lock held, any thread] Returns 0, TEMPO_EFULL, TEMPO_ESHUTDOWN or
 * TEMPO_ERANGE; *was_empty tells the caller to signal the handle. */
static int push_locked(tempo_netq *q, uint32_t type, const void *data, size_t size, uint64_t now,
                       bool *was_empty)
{
    *was_empty = false;
    if (q->shut)
        return TEMPO_ESHUTDOWN;
    if (size > q->cap || rec_bytes(size) > q->cap)
        return TEMPO_ERANGE;
    size_t need = rec_bytes(size);
    size_t at = reserve_locked(q, need);
    if (at == SIZE_MAX)
        return TEMPO_EFULL;
    rec_hdr *h = hdr_at(q, at);
    h->type = type;
    h->size = (uint32_t)size;
    h->pushed_ns = now;
    if (size > 0)
        memcpy(q->buf + at + HDR, data, size);
    q->head = at + need;
    if (q->head == q->cap)
        q->head = 0;
    q->used += need;
    *was_empty = q->count == 0;
    q->count++;
    q->pushed++;
    if (q->count > q->peak)
        q->peak = q->count;
    return 0;
}

/* The detail of a push that failed with r (push_locked's codes): returned
 * to the producer, which decides (retry, drop its own, wait), so DEBUG. */
static int push_failed(const tempo_netq *q, const char *fn, int r, size_t size)
{
    switch (r) {
    case TEMPO_ESHUTDOWN:
        return tempo__set_error_at(TEMPO_LOG_DEBUG, r, "%s: the queue is shut down", fn);
    case TEMPO_ERANGE:
        return tempo__set_error_at(TEMPO_LOG_DEBUG, r, "%s: a %zu-byte message can never fit the %zu-byte queue",
                                   fn, size, q->cap);
    case TEMPO_EFULL:
        return tempo__set_error_at(TEMPO_LOG_DEBUG, r, "%s: no room now for %zu bytes (cap %zu)", fn, size, q->cap);
    default: return r;
    }
}

int tempo_netq_push(tempo_netq *q, uint32_t type, const void *data, size_t size)
{
    if (q == NULL || (data == NULL && size > 0))
        return tempo__set_error(TEMPO_EINVAL, "tempo_netq_push: %s",
                                q == NULL ? "the queue is NULL" : "data is NULL with a size");
    uint64_t now = q->now(q->clock_user);
    bool was_empty;
    plat_mutex_lock(q->lock);
    int r = push_locked(q, type, data, size, now, &was_empty);
    if (r == TEMPO_EFULL)
        q->overflows++;
    plat_mutex_unlock(q->lock);
    if (was_empty)
        tempo_event_set(q->ready);
    return r != 0 ? push_failed(q, "tempo_netq_push", r, size) : 0;
}

int tempo_netq_push_wait(tempo_netq *q, uint32_t type, const void *data, size_t size, tempo_handle *cancel,
                         uint64_t timeout_ns)
{
    if (q == NULL || (data == NULL && size > 0))
        return tempo__set_error(TEMPO_EINVAL, "tempo_netq_push_wait: %s",
                                q == NULL ? "the queue is NULL" : "data is NULL with a size");
    /* The wait runs on the real clock whatever the queue's clock is. */
    uint64_t deadline = TEMPO_INFINITE;
    if (timeout_ns != TEMPO_INFINITE) {
        uint64_t t0 = tempo_now_ns();
        deadline = timeout_ns > UINT64_MAX - 1 - t0 ? UINT64_MAX - 1 : t0 + timeout_ns;
    }
    bool waiting = false, counted = false;
    for (;;) {
        uint64_t now = q->now(q->clock_user);
        bool was_empty, chain = false;
        plat_mutex_lock(q->lock);
        if (waiting) {
            q->room_waiters--;
            waiting = false;
        }
        int r = push_locked(q, type, data, size, now, &was_empty);
        if (r == TEMPO_EFULL) {
            if (!counted)
                q->full_waits++;
            counted = true;
            q->room_waiters++;
            waiting = true;
        } else {
            /* The room event is auto-reset and wakes one waiter per signal:
             * pass the wake on, so a drain that freed room for several
             * waiters (or a shutdown) reaches them all. */
            chain = q->room_waiters > 0;
        }
        plat_mutex_unlock(q->lock);
        if (r != TEMPO_EFULL) {
            if (was_empty)
                tempo_event_set(q->ready);
            if (chain)
                tempo_event_set(q->room);
            return r != 0 ? push_failed(q, "tempo_netq_push_wait", r, size) : 0;
        }

        tempo_handle *set[2] = {q->room, cancel};
        uint64_t t = tempo_now_ns();
        int w = TEMPO_ETIMEDOUT;
        if (deadline == TEMPO_INFINITE || t < deadline)
            w = tempo_wait(set, cancel ? 2 : 1, deadline == TEMPO_INFINITE ? TEMPO_INFINITE : deadline - t, 0);
        if (w != 0) {
            plat_mutex_lock(q->lock);
            q->room_waiters--;
            plat_mutex_unlock(q->lock);
            if (w == 1)
                return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ECANCELED,
                                           "tempo_netq_push_wait: cancelled while waiting for room");
            if (w == TEMPO_ETIMEDOUT)
                return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ETIMEDOUT,
                                           "tempo_netq_push_wait: no room for %zu bytes within the timeout", size);
            return w; /* tempo_wait set the detail */
        }
    }
}

void tempo_netq_shutdown(tempo_netq *q)
{
    if (q == NULL)
        return;
    plat_mutex_lock(q->lock);
    q->shut = true;
    bool wake = q->room_waiters > 0;
    plat_mutex_unlock(q->lock);
    if (wake)
        tempo_event_set(q->room);
}

int tempo_netq_set_policy(tempo_netq *q, tempo_netq_policy policy)
{
    if (q == NULL || (unsigned)policy >= TEMPO_NETQ_POLICY_COUNT)
        return q == NULL ? tempo__set_error(TEMPO_EINVAL, "tempo_netq_set_policy: the queue is NULL")
                         : tempo__set_error(TEMPO_EINVAL, "tempo_netq_set_policy: policy %d out of range",
                                            (int)policy);
    q->policy = policy;
    q->budget = q->d.budget_start_ns;
    q->frame_flush = false;
    q->frame_budget = 0; /* a frame under the old policy ends here */
    plat_mutex_lock(q->lock);
    q->pub.policy = policy;
    q->pub.budget_ns = policy == TEMPO_NETQ_DRAIN_ALL ? UNLIMITED : q->budget;
    plat_mutex_unlock(q->lock);
    return 0;
}

/* [lock held] The oldest queued record (skipping a wrap pad), or NULL. */
static const rec_hdr *oldest_locked(tempo_netq *q)
{
    if (q->count == 0)
        return NULL;
    const rec_hdr *h = hdr_at(q, q->tail);
    return h->size == PAD_SIZE ? hdr_at(q, 0) : h;
}

/* [lock held, loop thread] Gives back the bytes of `count` handled records
 * (`bytes` including wrap pads) ending at `cursor`. */
static void release_locked(tempo_netq *q, size_t cursor, size_t bytes, uint32_t count)
{
    q->tail = cursor == q->cap ? 0 : cursor;
    q->used -= bytes;
    q->count -= count;
    q->pub.processed += count;
    if (q->count == 0)
        q->head = q->tail = q->used = 0;
}

/* DEADLINE's first drain re-plans after timing this many messages. */
#define REPLAN_AFTER 32

/* DEADLINE's budget for a drain that begins with n messages queued, the
 * oldest `age` old, at `cost` ns each.
 * Spread: the smallest steady budget that handles all n within the frames
 * left before the oldest one's deadline (one frame of margin for
 * estimation error); conservative, as younger messages have more slack
 * than the oldest.
 * Keep up: at least the work arriving per frame at the measured steady
 * rate, so a steady load is handled as it comes instead of being deferred
 * to the deadline (which would add latency and save no frame time).
 * A caller that gives a deadline gets the time before it instead (drain). */
static uint64_t deadline_budget(const tempo_netq *q, double cost, uint32_t n, uint64_t age)
{
    const tempo_netq_desc *d = &q->d;
    double frame = q->interval_ns > 0 ? q->interval_ns : 1e9 / 60;
    double slack = age < d->target_age_ns ? (double)(d->target_age_ns - age) : 0;
    double frames_left = slack / frame - 1 < 1 ? 1 : slack / frame - 1;
    double spread = cost * (double)n / frames_left;
    double keep_up = cost * q->rate_per_ns * frame;
    double need = spread > keep_up ? spread : keep_up;
    if (need >= (double)d->budget_max_ns)
        return d->budget_max_ns;
    return clamp_u64((uint64_t)need, d->floor_ns, d->budget_max_ns);
}

/* [loop thread] The budget for a drain that starts at `now` with `n`
 * messages queued, the oldest `age` old, `pushed` accepted so far. UNLIMITED
 * means "all n". */
static uint64_t plan(tempo_netq *q, uint64_t now, uint32_t n, uint64_t age, uint64_t pushed, size_t used,
                     bool *flush)
{
    const tempo_netq_desc *d = &q->d;
    *flush = false;

    /* DEADLINE's measurements run under every policy, so switching to it
     * live starts from real numbers.
     * Frame interval: EWMA over ~8 drains (like TCP's RTT estimator),
     * measured only after a drain that left a backlog (the loop came back
     * one frame later, not whenever a message arrived after idling).
     * Arrival rate: weighted by elapsed time with a 1 s time constant, so
     * idle gaps pull it down and a single burst barely moves it (drains
     * happen mostly when busy; a per-drain average would remember only the
     * busy times). */
    if (q->have_start && now > q->last_start) {
        double dt = (double)(now - q->last_start);
        if (q->left_backlog)
            q->interval_ns = q->interval_ns == 0 ? dt : q->interval_ns + (dt - q->interval_ns) / 8;
        double rate = (double)(pushed - q->last_pushed) / dt;
        q->rate_per_ns += (rate - q->rate_per_ns) * dt / (dt + 1e9);
    }
    q->have_start = true;
    q->last_start = now;
    q->last_pushed = pushed;

    switch (q->policy) {
    case TEMPO_NETQ_CLASSIC:
        if (n > d->grow_backlog)
            q->budget = q->budget > UINT64_MAX - d->budget_step_ns ? UINT64_MAX : q->budget + d->budget_step_ns;
        else
            q->budget = q->budget > d->budget_step_ns ? q->budget - d->budget_step_ns : 0;
        q->budget = clamp_u64(q->budget, d->budget_min_ns, d->budget_max_ns);
        if (n > d->flush_backlog) {
            *flush = true;
            return UNLIMITED;
        }
        return q->budget;
    case TEMPO_NETQ_DRAIN_ALL:
        return UNLIMITED;
    case TEMPO_NETQ_FIXED_BUDGET:
        return d->budget_start_ns;
    case TEMPO_NETQ_DEADLINE:
    default: {
        if (!q->have_cost)
            return clamp_u64(d->budget_start_ns, d->floor_ns, d->budget_max_ns);
        /* The queue is half full: spend the cap now, before pushes fail. */
        if (used > q->cap / 2)
            return d->budget_max_ns;
        return deadline_budget(q, q->cost_ns, n, age);
    }
    }
}

/* Records are released to producers in batches of this many (one lock per
 * batch instead of per message). Small enough that producers see room soon;
 * a budget-limited drain releases at its end anyway. */
#define RELEASE_BATCH 32

/* [loop thread] CLASSIC's steps for frames that had no drain: nothing was
 * queued then (a loop drains every frame that has messages), so each
 * stepped the budget down. Stepping down k times and clamping once equals
 * clamping after each step. */
static void classic_empty_frames(tempo_netq *q, uint64_t k)
{
    const tempo_netq_desc *d = &q->d;
    if (k == 0)
        return;
    uint64_t down = k > UINT64_MAX / d->budget_step_ns ? UINT64_MAX : k * d->budget_step_ns;
    q->budget = q->budget > down ? q->budget - down : 0;
    q->budget = clamp_u64(q->budget, d->budget_min_ns, d->budget_max_ns);
}

/* [loop thread] DEADLINE: would the `left` records from the one at
 * `cursor` (the rest of the drain's snapshot), the first pushed at
 * first_pushed_ns, be older than the target by the time the next drain (at
 * the next frame: the first drain interval after `start` that lies after
 * `t`) has handled them at `per` ns each? (An upper
 * bound: the last of them is the youngest.) The plan sizes a drain from an
 * estimate of the cost (none before the first drain: budget_start_ns) and
 * from the messages queued when it began; this corrects it at the end of
 * the budget. (bench_game's burst: 10 000 messages of 2-3 us at once, the
 * first drain stopped at its 20 ms and the last ~900 waited for the next
 * frame: 36 ms old.) */
static bool late_next_drain(const tempo_netq *q, uint64_t first_pushed_ns, uint32_t left, uint64_t start,
                            uint64_t t, double per)
{
    /* The next drain begins with the next frame: a whole number of drain
     * intervals after this one began, the first that is still ahead (a
     * drain that outlasted its frame pushed the next one back). */
    double frame = q->interval_ns > 0 ? q->interval_ns : 1e9 / 60;
    double next = (double)start + frame * (floor((double)(t - start) / frame) + 1);
    double done_at = next + per * left;
    return done_at - (double)first_pushed_ns > (double)q->d.target_age_ns;
}

static bool next_misses_target(tempo_netq *q, size_t cursor, uint32_t left, uint64_t start, uint64_t t, double per)
{
    if (cursor == q->cap)
        cursor = 0;
    const rec_hdr *h = hdr_at(q, cursor);
    if (h->size == PAD_SIZE)
        h = hdr_at(q, 0);
    return late_next_drain(q, h->pushed_ns, left, start, t, per);
}

/* [loop thread] The drain itself; `out` (optional) gets the items and the
 * oldest age for the loop's statistics. */
int tempo__netq_drain(tempo_netq *q, tempo_netq_handler fn, void *user, const tempo__netq_drain_args *a,
                      tempo_source_call *out)
{
    if (q->draining)
        return TEMPO_EBUSY;
    q->draining = true;

    uint64_t start = q->now(q->clock_user);
    plat_mutex_lock(q->lock);
    uint32_t n = q->count;
    const rec_hdr *h = oldest_locked(q);
    uint64_t age = h && start > h->pushed_ns ? start - h->pushed_ns : 0;
    uint64_t pushed = q->pushed;
    size_t used = q->used, cursor = q->tail;
    plat_mutex_unlock(q->lock);

    bool flush = false;
    uint64_t budget;
    if (a->new_frame) {
        if (q->policy == TEMPO_NETQ_CLASSIC)
            classic_empty_frames(q, a->empty_frames);
        q->frames += a->empty_frames + 1;
        budget = plan(q, start, n, age, pushed, used, &flush);
        q->frame_budget = budget;
        q->frame_spent = 0;
        q->frame_flush = flush;
    } else if (q->policy == TEMPO_NETQ_DRAIN_ALL) {
        budget = UNLIMITED;
    } else if (q->frame_flush || q->frame_budget <= q->frame_spent) {
        budget = 0; /* the frame's budget is spent */
    } else {
        budget = q->frame_budget == UNLIMITED ? UNLIMITED : q->frame_budget - q->frame_spent;
    }
    /* DEADLINE with the caller's next frame as its deadline uses the time
     * before it, no less (idle time costs no frame time and lowers the
     * messages' age) and no more (the deadline is the frame's: time past
     * it is a late frame, which the player sees where a message a frame
     * older is not). A queue half full (pushes about to fail) spends at
     * least its planned budget. */
    bool deadline = q->policy == TEMPO_NETQ_DEADLINE && budget != UNLIMITED;
    bool half_full = used > q->cap / 2;
    bool paced = deadline && a->to_deadline != UNLIMITED && !half_full;
    if (paced)
        budget = a->to_deadline;
    else if (deadline && a->to_deadline != UNLIMITED && a->to_deadline > budget)
        budget = a->to_deadline;
    if (budget == 0 && !a->must_progress)
        n = 0;

    /* The n records from the tail were all written before the snapshot
     * above (under the lock), and producers write only outside
     * [tail, head): walk them without the lock. */
    uint32_t done = 0, batch = 0;
    size_t batch_bytes = 0;
    uint64_t t = start, max_age = 0;
    bool overrun = false;
    bool replan = deadline && a->to_deadline == UNLIMITED && !half_full && a->new_frame && !q->have_cost &&
                  n > REPLAN_AFTER;
    for (;;) {
        while (done < n) {
            if (cursor == q->cap) /* the last record ended exactly at the end */
                cursor = 0;
            h = hdr_at(q, cursor);
            if (h->size == PAD_SIZE) {
                batch_bytes += q->cap - cursor;
                cursor = 0;
                h = hdr_at(q, 0);
            }
            tempo_netq_msg m = {h->type, h->size, (const unsigned char *)h + HDR, h->pushed_ns};
            if (t > h->pushed_ns && t - h->pushed_ns > max_age)
                max_age = t - h->pushed_ns;
            if (t - start > q->d.budget_max_ns)
                overrun = true;
            fn(&m, user);
            t = q->now(q->clock_user);
            done++;
            /* DEADLINE planned without a cost (budget_start_ns, 20 ms) and
             * without a caller's deadline: once the first messages are
             * timed, plan again from what they cost, as the next drains
             * will (a target of several frames then spreads the first
             * drain too). */
            if (replan && done == REPLAN_AFTER) {
                replan = false;
                plat_mutex_lock(q->lock); /* and what was pushed since the drain began */
                uint64_t arrived = q->pushed - pushed;
                plat_mutex_unlock(q->lock);
                uint32_t all = n + (uint32_t)(arrived < UINT32_MAX - n ? arrived : UINT32_MAX - n);
                uint64_t again = deadline_budget(q, (double)(t - start) / done, all, age);
                budget = again > t - start ? again : t - start;
                q->frame_budget = budget;
            }
            batch++;
            batch_bytes += rec_bytes(m.size);
            cursor += rec_bytes(m.size);
            bool stop = budget != UNLIMITED && t - start >= budget;
            if (stop && q->policy == TEMPO_NETQ_DEADLINE && !paced && done < n &&
                q->frame_spent + (t - start) < q->d.budget_max_ns &&
                next_misses_target(q, cursor, n - done, start, t, q->have_cost ? q->cost_ns : (double)(t - start) / done))
                stop = false; /* the next drain would handle it too late: handle it now */
            if (batch == RELEASE_BATCH && !stop && done < n) {
                plat_mutex_lock(q->lock);
                release_locked(q, cursor, batch_bytes, batch);
                plat_mutex_unlock(q->lock);
                batch = 0;
                batch_bytes = 0;
            }
            if (stop)
                break;
        }
        /* DEADLINE: what was pushed while this drain ran (a burst still being
         * pushed) is taken too, while the budget lasts, when leaving it to the
         * next drain would make it older than the target (not otherwise: a
         * drain that ends early leaves the frame its time). The handled
         * records are released first, so [tail, head) is again what the
         * producers have finished writing. */
        if (done < n || q->policy != TEMPO_NETQ_DEADLINE || budget == UNLIMITED || t - start >= budget)
            break;
        plat_mutex_lock(q->lock);
        if (batch > 0)
            release_locked(q, cursor, batch_bytes, batch);
        uint32_t more = q->count;
        const rec_hdr *first = oldest_locked(q);
        uint64_t first_pushed = first != NULL ? first->pushed_ns : t;
        cursor = q->tail;
        plat_mutex_unlock(q->lock);
        batch = 0;
        batch_bytes = 0;
        double per = q->have_cost ? q->cost_ns : done > 0 ? (double)(t - start) / done : 0;
        if (more == 0 || !late_next_drain(q, first_pushed, more, start, t, per))
            break;
        n = done + more;
    }
    q->frame_spent += t - start;
    plat_mutex_lock(q->lock);
    if (batch > 0)
        release_locked(q, cursor, batch_bytes, batch);
    if (q->count == 0)
        tempo_event_reset(q->ready);
    q->left_backlog = q->count > 0;
    const rec_hdr *oldest = oldest_locked(q);
    uint64_t left_age = oldest && t > oldest->pushed_ns ? t - oldest->pushed_ns : 0;
    bool wake_room = done > 0 && q->room_waiters > 0;
    tempo_netq_stats *p = &q->pub;
    p->last_processed = done;
    p->last_drain_ns = t - start;
    p->last_budget_ns = budget;
    p->budget_ns = q->policy == TEMPO_NETQ_DRAIN_ALL ? UNLIMITED
                   : q->policy == TEMPO_NETQ_CLASSIC ? q->budget
                                                     : (budget == UNLIMITED ? q->d.budget_max_ns : budget);
    p->drains++;
    p->frames = q->frames;
    p->flushes += flush;
    p->overruns += overrun;
    if (max_age > p->max_age_ns)
        p->max_age_ns = max_age;
    plat_mutex_unlock(q->lock);
    if (wake_room)
        tempo_event_set(q->room);

    if (done > 0) {
        double per = (double)(t - start) / done;
        if (!q->have_cost)
            q->cost_ns = per;
        else
            q->cost_ns += (per - q->cost_ns) / 4;
        q->have_cost = true;
    }
    if (out != NULL) {
        out->items = done;
        out->oldest_age_ns = max_age > left_age ? max_age : left_age;
    }
    q->draining = false;
    return (int)done;
}

int tempo_netq_drain(tempo_netq *q, tempo_netq_handler fn, void *user)
{
    return tempo_netq_drain_until(q, fn, user, UNLIMITED);
}

int tempo_netq_drain_until(tempo_netq *q, tempo_netq_handler fn, void *user, uint64_t deadline_ns)
{
    if (q == NULL || fn == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_netq_drain_until: %s",
                                q == NULL ? "the queue is NULL" : "the handler is NULL");
    if (q->at.loop != NULL) /* the loop drains it: two consumers' frames would mix */
        return tempo__set_error(TEMPO_EBUSY, "tempo_netq_drain_until: the queue is attached to a loop, which "
                                             "drains it");
    tempo__netq_drain_args a = {.new_frame = true, .to_deadline = UNLIMITED, .must_progress = true};
    if (deadline_ns != UNLIMITED) {
        uint64_t now = q->now(q->clock_user);
        a.to_deadline = deadline_ns > now ? deadline_ns - now : 0;
    }
    return tempo__netq_drain(q, fn, user, &a, NULL);
}

int tempo_netq_get_stats(tempo_netq *q, tempo_netq_stats *out)
{
    if (q == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_netq_get_stats: the %s is NULL", q == NULL ? "queue" : "out");
    uint64_t now = q->now(q->clock_user);
    plat_mutex_lock(q->lock);
    *out = q->pub;
    out->backlog = q->count;
    out->backlog_bytes = q->used;
    out->cap_bytes = q->cap;
    out->oldest_age_ns = 0;
    if (q->count > 0) {
        const rec_hdr *h = hdr_at(q, q->tail);
        if (h->size == PAD_SIZE)
            h = hdr_at(q, 0);
        out->oldest_age_ns = now > h->pushed_ns ? now - h->pushed_ns : 0;
    }
    out->pushed = q->pushed;
    out->overflows = q->overflows;
    out->full_waits = q->full_waits;
    out->peak_backlog = q->peak;
    plat_mutex_unlock(q->lock);
    return 0;
}
